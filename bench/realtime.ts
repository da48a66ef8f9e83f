/**
 * Realtime benchmark: draft latency and commit latency through the real socket, for one session and for
 * more concurrent sessions until the machine no longer keeps up with real time.
 *
 * - draft latency: arrival of a `transcript.draft` minus the moment the chunk holding the audio it reflects
 *   (`audioS`) was sent.
 * - commit latency: arrival of a `transcript.committed` minus the moment the chunk holding the segment's
 *   end was sent (segment end → commit frame).
 * - processing/audio: the server's `realtimeFactor` (wall seconds of engine passes per audio second; over 1
 *   means the passes took longer than the audio, which a session survives only by taking bigger bites).
 * - CPU s/audio s: CPU time of this process (gateway and engine threads) per audio second, which does not
 *   depend on what else the machine runs: about `cores / this` sessions fit on an idle machine.
 * - tail: seconds from the last chunk sent to `session.done`, worst session.
 * A level "holds real time" when every session finished within a few seconds of its audio and the p95
 * commit latency stayed under `holdCommitP95S`; the first level that does not hold is the last one run. Then
 * one session runs in each other latency mode.
 *
 * It drives the realtime runtime (engine threads + socket) on a bare HTTP server: no database or Redis is
 * involved in a realtime session, so none is started. The engine is the gateway's: REALTIME_ENGINE_THREADS and
 * ENGINE_PROVIDER (cuda on a GPU machine) apply as they do there.
 *
 * Knobs: BENCH_REALTIME_SECONDS (30), BENCH_REALTIME_MAX_SESSIONS (4) or BENCH_REALTIME_LEVELS (`1,2,4,8,16`),
 * BENCH_REALTIME_MODE (fast), BENCH_REALTIME_OTHER_MODES=none (skip the one-session runs in the other modes),
 * BENCH_FILE (the lecture).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/core/config/index.js';
import { streamFile, type CommittedSegment, type ServerFrame } from '../test/helpers/realtime-client.js';
import { RealtimeRuntime } from '../src/live/runtime.js';
import { fixture } from '../test/helpers/fixtures.js';

export interface RealtimeBenchOptions {
  file?: string;
  /** Seconds of the file each session streams. */
  durationS?: number;
  /** Highest number of concurrent sessions tried. */
  maxConcurrent?: number;
  /**
   * Numbers of concurrent sessions tried, in order, until one does not hold (default 1, 2, … maxConcurrent). A GPU
   * holds dozens: `1,2,4,8,16,32` finds the order of magnitude in a few levels.
   */
  levels?: number[];
  latencyMode?: 'auto' | 'fast' | 'accuracy';
  holdCommitP95S?: number;
  /** Modes measured with one session after the concurrency run (default: the two others). */
  otherModes?: ('auto' | 'fast' | 'accuracy')[];
  log?: (line: string) => void;
}

export interface RealtimeBenchRow {
  sessions: number;
  latencyMode: string;
  draftP50: number;
  draftP95: number;
  commitP50: number;
  commitP95: number;
  /** Mean over sessions of processing seconds per audio second (the server's `realtimeFactor`). */
  realtimeFactor: number;
  /**
   * CPU seconds this process (gateway + engine threads) spent per second of audio: what the work costs, whatever else
   * runs on the machine.
   */
  cpuPerAudioS: number;
  /** Seconds from the last chunk sent to `session.done`, worst session. */
  tailS: number;
  holds: boolean;
  words: number;
}

/** The p-th percentile (nearest rank) of `values`; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Draft and commit latencies of one socket, fed by `streamFile`'s `onSent` and `onFrame`: a frame's latency is its
 * arrival minus the moment the chunk holding the audio it reflects (a draft's `audioS`, a commit's segment end)
 * was sent.
 */
export function latencyProbe() {
  const sent: { endS: number; atMs: number }[] = [];
  const sentAt = (audioS: number) => (sent.find((entry) => entry.endS >= audioS - 1e-6) ?? sent[sent.length - 1])?.atMs ?? Number.NaN;
  const probe = {
    draftLatencies: [] as number[],
    commitLatencies: [] as number[],
    /** When the last chunk left (performance.now() ms). */
    lastSentMs: 0,
    /** When `session.done` arrived (performance.now() ms; 0 before). */
    doneMs: 0,
    onSent: (endS: number, atMs: number) => {
      sent.push({ endS, atMs });
      probe.lastSentMs = atMs;
    },
    onFrame: (frame: ServerFrame, atMs: number) => {
      if (frame.type === 'transcript.draft' && typeof frame.audioS === 'number' && (frame.segments as unknown[]).length > 0) {
        probe.draftLatencies.push((atMs - sentAt(frame.audioS)) / 1000);
      } else if (frame.type === 'transcript.committed') {
        probe.commitLatencies.push((atMs - sentAt((frame.segment as CommittedSegment).end)) / 1000);
      } else if (frame.type === 'session.done') {
        probe.doneMs = atMs;
      }
    },
  };
  return probe;
}

