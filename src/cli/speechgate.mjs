#!/usr/bin/env node
// The `speechgate` command (package.json `bin`). The CLI is TypeScript run from source like the rest of the
// package (the SDK's export is its TypeScript source too): tsx's loader is registered first, then main.ts runs.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
