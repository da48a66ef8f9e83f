/**
 * The package's version (package.json), for the CLI's --version and User-Agent; Node only (the SDK's browser bundle
 * does not import it).
 */
import { createRequire } from 'node:module';

export const SDK_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
