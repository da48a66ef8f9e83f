/**
 * `npm run transcribe -- <file> [--language xx] [--json] [--fast] [--greedy | --beam N] [--model NAME] [--no-vad] [--no-words]`
 *
 * Decodes like a file job by default: the accurate model (MODEL_ACCURATE, else MODEL, else whisper-base) with
 * beam search (5) and the temperature fallback. `--fast` picks the fast model (MODEL_FAST, else MODEL, else
 * whisper-tiny), `--greedy` greedy decoding (beam 1), `--model` any other model.
 *
 * Prints each segment with its times as soon as it is done, and a progress bar on stderr when stderr is a
 * terminal. With --json, prints the whole result as one JSON document at the end instead.
 */
import { pathToFileURL } from 'node:url';
import { commandLineFlags } from './command-line.js';
import { EngineError } from '../errors.js';
import { SpeechEngine, type ModelRole, type Progress, type Segment, type TranscribeOptions } from '../speech-engine.js';

/** What the CLI decodes with when no flag says otherwise: the file jobs' settings. */
export const CLI_DEFAULTS = { role: 'accurate' as ModelRole, beamSize: 5 };

export interface CliArgs {
  file: string;
  json: boolean;
  verbose: boolean;
  /** The model's role when no `model` is named: accurate unless `--fast`. */
  role: ModelRole;
  model?: string;
  provider?: string;
  threads?: number;
  options: TranscribeOptions;
}

const USAGE =
  'usage: npm run transcribe -- <file> [--language xx] [--json] [--fast] [--greedy | --beam N] [--model NAME] [--provider cpu|cuda] '
    + '[--threads N] '
  + '[--start S] [--end S] [--no-vad] [--no-words] [--verbose]\n'
  + '  default: the accurate model (MODEL_ACCURATE, whisper-base) with beam search 5; --fast: the fast model (MODEL_FAST, whisper-tiny); '
    + '--greedy: beam 1';

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { file: '', json: false, verbose: false, role: CLI_DEFAULTS.role, options: { beamSize: CLI_DEFAULTS.beamSize } };
  for (const { arg, value } of commandLineFlags(argv, USAGE)) {
    if (arg === '--language' || arg === '-l') args.options.language = value();
    else if (arg === '--json') args.json = true;
    else if (arg === '--beam') {
      const beam = Number(value());
      if (!Number.isInteger(beam) || beam < 1) throw new Error(`--beam needs a whole number ≥ 1\n${USAGE}`);
      args.options.beamSize = beam;
    } else if (arg === '--greedy') args.options.beamSize = 1;
    else if (arg === '--fast') args.role = 'fast';
    else if (arg === '--model') args.model = value();
    else if (arg === '--provider') args.provider = value();
    else if (arg === '--threads') args.threads = Number(value());
    else if (arg === '--start') args.options.startS = Number(value());
    else if (arg === '--end') args.options.endS = Number(value());
    else if (arg === '--no-vad') args.options.vad = false;
    else if (arg === '--no-words') args.options.wordTimestamps = false;
    else if (arg === '--verbose' || arg === '-v') args.verbose = true;
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (!arg.startsWith('-') && !args.file) args.file = arg;
    else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  if (!args.file) throw new Error(USAGE);
  return args;
}

/** 00:01:02.345 */
export function clock(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${s.toFixed(3).padStart(6, '0')}`;
}

export function formatSegment(segment: Segment): string {
  return `[${clock(segment.start)} --> ${clock(segment.end)}] ${segment.text}`;
}

function progressBar(progress: Progress, width = 30): string {
  const filled = Math.round((progress.pct / 100) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${progress.pct.toFixed(1).padStart(5)}%  ${clock(progress.processedS)} / `
    + `${clock(progress.totalS)}  ${progress.segmentsDone} segments`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const bar = !args.json && process.stderr.isTTY;
  const loadStarted = performance.now();
  const engine = await SpeechEngine.load({ model: args.model, role: args.role, provider: args.provider, intraOpThreads: args.threads });
  const beam = args.options.beamSize ?? 1;
  if (!args.json) {
    console.error(
      `${engine.modelName} on ${engine.provider}, ${beam > 1 ? `beam search ${beam}` : 'greedy'}, loaded in `
        + `${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
    );
  }
  const clearBar = () => bar && process.stderr.write('\r\x1b[2K');
  const result = await engine.transcribeFile(args.file, {
    ...args.options,
    onSegment: (segment) => {
      if (args.json) return;
      clearBar();
      console.log(formatSegment(segment));
    },
    onWindow: (info) => {
      if (!args.verbose) return;
      clearBar();
      console.error(
        `  window ${clock(info.startS)}–${clock(info.endS)}: temperature ${info.temperature}, avg logprob ${info.avgLogprob.toFixed(2)}, `
          + `compression ${info.compressionRatio.toFixed(2)}, no-speech ${info.noSpeechProb.toFixed(2)}${info.silence ? ' (silence)' : ''}`,
      );
    },
    onProgress: (progress) => {
      if (bar) process.stderr.write(`\r${progressBar(progress)}`);
    },
  });
  clearBar();
  if (args.json) {
    console.log(JSON.stringify({ model: engine.modelName, beamSize: beam, ...result }, null, 2));
  } else {
    console.error(
      `${result.segments.length} segments, language ${result.language}, ${result.durationS.toFixed(1)} s of audio in `
        + `${result.processingS.toFixed(1)} s (real-time factor ${(result.processingS / Math.max(result.durationS, 1e-9)).toFixed(3)})`,
    );
    if (result.redecodedGaps > 0) console.error(`${result.redecodedGaps} stretch(es) of speech the model skipped were decoded again`);
    for (const stretch of result.uncoveredSpeech) {
      console.error(`warning: ${stretch.speechS.toFixed(1)} s of speech at ${clock(stretch.start)}–${clock(stretch.end)} has no words (it `
        + `may be lost)`);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    if (error instanceof EngineError) console.error(`${error.code}: ${error.message}`);
    else console.error((error as Error).message ?? error);
    process.exit(1);
  });
}
