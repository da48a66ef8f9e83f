#!/usr/bin/env node
// The `speechgate` command (package.json `bin`). In a checkout it runs the TypeScript source through tsx's loader,
// as the rest of the repository runs; a packed package (npm pack, which compiles the CLI into dist/ and ships no
// TypeScript) runs the compiled CLI: no loader, a fraction of a second to start.
import { existsSync } from 'node:fs';

if (existsSync(new URL('./main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
} else {
  await import(new URL('../../dist/cli/main.js', import.meta.url).href);
}
