/**
 * Paths of the clips in `test/fixtures/` (see its README), as file-system paths (spaces and all), for tests and
 * benchmarks alike: `fixture('goforward.wav')`.
 */
import { fileURLToPath } from 'node:url';

export const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** Polls `check` until it holds (or throws its last failure after `timeoutMs`): for effects that follow an answer. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
