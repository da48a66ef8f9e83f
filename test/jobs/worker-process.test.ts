/**
 * Transcription scales out as separate worker processes (`npm run worker`): the gateway here runs no workers,
 * a worker process does the job; killed mid-job, another worker process takes the job over (Bull's stalled-job
 * recovery) and resumes after the last committed segment, so nothing is lost or repeated. Stopped with SIGTERM, a
 * worker hands its running job back to the queue at once.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { startEntryProcess } from '../helpers/processes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { json, uploadForm, waitForJob } from '../helpers/http.js';

let server: TestServer;
const children: ChildProcess[] = [];
const lecture = await readFile(fixture('political-philosophy-60s.wav'));
// Short locks so a dead worker's job is taken over within seconds (production keeps 30 s).
const workerEnv = { WORKER_LOCK_MS: '3000', WORKER_STALLED_CHECK_MS: '1000', WORKER_SWEEP_MS: '1000' };

beforeAll(async () => {
  server = await startTestServer({ workers: [], env: workerEnv });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await server?.close();
});

/** `npm run worker` as its own OS process against the server's database, Redis prefix and media folder. */
async function startWorkerProcess(): Promise<ChildProcess> {
  const { child, output } = await startEntryProcess(
    'src/entry/worker-main.ts',
    { ...server.env, ...workerEnv, LOG_LEVEL: 'info', RUN_WORKERS: 'true' },
    /"worker":"transcriptions"[\s\S]*worker started|worker started[\s\S]*"worker":"transcriptions"/,
    90_000,
  );
  children.push(child);
  outputs.set(child, output);
  return child;
}

/** What each worker process printed, for failure messages. */
const outputs = new Map<ChildProcess, () => string>();

/** Waits until the job has committed part of the transcript but not all of it; answers how many segments. */
async function partlyTranscribed(recordingId: string): Promise<number> {
  // (Counted in segments: the transcript's lastSeq is the durable log's cursor, which job frames move too.)
  for (let i = 0; i < 2400; i++) {
    const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    if (transcript.segments.length > 0 && transcript.partial) return transcript.segments.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return -1;
}

/** The lecture's transcript, whole: gapless seqs, more than `before` segments, resumed (times only move forward). */
async function expectResumed(recordingId: string, before: number): Promise<void> {
  const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
  const seqs = transcript.segments.map((s: { seq: number }) => s.seq);
  expect(seqs).toEqual(seqs.map((_: number, i: number) => i));
  expect(transcript.segments.length).toBeGreaterThan(before);
  const starts = transcript.segments.map((s: { start: number }) => s.start);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
  expect(transcript.segments.at(-1).end).toBeGreaterThan(45);
  expect(transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toContain('dublin');
}

async function jobStates(recordingId: string): Promise<string[]> {
  const log = await json(await server.request(`/v1/recordings/${recordingId}/events?limit=500`));
  return log.events.filter((e: { type: string }) => e.type === 'job.state').map((e: { frame: { state: string } }) => e.frame.state);
}

const createLectureJob = async () => (await json(await server.request('/v1/transcriptions', {
  method: 'POST', body: uploadForm(lecture, { name: 'Lecture', settings: { spokenLanguage: 'en' } }, 'lecture.wav'),
}))).recordingId as string;

describe('worker processes', () => {
  it('a separate worker process transcribes; killed mid-job, another takes over and loses nothing', async () => {
    const first = await startWorkerProcess();
    const recordingId = await createLectureJob();
    // Kill the worker once it has committed part of the transcript but not all of it.
    const before = await partlyTranscribed(recordingId);
    expect(before, 'the first worker committed segments before it was killed').toBeGreaterThan(0);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const stranded = await json(await server.request(`/v1/recordings/${recordingId}/job`));
    expect(stranded.state).toBe('transcribing');

    await startWorkerProcess();
    const job = await waitForJob(server, recordingId, ['done', 'failed'], 240_000);
    expect(job).toMatchObject({ state: 'done', attempts: 1 });
    await expectResumed(recordingId, before);
    // One admission: the take-over is invisible in the state history.
    expect(await jobStates(recordingId)).toEqual(['queued', 'transcribing', 'done']);
  }, 420_000); // two worker processes and a 60 s file at beam 5 (waitForJob allows 240 s): slow on a busy machine

  it('stopped with SIGTERM mid-job, a worker hands the job back to the queue at once; another finishes it', async () => {
    // Only the worker about to be stopped may take the job: the workers of the test before go first.
    await Promise.all(children.filter(
      (child) => child.exitCode === null && child.signalCode === null,
    ).map((child) => new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    })));
    const first = await startWorkerProcess();
    const recordingId = await createLectureJob();
    const before = await partlyTranscribed(recordingId);
    expect(before, 'the first worker committed segments before it was stopped').toBeGreaterThan(0);
    first.kill('SIGTERM');
    await new Promise((resolve) => first.once('exit', resolve));
    // It says so: the signal, each worker stopped, and the end.
    const said = outputs.get(first)!();
    for (const line of ['"message":"stopping: workers finish or hand back their jobs","signal":"SIGTERM"', '"message":"worker '
      + 'stopped","worker":"transcriptions"', '"message":"stopped","signal":"SIGTERM"']) {
      expect(said, line).toContain(line);
    }
    // Handed back, not stranded until its lock expires, nor failed.
    const handedBack = await json(await server.request(`/v1/recordings/${recordingId}/job`));
    expect(handedBack.state, outputs.get(first)!().slice(-3000)).toBe('queued');

    await startWorkerProcess();
    const job = await waitForJob(server, recordingId, ['done', 'failed'], 240_000);
    expect(job.state).toBe('done');
    await expectResumed(recordingId, before);
    expect(await jobStates(recordingId)).toEqual(['queued', 'transcribing', 'queued', 'transcribing', 'done']);
  }, 420_000);
});
