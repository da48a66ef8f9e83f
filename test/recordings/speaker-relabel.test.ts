/**
 * Finalize's re-labelling of live speaker labels (src/recordings/speakers.ts relabelSegments): the whole audio's
 * diarization numbered onto the live numbers by shared speech, a new voice on a free number, only changes reported.
 */
import { describe, expect, it } from 'vitest';
import { relabelSegments } from '../../src/recordings/speakers.js';

const segment = (seq: number, start: number, end: number, speaker: number, provisional: boolean | null = true) => ({
  seq, start, end, speaker, speakerConfidence: 0.9, speakerProvisional: provisional,
});

describe('relabelSegments', () => {
  it('keeps the live numbers where the voices agree, though diarization numbers them the other way round', () => {
    const segments = [segment(0, 0, 5, 1), segment(1, 5, 10, 0), segment(2, 10, 15, 1)];
    // Diarization heard the first voice as its speaker 0; live called it 1.
    const turns = [
      { start: 0, end: 5, speaker: 0, confidence: 0.8 }, { start: 5, end: 10, speaker: 1, confidence: 0.7 },
      { start: 10, end: 15, speaker: 0, confidence: 0.95 },
    ];
    expect(relabelSegments(segments, turns)).toEqual([
      { seq: 0, speaker: 1, speakerConfidence: 0.8, speakerProvisional: false },
      { seq: 1, speaker: 0, speakerConfidence: 0.7, speakerProvisional: false },
      { seq: 2, speaker: 1, speakerConfidence: 0.95, speakerProvisional: false },
    ]);
  });

  it('moves a segment live got wrong, gives a voice live merged away a free number, and reports nothing unchanged', () => {
    const segments = [segment(0, 0, 5, 0, false), segment(1, 5, 10, 0), segment(2, 10, 20, 2), segment(3, 20, 25, 0)];
    const turns = [
      { start: 0, end: 5, speaker: 0, confidence: 0.9 },
      { start: 5, end: 10, speaker: 1, confidence: 0.6 },
      { start: 10, end: 20, speaker: 2, confidence: 0.9 },
      { start: 20, end: 25, speaker: 0, confidence: 0.9 },
    ];
    // Voice 1 never had a live number of its own: it takes 1, the smallest no segment uses. Segment 0 (settled,
    // same speaker and confidence) is not reported again.
    expect(relabelSegments(segments, turns)).toEqual([
      { seq: 1, speaker: 1, speakerConfidence: 0.6, speakerProvisional: false },
      { seq: 2, speaker: 2, speakerConfidence: 0.9, speakerProvisional: false },
      { seq: 3, speaker: 0, speakerConfidence: 0.9, speakerProvisional: false },
    ]);
  });

  it('keeps a named number on its voice when live labelling split that voice over two numbers', () => {
    // The first voice was 0 live (named so), then drifted to 1 for longer; the other voice was 2.
    const segments = [segment(0, 0, 4, 0), segment(1, 4, 14, 1), segment(2, 14, 20, 2), segment(3, 20, 30, 1)];
    const turns = [
      { start: 0, end: 14, speaker: 0, confidence: 0.9 }, { start: 14, end: 20, speaker: 1, confidence: 0.9 },
      { start: 20, end: 30, speaker: 0, confidence: 0.9 },
    ];
    // Unnamed, the voice takes the number it had longest (1) and 0 is gone.
    expect(new Set(relabelSegments(segments, turns).map((label) => label.speaker))).toEqual(new Set([1, 2]));
    // Named 0, it keeps 0, so the name stays with it.
    expect(relabelSegments(segments, turns, new Set([0])).map((label) => [label.seq, label.speaker])).toEqual([
      [0, 0], [1, 0], [2, 2], [3, 0],
    ]);
  });

  it('answers nothing without segments or turns', () => {
    expect(relabelSegments([], [{ start: 0, end: 1, speaker: 0, confidence: 1 }])).toEqual([]);
    expect(relabelSegments([segment(0, 0, 1, 0)], [])).toEqual([]);
  });
});
