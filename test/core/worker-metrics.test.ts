/**
 * An `npm run worker` process scraped as Prometheus scrapes it: with METRICS_PORT it listens for `GET /metrics`
 * (under the gateway's rules: here METRICS_TOKEN, so nothing without the token) and `GET /v1/health`. Its scrape
 * reads Bull's own counts of the transcription queue (a job waiting on a paused queue, a delayed one), the database
 * gauges, and the real-time factor of the file job it finished (kind="file").
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTranscriptionQueue, type TranscriptionQueue } from '../../workers/queue.js';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { startEntryProcess } from '../helpers/processes.js';
import { familiesOf, sampleValue, type MetricFamily } from '../helpers/prometheus.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const token = 'worker-metrics-token-0123456789';
/** The gateway (this process, no workers) and the worker process on its database, Redis prefix and media folder. */
let server: TestServer;
let worker: ChildProcess | undefined;
let workerOutput = () => '';
let metricsUrl: string;
/** The test's own handle on the worker's Bull queue (to pause it, and to put work on it directly). */
let queue: TranscriptionQueue;

beforeAll(async () => {
  server = await startTestServer({ workers: [] });
  queue = createTranscriptionQueue({ redisUrl: server.env.REDIS_URL!, redisPrefix: server.env.REDIS_PREFIX! });
  const started = await startEntryProcess(
    'src/entry/worker-main.ts',
    { ...server.env, LOG_LEVEL: 'info', RUN_WORKERS: 'true', METRICS_PORT: '0', METRICS_TOKEN: token },
    // The listener is up before the workers start; the transcription worker's line says they have.
    /"message":"metrics listening","url":"(http:\/\/[^"]+)\/metrics"[\s\S]*"worker":"transcriptions"/,
    180_000,
  );
  worker = started.child;
  workerOutput = started.output;
  metricsUrl = started.match!;
}, 240_000);

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) {
    const exited = new Promise((resolve) => worker!.once('exit', resolve));
    worker.kill('SIGKILL');
    await exited;
  }
  await queue?.close();
  await server?.close();
});

const scrape = async (): Promise<Map<string, MetricFamily>> => familiesOf(await fetch(`${metricsUrl}/metrics`, {
  headers: { authorization: `Bearer ${token}` },
}));
const queued = (families: Map<string, MetricFamily>, state: string) => sampleValue(
  families, 'speechgate_queue_jobs', { queue: 'transcriptions', state },
);

describe('a worker process\'s metrics (METRICS_PORT)', () => {
  it('refuses a scrape without the token, answers one with it, and answers liveness to anyone', async () => {
    const missing = await expectStatus(await fetch(`${metricsUrl}/metrics`), 401, 'invalid_token');
    expect(missing).toMatchObject({ defined: true, status: 401, data: { retryable: false } });
    expect(missing.requestId).toMatch(/^req_/);
    const wrong = await fetch(`${metricsUrl}/metrics`, { headers: { authorization: `Bearer ${token}x` } });
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    await expectStatus(wrong, 401, 'invalid_token');

    const families = await scrape();
    for (const name of [
      'speechgate_queue_jobs', 'speechgate_jobs', 'speechgate_live_recordings', 'speechgate_engine_slots_busy',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(families.get(name)?.type, name).toBe('gauge');
    }
    expect(families.get('speechgate_realtime_factor')?.type).toBe('histogram');
    // The process runs the transcription queue's workers: its every state is a series.
    expect(
      families.get('speechgate_queue_jobs')!.samples.filter((sample) => sample.labels.queue === 'transcriptions').map(
        (sample) => sample.labels.state,
      ).sort(),
    )
      .toEqual(['active', 'delayed', 'failed', 'paused', 'waiting']);
    // A worker holds no realtime session: no slots.
    expect(sampleValue(families, 'speechgate_engine_slots')).toBe(0);
    // The refused scrapes were timed, as the gateway times its requests.
    expect(
      sampleValue(families, 'speechgate_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '401' }),
    ).toBe(2);

    const health = await fetch(`${metricsUrl}/v1/health`);
    expect(health.status).toBe(200);
    expect(await json(health)).toEqual({ status: 'ok' });
    await expectStatus(await fetch(`${metricsUrl}/v1/recordings`), 404, 'not_found');
  });

  it('counts Bull\'s work on the queue as it moves, and the file job\'s real-time factor once the worker finishes it', async () => {
    const before = await scrape();
    expect(queued(before, 'waiting') + queued(before, 'paused') + queued(before, 'active')).toBe(0);

    // Work due later is Bull's `delayed` (this work names no job: when due, the processor finds nothing to do).
    const later = await queue.add('transcribe', { jobId: 'job_metricsprobe', attempt: 1 }, {
      jobId: 'transcribe:job_metricsprobe:1', delay: 3_600_000,
    });
    expect(queued(await scrape(), 'delayed')).toBe(queued(before, 'delayed') + 1);
    await later.remove();
    expect(queued(await scrape(), 'delayed')).toBe(queued(before, 'delayed'));

    // The queue paused everywhere: the job admitted on upload waits on it, where no worker takes it.
    await queue.pause();
    const recordingId = (await expectStatus(await upload(server, { settings: { spokenLanguage: 'en' } }), 201)).recordingId as string;
    const waiting = await eventually(async () => {
      const families = await scrape();
      expect(queued(families, 'paused')).toBe(1);
      return families;
    });
    expect(queued(waiting, 'active')).toBe(0);
    expect(sampleValue(waiting, 'speechgate_jobs', { state: 'queued' })).toBe(1);

    await queue.resume();
    const job = await waitForJob(server, recordingId, ['done', 'failed'], 180_000);
    expect(job.state, workerOutput().slice(-3000)).toBe('done');
    const after = await eventually(async () => {
      const families = await scrape();
      expect(
        sampleValue(families, 'speechgate_realtime_factor_count', { kind: 'file' }) - sampleValue(
          before, 'speechgate_realtime_factor_count', { kind: 'file' },
        ),
      ).toBe(1);
      return families;
    });
    expect(sampleValue(after, 'speechgate_realtime_factor_sum', { kind: 'file' })).toBeGreaterThan(0);
    // The engine's own check of the transcript: every stretch of speech has words, so nothing is counted as lost.
    for (const name of ['speechgate_uncovered_speech_seconds_total', 'speechgate_redecoded_gaps_total']) {
      expect(after.get(name)?.type, name).toBe('counter');
      expect(after.get(name)!.samples.map((sample) => sample.labels.kind), name).toContain('file');
    }
    expect(sampleValue(after, 'speechgate_uncovered_speech_seconds_total', { kind: 'file' })).toBe(0);
    // Finished work leaves Bull (removeOnComplete) and the database's unfinished states.
    for (const state of ['waiting', 'paused', 'active', 'failed']) expect(queued(after, state), state).toBe(queued(before, state));
    expect(sampleValue(after, 'speechgate_jobs', { state: 'queued' })).toBe(0);
    expect(sampleValue(after, 'speechgate_jobs', { state: 'transcribing' })).toBe(0);
  }, 240_000);
});
