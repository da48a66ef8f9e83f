/**
 * Media of file and link recordings: renditions made with ffmpeg (each made once and kept beside the source),
 * WAV clips, waveform peaks for the cropping step, and the two credentials media URLs carry because an
 * `<audio>` element cannot send a header: short-lived signed URLs and the day-stable media token.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { errors } from '../core/errors.js';
import { decodeFile, ffmpegPath, SAMPLE_RATE } from '../../workers/engine/index.js';

export type AudioKind = 'delivery' | 'source' | 'master';
/**
 * What a signed media URL may name: an AudioKind, or a spoken-translation track (`voice`, signed with its `lang`:
 * src/recordings/voice-tracks.ts).
 */
export type SignedKind = AudioKind | 'voice';
export type AudioFormat = 'ogg' | 'caf' | 'mp3';
export const AUDIO_KINDS: readonly AudioKind[] = ['delivery', 'source', 'master'];
export const AUDIO_FORMATS: readonly AudioFormat[] = ['ogg', 'caf', 'mp3'];

export const MAX_CLIP_S = 120;
/** Signed URL lifetimes (spec "Limits"): delivery and voice 1 h, master 5 min; source is the owner's original, treated like master. */
export const SIGNED_URL_TTL_S: Record<SignedKind, number> = { delivery: 3600, source: 300, master: 300, voice: 3600 };

export const CONTENT_TYPES: Record<AudioFormat, string> = { ogg: 'audio/ogg', caf: 'audio/x-caf', mp3: 'audio/mpeg' };

/**
 * Encoder settings per kind. delivery: speech-grade mono for listening in a page; source: the uploaded audio at
 * high quality with its channels kept; master: what the engine heard (the job window, 16 kHz mono), lossless-ish.
 */
function encoderArgs(kind: SignedKind, format: AudioFormat): string[] {
  const quality = kind === 'delivery' || kind === 'voice' ? { opus: '32k', mp3: '64k', channels: ['-ac', '1'] } : kind === 'source' ? {
    opus: '128k', mp3: '192k', channels: [],
  } : { opus: '96k', mp3: '128k', channels: ['-ac', '1'] };
  // Opus runs at 48 kHz internally; CAF carries Opus too, which is what Safari plays when it refuses Ogg.
  if (format === 'mp3') return [...quality.channels, '-c:a', 'libmp3lame', '-b:a', quality.mp3, '-f', 'mp3'];
  return [...quality.channels, '-ar', '48000', '-c:a', 'libopus', '-b:a', quality.opus, '-f', format === 'ogg' ? 'ogg' : 'caf'];
}

export function parseAudioKind(value: unknown): AudioKind {
  if (value === undefined || value === null || value === '') return 'delivery';
  if (typeof value === 'string' && (AUDIO_KINDS as readonly string[]).includes(value)) return value as AudioKind;
  throw errors.invalidOptions(`kind must be one of ${AUDIO_KINDS.join(', ')}.`, { field: 'kind', allowed: AUDIO_KINDS });
}

export function parseAudioFormat(value: unknown): AudioFormat {
  if (value === undefined || value === null || value === '') return 'ogg';
  if (typeof value === 'string' && (AUDIO_FORMATS as readonly string[]).includes(value)) return value as AudioFormat;
  throw errors.invalidOptions(`format must be one of ${AUDIO_FORMATS.join(', ')}.`, { field: 'format', allowed: AUDIO_FORMATS });
}

/** Runs ffmpeg to completion; its last stderr lines become the error. */
export function runFfmpeg(args: string[], options: { signal?: AbortSignal } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath(), ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'], signal: options.signal,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < 8192) stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(errors.invalidAudio(`The audio could not be converted: `
        + `${stderr.trim().split('\n').slice(-2).join(' | ') || `ffmpeg exited ${code}`}.`));
    });
  });
}

/** `media/<recordingId>/` under DATA_DIR: every file of one recording lives there, so purge removes one folder. */
export function recordingMediaDir(dataDir: string, recordingId: string): string {
  return path.join(dataDir, 'media', recordingId);
}

/** The absolute path of a stored media file from its path relative to `media/` (as Recording and Job rows keep it). */
export function mediaPath(dataDir: string, relative: string): string {
  return path.join(dataDir, 'media', relative);
}

