/**
 * Engine benchmark: speed and peak memory on a 60-second speech file, for this engine and for
 * `@huggingface/transformers`' ASR pipeline (the baseline) on the same whisper-tiny q8 weights
 * (`BENCH_ENGINE_MODEL=whisper-base` compares the accurate model instead). Two comparisons:
 *
 * - like for like: both handed the decoded samples, both cutting them into consecutive 30 s windows
 *   (transformers.js `chunk_length_s: 30, stride_length_s: 0`; ours `vad: false`), both greedy at temperature 0
 *   with timestamp tokens, no previous-text prompt, no temperature fallback, no word timings. The speed goal
 *   (≥ 1.5× transformers.js) is measured here.
 * - as shipped: ours as a file job runs it (ffmpeg decoding inside the timed run, voice activity, word timings,
 *   the previous-text prompt and the temperature fallback, greedy), transformers.js as its documentation runs
 *   long audio (`chunk_length_s: 30, stride_length_s: 5`, overlapping windows merged), handed decoded samples.
 *
 * transformers.js 4.3's `generate` keeps the first candidate of its beam sampler (no beam search) and has no
 * temperature fallback, so the file jobs' beam-5 decoding has no like-for-like baseline there.
 *
 * Each measurement runs in its own child process so that peak RSS (getrusage maxrss, load included) belongs to
 * it alone and no run warms another's caches. In each child: load the model (timed apart), one warm-up run on
 * a short clip with the same settings, then the timed run on the 60 s file. The configurations run in turn,
 * `BENCH_ENGINE_ROUNDS` rounds (default 3), so that a shared host's load falls on all of them alike; the table
 * gives medians, and each ratio is the median of the ratios within a round. The load average is recorded
 * before every run.
 *
 * On a GPU machine, `BENCH_ENGINE_PROVIDERS=cpu,cuda` adds our engine on CUDA beside the CPU in the same rounds:
 * its rows say the provider that ran (cpu after a fallback) and the GPU memory the process held (nvidia-smi), and
 * a ratio line per provider gives CUDA against the CPU. `BENCH_ENGINE_BASELINE=off` leaves transformers.js out.
 *
 * transformers.js is not installed by default (445 MB with its onnxruntime-web, for this bench alone): add it with
 * `npm install --no-save @huggingface/transformers@^4.3.1` (what TRANSFORMERS_BASELINE names). Without it the bench
 * runs our engine alone and says how to add the baseline.
 *
 * `npm run bench` runs it through bench/index.ts; `node --import tsx bench/engine.ts` runs it alone.
 *
 * `BENCH_ENGINE_ANCHORS=<dir>` adds the race against whisper.cpp and faster-whisper on the same weights
 * (`benchEngineAnchors`, bench/helpers/anchors.ts), with the builds bench/anchors/build.sh leaves in `<dir>`, after an
 * uncounted warm-up run of each (`BENCH_ENGINE_WARMUP=0` leaves it out).
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { fixture } from '../test/helpers/fixtures.js';
import { benchAnchors } from './helpers/anchors.js';
import { median } from './helpers/stats.js';

const run = promisify(execFile);
const here = fileURLToPath(import.meta.url);

export interface EngineBenchRow {
  engine: string;
  /** The execution provider the engine's sessions ran on (what ran, not what was asked: 'cpu' after a fallback). */
  provider: string;
  loadS: number;
  audioS: number;
  processingS: number;
  /** CPU seconds (user + system, all threads) of the timed run: steadier than wall time on a shared host. */
  cpuS: number;
  rtf: number;
  peakRssMb: number;
  words: number;
  text: string;
  /** 1-minute load average of the host when the run started. */
  loadAverage: number;
  /** GPU memory this process held after the timed run (MiB, nvidia-smi), null on the CPU or without nvidia-smi. */
  gpuMemMb: number | null;
}

