/**
 * Live recording benchmark: live transcriptions recorded end to end through the public interface of a real
 * gateway process, with a worker process doing the `finalize` jobs (`withBenchServices`), for one recording and
 * for more at once until the machine no longer keeps up with real time.
 *
 * Each recording: `POST /v1/transcriptions/live`, `POST /v1/transcriptions/{id}/recordings` (the publisher grant),
 * `durationS` of the file streamed in real time to the grant's `streamUrl` with no `eof` (a microphone does not
 * send one), then `POST /v1/recordings/{id}/pause` (commits what was said) and `stop` (ends the publisher's
 * session: `session.done`), then `GET /v1/recordings/{id}` until it is `finalized` (the worker made the master),
 * then `GET /v1/recordings/{id}/transcript`.
 *
 * - commit latency: arrival of a `transcript.committed` minus the moment the chunk holding the segment's end was
 *   sent (segment end → commit frame, as bench/realtime.ts measures it); on a recording each commit is stored with
 *   its event before its frame goes out, so this includes the database write. Ratio: commit p50 of the level
 *   over that of one recording in the same run (there is no external baseline).
 * - stored / seen: segments in the stored transcript against commit frames the publishers received (must be equal,
 *   with the same seq).
 * - stop → finalized: from sending `stop` to the first read that says `finalized` (polled every 100 ms).
 * - tail: from the last chunk sent to `session.done` (pause and stop included), worst recording.
 * - gateway CPU s/audio s: CPU time of the gateway process (engine threads included) per audio second.
 * A level keeps real time when every recording ended with `session.done` (`eof`) and no `error` frame, was
 * finalized, stored what it was sent, and the p95 commit latency and the tail stayed under `holdCommitP95S`.
 *
 * Needs PostgreSQL and Redis like the tests (TEST_POSTGRES_URL, REDIS_URL), or BENCH_DATABASE=embedded for the
 * embedded defaults. Knobs: BENCH_LIVE_SECONDS (30), BENCH_LIVE_MAX_RECORDINGS (4), BENCH_FILE (the lecture).
 */
import { readFile } from 'node:fs/promises';
import { streamFile, type RealtimeConnection } from '../test/helpers/realtime-client.js';
import { fixture } from '../test/helpers/fixtures.js';
import { probeAudio } from '../workers/engine/audio.js';
import { withBenchServices, type BenchServices } from './helpers/services.js';
import { restClient } from './helpers/live-recording.js';
import { latencyProbe, percentile } from './realtime.js';

export interface LiveBenchOptions {
  file?: string;
  /** Seconds of the file each recording streams. */
  durationS?: number;
  /** Highest number of concurrent recordings tried. */
  maxConcurrent?: number;
  holdCommitP95S?: number;
  /** How long a stopped recording may take to be finalized before the run fails. */
  finalizeTimeoutS?: number;
  database?: 'postgres' | 'embedded';
  log?: (line: string) => void;
}

export interface LiveBenchRow {
  recordings: number;
  commitP50: number;
  commitP95: number;
  /** commitP50 over that of the one-recording level. */
  commitRatio: number;
  stored: number;
  seen: number;
  finalizeP50: number;
  finalizeMax: number;
  tailS: number;
  cpuPerAudioS: number;
  holds: boolean;
  /** Why the level does not hold (empty when it does). */
  problems: string[];
}

interface Grant { streamUrl: string; recording: { id: string } }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds (user + system) a process has used so far (Linux /proc; clock ticks of 1/100 s). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One live recording from creation to finalized, streaming `durationS` of `file` in real time. */
async function runRecording(services: BenchServices, name: string, file: string, durationS: number, finalizeTimeoutS: number) {
  const rest = restClient(services);
  const live = await rest.post<{ id: string }>('/v1/transcriptions/live', { name, settings: { spokenLanguage: 'en' } });
  const grant = await rest.post<Grant>(`/v1/transcriptions/${live.id}/recordings`, {});
  const id = grant.recording.id;
  const probe = latencyProbe();
  let stopAt = 0;
  let ending: Promise<void> | undefined;
  let endError: unknown;
  // After the last chunk: pause (what was said is committed), then stop (the publisher's session ends). A session
  // that stop does not end is closed after a minute, and the recording reports it.
  const end = async (connection: RealtimeConnection) => {
    try {
      await rest.post(`/v1/recordings/${id}/pause`, {});
      stopAt = performance.now();
      await rest.post(`/v1/recordings/${id}/stop`, {});
      setTimeout(() => connection.close(), 60_000).unref();
    } catch (error) {
      endError = error;
      connection.close();
    }
  };
  const result = await streamFile(grant.streamUrl, file, {
    durationS,
    noEof: true,
    onSent: probe.onSent,
    onFrame: probe.onFrame,
    afterChunk: (connection, sentS) => {
      if (sentS >= durationS - 0.01) ending ??= end(connection);
    },
  });
  if (!ending) throw new Error(`recording ${id}: the stream ended before its last chunk was sent (close ${result.closeCode})`);
  await ending;
  if (endError) throw endError;
  const deadline = performance.now() + finalizeTimeoutS * 1000;
  let state = '';
  while ((state = (await rest.get<{ state: string }>(`/v1/recordings/${id}`)).state) !== 'finalized') {
    if (performance.now() > deadline) throw new Error(`recording ${id} stayed ${state} for ${finalizeTimeoutS} s after stop`);
    await sleep(100);
  }
  const finalizeS = (performance.now() - stopAt) / 1000;
  const transcript = await rest.get<{ segments: { seq: number }[] }>(`/v1/recordings/${id}/transcript`);
  const stored = transcript.segments.map((segment) => segment.seq);
  const seen = result.commits.map((segment) => segment.seq);
  const problems = [
    ...result.errors.map((error) => `error ${error.code}: ${error.message}`),
    ...(result.done?.reason === 'eof' ? [] : [`ended ${result.done?.reason ?? `without session.done (close ${result.closeCode})`}`]),
    ...(stored.join(',') === seen.join(',') ? [] : [`stored seq [${stored.join(',')}] but saw [${seen.join(',')}]`]),
  ].map((problem) => `${id}: ${problem}`);
  return {
    commitLatencies: probe.commitLatencies,
    tailS: (probe.doneMs - probe.lastSentMs) / 1000,
    audioS: result.done?.stats.audioS ?? durationS,
    finalizeS,
    stored: stored.length,
    seen: seen.length,
    problems,
  };
}