async function runSession(streamUrl: string, file: string, durationS: number) {
  const probe = latencyProbe();
  const result = await streamFile(streamUrl, file, { durationS, onSent: probe.onSent, onFrame: probe.onFrame });
  return {
    draftLatencies: probe.draftLatencies,
    commitLatencies: probe.commitLatencies,
    realtimeFactor: result.done?.stats.realtimeFactor ?? Number.NaN,
    audioS: result.done?.stats.audioS ?? Number.NaN,
    tailS: (probe.doneMs - probe.lastSentMs) / 1000,
    words: result.commits.reduce((sum, segment) => sum + segment.words.length, 0),
    completed: result.done?.reason === 'eof',
  };
}

export async function runRealtimeBench(options: RealtimeBenchOptions = {}): Promise<{ rows: RealtimeBenchRow[]; table: string }> {
  const env = process.env;
  const file = options.file ?? env.BENCH_FILE ?? fixture('political-philosophy-60s.wav');
  const durationS = options.durationS ?? Number(env.BENCH_REALTIME_SECONDS ?? 30);
  const levels =
    options.levels ??
    env.BENCH_REALTIME_LEVELS?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0) ??
    Array.from({ length: options.maxConcurrent ?? Number(env.BENCH_REALTIME_MAX_SESSIONS ?? 4) }, (_, i) => i + 1);
  const maxConcurrent = Math.max(...levels);
  const latencyMode = options.latencyMode ?? (env.BENCH_REALTIME_MODE as RealtimeBenchOptions['latencyMode']) ?? 'fast';
  const holdCommitP95S = options.holdCommitP95S ?? 5;
  const otherModes =
    options.otherModes ??
    (env.BENCH_REALTIME_OTHER_MODES === 'none' ? [] : (['auto', 'fast', 'accuracy'] as const).filter((mode) => mode !== latencyMode));
  // Progress goes to stderr: `npm run bench` prints the returned table on stdout.
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));

  const config = loadConfig({
    ...process.env, REALTIME_MAX_SESSIONS: String(maxConcurrent), REALTIME_SECRET: 'realtime-benchmark-secret-0123456789',
  });
  const runtime = new RealtimeRuntime(config);
  const server = http.createServer((_request, response) => response.end());
  server.on('upgrade', (request, socket, head) => runtime.sockets.handleUpgrade(request, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const rows: RealtimeBenchRow[] = [];
  try {
    const info = await runtime.engine.warm();
    log(`realtime bench: ${info.modelName} on ${info.provider} (asked: ${info.requestedProvider}), ${runtime.config.engineThreads} engine `
      + `thread(s), ${durationS} s of ${file.split('/').pop()} per session, latencyMode ${latencyMode}`);
    const level = async (sessions: number, mode: RealtimeBenchRow['latencyMode']): Promise<RealtimeBenchRow> => {
      const cpuBefore = process.cpuUsage();
      const runs = await Promise.all(
        Array.from({ length: sessions }, async () => {
          const created = runtime.createSession('bench', { latencyMode: mode, spokenLanguage: 'en' });
          return runSession(`ws://127.0.0.1:${port}${created.socketPath}`, file, durationS);
        }),
      );
      const cpu = process.cpuUsage(cpuBefore);
      const drafts = runs.flatMap((run) => run.draftLatencies);
      const commits = runs.flatMap((run) => run.commitLatencies);
      const row: RealtimeBenchRow = {
        sessions,
        latencyMode: mode,
        draftP50: percentile(drafts, 50),
        draftP95: percentile(drafts, 95),
        commitP50: percentile(commits, 50),
        commitP95: percentile(commits, 95),
        realtimeFactor: runs.reduce((sum, run) => sum + run.realtimeFactor, 0) / runs.length,
        cpuPerAudioS: (cpu.user + cpu.system) / 1e6 / runs.reduce((sum, run) => sum + run.audioS, 0),
        tailS: Math.max(...runs.map((run) => run.tailS)),
        words: runs.reduce((sum, run) => sum + run.words, 0),
        holds: false,
      };
      row.holds = runs.every((run) => run.completed) && row.commitP95 <= holdCommitP95S && row.tailS <= holdCommitP95S;
      rows.push(row);
      log(formatRow(row));
      return row;
    };
    // More concurrent sessions until one level no longer keeps up with real time.
    for (const sessions of levels) {
      if (!(await level(sessions, latencyMode)).holds) break;
    }
    // One session in each other mode, for comparison.
    for (const mode of otherModes) await level(1, mode);
  } finally {
    await runtime.close();
    server.close();
  }
  return { rows, table: formatTable(rows) };
}

const HEADER = '| sessions | mode | draft p50 s | draft p95 s | commit p50 s | commit p95 s | processing/audio | CPU s/audio s | tail s | '
  + 'words | real time |';

function formatRow(row: RealtimeBenchRow): string {
  const f = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '—');
  return `| ${row.sessions} | ${row.latencyMode} | ${f(row.draftP50)} | ${f(row.draftP95)} | ${f(row.commitP50)} | ${f(row.commitP95)} | `
    + `${f(row.realtimeFactor)} | ${f(row.cpuPerAudioS)} | ${f(row.tailS)} | ${row.words} | ${row.holds ? 'yes' : 'no'} |`;
}

function formatTable(rows: RealtimeBenchRow[]): string {
  return [HEADER, '|---|---|---|---|---|---|---|---|---|---|---|', ...rows.map(formatRow)].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { table } = await runRealtimeBench();
  console.log(table);
}
