/**
 * The README's and docs/' examples run as written (test/core/docs-code.test.ts checks that every block says what it
 * is): every block fenced ```sh example (README.md first, then
 * docs/transcriptions.md, then the other guides by name) is run by bash (-euo pipefail, in order, in
 * one folder that looks like the checkout) against a test server with workers, with KEY and BASE set
 * as a reader sets them after `npm start` (a block's own `KEY=sg_live_…`/`BASE=…` lines are the placeholders it
 * shows and are replaced). A missing credential, a wrong path or a refusal fails the block (curl -f).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';
import { kokoroTestDir } from '../helpers/kokoro.js';
import { useTestServer } from '../helpers/server.js';

// The voices model where a reader's `npm start` downloads it (the spoken translation guide speaks with it).
const server = useTestServer({ env: { MODELS_DIR: path.dirname(await kokoroTestDir()) } });
// The guides continue the README's session: KEY and BASE, and REC, the recording of the transcription guide's example.
const FIRST_GUIDE = 'transcriptions.md';
const docs = (await fs.readdir(path.join(REPO_ROOT, 'docs')))
  .filter((name) => name.endsWith('.md'))
  .sort((a, b) => Number(b === FIRST_GUIDE) - Number(a === FIRST_GUIDE) || a.localeCompare(b))
  .map((name) => path.join('docs', name));
const texts = await Promise.all(['README.md', ...docs].map((file) => fs.readFile(path.join(REPO_ROOT, file), 'utf8')));
const blocks = texts.flatMap((text) => [...text.matchAll(/^```sh example\n([\s\S]*?)^```$/gm)].map((match) => match[1]!));
let work: string | null = null;

afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe('README and docs/ examples', () => {
  it('has examples to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it('run as written against a running server', async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-readme-'));
    // A folder that looks like the checkout (its entries linked) but keeps what the examples write.
    for (const entry of await fs.readdir(REPO_ROOT)) {
      if (entry !== '.git') await fs.symlink(path.join(REPO_ROOT, entry), path.join(work, entry));
    }
    // The placeholders a reader replaces: the printed key and the address.
    const script = blocks.join('\n').replace(/^KEY=sg_live_….*$/m, '').replace(/^BASE=http:\/\/127\.0\.0\.1:8080.*$/m, '');
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: work,
      env: { PATH: process.env.PATH, KEY: server.apiKey, BASE: server.url },
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain('"scopes"'); // /v1/me
    expect(stdout).toMatch(/"key":"sg_live_[^"]+"/); // POST /v1/api-keys
    expect(stdout.toLowerCase()).toContain('forward'); // the transcript of goforward.wav
    expect(stdout).toMatch(/"sessionId":"rts_/); // a realtime session
    expect(stdout).toMatch(/Go forward/i); // npm run stream's transcript
    expect(stdout).toContain('"results"'); // search
    expect(stdout).toMatch(/"state":"ready"[^\n]*"provider"/); // the recording's summary
    expect(stdout).toMatch(/"state":"ended"/); // a live recording, published to, paused and stopped
    expect(stdout).toMatch(/"code":"[^"]+"[^\n]*"access":"private"|"access":"private"[^\n]*"code":"[^"]+"/); // a broadcast
    const written = await fs.readdir(work);
    expect(written).toEqual(expect.arrayContaining(['a.mp3', 'es.ogg', 's.caf', expect.stringMatching(/\.pdf$/)]));
    expect((await fs.readFile(path.join(work, 'es.ogg'))).subarray(0, 4).toString()).toBe('OggS'); // the Spanish track
    expect(stdout).toMatch(/"results":\[\{[^\n]*"transcriptionId":"trn_/); // search within one transcription
    expect((await fs.readFile(path.join(work, written.find((name) => name.endsWith('.pdf'))!))).subarray(0, 5).toString()).toBe('%PDF-');
  }, 330_000);
});
