/**
 * A local file as the realtime socket takes audio (spec: pcm_f32le, 16 kHz, mono, 100–250 ms chunks): ffmpeg (the
 * static binary of `@ffmpeg-installer/ffmpeg`, or FFMPEG_PATH) decodes any audio or video container, and the
 * samples are handed out in 200 ms blocks, paced like a microphone (one block each 200 ms of wall time) unless the
 * caller asked for as fast as the socket drains.
 */
import { spawn } from 'node:child_process';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { CliError, EXIT } from './errors.js';

export const SAMPLE_RATE = 16_000;
const BLOCK_SAMPLES = SAMPLE_RATE / 5;
const BYTES_PER_SAMPLE = 4;

const ffmpegBinary = () => process.env.FFMPEG_PATH || ffmpegInstaller.path;

/** The file's audio, 200 ms of samples at a time (the last block may be shorter); undecodable audio is refused (exit 5). */
export async function* pcmBlocks(file: string, signal?: AbortSignal): AsyncGenerator<Float32Array> {
  const decoder = spawn(
    ffmpegBinary(), ['-nostdin', '-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 'f32le', 'pipe:1'],
    { stdio: ['ignore', 'pipe', 'pipe'], signal },
  );
  const complaints: Buffer[] = [];
  decoder.stderr.on('data', (data: Buffer) => complaints.push(data));
  decoder.on('error', () => undefined); // an abort or a missing binary: the exit code below says so
  const finished = new Promise<number | null>((resolve) => decoder.once('close', resolve));
  const blockBytes = BLOCK_SAMPLES * BYTES_PER_SAMPLE;
  const held = Buffer.alloc(blockBytes);
  let filled = 0;
  try {
    for await (const data of decoder.stdout as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < data.length) {
        const taken = data.copy(held, filled, offset, offset + blockBytes - filled);
        filled += taken;
        offset += taken;
        if (filled === blockBytes) {
          yield new Float32Array(held.buffer.slice(held.byteOffset, held.byteOffset + blockBytes));
          filled = 0;
        }
      }
    }
  } finally {
    if (decoder.exitCode === null) decoder.kill();
  }
  const status = await finished;
  if (signal?.aborted) return;
  if (status !== 0) {
    const reason = Buffer.concat(complaints).toString().trim().split('\n').at(-1) ?? `ffmpeg exited with ${status}`;
    throw new CliError(`Cannot decode ${file}: ${reason}`, EXIT.invalidInput, 'invalid_audio');
  }
  const whole = filled - (filled % BYTES_PER_SAMPLE);
  if (whole > 0) yield new Float32Array(held.buffer.slice(held.byteOffset, held.byteOffset + whole));
}

export interface SendFileOptions {
  /** Pace at real time (default) or as fast as `send` resolves. */
  realtime: boolean;
  signal: AbortSignal;
  /** Called after each block with the seconds of audio sent so far. */
  onSent?: (sentS: number) => void;
}

/**
 * Sends the file block by block through `send` (the SDK's `sendAudio`, which waits while the socket is full).
 * Answers the seconds sent; stops early, without an error, once the signal is aborted.
 */
export async function sendFile(file: string, send: (pcm: Float32Array) => Promise<void>, options: SendFileOptions): Promise<number> {
  const started = performance.now();
  let samples = 0;
  for await (const block of pcmBlocks(file, options.signal)) {
    if (options.signal.aborted) break;
    if (options.realtime) {
      // A microphone has this block once its audio was spoken: an absolute schedule keeps timer drift from adding up.
      const due = started + ((samples + block.length) / SAMPLE_RATE) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (options.signal.aborted) break;
    }
    await send(block);
    samples += block.length;
    options.onSent?.(samples / SAMPLE_RATE);
  }
  return samples / SAMPLE_RATE;
}