export async function benchLive(options: LiveBenchOptions = {}): Promise<{ rows: LiveBenchRow[]; table: string }> {
  const file = options.file ?? process.env.BENCH_FILE ?? fixture('political-philosophy-60s.wav');
  const maxConcurrent = options.maxConcurrent ?? Number(process.env.BENCH_LIVE_MAX_RECORDINGS ?? 4);
  const holdCommitP95S = options.holdCommitP95S ?? 5;
  const finalizeTimeoutS = options.finalizeTimeoutS ?? 120;
  const database = options.database ?? (process.env.BENCH_DATABASE === 'embedded' ? 'embedded' : 'postgres');
  // Progress goes to stderr: `npm run bench` prints the returned table on stdout.
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const durationS = Math.min(options.durationS ?? Number(process.env.BENCH_LIVE_SECONDS ?? 30), (await probeAudio(file)).durationS);

  const env = { REALTIME_MAX_SESSIONS: String(maxConcurrent), RATE_LIMIT_MAX: '100000' };
  return withBenchServices({ database, gatewayEnv: env, log }, async (services) => {
    log(`live bench: ${durationS} s of ${file.split('/').pop()} per recording, `
      + `${database === 'embedded' ? 'embedded database, workers in the gateway' : 'PostgreSQL, gateway + worker process'}, `
        + `${services.base}`);
    // One short recording first, unmeasured: the engine loads its model and the worker makes its first master.
    await runRecording(services, 'warm-up', fixture('goforward.wav'), 2, finalizeTimeoutS);
    const rows: LiveBenchRow[] = [];
    for (let recordings = 1; recordings <= maxConcurrent; recordings++) {
      const cpuBefore = await cpuSeconds(services.gateway.child.pid!);
      const runs = await Promise.all(Array.from(
        { length: recordings }, (_, i) => runRecording(services, `bench ${recordings}.${i}`, file, durationS, finalizeTimeoutS),
      ));
      const cpu = (await cpuSeconds(services.gateway.child.pid!)) - cpuBefore;
      const commits = runs.flatMap((run) => run.commitLatencies);
      const finalizes = runs.map((run) => run.finalizeS);
      const row: LiveBenchRow = {
        recordings,
        commitP50: percentile(commits, 50),
        commitP95: percentile(commits, 95),
        commitRatio: Number.NaN,
        stored: runs.reduce((sum, run) => sum + run.stored, 0),
        seen: runs.reduce((sum, run) => sum + run.seen, 0),
        finalizeP50: percentile(finalizes, 50),
        finalizeMax: Math.max(...finalizes),
        tailS: Math.max(...runs.map((run) => run.tailS)),
        cpuPerAudioS: cpu / runs.reduce((sum, run) => sum + run.audioS, 0),
        holds: false,
        problems: runs.flatMap((run) => run.problems),
      };
      row.commitRatio = row.commitP50 / (rows[0]?.commitP50 ?? row.commitP50);
      if (row.commitP95 > holdCommitP95S) row.problems.push(`commit p95 ${row.commitP95.toFixed(2)} s > ${holdCommitP95S} s`);
      if (row.tailS > holdCommitP95S) row.problems.push(`tail ${row.tailS.toFixed(2)} s > ${holdCommitP95S} s`);
      row.holds = row.problems.length === 0;
      rows.push(row);
      log(formatRow(row));
      for (const problem of row.problems) log(`  ${problem}`);
      if (!row.holds) break;
    }
    return { rows, table: formatTable(rows) };
  });
}

const HEADER = '| recordings | commit p50 s | commit p95 s | commit p50 vs 1 recording | segments stored / commits seen | stop → '
  + 'finalized p50 s | stop → finalized max s | tail s | gateway CPU s/audio s | real time |';

function formatRow(row: LiveBenchRow): string {
  const f = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '—');
  return `| ${row.recordings} | ${f(row.commitP50)} | ${f(row.commitP95)} | ${f(row.commitRatio)}× | ${row.stored} / ${row.seen} | `
    + `${f(row.finalizeP50)} | ${f(row.finalizeMax)} | ${f(row.tailS)} | ${f(row.cpuPerAudioS)} | ${row.holds ? 'yes' : 'no'} |`;
}

function formatTable(rows: LiveBenchRow[]): string {
  return [HEADER, '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|', ...rows.map(formatRow)].join('\n');
}
