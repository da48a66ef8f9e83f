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
import { ffmpegPath, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { fixture } from '../helpers/fixtures.js';

// A forced collection before each reading, so the numbers are live memory rather than garbage not yet
// collected (each window leaves ~40 MB of decoder outputs behind for the collector).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const scratch = mkdtempSync(join(tmpdir(), 'engine-long-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('transcribes a 10-minute file with memory that does not grow with its length', { timeout: 600_000 }, async () => {
  const file = join(scratch, 'lecture-10min.flac');
  execFileSync(ffmpegPath(), [
    '-nostdin', '-loglevel', 'error', '-y', '-stream_loop', '9', '-i', fixture('political-philosophy-60s.wav'), '-c:a', 'flac', file,
  ]);
  const engine = await SpeechEngine.load();

  // Minutes 1.5–5 against minutes 5–10: a pipeline that kept audio, segments' tensors or windows would grow
  // from the first to the second; one that streams stays level. Live buffers are compared by their floor, the
  // least of a stretch's samples: a sample also holds whatever is in hand at its moment (a batch's encoder states,
  // the next window being read, decoder outputs not yet finalised), so samples of one run ranged from 32 to 65 MB
  // and medians of ~14 samples moved by −6.5, −2.0 and +6.4 MB between runs of the same code, while a leak raises
  // every sample, the least with it (minima without one: 31.6 → 31.7 and 31.8 → 32.0 MB; with every window's audio kept,
  // injected here once, 44.6 → 52.1 MB). Samples are taken while windows decode, not at the end, when the last
  // window's state is gone.
  // Resident memory likewise: its peak in a stretch depends on the moment a sample lands (an arena step, a window's
  // outputs not yet collected; peaks differed by 53 MB in one loaded run), a leak moves every sample.
  const early = { rss: [] as number[], buffers: [] as number[] };
  const late = { rss: [] as number[], buffers: [] as number[] };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  let segmentsSeen = 0;
  const sample = ({ processedS, totalS }: { processedS: number; totalS: number }) => {
    if (processedS < 90 || processedS >= totalS) return;
    collectGarbage();
    const usage = process.memoryUsage();
    const bucket = processedS < 300 ? early : late;
    bucket.rss.push(usage.rss);
    bucket.buffers.push(usage.arrayBuffers);
  };
  const result = await engine.transcribeFile(file, {
    language: 'en',
    onSegment: () => segmentsSeen++,
    onProgress: sample,
  });

  expect(result.durationS).toBeCloseTo(600, 0);
  expect(segmentsSeen).toBe(result.segments.length);
  // Speech throughout: segments cover the whole timeline, in order.
  expect(result.segments[result.segments.length - 1].end).toBeGreaterThan(590);
  for (let i = 1; i < result.segments.length; i++) expect(result.segments[i].start).toBeGreaterThanOrEqual(result.segments[i - 1].start);
  const words = result.segments.flatMap((s) => s.text.split(/\s+/)).length;
  expect(words).toBeGreaterThan(1000); // ~170 words a minute are spoken

  expect(early.rss.length).toBeGreaterThan(0);
  expect(late.rss.length).toBeGreaterThan(0);
  const mb = (bytes: number) => bytes / 1e6;
  console.log(
    `10 min: ${result.processingS.toFixed(1)} s (RTF ${(result.processingS / result.durationS).toFixed(3)}); `
      + `rss (median) ${mb(median(early.rss)).toFixed(0)} → ${mb(median(late.rss)).toFixed(0)} MB, live array buffers (least) `
        + `${mb(Math.min(...early.buffers)).toFixed(1)} → ${mb(Math.min(...late.buffers)).toFixed(1)} MB`,
  );
  // Live buffers are one window's audio and decoder state (encoder keys/values alone are 18 MB): level
  // over time. Keeping the decoded audio adds up to 3.8 MB per minute (+7.5 MB between the floors above).
  expect(mb(Math.min(...late.buffers) - Math.min(...early.buffers))).toBeLessThan(5);
  // A leak of one window's tensors (18 MB of encoder keys/values each) would add hundreds of MB over the late five
  // minutes; what moves without one is the allocator's heap and onnxruntime's encoder arena settling (+34 MB in
  // a loaded run, with level live buffers), hence the bound.
  expect(mb(median(late.rss) - median(early.rss))).toBeLessThan(80);
});
