/**
 * One engine thread's capacity for live streams, and where its time goes: N streams of the lecture fed as fast as
 * their passes go (not at real time) on one SpeechEngine, as the streams of one engine thread share it; then audio
 * seconds per wall second, and onnxruntime's calls by kind (encoder, first calls alone and batched (`first*`),
 * cached steps, word alignment: count, rows, time including the wait for the thread). Run with `node --cpu-prof
 * --import tsx` to see the JavaScript's share too
 * (profile-summary.mjs). On a GPU machine through device.sh; on the CPU it runs the graphs a GPU runs.
 *
 * Knobs: N streams (16), S seconds of audio each (8), R rounds (2: the first pays for new shapes), M model
 * (whisper-base), BENCH_PCM a file of 16 kHz float samples instead of decoding the lecture, ENGINE_* as the engine.
 */
import { readFileSync } from 'node:fs';
import type * as ort from 'onnxruntime-node';
import { decodeFileToPcm } from '../../workers/engine/audio.js';
import { SpeechEngine } from '../../workers/engine/speech-engine.js';
import { SAMPLE_RATE } from '../../workers/engine/whisper/mel.js';
import { fixture } from '../../test/helpers/fixtures.js';

const env = process.env;
const streams = Number(env.N ?? 16);
const seconds = Number(env.S ?? 8);
const rounds = Number(env.R ?? 2);
const onGpu = (env.ENGINE_PROVIDER ?? 'cpu') !== 'cpu';
const engine = await SpeechEngine.load({ model: env.M ?? 'whisper-base', gpuGraphs: onGpu ? undefined : true, intraOpThreads: 1 });
const pcm = env.BENCH_PCM ? new Float32Array(readFileSync(env.BENCH_PCM).buffer) : await decodeFileToPcm(
  fixture('political-philosophy-60s.wav'),
);

type Calls = Record<string, { calls: number; rows: number; ms: number }>;
const calls: Calls = {};
/** Times every run of `session` under the kind `kindOf` names. */
function timed(session: ort.InferenceSession, kindOf: (feeds: Record<string, ort.Tensor>, fetches: string[]) => string): void {
  const run = session.run.bind(session) as (
    feeds: Record<string, ort.Tensor>, fetches: string[],
  ) => Promise<ort.InferenceSession.ReturnType>;
  (session as { run: typeof run }).run = async (feeds, fetches) => {
    const started = performance.now();
    try {
      return await run(feeds, fetches);
    } finally {
      const entry = (calls[kindOf(feeds, fetches)] ??= { calls: 0, rows: 0, ms: 0 });
      entry.calls++;
      entry.ms += performance.now() - started;
      entry.rows += (feeds.input_ids ?? feeds.input_features).dims[0];
    }
  };
}
// The sessions are the model's own (private fields): this bench reaches in on purpose, to time them.
const sessions = engine.model as unknown as { encoder: ort.InferenceSession; decoder: ort.InferenceSession };
timed(sessions.encoder, () => 'encoder');
// Word alignment's call fetches the cross-attention weights; first calls batched across decodes run the cached
// branch on a whole prompt (step-batcher.ts).
timed(sessions.decoder, (feeds, fetches) => {
  if (fetches.some((name) => name.startsWith('cross_attentions'))) return 'align';
  if (!(feeds.use_cache_branch.data as Uint8Array)[0]) return 'first';
  return feeds.input_ids.dims[1] > 1 ? 'first*' : 'step';
});

for (let round = 0; round < rounds; round++) {
  for (const kind of Object.keys(calls)) delete calls[kind];
  const before = { ...(engine.model.steps?.stats ?? { calls: 0, rows: 0, rebuilds: 0 }) };
  const started = performance.now();
  let words = 0;
  await Promise.all(
    Array.from({ length: streams }, async (_, i) => {
      const stream = engine.createStream({ language: 'en', mode: 'fast' });
      const from = Math.floor(i * 2.3 * SAMPLE_RATE) % Math.max(1, pcm.length - seconds * SAMPLE_RATE);
      const audio = pcm.subarray(from, from + seconds * SAMPLE_RATE);
      const count = (update: { committed: { text: string }[] }) => (words += update.committed.reduce(
        (sum, s) => sum + s.text.trim().split(/\s+/).length, 0,
      ));
      for (let at = 0; at < audio.length; at += SAMPLE_RATE / 2) {
        stream.push(audio.subarray(at, at + SAMPLE_RATE / 2));
        count(await stream.step());
      }
      count(await stream.flush());
    }),
  );
  const wallMs = performance.now() - started;
  const stats = engine.model.steps?.stats;
  const firsts = stats && 'firstCalls' in stats ? `, first calls: `
    + `${Number(stats.firstCalls) - Number((before as typeof stats).firstCalls)} for `
      + `${Number(stats.firstRows) - Number((before as typeof stats).firstRows)} prompts` : '';
  const batching = stats ? `batched steps: ${stats.calls - before.calls} calls for ${stats.rows - before.rows} rows `
    + `(${stats.rebuilds - before.rebuilds} rebuilt)${firsts}` : 'each decode steps alone';
  console.log(`round ${round}: ${engine.provider}, ${streams} streams × ${seconds} s in ${(wallMs / 1000).toFixed(1)} s = `
    + `${((streams * seconds * 1000) / wallMs).toFixed(2)} audio s per s; ${words} words; ${batching}`);
  for (const [kind, entry] of Object.entries(calls)) {
    console.log(`  ${kind.padEnd(8)} ${entry.calls} calls, ${entry.rows} rows, ${(entry.ms / entry.calls).toFixed(1)} ms a call (with its `
      + `wait)`);
  }
}
