/** The built-in extractive summariser: TextRank over TF-IDF, top sentences in original order, a title from key phrases. */
import { describe, expect, it } from 'vitest';
import {
  centroidScores, extractiveSummariser, keyPhrases, pickSentences, rankSentences, stopWords, summaryLength, titleOf,
} from '../../src/summaries/extractive.js';
import { parseSummaryAnswer } from '../../src/summaries/openai.js';

const LECTURE = [
  'Today we ask what justice requires of a political community.',
  'The weather was lovely on the way here this morning.',
  'Plato thought justice in the city mirrors justice in the soul.',
  'Aristotle tied justice to the purpose of a political community.',
  'Please remember to turn off your phones.',
  'Modern theories of justice ask which principles a fair political community would choose.',
  'Rawls answered that free and equal citizens would choose principles of justice behind a veil of ignorance.',
];

describe('sentence ranking', () => {
  it('ranks the sentences that share the topic above the asides', () => {
    const scores = rankSentences(LECTURE, 'en');
    expect(scores).toHaveLength(LECTURE.length);
    const order = scores.map((score, i) => ({ score, i })).sort((a, b) => b.score - a.score).map(({ i }) => i);
    // The two asides (weather, phones) rank last.
    expect(order.slice(-2).sort()).toEqual([1, 4]);
    expect(scores.reduce((sum, score) => sum + score, 0)).toBeCloseTo(1, 6);
  });

  it('picks the top sentences verbatim, in their original order', () => {
    const picked = pickSentences(LECTURE, 'en', 3);
    expect(picked).toHaveLength(3);
    for (const sentence of picked) expect(LECTURE).toContain(sentence);
    const positions = picked.map((sentence) => LECTURE.indexOf(sentence));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(picked).not.toContain(LECTURE[1]);
    expect(picked).not.toContain(LECTURE[4]);
  });

  it('keeps about one sentence in five, one for a handful, at most five', () => {
    expect([0, 1, 3, 4, 10, 20, 100].map(summaryLength)).toEqual([0, 1, 1, 2, 2, 4, 5]);
    expect(pickSentences(['Only one sentence here today.'], 'en')).toEqual(['Only one sentence here today.']);
    expect(pickSentences([], 'en')).toEqual([]);
  });

  it('still finds the substance of a short talk whose sentences share few words (centroid similarity)', () => {
    // whisper-base's reading of the first minute of test/fixtures/political-philosophy-60s.wav.
    const talk = [
      'and says, how do I get to Dublin?',
      'And the answer that comes back is, well, I wouldn\'t start from here, sonny.',
      'That is to say much of political philosophy develops theories that take no account where we actually are and how the theories that '
        + 'people argue about in the journals and in the literature actually could be implemented in book capital in the 21st century, '
        + 'I use for a 4% global wealth tax.',
      'Well, good luck with that.',
      'Who',
    ];
    const central = centroidScores(talk, 'en');
    expect(central.indexOf(Math.max(...central))).toBe(2);
    expect(pickSentences(talk, 'en')).toContain(talk[2]);
    expect(pickSentences(talk, 'en')).not.toContain('Who');
    expect(titleOf(talk, 'en')).toBe('Political Philosophy Develops Theories');
  });

  it('prefers a full sentence over a short interjection', () => {
    expect(pickSentences(['Yes.', 'Justice is the first virtue of institutions.', 'Okay.'], 'en', 1)).toEqual([
      'Justice is the first virtue of institutions.',
    ]);
  });

  it('uses the language\'s stop words, English when unknown', () => {
    expect(stopWords('es').has('para')).toBe(true);
    expect(stopWords('es-MX').has('para')).toBe(true);
    expect(stopWords('xx').has('the')).toBe(true);
    expect(stopWords(null).has('justice')).toBe(false);
  });
});

describe('title', () => {
  it('is made of the transcript\'s key phrases', () => {
    expect(keyPhrases(LECTURE, 'en')[0]).toMatch(/justice|political community/);
    const title = titleOf(LECTURE, 'en');
    expect(title).toMatch(/Justice|Political Community/);
    expect(title.split(/\s+/).length).toBeLessThanOrEqual(9);
  });

  it('works in Spanish with its stop words', async () => {
    const sentences = [
      'La democracia necesita ciudadanos informados.', 'Los ciudadanos informados votan mejor.', 'Hoy hace sol.',
      'Una democracia sin ciudadanos informados no dura.',
    ];
    const { title, summary } = await extractiveSummariser.summarise({ sentences, language: 'es' });
    expect(title).toMatch(/Ciudadanos Informados|Democracia/);
    expect(summary).not.toContain('Hoy hace sol.');
  });
});

describe('the chat answer', () => {
  it('is JSON with a title and a summary, fenced or not', () => {
    expect(parseSummaryAnswer('{"title":"T","summary":"S."}')).toEqual({ title: 'T', summary: 'S.' });
    expect(parseSummaryAnswer('```json\n{"title":" T ","summary":"S."}\n```')).toEqual({ title: 'T', summary: 'S.' });
    expect(() => parseSummaryAnswer('Here is your summary: great talk')).toThrow(/not JSON/);
    expect(() => parseSummaryAnswer('{"title":"T"}')).toThrow(/title.*summary/);
    expect(() => parseSummaryAnswer(undefined)).toThrow(/no message content/);
  });
});
