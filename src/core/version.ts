/** This build's version, the package's (package.json): /v1/health, the OpenAPI document, the CLI and MCP say it. */
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