interface ChildOptions {
  engine: 'speechgate' | 'transformers.js';
  file: string;
  /** Same model for both engines (default whisper-tiny). */
  model?: string;
  /** Threads per operator (both sessions for the baseline; the encoder for ours). */
  threads?: number;
  batchSize?: number;
  /** The like-for-like settings (see the file's comment) instead of each engine's own. */
  likeForLike?: boolean;
  /** Execution provider asked of our engine ('cpu' unless set; transformers.js always runs on the CPU). */
  provider?: string;
}

function label(options: ChildOptions): string {
  const threads = options.threads ? ` (${options.threads} thread${options.threads > 1 ? 's' : ''})` : '';
  const provider = options.provider && options.provider !== 'cpu' ? ` on ${options.provider}` : '';
  return `${options.engine}${provider}${threads}, ${options.likeForLike ? 'like for like' : 'as shipped'}`;
}

/**
 * GPU memory held by process `pid` (MiB) as nvidia-smi reports it, or null (no nvidia-smi, no GPU, or the
 * process holds none). onnxruntime's CUDA arena keeps what it allocated, so after a run this is its peak.
 */
async function gpuMemoryOf(pid: number): Promise<number | null> {
  try {
    const { stdout } = await run(
      'nvidia-smi', ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'], { timeout: 10_000 },
    );
    const mine = stdout
      .split('\n')
      .map((line) => line.split(',').map((field) => Number(field.trim())))
      .filter(([owner]) => owner === pid);
    return mine.length ? mine.reduce((sum, [, mib]) => sum + mib, 0) : null;
  } catch {
    return null;
  }
}

/** Runs inside the child process: one engine, one measurement, JSON on stdout. */
async function measure(options: ChildOptions): Promise<EngineBenchRow> {
  const { decodeFileToPcm } = await import('../workers/engine/audio.js');
  const model = options.model ?? 'whisper-tiny';
  const loadStarted = performance.now();
  /** Prepares the run of one file (decoding it first where the engine is handed samples); the run gives its text and audio seconds. */
  let transcribe: (file: string) => Promise<() => Promise<{ text: string; audioS: number }>>;
  let provider = 'cpu';
  if (options.engine === 'speechgate') {
    const { SpeechEngine } = await import('../workers/engine/speech-engine.js');
    const engine = await SpeechEngine.load({
      model, intraOpThreads: options.threads, batchSize: options.batchSize, provider: options.provider ?? 'cpu',
    });
    provider = engine.provider;
    const joined = (result: { segments: { text: string }[]; durationS: number }) => ({
      text: result.segments.map((s) => s.text).join(' '), audioS: result.durationS,
    });
    transcribe = options.likeForLike
      ? async (file) => {
          const pcm = await decodeFileToPcm(file);
          return async () =>
            joined(await engine.transcribePcm(pcm, {
              beamSize: 1, vad: false, wordTimestamps: false, temperatures: [0], conditionOnPreviousText: false,
            }));
        }
      : async (file) => async () => joined(await engine.transcribeFile(file, { beamSize: 1 }));
  } else {
    const { pipeline, env } = (await import(TRANSFORMERS_PACKAGE)) as TransformersModule;
    // transformers.js brings its own onnxruntime-node (1.30); the engine's is pinned to 1.29, and two builds of
    // libonnxruntime.so.1 cannot share a process: this child loads nothing of the engine but its ffmpeg decoding.
    const { installedPackageDir } = await import('../workers/engine/audio.js');
    const { join } = await import('node:path');
    const packageDir = installedPackageDir(`sts-${model}`);
    if (!packageDir) throw new Error(`the baseline reads the npm package sts-${model}, which is not installed`);
    env.localModelPath = join(packageDir, 'models'); // …/models/Xenova/<model>
    env.allowRemoteModels = false;
    const transcriber = await pipeline('automatic-speech-recognition', `Xenova/${model}`, {
      dtype: 'q8',
      session_options: options.threads ? { intraOpNumThreads: options.threads } : undefined,
    });
    const chunking = { chunk_length_s: 30, stride_length_s: options.likeForLike ? 0 : 5 };
    transcribe = async (file) => {
      const pcm = await decodeFileToPcm(file);
      return async () => ({
        text: ((await transcriber(pcm, { ...chunking, return_timestamps: true })) as { text: string }).text,
        audioS: pcm.length / 16000,
      });
    };
  }
  const loadS = (performance.now() - loadStarted) / 1000;
  await (await transcribe(fixture('goforward.wav')))();
  const timed = await transcribe(options.file);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { text, audioS } = await timed();
  const processingS = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpuBefore);
  return {
    engine: label(options),
    provider,
    loadS,
    audioS,
    processingS,
    cpuS: (used.user + used.system) / 1e6,
    rtf: processingS / audioS,
    // getrusage's maxrss is in kilobytes on Linux.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    words: text.split(/\s+/).filter(Boolean).length,
    text: text.trim(),
    loadAverage: 0,
    gpuMemMb: provider === 'cpu' ? null : await gpuMemoryOf(process.pid),
  };
}

