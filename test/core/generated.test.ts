/**
 * The generated code is committed (src/generated: the Prisma client, Pothos types, typed GraphQL documents, the OpenAPI
 * document and its types), so that `npm start` and production installs run no generator. `npm test` regenerates it
 * before the tests (`npm run generate:code`); when that changed a committed file, the commit was stale.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const inGitCheckout = existsSync('.git');

describe('src/generated', () => {
  it.skipIf(!inGitCheckout)('is what the generators make from the sources as committed (run npm run generate:code and commit it)', () => {
    const changed = execFileSync(
      'git', ['status', '--porcelain', '--untracked-files=all', '--', 'src/generated'], { encoding: 'utf8' },
    ).trim();
    expect(changed, 'src/generated differs from what was committed: commit what `npm run generate:code` wrote').toBe('');
  });
});
