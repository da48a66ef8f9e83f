/**
 * Sentences as `transcript.sentence` frames carry them (sentencesTouching): the sentences holding the segments a
 * change touched, with where each ends (`lastWordId`) and whether it may still grow (`complete`).
 */
import { describe, expect, it } from 'vitest';
import { sentencesTouching, type SentenceSource } from '../../src/transcript/sentences.js';

function segment(seq: number, text: string, speaker = 0): SentenceSource {
  const words = text.split(' ').map((word, i) => ({ text: ` ${word}`, start: seq * 10 + i, end: seq * 10 + i + 0.5, prob: 0.9 }));
  return { seq, speaker, start: seq * 10, end: seq * 10 + words.length, text, words, confidence: 0.9 };
}

describe('sentencesTouching', () => {
  it('gives the sentences holding the touched segments, with their last word, open until closed', () => {
    const segments = [segment(0, 'Good morning everyone.'), segment(1, 'Today we look at'), segment(2, 'three things. First the')];
    const touched = sentencesTouching(segments, [2]);
    expect(touched.map((s) => [s.id, s.text, s.lastWordId, s.complete])).toEqual([
      ['1.0', 'Today we look at three things.', '2.1', true],
      ['2.2', 'First the', '2.3', false],
    ]);
    // The recording ended: the open one closes.
    expect(sentencesTouching(segments, [2], true).at(-1)).toMatchObject({ id: '2.2', complete: true });
    // Untouched sentences are left out.
    expect(sentencesTouching(segments, [0]).map((s) => s.id)).toEqual(['0.0']);
  });

  it('closes a sentence where the speaker changes, and merges what a lost full stop joins', () => {
    const two = sentencesTouching([segment(0, 'So I said', 0), segment(1, 'Yes indeed', 1)], [0, 1]);
    expect(two.map((s) => [s.id, s.complete])).toEqual([['0.0', true], ['1.0', false]]);
    // "One. Two." amended to "One, two.": sentence 0.1 is now inside 0.0 (after its id, at or before its last word).
    const merged = sentencesTouching([segment(0, 'One, two.')], [0]);
    expect(merged).toEqual([expect.objectContaining({ id: '0.0', lastWordId: '0.1', text: 'One, two.', complete: true })]);
  });
});
