/**
 * Audio in: every container ffmpeg understands (mp3, wav, flac, ogg, m4a, the audio of an mp4 …) decoded to
 * 16 kHz mono float32, streamed from ffmpeg's stdout in chunks so a long file is never held whole.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { engineErrors } from './errors.js';
import { SAMPLE_RATE } from './whisper/mel.js';

const require = createRequire(import.meta.url);

/** FFMPEG_PATH from the environment, else the static binary that `@ffmpeg-installer/ffmpeg` ships. */
export function ffmpegPath(): string {
  if (process.env.FFMPEG_PATH) return process.env.FFMPEG_PATH;
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

export interface DecodeOptions {
  signal?: AbortSignal;
  /** Seconds into the file where decoding starts / stops. */
  startS?: number;
  endS?: number;
}

/**
 * ffmpeg's last words about a file, with the file's path taken out: these messages reach API clients, who must
 * not learn where the server keeps its files.
 */
function lastLines(text: string, path: string, count = 3): string {
  return text.split(path).join('the file').trim().split('\n').slice(-count).join(' | ');
}

async function assertReadable(path: string): Promise<void> {
  try {
    await access(path);
  } catch {
    throw engineErrors.invalidAudio('The audio file cannot be read.');
  }
}

/**
 * Decodes a file to 16 kHz mono float32 chunks (any chunk length). A file ffmpeg cannot read as audio ends
 * the iteration with EngineError `invalid_audio`. Breaking out of the loop or aborting the signal kills ffmpeg.
 */
export async function* decodeFile(path: string, options: DecodeOptions = {}): AsyncIterable<Float32Array> {
  await assertReadable(path);
  const args: string[] = [];
  if (options.startS && options.startS > 0) args.push('-ss', options.startS.toFixed(3));
  args.push('-i', path);
  if (options.endS !== undefined) {
    const duration = options.endS - (options.startS ?? 0);
    if (duration <= 0) return;
    args.push('-t', duration.toFixed(3));
  }
  yield* runDecoder(args, null, { signal: options.signal, what: 'The file', hide: path, mayBeEmpty: Boolean(options.startS) });
}

/**
 * Decodes audio arriving as bytes (a live stream: MP3, AAC, Ogg, MPEG-TS, fragmented MP4 …) to 16 kHz mono float32
 * chunks as it comes. Audio ffmpeg cannot read ends the iteration with EngineError `invalid_audio`; an error of
 * `bytes` ends it with that error once ffmpeg has decoded what came before.
 */
export async function* decodeStream(
  bytes: AsyncIterable<Uint8Array>, options: { signal?: AbortSignal; what?: string } = {},
): AsyncIterable<Float32Array> {
  yield* runDecoder(['-i', 'pipe:0'], bytes, { signal: options.signal, what: options.what ?? 'The stream' });
}

/** ffmpeg reading `input` (stdin) or the input its args name, writing f32le to stdout, read back in chunks. */
async function* runDecoder(
  inputArgs: string[],
  input: AsyncIterable<Uint8Array> | null,
  options: { signal?: AbortSignal; what: string; hide?: string; mayBeEmpty?: boolean },
): AsyncIterable<Float32Array> {
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', ...inputArgs, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f',
    'f32le', '-acodec', 'pcm_f32le', 'pipe:1',
  ];
  const child = spawn(ffmpegPath(), args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    if (stderr.length < 8192) stderr += text;
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code }));
  });
  const onAbort = () => child.kill('SIGKILL');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // Not awaited: a live input never ends by itself; ffmpeg's exit (at the input's end or on bad data) is the end.
  let inputError: unknown = null;
  if (input) void feed(input, child.stdin!).catch((error: unknown) => void (inputError = error));
  // f32le samples can straddle stdout chunks: keep the odd 1–3 bytes for the next chunk.
  let carry = Buffer.alloc(0);
  let samplesOut = 0;
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      options.signal?.throwIfAborted();
      const bytes = carry.length ? Buffer.concat([carry, data]) : data;
      const usable = bytes.length - (bytes.length % 4);
      carry = Buffer.from(bytes.subarray(usable));
      if (usable === 0) continue;
      const samples = new Float32Array(usable / 4);
      new Uint8Array(samples.buffer).set(bytes.subarray(0, usable));
      samplesOut += samples.length;
      yield samples;
    }
    options.signal?.throwIfAborted();
    const { code, error } = await exited;
    // The input failing (a dropped connection) ends ffmpeg's input early: that, not what ffmpeg made of it, is why.
    if (inputError) throw inputError;
    if (error) throw new Error(`ffmpeg could not start (${ffmpegPath()}): ${error.message}`);
    if (code !== 0) {
      const said = options.hide ? lastLines(stderr, options.hide) : stderr.trim().split('\n').slice(-3).join(' | ');
      throw engineErrors.invalidAudio(`${options.what} is not audio ffmpeg can decode: ${said}`);
    }
    if (samplesOut === 0 && !options.mayBeEmpty) {
      throw engineErrors.invalidAudio(`${options.what} has no audio samples.`);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** Writes `input` into ffmpeg's stdin as fast as ffmpeg takes it, then closes it; ffmpeg giving up ends it quietly. */
async function feed(input: AsyncIterable<Uint8Array>, stdin: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
  stdin.on('error', () => undefined); // ffmpeg stopped reading: its exit status says why
  try {
    for await (const chunk of input) {
      if (stdin.destroyed) break;
      if (!stdin.write(chunk)) await new Promise((resolve) => (stdin.once('drain', resolve), stdin.once('close', resolve)));
    }
  } finally {
    stdin.end();
  }
}

/** Reads a whole (short) file into one buffer: tests and the streaming demo use it; the engine streams. */
export async function decodeFileToPcm(path: string, options: DecodeOptions = {}): Promise<Float32Array> {
  const chunks: Float32Array[] = [];
  for await (const chunk of decodeFile(path, options)) chunks.push(chunk);
  return concatSamples(chunks);
}

/** The samples of `parts` one after the other, in a new array. */
export function concatSamples(parts: Float32Array[]): Float32Array {
  const all = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

function parseClock(text: string): number {
  const [h, m, s] = text.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

/**
 * Duration and whether the file has an audio stream, from ffmpeg's header probe (the npm ffmpeg ships no
 * ffprobe). A file ffmpeg cannot open as media throws EngineError `invalid_audio`. When the container does not
 * state a duration (raw streams), the audio is decoded once to count its samples.
 */
export async function probeAudio(path: string): Promise<{ durationS: number; hasAudio: boolean }> {
  await assertReadable(path);
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(ffmpegPath(), ['-nostdin', '-hide_banner', '-i', path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (text += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
  // With no output file ffmpeg always exits 1; what it printed about the input is what matters.
  const streams = stderr.match(/Stream #\d+:\d+.*?: (Audio|Video|Subtitle|Data):/g) ?? [];
  if (!/Input #0/.test(stderr) || streams.length === 0) {
    throw engineErrors.invalidAudio(`The file is not audio ffmpeg can decode: ${lastLines(stderr, path, 1)}`);
  }
  const hasAudio = streams.some((line) => line.endsWith('Audio:'));
  const duration = stderr.match(/Duration: (\d+:\d+:\d+(?:\.\d+)?)/);
  if (duration) return { durationS: parseClock(duration[1]), hasAudio };
  if (!hasAudio) return { durationS: 0, hasAudio };
  let samples = 0;
  for await (const chunk of decodeFile(path)) samples += chunk.length;
  return { durationS: samples / SAMPLE_RATE, hasAudio };
}

/**
 * The folder of an installed npm package, found the way Node looks up `node_modules` (some packages'
 * `exports` map hides package.json from require.resolve). Undefined when it is not installed.
 */
export function installedPackageDir(name: string): string | undefined {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = join(base, name);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return undefined;
}

/** 16-bit PCM WAV of 16 kHz mono samples. */
export function wavOf(samples: Float32Array): Buffer {
  const out = Buffer.alloc(44 + samples.length * 2);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + samples.length * 2, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(SAMPLE_RATE, 24);
  out.writeUInt32LE(SAMPLE_RATE * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(samples.length * 2, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), 44 + i * 2);
  return out;
}
