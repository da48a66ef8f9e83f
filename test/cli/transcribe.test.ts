/**
 * `speechgate transcribe` as a user runs it against a real server with its workers: a file uploaded and its job
 * followed to the transcript (text, `--json`, an SRT export to a file), a link fetched by the server, audio that is
 * not audio refused with exit 5, and, in a pseudo-terminal, the progress bar drawn on stderr (its frames: carriage
 * returns and percentages).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWavOnLoopback, type Loopback } from '../helpers/loopback.js';
import { GO_FORWARD, GO_FORWARD_TEXT, normalise } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';
import { cliHome, jsonOf, runCli, runInTerminal, type CliHome } from './run.js';

const server = useTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
let home: CliHome;
let files: Loopback;

beforeAll(async () => {
  home = await cliHome();
  files = await serveWavOnLoopback(GO_FORWARD);
});
afterAll(async () => {
  await files?.close();
  await home?.remove();
});

const env = () => ({ ...home.env, SPEECHGATE_URL: server.url, SPEECHGATE_API_KEY: server.apiKey });

describe('transcribe', () => {
  it('uploads a file, follows its job and prints the transcript; --json is one document; --export writes the file', async () => {
    const text = await runCli(['transcribe', GO_FORWARD, '--language', 'en', '--name', 'CLI upload'], { env: env() });
    expect(text.code, text.stderr).toBe(0);
    expect(normalise(text.stdout)).toMatch(GO_FORWARD_TEXT);
    // Not a terminal: no progress bar, only the notes.
    expect(text.stderr).not.toContain('\r');
    expect(text.stderr).toMatch(/^Created trn_\S+ \(CLI upload\)\./);

    const srt = path.join(home.home, 'out.srt');
    const exported = await runCli(['transcribe', GO_FORWARD, '--json', '--export', 'srt', '-o', srt], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    const document = jsonOf(exported);
    expect(document.transcription).toMatchObject({ kind: 'file', name: 'goforward.wav', job: { state: 'done' } });
    expect(document.export).toMatchObject({ format: 'srt', file: srt, partial: false });
    const file = await fs.readFile(srt, 'utf8');
    expect(file).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}/);
    expect(normalise(file)).toMatch(GO_FORWARD_TEXT);
    expect(exported.stderr).toBe('');

    // The same transcript again through `transcriptions transcript`.
    const again = await runCli(['transcriptions', 'transcript', document.transcription.id], { env: env() });
    expect(normalise(again.stdout)).toMatch(GO_FORWARD_TEXT);
  });

  it('transcribes a link (the server fetches it) and returns at once with --no-wait', async () => {
    const link = await runCli(['transcribe', `${files.url}/talk.wav`, '--json'], { env: env() });
    expect(link.code, link.stderr).toBe(0);
    const { transcription, transcript } = jsonOf(link);
    expect(transcription).toMatchObject({ kind: 'link', sourceUrl: `${files.url}/talk.wav`, job: { state: 'done' } });
    expect(normalise(transcript.sentences.map((sentence: { text: string }) => sentence.text).join(' '))).toMatch(GO_FORWARD_TEXT);

    const queued = await runCli(['transcribe', GO_FORWARD, '--no-wait'], { env: env() });
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^trn_\S+\n$/);
    const waited = await runCli(['transcriptions', 'wait', queued.stdout.trim(), '--json'], { env: env() });
    expect(jsonOf(waited)).toMatchObject({ id: queued.stdout.trim(), job: { state: 'done' } });
  });

  it('refuses a file that is not audio with exit 5 and an unknown transcription with 4', async () => {
    const notAudio = path.join(home.home, 'notes.wav');
    await fs.writeFile(notAudio, 'these are words, not sound\n'.repeat(200));
    const refused = await runCli(['transcribe', notAudio, '--json'], { env: env() });
    expect(refused.code, refused.stderr).toBe(5);
    expect(jsonOf(refused)).toMatchObject({ error: { code: 'invalid_audio' }, exitCode: 5 });
    expect((await runCli(['transcriptions', 'transcript', 'trn_nope'], { env: env() })).code).toBe(4);
  });

  it('draws the upload and job progress bar on a terminal\'s stderr', async () => {
    const result = await runInTerminal(['transcribe', GO_FORWARD], env());
    expect(result.code, result.stdout).toBe(0);
    // In a terminal stdout and stderr are the same stream: frames redrawn with a carriage return, then the text.
    const frames = result.stdout.split('\r').filter((frame) => /\d+%/.test(frame));
    expect(frames.some((frame) => /uploading\s+\[[#-]+\]\s+\d+%/.test(frame)), result.stdout).toBe(true);
    expect(frames.some((frame) => /100%/.test(frame)), result.stdout).toBe(true);
    expect(normalise(result.stdout.split('\n').slice(-3).join(' '))).toMatch(GO_FORWARD_TEXT);
  });
});
