/**
 * The diarization measurement shared by the engine's tests and `npm run bench -- speakers`: the classical
 * diarizer (workers/engine/speakers/diarize.ts), or the embedding one given `options.embedding`, on a fixture, scored
 * against its RTTM ground truth.
 */
import { readFileSync } from 'node:fs';
import { concatSamples, decodeFile } from '../../workers/engine/audio.js';
import { diarizationErrorRate, parseRttm, type DiarizationError } from '../../workers/engine/speakers/der.js';
import type { SpeakerTurn } from '../../workers/engine/speakers/diarize.js';
import { diarizeSource, type DiarizeSourceOptions } from '../../workers/engine/speakers/diarize-source.js';
import { SileroVad } from '../../workers/engine/vad.js';
import { OnlineSpeakers, type SpeakerSettlement } from '../../workers/engine/speakers/live-speakers.js';
import { SAMPLE_RATE } from '../../workers/engine/whisper/mel.js';
import { fixture } from './fixtures.js';

/** Two real speakers taking turns (test/fixtures/speakers/make-two-speakers.sh), 42 s. */
export const TWO_SPEAKERS = { audio: fixture('speakers/two-speakers.flac'), rttm: fixture('speakers/two-speakers.rttm') };

export interface DiarizationMeasure {
  turns: SpeakerTurn[];
  speakers: number;
  error: DiarizationError | null;
  seconds: number;
}

/** Diarizes `audio` and, given an RTTM reference, scores it with a 0.25 s collar. */
export async function measureDiarization(audio: string, rttm?: string, options: DiarizeSourceOptions = {}): Promise<DiarizationMeasure> {
  const vad = await SileroVad.load();
  const started = performance.now();
  const turns = await diarizeSource(vad, decodeFile(audio), options);
  const seconds = (performance.now() - started) / 1000;
  const error = rttm ? diarizationErrorRate(parseRttm(readFileSync(rttm, 'utf8')), turns, 0.25) : null;
  return { turns, speakers: new Set(turns.map((t) => t.speaker)).size, error, seconds };
}

/** Segments of at most `pieceS` cut from each reference turn, in order (as a recognizer commits them). */
export function segmentsOfTurns(turns: Array<{ start: number; end: number }>, pieceS: number): Array<{ start: number; end: number }> {
  return turns.flatMap((turn) => {
    const out: Array<{ start: number; end: number }> = [];
    for (let start = turn.start; start < turn.end - 0.3; start += pieceS) out.push({ start, end: Math.min(turn.end, start + pieceS) });
    return out;
  });
}

export interface OnlineLabelling {
  segments: Array<{ start: number; end: number }>;
  /** The label each segment got when committed. */
  provisional: number[];
  /** The last settlement of each segment (by index). */
  settled: Map<number, SpeakerSettlement>;
  /** Segments settled before the end. */
  settledEarly: Set<number>;
  seconds: number;
}

/**
 * Online speaker labels (workers/engine/speakers/live-speakers.ts) on `audio` as it would stream: fed in 250 ms chunks up to
 * half a second past each segment's end, each segment labelled as it ends, settlements gathered, all settled at the end.
 */
export async function labelOnline(audio: string, segments: Array<{ start: number; end: number }>): Promise<OnlineLabelling> {
  const chunks: Float32Array[] = [];
  for await (const chunk of decodeFile(audio)) chunks.push(chunk);
  const pcm = concatSamples(chunks);
  const started = performance.now();
  const online = new OnlineSpeakers();
  let fed = 0;
  const provisional: number[] = [];
  const settled = new Map<number, SpeakerSettlement>();
  const settledEarly = new Set<number>();
  segments.forEach((segment, turn) => {
    const upTo = Math.min(pcm.length, Math.ceil((segment.end + 0.5) * SAMPLE_RATE));
    for (; fed < upTo; fed = Math.min(upTo, fed + 4000)) online.push(pcm.subarray(fed, Math.min(upTo, fed + 4000)));
    provisional.push(online.assign(turn, segment.start, segment.end).speaker);
    for (const s of online.settle()) {
      settled.set(s.turn, s);
      settledEarly.add(s.turn);
    }
  });
  for (const s of online.settle(true)) settled.set(s.turn, s);
  return { segments, provisional, settled, settledEarly, seconds: (performance.now() - started) / 1000 };
}

/** DER (0.25 s collar) of `segments` labelled `speakers`, against an RTTM file. */
export function segmentsDer(rttm: string, segments: Array<{ start: number; end: number }>, speakers: number[]): DiarizationError {
  return diarizationErrorRate(parseRttm(readFileSync(rttm, 'utf8')), segments.map((s, i) => ({ ...s, speaker: speakers[i]! })), 0.25);
}
