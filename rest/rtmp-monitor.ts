/**
 * `GET /v1/rtmp/monitor`'s answer (rest/routes/rtmp.ts): the FLV a publish sends, transcoded by ffmpeg to MP3 (mono,
 * 64 kb/s) and streamed to the caller for as long as the publish lasts; the caller leaving stops both.
 */
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import type { Response } from 'express';
import { ffmpegPath } from '../workers/engine/index.js';

/** Streams `source` (the RTMP service's monitor of a live publish: FLV) to `res` as `audio/mpeg`. */
export function sendMonitorMp3(res: Response, source: (signal: AbortSignal) => AsyncIterable<Buffer>): void {
  const abort = new AbortController();
  const child = spawn(
    ffmpegPath(),
    [
      '-nostdin', '-hide_banner', '-loglevel', 'error', '-f', 'flv', '-i', 'pipe:0', '-vn', '-ac', '1', '-c:a', 'libmp3lame', '-b:a',
      '64k', '-f', 'mp3', 'pipe:1',
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const stop = () => {
    abort.abort();
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  res.on('close', stop);
  child.on('error', stop);
  child.stdin.on('error', () => undefined);
  Readable.from(source(abort.signal)).pipe(child.stdin);
  res.status(200).setHeader('Content-Type', 'audio/mpeg');
  res.setHeader('Cache-Control', 'no-store');
  child.stdout.pipe(res);
}
