/**
 * The diarization measurement shared by the engine's tests and `npm run bench -- speakers`: the classical
 * diarizer (workers/engine/diarize.ts) on a fixture, scored against its RTTM ground truth.
 */
import { readFileSync } from 'node:fs';
import { decodeFile } from '../../workers/engine/audio.js';
import { diarizationErrorRate, parseRttm, type DiarizationError } from '../../workers/engine/der.js';
import type { DiarizeOptions, SpeakerTurn } from '../../workers/engine/diarize.js';
import { diarizeSource } from '../../workers/engine/speakers.js';
import { SileroVad } from '../../workers/engine/vad.js';
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
