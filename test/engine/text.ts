import { expect } from 'vitest';
import type { Segment } from '../../workers/engine/speech-engine.js';

/** Text comparison helpers for the engine tests: what counts as "the same words". */
const NUMBER_WORDS: Record<string, string> = {
  '0': 'zero', '1': 'one', '2': 'two', '3': 'three', '4': 'four', '5': 'five', '6': 'six', '7': 'seven', '8': 'eight', '9': 'nine',
  '10': 'ten',
  '11': 'eleven', '12': 'twelve', '20': 'twenty',
};

/** Lower case, no punctuation, digits spelled out (Whisper writes "10 meters" as often as "ten meters"). */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => NUMBER_WORDS[word] ?? word);
}

/** How many of `words` the text holds (normalised as normaliseWords does). */
export function countOf(text: string, words: readonly string[]): number {
  const heard = new Set(normaliseWords(text));
  return words.filter((word) => heard.has(word)).length;
}

/** Word-level edit distance (substitutions + insertions + deletions). */
export function wordErrors(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[hypothesis.length];
}

/** Every segment has words, inside it and in order across the whole result; confidence = mean word prob. */
export function expectWellFormedWords(segments: Segment[]): void {
  let previousEnd = 0;
  for (const segment of segments) {
    expect(segment.words.length, segment.text).toBeGreaterThan(0);
    expect(segment.end).toBeGreaterThan(segment.start);
    for (const word of segment.words) {
      expect(word.start).toBeGreaterThanOrEqual(Math.max(segment.start, previousEnd) - 1e-6);
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(word.end).toBeLessThanOrEqual(segment.end + 1e-6);
      expect(word.prob).toBeGreaterThan(0);
      expect(word.prob).toBeLessThanOrEqual(1);
      previousEnd = word.end;
    }
    const mean = segment.words.reduce((sum, w) => sum + w.prob, 0) / segment.words.length;
    expect(segment.confidence).toBeCloseTo(mean, 6);
    expect(normaliseWords(segment.words.map((w) => w.text).join(' '))).toEqual(normaliseWords(segment.text));
  }
}
