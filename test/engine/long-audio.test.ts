/**
 * A 10-minute file (the 60 s lecture ten times over, made here with the npm ffmpeg) transcribes with
 * bounded memory: the audio is decoded as a stream and only the current window is kept, so memory after
 * the first minutes must not grow with the minutes that follow. Holding the decoded audio would grow by
 * 3.8 MB of float32 samples per minute (16 000 × 4 bytes × 60), 38 MB for the whole file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, expect, it } from 'vitest';
import { ffmpegPath, SpeechEngine } from '../../workers/engine/index.js';
import { fixture } from './text.js';

// A forced collection before each reading, so the numbers are live memory rather than garbage not yet
// collected (each window leaves ~40 MB of decoder outputs behind for the collector).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const scratch = mkdtempSync(join(tmpdir(), 'engine-long-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('transcribes a 10-minute file with memory that does not grow with its length', { timeout: 600_000 }, async () => {
  const file = join(scratch, 'lecture-10min.flac');
  execFileSync(ffmpegPath(), ['-nostdin', '-loglevel', 'error', '-y', '-stream_loop', '9', '-i', fixture('political-philosophy-60s.wav'), '-c:a', 'flac', file]);
  const engine = await SpeechEngine.load();

  // Peaks over minutes 1.5–5 and over minutes 5–10: a pipeline that kept audio, segments' tensors or
  // windows would grow from the first to the second; one that streams stays level.
  const early = { rss: 0, buffers: 0 };
  const late = { rss: 0, buffers: 0 };
  let segmentsSeen = 0;
  const sample = (processedS: number) => {
    if (processedS < 90) return;
    collectGarbage();
    const usage = process.memoryUsage();
    const bucket = processedS < 300 ? early : late;
    bucket.rss = Math.max(bucket.rss, usage.rss);
    bucket.buffers = Math.max(bucket.buffers, usage.arrayBuffers);
  };
  const result = await engine.transcribeFile(file, {
    language: 'en',
    onSegment: () => segmentsSeen++,
    onProgress: (p) => sample(p.processedS),
  });

  expect(result.durationS).toBeCloseTo(600, 0);
  expect(segmentsSeen).toBe(result.segments.length);
  // Speech throughout: segments cover the whole timeline, in order.
  expect(result.segments[result.segments.length - 1].end).toBeGreaterThan(590);
  for (let i = 1; i < result.segments.length; i++) expect(result.segments[i].start).toBeGreaterThanOrEqual(result.segments[i - 1].start);
  const words = result.segments.flatMap((s) => s.text.split(/\s+/)).length;
  expect(words).toBeGreaterThan(1000); // ~170 words a minute are spoken

  expect(early.rss).toBeGreaterThan(0);
  expect(late.rss).toBeGreaterThan(0);
  const mb = (bytes: number) => bytes / 1e6;
  console.log(
    `10 min: ${result.processingS.toFixed(1)} s (RTF ${(result.processingS / result.durationS).toFixed(3)}); ` +
      `peak rss ${mb(early.rss).toFixed(0)} → ${mb(late.rss).toFixed(0)} MB, live array buffers ${mb(early.buffers).toFixed(1)} → ${mb(late.buffers).toFixed(1)} MB`,
  );
  // Live buffers are one window's audio and decoder state (encoder keys/values alone are 18 MB): level
  // over time. Keeping the decoded audio would add 3.8 MB per minute, ~19 MB over the late five minutes.
  expect(mb(late.buffers - early.buffers)).toBeLessThan(10);
  expect(mb(late.rss - early.rss)).toBeLessThan(50);
});
