/**
 * The engine race against the two runtimes self-hosted speech servers use, on this project's own weights:
 * whisper.cpp (ggml f16) and faster-whisper (CTranslate2 int8), built and converted by bench/anchors/build.sh into
 * `BENCH_ENGINE_ANCHORS` (never a dependency of the product, never in `npm test`).
 *
 * Like for like: the same 60 s file, language given (en), no voice activity filter, no word timings, no
 * previous-text prompt, the temperature fallback on, the same threads (2), greedy for whisper-tiny and beam 5 for
 * whisper-base (a file job's decoding). Each run is a whole process (model load included) under `/usr/bin/time`:
 * wall seconds, CPU seconds (user + system) and peak RSS. The engines take turns within each round, so a shared
 * host's load falls on all of them alike; the table gives medians, and each ratio is the median of the ratios
 * within a round. OpenMP is told to sleep while waiting (`OMP_WAIT_POLICY=passive`), or its spinning threads
 * would count as work.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median } from './stats.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export type AnchorEngine = 'speechgate' | 'whisper.cpp' | 'faster-whisper';

export interface AnchorSetting {
  model: 'whisper-tiny' | 'whisper-base';
  beamSize: number;
}

export interface AnchorRun {
  engine: AnchorEngine;
  setting: AnchorSetting;
  wallS: number;
  cpuS: number;
  /** The kernel's part of `cpuS` (page faults, thread wake-ups): shown apart, as it depends on the host more than the engine. */
  systemS: number;
  peakRssMb: number;
  text: string;
  loadAverage: number;
}

export const ANCHOR_SETTINGS: AnchorSetting[] = [
  { model: 'whisper-tiny', beamSize: 1 },
  { model: 'whisper-base', beamSize: 5 },
];
const ENGINES: AnchorEngine[] = ['speechgate', 'whisper.cpp', 'faster-whisper'];
const THREADS = 2;
/** `/usr/bin/time`'s last line: wall, user and system seconds, peak RSS in KiB. */
const TIME_FORMAT = 'anchor-time %e %U %S %M';

/** The command line of one engine's run, as the build left the anchors in `dir`. */
function commandOf(engine: AnchorEngine, setting: AnchorSetting, file: string, dir: string): { argv: string[]; env: NodeJS.ProcessEnv } {
  const short = setting.model.replace('whisper-', '');
  const env = { ...process.env, OMP_WAIT_POLICY: 'passive' };
  if (engine === 'whisper.cpp') {
    const argv = [path.join(dir, 'whisper.cpp/build/bin/whisper-cli'), '-m', path.join(dir, `ggml-${short}.bin`), '-f', file, '-l', 'en',
      '-t', String(THREADS), '-bs', String(setting.beamSize), '-nt', '-np'];
    return { argv, env };
  }
  if (engine === 'faster-whisper') {
    const argv = [path.join(dir, 'venv/bin/python'), path.join(REPO, 'bench/anchors/fw_run.py'), '--model', path.join(
      dir, `ct2-whisper-${short}`,
    ),
      '--beam', String(setting.beamSize), '--compute-type', 'int8', '--threads', String(THREADS), '--language', 'en', '--lfl', file];
    const pythonPath = [path.join(dir, 'pylib'), path.join(dir, 'faster-whisper')].join(':');
    return { argv, env: { ...env, PYTHONPATH: pythonPath, LD_LIBRARY_PATH: path.join(dir, 'ct2-install/lib') } };
  }
  // One process, as `npm run transcribe` runs it (the tsx CLI would start a second Node process to run the file in).
  const argv = [
    process.execPath, '--import', 'tsx', path.join(REPO, 'bench/helpers/anchor-child.ts'),
    JSON.stringify({ file, threads: THREADS, ...setting }),
  ];
  return { argv, env };
}

/** The transcript a run printed: whisper-cli's lines, faster-whisper's JSON, ours as its last line. */
function textOf(engine: AnchorEngine, stdout: string): string {
  if (engine === 'faster-whisper') {
    return Object.values((JSON.parse(stdout.trim().split('\n').pop()!) as { texts: Record<string, string> }).texts).join(' ');
  }
  if (engine === 'speechgate') return (JSON.parse(stdout.trim().split('\n').pop()!) as { text: string }).text;
  return stdout.split('\n').map((line) => line.trim()).filter(Boolean).join(' ');
}

async function measure(engine: AnchorEngine, setting: AnchorSetting, file: string, dir: string): Promise<AnchorRun> {
  const { argv, env } = commandOf(engine, setting, file, dir);
  const loadAverage = loadavg()[0];
  const { stdout, stderr } = await run('/usr/bin/time', ['-f', TIME_FORMAT, ...argv], { env, maxBuffer: 64 * 1024 * 1024 });
  const times = stderr.split('\n').reverse().find((line) => line.startsWith('anchor-time '));
  if (!times) throw new Error(`${engine}: /usr/bin/time printed nothing: ${stderr.slice(-500)}`);
  const [wallS, userS, systemS, rssKb] = times.split(' ').slice(1).map(Number);
  return {
    engine, setting, wallS: wallS!, cpuS: userS! + systemS!, systemS: systemS!, peakRssMb: rssKb! / 1024, text: textOf(engine, stdout),
    loadAverage,
  };
}

