/**
 * Engine benchmark: real-time factor and peak memory on a 60-second speech file, for this engine and for
 * `@huggingface/transformers`' ASR pipeline (the baseline) on the same whisper-tiny q8 weights, both greedy
 * (`BENCH_ENGINE_MODEL=whisper-base` compares the accurate model instead, greedy too). Only greedy decoding is
 * compared: transformers.js 4.3's `generate` keeps the first candidate of its beam sampler (no beam search)
 * and has no temperature fallback, so the file jobs' beam-5 decoding has no like-for-like baseline there.
 *
 * Each engine runs in its own child process so that peak RSS (getrusage maxrss) belongs to it alone and
 * neither warms the other's caches. In each child: load the model (timed apart), one warm-up run on a
 * short clip, then the timed run on the 60 s file. Our engine decodes the file itself with ffmpeg inside the
 * timed run; the baseline is handed the samples already decoded (its timing excludes decoding).
 *
 * `npm run bench` runs it through bench/index.ts; `tsx bench/engine.ts` runs it alone.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { fixture } from '../test/helpers/fixtures.js';

const run = promisify(execFile);
const here = fileURLToPath(import.meta.url);

export interface EngineBenchRow {
  engine: string;
  loadS: number;
  audioS: number;
  processingS: number;
  /** CPU seconds (user + system, all threads) of the timed run: steadier than wall time on a shared host. */
  cpuS: number;
  rtf: number;
  peakRssMb: number;
  words: number;
  text: string;
}

interface ChildOptions {
  engine: 'speechgate' | 'transformers.js';
  file: string;
  /** Same model for both engines (default whisper-tiny); both decode greedily. */
  model?: string;
  /** Threads per operator (both sessions for the baseline; the encoder for ours). */
  threads?: number;
  batchSize?: number;
  beamSize?: number;
}

/** Runs inside the child process: one engine, one measurement, JSON on stdout. */
async function measure(options: ChildOptions): Promise<EngineBenchRow> {
  const { decodeFileToPcm } = await import('../workers/engine/audio.js');
  const loadStarted = performance.now();
  if (options.engine === 'speechgate') {
    const { SpeechEngine } = await import('../workers/engine/index.js');
    const engine = await SpeechEngine.load({ model: options.model ?? 'whisper-tiny', intraOpThreads: options.threads, batchSize: options.batchSize });
    const loadS = (performance.now() - loadStarted) / 1000;
    await engine.transcribeFile(fixture('goforward.wav'));
    const cpuBefore = process.cpuUsage();
    const result = await engine.transcribeFile(options.file, { beamSize: options.beamSize ?? 1 });
    const text = result.segments.map((s) => s.text).join(' ');
    return row('speechgate', loadS, result.durationS, result.processingS, cpuSeconds(cpuBefore), text);
  }
  const { pipeline, env } = await import('@huggingface/transformers');
  const { resolveModelDir } = await import('../workers/engine/index.js');
  const { dirname } = await import('node:path');
  const model = options.model ?? 'whisper-tiny';
  const modelDir = resolveModelDir({ model }); // …/models/Xenova/<model>
  env.localModelPath = dirname(dirname(modelDir));
  env.allowRemoteModels = false;
  const transcriber = await pipeline('automatic-speech-recognition', `Xenova/${model}`, {
    dtype: 'q8',
    session_options: options.threads ? { intraOpNumThreads: options.threads } : undefined,
  });
  const loadS = (performance.now() - loadStarted) / 1000;
  const label = options.threads ? `transformers.js (${options.threads} thread${options.threads > 1 ? 's' : ''})` : 'transformers.js';
  const asr = (audio: Float32Array) =>
    transcriber(audio, { chunk_length_s: 30, stride_length_s: 5, return_timestamps: true }) as Promise<{ text: string }>;
  await asr(await decodeFileToPcm(fixture('goforward.wav')));
  const audio = await decodeFileToPcm(options.file);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const output = await asr(audio);
  return row(label, loadS, audio.length / 16000, (performance.now() - started) / 1000, cpuSeconds(cpuBefore), output.text);
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

function row(engine: string, loadS: number, audioS: number, processingS: number, cpuS: number, text: string): EngineBenchRow {
  return {
    engine,
    loadS,
    audioS,
    processingS,
    cpuS,
    rtf: processingS / audioS,
    // getrusage's maxrss is in kilobytes on Linux.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    words: text.split(/\s+/).filter(Boolean).length,
    text: text.trim(),
  };
}

async function inChild(options: ChildOptions): Promise<EngineBenchRow> {
  const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
  const { stdout } = await run(tsx, [here, '--child', JSON.stringify(options)], { maxBuffer: 16 * 1024 * 1024, env: process.env });
  const line = stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as EngineBenchRow;
}

export interface EngineBenchOptions {
  file?: string;
  /** The model both engines run (default BENCH_ENGINE_MODEL, else whisper-tiny). */
  model?: string;
  threads?: number;
  batchSize?: number;
  log?: (line: string) => void;
}

export async function benchEngine(options: EngineBenchOptions = {}): Promise<{ rows: EngineBenchRow[]; table: string }> {
  const file = options.file ?? fixture('political-philosophy-60s.wav');
  const model = options.model ?? process.env.BENCH_ENGINE_MODEL ?? 'whisper-tiny';
  const log = options.log ?? ((line: string) => console.error(line));
  const rows: EngineBenchRow[] = [];
  const { loadavg, cpus } = await import('node:os');
  log(`engine bench: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const runs: ChildOptions[] = [
    { engine: 'speechgate', file, model, threads: options.threads, batchSize: options.batchSize },
    { engine: 'transformers.js', file, model, threads: options.threads },
    // Ours decodes on one thread by default; the baseline pinned to one thread too, for a like-for-like row.
    { engine: 'transformers.js', file, model, threads: 1 },
  ];
  for (const run of runs) {
    log(`engine bench: ${run.engine}${run.threads ? ` (${run.threads} threads)` : ''} …`);
    rows.push(await inChild(run));
  }
  return { rows, table: formatTable(rows, model) };
}

function formatTable(rows: EngineBenchRow[], model: string): string {
  const [ours, ...baselines] = rows;
  const lines = [
    '| engine | model, decoding | load s | audio s | processing s | real-time factor | CPU s (all threads) | peak RSS MB | words |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.engine} | ${model} q8, greedy | ${r.loadS.toFixed(2)} | ${r.audioS.toFixed(1)} | ${r.processingS.toFixed(2)} | ${r.rtf.toFixed(3)} | ${r.cpuS.toFixed(2)} | ${r.peakRssMb.toFixed(0)} | ${r.words} |`,
    ),
  ];
  if (ours && baselines.length) {
    lines.push('', `speechgate real-time factor ${ours.rtf.toFixed(3)} (goal ≤ 0.15)`);
    for (const baseline of baselines) {
      lines.push(
        `vs ${baseline.engine}: ${(baseline.processingS / ours.processingS).toFixed(2)}× faster (goal ≥ 1.5×), ` +
          `${(baseline.cpuS / ours.cpuS).toFixed(2)}× less CPU, peak memory ${(ours.peakRssMb / baseline.peakRssMb).toFixed(2)}× of it`,
      );
    }
    for (const r of rows) lines.push(`${r.engine}: "${r.text.slice(0, 160)}${r.text.length > 160 ? '…' : ''}"`);
  }
  return lines.join('\n');
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