/** The capture audio of a live recording, relative to its media folder: headerless 16 kHz mono float32. */
export const CAPTURE_FILE = 'capture.f32';
const CAPTURE_BYTES_PER_SAMPLE = 4;
/** ffmpeg's input options for the capture file. */
const CAPTURE_INPUT = ['-f', 'f32le', '-ar', String(SAMPLE_RATE), '-ac', '1'];

/** Seconds of capture audio kept for a live recording (the media time line's end). */
export function capturedSeconds(dataDir: string, recordingId: string): number {
  const file = path.join(recordingMediaDir(dataDir, recordingId), CAPTURE_FILE);
  return existsSync(file) ? statSync(file).size / CAPTURE_BYTES_PER_SAMPLE / SAMPLE_RATE : 0;
}

/**
 * The normalised master: the job window of the source as 16 kHz mono 16-bit WAV, which the engine reads, clips
 * cut from, and other renditions encode from. Written to a temporary name first so a reader never sees half a file.
 */
export async function makeMaster(
  sourcePath: string,
  masterPath: string,
  window: { startS?: number | null; endS?: number | null; rawPcm?: boolean } = {},
): Promise<void> {
  await mkdir(path.dirname(masterPath), { recursive: true });
  const args: string[] = [];
  if (window.startS && window.startS > 0) args.push('-ss', window.startS.toFixed(3));
  if (window.rawPcm) args.push(...CAPTURE_INPUT);
  args.push('-i', sourcePath);
  if (window.endS !== undefined && window.endS !== null) args.push('-t', Math.max(0.01, window.endS - (window.startS ?? 0)).toFixed(3));
  const partial = `${masterPath}.part`;
  args.push('-map', '0:a:0', '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', partial);
  await runFfmpeg(args);
  await rename(partial, masterPath);
}

/** Makes (once) and returns the path of a rendition; later requests reuse the file. */
export async function ensureRendition(input: string, outputDir: string, kind: SignedKind, format: AudioFormat): Promise<string> {
  const output = path.join(outputDir, `${kind}.${format}`);
  const existing = await stat(output).catch(() => null);
  if (existing && existing.size > 0) return output;
  await mkdir(outputDir, { recursive: true });
  // Unique temporary name: two requests racing both encode, the second rename wins with an identical file.
  const partial = `${output}.${process.pid}.${Date.now()}.part`;
  try {
    await runFfmpeg(['-i', input, '-map', '0:a:0', '-vn', ...encoderArgs(kind, format), partial]);
    await rename(partial, output);
  } finally {
    await rm(partial, { force: true });
  }
  return output;
}

/** A WAV clip (16-bit, 16 kHz, mono) of [startS, endS) of `input` (a live capture with `rawPcm`), at most MAX_CLIP_S long. */
export async function wavClip(input: string, startS: number, endS: number, options: { rawPcm?: boolean } = {}): Promise<Buffer> {
  if (!Number.isFinite(startS) || startS < 0) {
    throw errors.invalidOptions('startS must be a number of seconds at or above 0.', { field: 'startS' });
  }
  if (!Number.isFinite(endS) || endS <= startS) {
    throw errors.invalidOptions('endS must be a number of seconds after startS.', { field: 'endS' });
  }
  if (endS - startS > MAX_CLIP_S) {
    throw errors.invalidOptions(`endS - startS must be at most ${MAX_CLIP_S} s.`, { field: 'endS', maxS: MAX_CLIP_S });
  }
  return new Promise((resolve, reject) => {
    const args = [
      '-nostdin', '-hide_banner', '-loglevel', 'error', '-ss', startS.toFixed(3), ...(options.rawPcm ? CAPTURE_INPUT : []), '-i', input,
      '-t', (endS - startS).toFixed(3), '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', 'pipe:1',
    ];
    const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(errors.invalidAudio(`The clip could not be cut: ${stderr.trim().split('\n').pop()}`));
      const wav = Buffer.concat(chunks);
      // ffmpeg cannot seek back to fill in the RIFF sizes when writing to a pipe: patch them for strict readers.
      if (wav.length >= 44 && wav.toString('latin1', 0, 4) === 'RIFF') {
        wav.writeUInt32LE(wav.length - 8, 4);
        const dataAt = wav.indexOf('data', 12, 'latin1');
        if (dataAt > 0) wav.writeUInt32LE(wav.length - dataAt - 8, dataAt + 4);
      }
      resolve(wav);
    });
  });
}

