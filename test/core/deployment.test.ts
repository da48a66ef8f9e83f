/**
 * The deployment the README describes, as far as one machine allows: two gateway processes (`npm start` with
 * RUN_WORKERS=false, as behind a load balancer) and two worker processes (`npm run worker`), each its own OS process,
 * on one PostgreSQL database, one Redis and one media folder. A file uploaded through gateway B is transcribed by a
 * worker and read through gateway A; a live recording published through A is followed by its owner through B (the
 * subscribe procedure) and finalized by a worker; the listener ends with exactly the owner's transcript.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Follower } from '../helpers/follower.js';
import { gatewayProcesses, speak, type Gateway, type Grant } from '../helpers/gateways.js';
import { fixture } from '../helpers/fixtures.js';
import { json } from '../helpers/http.js';
import { fileChunks, GO_FORWARD_TEXT, LECTURE } from '../helpers/realtime.js';

const {
  apiKey, createDatabase, tempDir, startGateways, startWorker, call, expectStatus, until, tail, publisherOn, closePublishers, stopAll,
} = gatewayProcesses({
  realtimeSecret: 'deployment-topology-secret-0123456789abcdef',
  // The finalize job reads the whole recording again: whisper-tiny keeps it short, as test servers do.
  env: { MODEL_ACCURATE: process.env.MODEL_ACCURATE ?? 'whisper-tiny' },
  pollMs: 250,
});

let a: Gateway;
let b: Gateway;
let follower: Follower | undefined;

beforeAll(async () => {
  await createDatabase();
  const dataDir = await tempDir('sg-deployment-');
  [a, b] = await startGateways({ name: 'A', env: { DATA_DIR: dataDir } }, { name: 'B', env: { DATA_DIR: dataDir } });
  await Promise.all([startWorker({ DATA_DIR: dataDir }), startWorker({ DATA_DIR: dataDir })]);
}, 480_000);

afterAll(async () => {
  follower?.close();
  closePublishers();
  await stopAll();
}, 120_000);

describe('two gateways and two workers', () => {
  it('a file uploaded through B is transcribed by a worker and read through A', async () => {
    const form = new FormData();
    form.append('options', JSON.stringify({ name: 'across processes', settings: { spokenLanguage: 'en' } }));
    form.append('file', new Blob([new Uint8Array(await readFile(fixture('goforward.wav')))], { type: 'audio/wav' }), 'goforward.wav');
    const created = await expectStatus(
      await fetch(`${b.url}/v1/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form }), 201,
      tail(b),
    );
    const recordingId = created.job.recordingId as string;
    await until('the file job done, read through A', async () => {
      const transcription = await expectStatus(await call(a, `/v1/transcriptions/${created.id}`), 200, tail(a));
      if (transcription.job.state === 'failed') throw new Error(`the job failed: ${transcription.job.error}`);
      return transcription.job.state === 'done';
    }, 300_000, tail(a, b));
    const transcript = await expectStatus(await call(a, `/v1/recordings/${recordingId}/transcript`), 200, tail(a));
    expect(transcript.segments.map((segment: { text: string }) => segment.text).join(' ').toLowerCase()).toMatch(GO_FORWARD_TEXT);
  }, 360_000);

  it('a live recording published through A, followed through B, finalized by a worker', async () => {
    const live = await expectStatus(
      await call(a, '/v1/transcriptions/live', 'POST', { name: 'live across processes', settings: { spokenLanguage: 'en' } }), 201, tail(a),
    );
    const grant = (await expectStatus(await call(a, `/v1/transcriptions/${live.id}/recordings`, 'POST'), 201, tail(a))) as Grant;
    const recordingId = grant.recording.id;
    follower = new Follower({ baseUrl: b.url, recordingId, authorization: `Bearer ${apiKey}` });
    await follower.start();

    const publisher = await publisherOn(grant);
    // Twenty seconds of the lecture as fast as the socket takes it, then the rest at real time as a microphone goes
    // on. The engine commits words two passes agree on and runs a pass when new audio comes: a burst that all
    // arrives before its first pass, followed by nothing, is one pass, drafts and no commit.
    const chunks = await fileChunks(LECTURE);
    for (const chunk of chunks.slice(0, 100)) publisher.sendPcm(chunk);
    const microphone = speak(publisher, chunks.slice(100));
    // On failure: what the publisher heard on A and what A stored, to tell "A never committed" from "B never heard".
    const diagnosis = async () => {
      const { frames, errors, closeCode } = publisher.result;
      const stored = await json(await call(a, `/v1/recordings/${recordingId}/transcript`)).catch((error: unknown) => String(error));
      return `publisher on A: ${frames.length} frames (${[...new Set(frames.map(({ frame }) => frame.type))].join(', ')}), errors `
        + `${JSON.stringify(errors)}, close ${closeCode}\n`
        + `A's transcript: ${JSON.stringify(stored).slice(0, 600)}\n${tail(a, b)()}`;
    };
    await follower.until('a committed line on B', () => follower!.lines.size > 0, 240_000, diagnosis);
    microphone.stop();
    await microphone.finished;
    expect(await expectStatus(await call(a, `/v1/recordings/${recordingId}/pause`, 'POST'), 200, tail(a))).toMatchObject({
      state: 'paused',
    });
    expect(await expectStatus(await call(b, `/v1/recordings/${recordingId}/stop`, 'POST'), 200, tail(b))).toMatchObject({ state: 'ended' });
    await follower.until('finalized, heard on B', () => follower!.state === 'finalized', 300_000, diagnosis);
    publisher.close();

    const owner = await expectStatus(await call(a, `/v1/recordings/${recordingId}/transcript`), 200, tail(a));
    const heard = [...follower.lines.entries()].sort(([x], [y]) => x - y).map(([seq, line]) => ({ seq, text: line.text }));
    expect(heard).toEqual(owner.segments.map((segment: { seq: number; text: string }) => ({ seq: segment.seq, text: segment.text })));
    expect(follower.lastCursor).toBe(owner.lastSeq);
  }, 600_000);
});
