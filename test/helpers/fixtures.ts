/**
 * Paths of the clips in `test/fixtures/` (see its README), as file-system paths (spaces and all), for tests and
 * benchmarks alike: `fixture('goforward.wav')`.
 */
import { fileURLToPath } from 'node:url';

export const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