export interface Waveform {
  /** Peak absolute amplitude (0..1) per bucket, evenly spaced over the audio. */
  peaks: number[];
  /** Seconds each bucket covers. */
  bucketS: number;
  durationS: number;
}

/**
 * Waveform peaks for the cropping step. The bucket length is chosen from the duration so the array stays
 * about `targetBuckets` long whatever the file length; decoding is streamed, so memory stays flat.
 */
export async function waveformPeaks(
  input: string, options: { durationS: number; targetBuckets?: number; signal?: AbortSignal },
): Promise<Waveform> {
  const target = options.targetBuckets ?? 1000;
  const bucketSamples = Math.max(160, Math.ceil((options.durationS * 16000) / target));
  const peaks: number[] = [];
  let current = 0;
  let filled = 0;
  let total = 0;
  for await (const chunk of decodeFile(input, { signal: options.signal })) {
    for (let i = 0; i < chunk.length; i++) {
      const value = Math.abs(chunk[i]!);
      if (value > current) current = value;
      if (++filled === bucketSamples) {
        peaks.push(Math.round(Math.min(1, current) * 1000) / 1000);
        current = 0;
        filled = 0;
      }
    }
    total += chunk.length;
  }
  if (filled > 0) peaks.push(Math.round(Math.min(1, current) * 1000) / 1000);
  return { peaks, bucketS: bucketSamples / 16000, durationS: total / 16000 };
}

// ---- credentials for media URLs ----

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `lang`: a `voice` track's language, signed with it (other kinds have none). */
export interface SignedMedia { recordingId: string; kind: SignedKind; lang?: string; format: AudioFormat; expiresAt: number }

function signedText(media: Omit<SignedMedia, 'expiresAt'>, exp: number): string {
  const kind = media.kind === 'voice' ? `voice:${media.lang ?? ''}` : media.kind;
  return `media:${media.recordingId}:${kind}:${media.format}:${exp}`;
}

/** The query a signed media URL carries: `exp` (Unix seconds) and `sig` over recording, kind (and a voice's lang), format and exp. */
export function signMedia(secret: string, media: Omit<SignedMedia, 'expiresAt'>, now = Date.now()): { exp: number; sig: string } {
  const exp = Math.floor(now / 1000) + SIGNED_URL_TTL_S[media.kind];
  return { exp, sig: hmac(secret, signedText(media, exp)) };
}

export function verifyMediaSignature(secret: string, media: SignedMedia, sig: string, now = Date.now()): boolean {
  if (!Number.isInteger(media.expiresAt) || media.expiresAt * 1000 < now) return false;
  // A signature never outlives its kind's lifetime, even if someone signs a far `exp` with a leaked old URL.
  if (media.expiresAt - Math.floor(now / 1000) > SIGNED_URL_TTL_S[media.kind]) return false;
  return safeEqual(sig, hmac(secret, signedText(media, media.expiresAt)));
}

function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * The media token: the same string for a whole UTC day (players can cache URLs built with it), valid until the
 * end of the next UTC day, and for this recording only. `mt1.<day>.<mac>`; the day is readable so expiry is
 * checked without state.
 */
export function mediaToken(secret: string, recordingId: string, now = Date.now()): { token: string; expiresAt: Date } {
  const day = utcDay(now);
  const expiresAt = new Date(`${day}T00:00:00.000Z`);
  expiresAt.setUTCDate(expiresAt.getUTCDate() + 2);
  return { token: `mt1.${day}.${hmac(secret, `media-token:${recordingId}:${day}`)}`, expiresAt };
}

export function verifyMediaToken(secret: string, recordingId: string, token: string, now = Date.now()): boolean {
  const match = /^mt1\.(\d{4}-\d{2}-\d{2})\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!match) return false;
  const day = match[1]!;
  const today = utcDay(now);
  const yesterday = utcDay(now - 86_400_000);
  if (day !== today && day !== yesterday) return false;
  return safeEqual(match[2]!, hmac(secret, `media-token:${recordingId}:${day}`));
}
