/**
 * Synthesised samples out through ffmpeg (audio.ts's `ffmpegPath`): Ogg/Opus, Opus in CAF (what Safari plays
 * when it refuses Ogg), or float32 at another rate (16 kHz for the recogniser). Opus at 48 kHz mono, speech
 * bitrate, like the recordings' delivery renditions.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath } from '../audio.js';
import { KOKORO_SAMPLE_RATE } from './kokoro.js';

export type SpeechFormat = 'ogg' | 'caf';

export const SPEECH_CONTENT_TYPES: Record<SpeechFormat, string> = { ogg: 'audio/ogg', caf: 'audio/x-caf' };

export interface EncodeOptions {
  /** Rate of the samples given; default Kokoro's 24 kHz. */
  sampleRate?: number;
  /** Opus bitrate, default '32k'. */
  bitrate?: string;
  signal?: AbortSignal;
}

function asBytes(samples: Float32Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/**
 * ffmpeg reading float32 mono at `sampleRate` from stdin (`input`, fed as it comes) and writing what `outputArgs`
 * say to stdout, handed on in chunks as ffmpeg writes them (or to `outputFile`, for formats that need to seek).
 */
export async function* ffmpegTransform(
  input: AsyncIterable<Float32Array> | Iterable<Float32Array>,
  sampleRate: number,
  outputArgs: string[],
  options: { signal?: AbortSignal; outputFile?: string } = {},
): AsyncGenerator<Buffer> {
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-f', 'f32le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0',
    ...outputArgs, options.outputFile ?? 'pipe:1',
  ];
  const signal = options.signal;
  const child = spawn(ffmpegPath(), args, { stdio: ['pipe', 'pipe', 'pipe'], signal });
  const said: Buffer[] = [];
  child.stderr.on('data', (data: Buffer) => said.length < 64 && said.push(data));
  // The exit code, or the error that kept ffmpeg from running.
  const exit = new Promise<number | null | Error>((settle) => child.once('error', settle).once('close', settle));
  child.stdin.on('error', () => undefined);
  const fed = (async () => {
    for await (const samples of input) {
      if (!child.stdin.write(asBytes(samples))) await new Promise((done) => child.stdin.once('drain', done));
    }
    child.stdin.end();
  })();
  let feedError: unknown = null;
  fed.catch((error: unknown) => {
    feedError = error;
    child.kill('SIGKILL');
  });
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) yield chunk;
    const code = await exit;
    if (feedError) throw feedError;
    if (code instanceof Error) throw new Error(`ffmpeg could not start (${ffmpegPath()}): ${code.message}`);
    const last = Buffer.concat(said).toString('utf8').trim().split('\n').slice(-2).join(' | ');
    if (code !== 0) throw new Error(`ffmpeg could not encode the speech: ${last || `exit ${code}`}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

function opusArgs(format: SpeechFormat, bitrate = '32k'): string[] {
  return ['-ar', '48000', '-c:a', 'libopus', '-b:a', bitrate, '-application', 'voip', '-f', format];
}

/**
 * Speech (`samples`, or chunks as a stream yields them) as an Ogg/Opus byte stream, each Ogg page handed on as
 * ffmpeg writes it. CAF has no streaming form (its muxer seeks back to write the packet table): `encodeSpeech`.
 */
export function encodeSpeechStream(
  input: AsyncIterable<Float32Array> | Iterable<Float32Array>, options: EncodeOptions = {},
): AsyncGenerator<Buffer> {
  return ffmpegTransform(input, options.sampleRate ?? KOKORO_SAMPLE_RATE, opusArgs('ogg', options.bitrate), { signal: options.signal });
}

async function collect(parts: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const part of parts) out.push(part);
  return Buffer.concat(out);
}

/** Speech as a whole Ogg/Opus or CAF/Opus file. */
export async function encodeSpeech(
  samples: Float32Array | AsyncIterable<Float32Array>, format: SpeechFormat, options: EncodeOptions = {},
): Promise<Buffer> {
  const input = samples instanceof Float32Array ? [samples] : samples;
  if (format === 'ogg') return collect(encodeSpeechStream(input, options));
  const dir = await mkdtemp(join(tmpdir(), 'speech-caf-'));
  try {
    const file = join(dir, 'speech.caf');
    await collect(ffmpegTransform(input, options.sampleRate ?? KOKORO_SAMPLE_RATE, opusArgs('caf', options.bitrate), {
      signal: options.signal, outputFile: file,
    }));
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The samples at another rate (ffmpeg's resampler): e.g. Kokoro's 24 kHz to the recogniser's 16 kHz. */
export async function resample(samples: Float32Array, fromRate: number, toRate: number, signal?: AbortSignal): Promise<Float32Array> {
  const bytes = await collect(ffmpegTransform(
    [samples], fromRate, ['-ar', String(toRate), '-f', 'f32le', '-acodec', 'pcm_f32le'], { signal },
  ));
  const out = new Float32Array(Math.floor(bytes.length / 4));
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 4));
  return out;
}
