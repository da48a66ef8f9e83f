/**
 * Speaker labels: diarization error rate of the classical diarizer (workers/engine/speakers/diarize.ts: VAD and ΔBIC
 * change points, per-turn Gaussians of MFCCs, BIC agglomerative clustering) with NIST's 0.25 s collar, on
 *
 * - `two-speakers`: 42 s of two real speakers taking seven turns (test/fixtures/speakers, RTTM ground truth);
 * - `lecture`: the one-speaker 60 s lecture (no RTTM: the row says how many speakers were found; 1 is right).
 *
 * Live capture's online labels are measured on `two-speakers` too: segments cut at the true turns (2.5 s at most),
 * and cut blind (every 2.5 s, every 4 s), as a recognizer's segments may straddle a change of voice.
 *
 * Held out (not tuned on): voices of the accuracy bench's clips (test/fixtures/bench) joined with 0.6 s of silence
 * between them, the ground truth known by construction: `harvard 1 / 2` alternates the Harvard sentences of its two
 * speakers (12 turns), `three voices` is LJ Speech, JFK and a LibriSpeech reader (6 turns). The file diarizer, and
 * the live labels of segments cut from the true turns (2.5 s at most), settled.
 *
 * `npm run bench -- speakers` prints the table. With a speaker-embedding model in MODELS_DIR
 * (workers/engine/speakers/speaker-embedding.ts), both recordings are measured again with it (rows marked "embedding").
 */
import { findSpeakerEmbedding } from '../workers/engine/speakers/speaker-embedding.js';
import { fixture } from '../test/helpers/fixtures.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { concatSamples, decodeFileToPcm, SAMPLE_RATE, wavOf } from '../workers/engine/index.js';
import { parseRttm, type DiarizationError } from '../workers/engine/speakers/der.js';
import { labelOnline, measureDiarization, segmentsDer, segmentsOfTurns, TWO_SPEAKERS } from '../test/helpers/speakers.js';

export async function benchSpeakers(): Promise<{ table: string }> {
  const rows = [
    '| recording | true speakers | found | DER | missed s | false alarm s | confusion s | scored s | time s |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const model = await findSpeakerEmbedding();
  for (const embedding of model ? [null, model] : [null]) {
    for (const [name, audio, rttm, truth] of [
      ['two-speakers', TWO_SPEAKERS.audio, TWO_SPEAKERS.rttm, 2],
      ['lecture (60 s)', fixture('political-philosophy-60s.wav'), undefined, 1],
    ] as const) {
      const { speakers, error, seconds } = await measureDiarization(audio, rttm, { embedding });
      const cells = error ? derCells(error) : '— | — | — | — | —';
      rows.push(`| ${name}${embedding ? ', embedding' : ''} | ${truth} | ${speakers} | ${cells} | ${seconds.toFixed(2)} |`);
    }
  }
  // Live capture: online labels (workers/engine/speakers/live-speakers.ts) of segments as committed, provisional and settled:
  // cut from the true turns (2.5 s at most), and cut blind every 2.5, 4 and 8 s (some hold both voices; 8 s is a
  // busy machine's live pass, whose segments run the turns together).
  const reference = parseRttm(readFileSync(TWO_SPEAKERS.rttm, 'utf8'));
  const blind = (pieceS: number) => Array.from(
    { length: Math.ceil(42 / pieceS) }, (_, i) => ({ start: i * pieceS, end: Math.min(42.3, (i + 1) * pieceS - 0.05) }),
  );
  for (const [cut, segments] of [
    ['true turns, 2.5 s', segmentsOfTurns(reference, 2.5)], ['blind, 2.5 s', blind(2.5)], ['blind, 4 s', blind(4)],
    ['blind, 8 s', blind(8)],
  ] as const) {
    const online = await labelOnline(TWO_SPEAKERS.audio, segments);
    const settled = online.segments.map((_, i) => online.settled.get(i)!.speaker);
    for (const [name, labels] of [['provisional', online.provisional], ['settled', settled]] as const) {
      const error = segmentsDer(TWO_SPEAKERS.rttm, online.segments, labels);
      rows.push(`| two-speakers, live ${name} (segments: ${cut}) | 2 | ${new Set(labels).size} | ${derCells(error)} | `
        + `${online.seconds.toFixed(2)} |`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-speakers-'));
  try {
    for (const [name, voices] of HELD_OUT_VOICES) {
      const { audio, rttm, turns } = await joinVoices(dir, name, voices);
      const truth = new Set(voices.map(([, speaker]) => speaker)).size;
      const { speakers, error, seconds } = await measureDiarization(audio, rttm);
      rows.push(`| held out: ${name} | ${truth} | ${speakers} | ${derCells(error!)} | ${seconds.toFixed(2)} |`);
      const online = await labelOnline(audio, segmentsOfTurns(turns, 2.5));
      const settled = online.segments.map((_, i) => online.settled.get(i)!.speaker);
      rows.push(`| held out: ${name}, live settled (segments: true turns, 2.5 s) | ${truth} | ${new Set(settled).size} | `
        + `${derCells(segmentsDer(rttm, online.segments, settled))} | ${online.seconds.toFixed(2)} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { table: rows.join('\n') };
}

const derCells = (error: DiarizationError) => [
  `${(error.der * 100).toFixed(1)}%`, error.missedS, error.falseAlarmS, error.confusionS, error.scoredS,
].join(' | ');

/** Held-out recordings: [clip of test/fixtures/bench, its speaker] in order. */
const HELD_OUT_VOICES: Array<[string, Array<[string, string]>]> = [
  ['harvard 1 / 2', [1, 2, 3, 4, 5, 6].flatMap((i): Array<[string, string]> => [
    [`en-harvard-spk1-${i}.flac`, 'spk1'], [`en-harvard-spk2-${i}.flac`, 'spk2'],
  ])],
  ['three voices', [
    ['en-lj-LJ002-0020.flac', 'lj'], ['en-jfk.flac', 'jfk'], ['en-lj-LJ002-0035.flac', 'lj'], ['en-ls-2412-153948-0000.flac', 'ls'],
    ['en-jfk.flac', 'jfk'], ['en-lj-LJ002-0020.flac', 'lj'],
  ]],
];

/** The clips joined with 0.6 s of silence, as a WAV in `dir`, with their turns as an RTTM beside it. */
async function joinVoices(dir: string, name: string, voices: Array<[string, string]>): Promise<{
  audio: string; rttm: string; turns: Array<{ start: number; end: number }>;
}> {
  const pieces: Float32Array[] = [];
  const lines: string[] = [];
  const turns: Array<{ start: number; end: number }> = [];
  let atS = 0;
  for (const [clip, speaker] of voices) {
    const pcm = await decodeFileToPcm(fixture(`bench/${clip}`));
    const seconds = pcm.length / SAMPLE_RATE;
    lines.push(`SPEAKER held-out 1 ${atS.toFixed(3)} ${seconds.toFixed(3)} <NA> <NA> ${speaker} <NA> <NA>`);
    turns.push({ start: atS, end: atS + seconds });
    pieces.push(pcm, new Float32Array(Math.round(0.6 * SAMPLE_RATE)));
    atS += seconds + 0.6;
  }
  const base = join(dir, name.replace(/[^a-z0-9]+/gi, '-'));
  writeFileSync(`${base}.wav`, wavOf(concatSamples(pieces)));
  writeFileSync(`${base}.rttm`, `${lines.join('\n')}\n`);
  return { audio: `${base}.wav`, rttm: `${base}.rttm`, turns };
}