/** What is missing from `dir` for an engine to run, or null. */
function missing(engine: AnchorEngine, dir: string): string | null {
  const needed = engine === 'whisper.cpp' ? ['whisper.cpp/build/bin/whisper-cli', 'ggml-tiny.bin', 'ggml-base.bin']
    : engine === 'faster-whisper' ? [
      'venv/bin/python', 'ct2-install/lib', 'pylib/ctranslate2', 'faster-whisper/faster_whisper', 'ct2-whisper-tiny', 'ct2-whisper-base',
    ]
      : [];
  const absent = needed.filter((entry) => !existsSync(path.join(dir, entry)));
  return absent.length ? absent.join(', ') : null;
}


export interface AnchorBenchOptions {
  dir: string;
  file: string;
  rounds: number;
  /**
   * One uncounted run of each configuration first (default true): this engine's first start after a change to the
   * model or the engine writes its graph cache (~2 CPU s, ~100 MB more at the peak), as build.sh converts the
   * anchors' models ahead of time; and every engine's files reach the page cache.
   */
  warmUp?: boolean;
  log: (line: string) => void;
}

export async function benchAnchors(options: AnchorBenchOptions): Promise<{ runs: AnchorRun[][]; table: string }> {
  const engines = ENGINES.filter((engine) => {
    const absent = missing(engine, options.dir);
    if (absent) options.log(`engine anchors: ${engine} left out, ${options.dir} lacks ${absent} (bench/anchors/build.sh makes them)`);
    return !absent;
  });
  const configurations = ANCHOR_SETTINGS.flatMap((setting) => engines.map((engine) => ({ engine, setting })));
  const runs: AnchorRun[][] = configurations.map(() => []);
  if (options.warmUp ?? true) {
    for (const { engine, setting } of configurations) {
      const result = await measure(engine, setting, options.file, options.dir);
      options.log(`engine anchors: warm-up (not counted), ${engine} ${setting.model} beam ${setting.beamSize}: `
        + `${result.cpuS.toFixed(2)} CPU s, ${result.peakRssMb.toFixed(0)} MB`);
    }
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const [i, { engine, setting }] of configurations.entries()) {
      const result = await measure(engine, setting, options.file, options.dir);
      options.log(`engine anchors: round ${round}, ${engine} ${setting.model} beam ${setting.beamSize}: ${result.wallS.toFixed(2)} s, `
        + `${result.cpuS.toFixed(2)} CPU s, ${result.peakRssMb.toFixed(0)} MB (load average ${result.loadAverage.toFixed(1)})`);
      runs[i]!.push(result);
    }
  }
  return { runs, table: anchorTable(configurations, runs, options) };
}

function anchorTable(
  configurations: { engine: AnchorEngine; setting: AnchorSetting }[], runs: AnchorRun[][], options: AnchorBenchOptions,
): string {
  const audioS = 60;
  const lines = [
    `Whole processes (load included), ${THREADS} threads, language en, no VAD, no word timings, no prompt, fallback on; `
      + `medians of ${options.rounds} rounds, engines in turn; peak RSS: the largest of the runs`,
    '',
    '| model, decoding | engine | wall s | real-time factor | CPU s | of which system s | peak RSS MB | words | load average |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [i, { engine, setting }] of configurations.entries()) {
    const mine = runs[i]!;
    const wall = median(mine.map((r) => r.wallS));
    lines.push(`| ${setting.model} ${setting.beamSize === 1 ? 'greedy' : `beam ${setting.beamSize}`} | ${engine} | ${wall.toFixed(2)} | `
      + `${(wall / audioS).toFixed(3)} | ${median(mine.map((r) => r.cpuS)).toFixed(2)} | `
      + `${median(mine.map((r) => r.systemS)).toFixed(2)} | `
        + `${Math.max(...mine.map((r) => r.peakRssMb)).toFixed(0)} | `
      + `${mine[0]!.text.split(/\s+/).filter(Boolean).length} | ${median(mine.map((r) => r.loadAverage)).toFixed(1)} |`);
  }
  lines.push('');
  for (const setting of ANCHOR_SETTINGS) {
    const index = (engine: AnchorEngine) => configurations.findIndex((c) => c.engine === engine && c.setting === setting);
    const ours = index('speechgate');
    for (const anchor of ['whisper.cpp', 'faster-whisper'] as const) {
      const theirs = index(anchor);
      if (ours < 0 || theirs < 0) continue;
      const perRound = (key: 'cpuS' | 'wallS') => runs[ours]!.map((r, round) => r[key] / runs[theirs]![round]![key]);
      lines.push(`${setting.model} ${setting.beamSize === 1 ? 'greedy' : `beam ${setting.beamSize}`}: speechgate uses `
        + `${median(perRound('cpuS')).toFixed(2)}× the CPU seconds of ${anchor} (rounds: `
          + `${perRound('cpuS').map((x) => x.toFixed(2)).join(', ')}), `
        + `${median(perRound('wallS')).toFixed(2)}× its wall time; peak RSS `
          + `${Math.max(...runs[ours]!.map((r) => r.peakRssMb)).toFixed(0)} MB vs `
        + `${Math.max(...runs[theirs]!.map((r) => r.peakRssMb)).toFixed(0)} MB`
        + (anchor === 'faster-whisper' ? ' (goal: at most its CPU seconds, peak RSS ≤ 400 MB)' : ''));
    }
  }
  lines.push('');
  for (const [i, { engine, setting }] of configurations.entries()) {
    const text = runs[i]![0]!.text;
    lines.push(`${engine} ${setting.model}: "${text.slice(0, 140)}${text.length > 140 ? '…' : ''}"`);
  }
  return lines.join('\n');
}
