/**
 * `npm run transcribe -- <file> [--language xx] [--json] [--beam N] [--model NAME] [--no-vad] [--no-words]`
 *
 * Prints each segment with its times as soon as it is done, and a progress bar on stderr when stderr is a
 * terminal. With --json, prints the whole result as one JSON document at the end instead.
 */
import { pathToFileURL } from 'node:url';
import { ApiError } from '../../src/errors.js';
import { SpeechEngine, type Progress, type Segment, type TranscribeOptions } from './index.js';

interface CliArgs {
  file: string;
  json: boolean;
  verbose: boolean;
  model?: string;
  provider?: string;
  threads?: number;
  options: TranscribeOptions;
}

const USAGE = 'usage: npm run transcribe -- <file> [--language xx] [--json] [--beam N] [--model NAME] [--provider cpu|cuda] [--threads N] [--start S] [--end S] [--no-vad] [--no-words] [--verbose]';

function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { file: '', json: false, verbose: false, options: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value\n${USAGE}`);
      return next;
    };
    if (arg === '--language' || arg === '-l') args.options.language = value();
    else if (arg === '--json') args.json = true;
    else if (arg === '--beam') args.options.beamSize = Number(value());
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
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${progress.pct.toFixed(1).padStart(5)}%  ${clock(progress.processedS)} / ${clock(progress.totalS)}  ${progress.segmentsDone} segments`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const bar = !args.json && process.stderr.isTTY;
  const loadStarted = performance.now();
  const engine = await SpeechEngine.load({ model: args.model, provider: args.provider, intraOpThreads: args.threads });
  if (!args.json) {
    console.error(`${engine.modelName} on ${engine.provider}, loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
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
        `  window ${clock(info.startS)}–${clock(info.endS)}: temperature ${info.temperature}, avg logprob ${info.avgLogprob.toFixed(2)}, ` +
          `compression ${info.compressionRatio.toFixed(2)}, no-speech ${info.noSpeechProb.toFixed(2)}${info.silence ? ' (silence)' : ''}`,
      );
    },
    onProgress: (progress) => {
      if (bar) process.stderr.write(`\r${progressBar(progress)}`);
    },
  });
  clearBar();
  if (args.json) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    console.error(
      `${result.segments.length} segments, language ${result.language}, ${result.durationS.toFixed(1)} s of audio in ` +
        `${result.processingS.toFixed(1)} s (real-time factor ${(result.processingS / Math.max(result.durationS, 1e-9)).toFixed(3)})`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    if (error instanceof ApiError) console.error(`${error.code}: ${error.message}`);
    else console.error((error as Error).message ?? error);
    process.exit(1);
  });
}