async function inChild(options: ChildOptions): Promise<EngineBenchRow> {
  const { loadavg } = await import('node:os');
  const loadAverage = loadavg()[0];
  // `node --import tsx`, not the tsx CLI (which starts a second Node process to run the file in).
  const { stdout } = await run(
    process.execPath, ['--import', 'tsx', here, '--child', JSON.stringify(options)], { maxBuffer: 16 * 1024 * 1024, env: process.env },
  );
  const line = stdout.trim().split('\n').pop()!;
  return { ...(JSON.parse(line) as EngineBenchRow), loadAverage };
}

export interface EngineBenchOptions {
  file?: string;
  /** The model both engines run (default BENCH_ENGINE_MODEL, else whisper-tiny). */
  model?: string;
  threads?: number;
  batchSize?: number;
  /** Runs of each configuration, in turn (default BENCH_ENGINE_ROUNDS, else 3). */
  rounds?: number;
  /**
   * Execution providers our engine runs on, each beside the CPU (default BENCH_ENGINE_PROVIDERS, comma-separated,
   * else 'cpu' alone): `cpu,cuda` on a GPU machine puts the CUDA rows beside the CPU rows of the same file.
   */
  providers?: string[];
  /** Whether transformers.js runs as the baseline (default true; BENCH_ENGINE_BASELINE=off leaves it out). */
  baseline?: boolean;
  log?: (line: string) => void;
}


/** The runs of one configuration, summarised: medians, and the largest peak RSS and GPU memory. */
function summarise(runs: EngineBenchRow[]): EngineBenchRow {
  const of = (key: 'loadS' | 'processingS' | 'cpuS' | 'rtf' | 'loadAverage') => median(runs.map((r) => r[key]));
  const gpu = runs.map((r) => r.gpuMemMb).filter((mib): mib is number => mib !== null);
  return {
    ...runs[0],
    loadS: of('loadS'),
    processingS: of('processingS'),
    cpuS: of('cpuS'),
    rtf: of('rtf'),
    loadAverage: of('loadAverage'),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    gpuMemMb: gpu.length ? Math.max(...gpu) : null,
  };
}

/** The baseline's package, installed on demand (see the file's comment): not a dependency, so typed here. */
const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const TRANSFORMERS_BASELINE = `${TRANSFORMERS_PACKAGE}@^4.3.1`;
interface TransformersModule {
  env: { localModelPath: string; allowRemoteModels: boolean };
  pipeline(
    task: 'automatic-speech-recognition',
    model: string,
    options: { dtype: string; session_options?: { intraOpNumThreads: number } },
  ): Promise<(audio: Float32Array, options: Record<string, unknown>) => Promise<unknown>>;
}

