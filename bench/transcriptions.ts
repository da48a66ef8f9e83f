/**
 * File transcription benchmark: N one-minute files (default 20) submitted at once through the REST API to a
 * gateway process that runs no workers, transcribed by a separate `npm run worker` process.
 *
 * Reports wall time (first submit to last job done), throughput in audio-seconds per second, job waiting and
 * running times, and the peak resident memory (VmHWM) of the gateway and the worker processes (engine threads
 * included; ffmpeg children are separate processes and not counted).
 *
 * Needs PostgreSQL and Redis like the tests (TEST_POSTGRES_URL, REDIS_URL). Knobs: BENCH_FILES (20),
 * BENCH_WORKER_CONCURRENCY (engine threads in the worker, default 2), BENCH_FILE (a one-minute recording).
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { fixture } from '../test/helpers/fixtures.js';
import { probeAudio } from '../workers/engine/audio.js';
import { withBenchServices } from './helpers/services.js';


export interface TranscriptionBenchOptions {
  files?: number;
  workerConcurrency?: number;
  file?: string;
  log?: (line: string) => void;
}


/** Peak resident set size of a live process in MiB (Linux /proc). */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export async function benchTranscriptions(
  options: TranscriptionBenchOptions = {},
): Promise<{ table: string; rows: Record<string, number> }> {
  const files = options.files ?? Number(process.env.BENCH_FILES ?? 20);
  const concurrency = options.workerConcurrency ?? Number(process.env.BENCH_WORKER_CONCURRENCY ?? 2);
  const file = options.file ?? process.env.BENCH_FILE ?? fixture('political-philosophy-60s.wav');
  const log = options.log ?? ((line: string) => console.error(line));
  const audio = await readFile(file);
  const { durationS } = await probeAudio(file);

  return withBenchServices({ workerEnv: { WORKER_CONCURRENCY: String(concurrency) }, log }, async ({
    base, headers, databaseUrl, gateway, worker,
  }) => {
    // The account may run as many jobs as the worker has engine threads: the rest wait `queued` in order, as
    // they would in production, and "mean job run" is the time a job actually spends transcribing.
    const db = new pg.Client({ connectionString: databaseUrl! });
    await db.connect();
    await db.query('UPDATE "Account" SET "concurrencyLimit" = $1', [concurrency]);
    await db.end();

    log(`submitting ${files} × ${durationS.toFixed(1)} s to ${base} (worker: ${concurrency} engine threads)`);
    const submitAt = performance.now();
    const created = await Promise.all(
      Array.from({ length: files }, async (_, i) => {
        const form = new FormData();
        form.append('options', JSON.stringify({ name: `bench ${i}`, settings: { spokenLanguage: 'en' } }));
        form.append('file', new Blob([new Uint8Array(audio)], { type: 'audio/wav' }), `bench-${i}.wav`);
        const res = await fetch(`${base}/v1/transcriptions`, { method: 'POST', headers, body: form });
        if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
        return ((await res.json()) as { recordingId: string }).recordingId;
      }),
    );
    const submittedS = (performance.now() - submitAt) / 1000;
    const jobs = new Map<string, { state: string; startedAt: string | null; finishedAt: string | null; createdAt: string }>();
    let lastReport = 0;
    while (jobs.size < files || [...jobs.values()].some((job) => job.state !== 'done' && job.state !== 'failed')) {
      for (const recordingId of created) {
        const job = jobs.get(recordingId);
        if (job && (job.state === 'done' || job.state === 'failed')) continue;
        const res = await fetch(`${base}/v1/recordings/${recordingId}/job`, { headers });
        jobs.set(recordingId, (await res.json()) as never);
      }
      const done = [...jobs.values()].filter((job) => job.state === 'done').length;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        log(`  ${done}/${files} done after ${((performance.now() - submitAt) / 1000).toFixed(0)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const wallS = (Math.max(...[...jobs.values()].map((job) => Date.parse(job.finishedAt ?? ''))) - Date.parse(
      [...jobs.values()].map((job) => job.createdAt).sort()[0]!,
    )) / 1000;
    const failed = [...jobs.values()].filter((job) => job.state === 'failed').length;
    const runS = [...jobs.values()].filter((job) => job.startedAt && job.finishedAt).map(
      (job) => (Date.parse(job.finishedAt!) - Date.parse(job.startedAt!)) / 1000,
    );
    const gatewayPeak = await peakRssMiB(gateway.child.pid!);
    const workerPeak = await peakRssMiB(worker!.child.pid!);
    const rows = {
      files,
      audioS: files * durationS,
      wallS,
      audioSecondsPerSecond: (files * durationS) / wallS,
      submitAllS: submittedS,
      meanJobRunS: runS.reduce((a, b) => a + b, 0) / runS.length,
      gatewayPeakMiB: gatewayPeak,
      workerPeakMiB: workerPeak,
      failed,
    };
    const table = [
      '| files | audio | worker threads | wall time | throughput | all 20 submitted in | mean job run | gateway peak RSS | worker peak '
        + 'RSS | failed |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      `| ${files} | ${rows.audioS.toFixed(0)} s | ${concurrency} | ${wallS.toFixed(1)} s | ${rows.audioSecondsPerSecond.toFixed(2)} `
        + `audio-s/s | ${submittedS.toFixed(2)} s | ${rows.meanJobRunS.toFixed(1)} s | ${gatewayPeak.toFixed(0)} MiB | `
          + `${workerPeak.toFixed(0)} MiB | ${failed} |`,
    ].join('\n').replace('all 20 submitted', `all ${files} submitted`);
    return { table, rows };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await benchTranscriptions();
  console.log(table);
}
