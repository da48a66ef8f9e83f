/**
 * The script aligner (src/transcript/script.ts), pure: exact reading, skips, repeats, misrecognitions, unrelated
 * speech, a script shorter than the speech.
 */
import { describe, expect, it } from 'vitest';
import { followScript, parseScript, type ScriptMatch } from '../../src/transcript/script.js';

const SCRIPT = parseScript(
  'Good morning, everyone. Welcome to the quarterly review. ' + // 0..7
  'First, our revenue grew by twenty-one percent this year. ' + // 8..16
  'Second, we opened three new offices in Europe. ' + // 17..24
  'Finally, their team will meet at two o’clock on Friday.', // 25..34
);

/** Follows `heard` segment after segment, as commits do: each starts where the last match left the reader. */
function follow(heard: string[], script = SCRIPT): Array<ScriptMatch | null> {
  let position = 0;
  return heard.map((text) => {
    const match = followScript(script, text, position);
    if (match) position = match.scriptPos;
    return match;
  });
}

describe('script following', () => {
  it('numbers the script\'s words: whitespace tokens carrying a letter or digit', () => {
    expect(parseScript('Hello — world, 42 !').words).toEqual(['Hello', 'world,', '42']);
    expect(SCRIPT.words).toHaveLength(35);
  });

  it('follows an exact reading, case and punctuation aside, showing the script as written', () => {
    const [first, second] = follow(['good morning everyone welcome to the quarterly review', 'first our revenue grew by 21% this year']);
    expect(first).toEqual({ text: 'Good morning, everyone. Welcome to the quarterly review.', recognizedText: 'good morning everyone '
      + 'welcome to the quarterly review', scriptFrom: 0, scriptPos: 8 });
    expect(second).toMatchObject({ text: 'First, our revenue grew by twenty-one percent this year.', scriptFrom: 8, scriptPos: 17 });
  });

  it('jumps ahead over a skipped sentence', () => {
    const [, skipped] = follow([
      'Good morning everyone, welcome to the quarterly review.', 'Second, we opened three new offices in Europe.',
    ]);
    expect(skipped).toMatchObject({ text: 'Second, we opened three new offices in Europe.', scriptFrom: 17, scriptPos: 25 });
  });

  it('finds a repeated phrase a little behind the reader, then goes on from there', () => {
    const matches = follow([
      'First, our revenue grew by twenty one percent this year.', 'twenty one percent this year', 'Second we opened three new offices',
    ]);
    expect(matches[0]).toMatchObject({ text: 'First, our revenue grew by twenty-one percent this year.', scriptFrom: 8, scriptPos: 17 });
    // "twenty one" (two words heard) is "twenty-one" (one script word).
    expect(matches[1]).toMatchObject({ text: 'twenty-one percent this year.', scriptFrom: 13, scriptPos: 17 });
    expect(matches[2]).toMatchObject({ text: 'Second, we opened three new offices', scriptFrom: 17, scriptPos: 23 });
  });

  it('takes misrecognized words (homophones, a wrong word at the edge) as the script\'s', () => {
    // "there" for "their" sounds alike; "to" for "two" is a mismatch the words around it carry.
    expect(followScript(SCRIPT, 'Finally, there team will meet at to o\'clock on Friday', 25)).toMatchObject({
      text: 'Finally, their team will meet at two o’clock on Friday.', recognizedText: 'Finally, there team will meet at to o\'clock on '
        + 'Friday', scriptFrom: 25, scriptPos: 35,
    });
    // The first and last words heard wrong: taken as the script's neighbouring words.
    expect(followScript(SCRIPT, 'Hood morning everyone welcome to the quarterly rebrew', 0)).toMatchObject({
      text: 'Good morning, everyone. Welcome to the quarterly review.', scriptFrom: 0, scriptPos: 8,
    });
  });

  it('takes a short segment going on where the reader is, but not one elsewhere', () => {
    expect(followScript(SCRIPT, '21 dollars', 13)).toMatchObject({
      text: 'twenty-one percent', recognizedText: '21 dollars', scriptFrom: 13, scriptPos: 15,
    });
    expect(followScript(SCRIPT, 'offices', 22)).toMatchObject({ text: 'offices', scriptFrom: 22, scriptPos: 23 });
    expect(followScript(SCRIPT, 'offices', 8)).toBeNull();
  });

  it('leaves unrelated speech unmatched', () => {
    expect(followScript(SCRIPT, 'the weather today is sunny with a light breeze from the west', 0)).toBeNull();
    expect(followScript(SCRIPT, 'can you pass me the salt please', 8)).toBeNull();
    expect(followScript(SCRIPT, 'hmm', 0)).toBeNull();
  });

  it('leaves speech past the end of a shorter script unmatched, and keeps heard words beyond the script', () => {
    const short = parseScript('Go forward.');
    const matches = follow(['go forward ten meters', 'then turn left at the corner'], short);
    expect(matches[0]).toEqual({ text: 'Go forward. ten meters', recognizedText: 'go forward ten meters', scriptFrom: 0, scriptPos: 2 });
    expect(matches[1]).toBeNull();
  });
});