/** Whether the baseline's package can be imported here. */
function transformersInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(TRANSFORMERS_PACKAGE);
    return true;
  } catch {
    return false;
  }
}

export async function benchEngine(options: EngineBenchOptions = {}): Promise<{
  rows: EngineBenchRow[]; runs: EngineBenchRow[][]; table: string;
}> {
  const file = options.file ?? fixture('political-philosophy-60s.wav');
  const model = options.model ?? process.env.BENCH_ENGINE_MODEL ?? 'whisper-tiny';
  const rounds = Math.max(1, options.rounds ?? (Number(process.env.BENCH_ENGINE_ROUNDS) || 3));
  const log = options.log ?? ((line: string) => console.error(line));
  const listed = options.providers ?? (process.env.BENCH_ENGINE_PROVIDERS ?? 'cpu').split(',');
  // The CPU always runs: every other provider's ratio is taken against it, in the same rounds.
  const providers = ['cpu', ...listed.map((p) => p.trim().toLowerCase()).filter((p) => p && p !== 'cpu')];
  const wanted = options.baseline ?? process.env.BENCH_ENGINE_BASELINE !== 'off';
  const baseline = wanted && transformersInstalled();
  if (wanted && !baseline) {
    log(`engine bench: the transformers.js baseline is not installed (npm install --no-save ${TRANSFORMERS_BASELINE}); our engine runs `
      + `alone`);
  }
  const { cpus } = await import('node:os');
  log(`engine bench: ${cpus().length} cores, ${rounds} rounds, providers ${providers.join(', ')}`);
  const common = { file, model, threads: options.threads };
  const configurations: ChildOptions[] = [];
  for (const likeForLike of [true, false]) {
    for (const provider of providers) configurations.push({
      ...common, engine: 'speechgate', batchSize: options.batchSize, likeForLike, provider,
    });
    if (baseline) configurations.push({ ...common, engine: 'transformers.js', likeForLike });
  }
  const runs: EngineBenchRow[][] = configurations.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [i, configuration] of configurations.entries()) {
      const result = await inChild(configuration);
      const gpu = result.gpuMemMb === null ? '' : `, GPU ${result.gpuMemMb} MiB`;
      log(
        `engine bench: round ${round}, ${result.engine}: ${result.processingS.toFixed(2)} s, ${result.cpuS.toFixed(2)} CPU s, `
          + `${result.peakRssMb.toFixed(0)} MB${gpu} (load average ${result.loadAverage.toFixed(1)})`,
      );
      if (configuration.provider && result.provider !== configuration.provider) {
        log(`engine bench: asked for ${configuration.provider}, ran on ${result.provider}`);
      }
      runs[i].push(result);
    }
  }
  const rows = runs.map(summarise);
  return { rows, runs, table: formatTable(configurations, rows, runs, model) };
}

function formatTable(configurations: ChildOptions[], rows: EngineBenchRow[], runs: EngineBenchRow[][], model: string): string {
  const showGpu = rows.some((r) => r.gpuMemMb !== null);
  const lines = [
    `${model} q8, greedy; medians of ${runs[0].length} runs each (configurations in turn); peak RSS${showGpu ? ' and GPU memory' : ''}: `
      + `the largest of the runs`,
    '',
    `| engine, settings | provider | load s | audio s | processing s | real-time factor | CPU s (all threads) | peak RSS MB `
      + `|${showGpu ? ' GPU MiB |' : ''} words | load average |`,
    `|---|---|---|---|---|---|---|---|${showGpu ? '---|' : ''}---|---|`,
    ...rows.map(
      (r) =>
        `| ${r.engine} | ${r.provider} | ${r.loadS.toFixed(2)} | ${r.audioS.toFixed(1)} | ${r.processingS.toFixed(2)} | `
          + `${r.rtf.toFixed(3)} | ${r.cpuS.toFixed(2)} | `
        + `${r.peakRssMb.toFixed(0)} |${showGpu ? ` ${r.gpuMemMb ?? '—'} |` : ''} ${r.words} | ${r.loadAverage.toFixed(1)} |`,
    ),
    '',
  ];
  /** Median over rounds of `slower / faster` processing time (and CPU time), each round's pair taken together. */
  const ratio = (faster: number, slower: number, key: 'processingS' | 'cpuS') => runs[faster].map((r, i) => runs[slower][i][key] / r[key]);
  for (const likeForLike of [true, false]) {
    const index = (engine: ChildOptions['engine'], provider?: string) =>
      configurations.findIndex(
        (c) => c.engine === engine && c.likeForLike === likeForLike && (provider === undefined || c.provider === provider),
      );
    const ours = index('speechgate', 'cpu');
    const settings = likeForLike ? 'like for like' : 'as shipped';
    const baseline = index('transformers.js');
    if (baseline >= 0) {
      const perRound = ratio(ours, baseline, 'processingS');
      lines.push(
        `${settings}: speechgate ${median(perRound).toFixed(2)}× faster than transformers.js `
          + `(rounds: ${perRound.map((x) => x.toFixed(2)).join(', ')}; goal ≥ 1.5×), ${median(ratio(ours, baseline, 'cpuS')).toFixed(2)}× `
            + `less CPU, `
          + `peak memory ${rows[ours].peakRssMb.toFixed(0)} MB (goal ≤ 500) vs ${rows[baseline].peakRssMb.toFixed(0)} MB`,
      );
    }
    for (const [i, configuration] of configurations.entries()) {
      if (configuration.engine !== 'speechgate' || configuration.likeForLike !== likeForLike || configuration.provider === 'cpu') continue;
      const perRound = ratio(i, ours, 'processingS');
      lines.push(
        `${settings}: speechgate on ${rows[i].provider} (asked: ${configuration.provider}) ${median(perRound).toFixed(2)}× faster than on `
          + `the CPU `
          + `(rounds: ${perRound.map((x) => x.toFixed(2)).join(', ')}), real-time factor ${rows[i].rtf.toFixed(4)} vs `
            + `${rows[ours].rtf.toFixed(4)}, `
          + `${median(ratio(i, ours, 'cpuS')).toFixed(2)}× less CPU, GPU memory ${rows[i].gpuMemMb ?? '—'} MiB`,
      );
    }
  }
  lines.push('');
  for (const r of rows) lines.push(`${r.engine}: "${r.text.slice(0, 160)}${r.text.length > 160 ? '…' : ''}"`);
  return lines.join('\n');
}

/** The race against whisper.cpp and faster-whisper (bench/helpers/anchors.ts), when BENCH_ENGINE_ANCHORS names their builds. */
export async function benchEngineAnchors(): Promise<{ table: string }> {
  const dir = process.env.BENCH_ENGINE_ANCHORS;
  if (!dir) {
    return { table: 'Not run: BENCH_ENGINE_ANCHORS names the folder bench/anchors/build.sh builds whisper.cpp and faster-whisper in.' };
  }
  const rounds = Math.max(1, Number(process.env.BENCH_ENGINE_ROUNDS) || 3);
  const { table } = await benchAnchors({
    dir, file: fixture('political-philosophy-60s.wav'), rounds, warmUp: process.env.BENCH_ENGINE_WARMUP !== '0',
    log: (line) => console.error(line),
  });
  return { table };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const childIndex = process.argv.indexOf('--child');
  if (childIndex >= 0) {
    const result = await measure(JSON.parse(process.argv[childIndex + 1]) as ChildOptions);
    console.log(JSON.stringify(result));
  } else {
    const { table } = await benchEngine({
      threads: process.env.ENGINE_THREADS ? Number(process.env.ENGINE_THREADS) : undefined,
      batchSize: process.env.ENGINE_BATCH ? Number(process.env.ENGINE_BATCH) : undefined,
    });
    console.log(table);
  }
}
