/**
 * What `speechgate listen` shows in text mode as a line changes: the line once, then its correction (the
 * finalization's accurate pass rewrites live lines in place) and a translation that arrives late; nothing for an
 * update that changes nothing it showed.
 */
import { describe, expect, it } from 'vitest';
import { textOfLine } from '../../src/cli/commands/listen.js';

describe('listen text mode', () => {
  it('prints a line once, then what finalization corrected in it', () => {
    const first = textOfLine(undefined, { text: 'Go for word ten meters.', unclear: false, translation: undefined }, undefined);
    expect(first.lines).toEqual(['Go for word ten meters.']);
    const same = textOfLine(first.shown, { text: 'Go for word ten meters.', unclear: false, translation: undefined }, undefined);
    expect(same.lines).toEqual([]);
    const corrected = textOfLine(same.shown, { text: 'Go forward ten meters.', unclear: false, translation: undefined }, undefined);
    expect(corrected.lines).toEqual(['  ✎ Go forward ten meters.']);
    expect(
      textOfLine(corrected.shown, { text: 'Go forward ten meters.', unclear: false, translation: undefined }, undefined).lines,
    ).toEqual([]);
  });

  it('with --lang: the translation first, a late one when it comes, a new one after a correction', () => {
    const untranslated = textOfLine(undefined, { text: 'Hello there.', unclear: false, translation: undefined }, 'es');
    expect(untranslated.lines).toEqual(['Hello there.']);
    const late = textOfLine(untranslated.shown, { text: 'Hello there.', unclear: false, translation: 'Hola.' }, 'es');
    expect(late.lines).toEqual(['  es: Hola.']);
    const both = textOfLine(late.shown, { text: 'Hello, there!', unclear: false, translation: '¡Hola!' }, 'es');
    expect(both.lines).toEqual(['  ✎ Hello, there!', '  es: ¡Hola!']);
    const translatedFirst = textOfLine(undefined, { text: 'Hello there.', unclear: false, translation: 'Hola.' }, 'es');
    expect(translatedFirst.lines).toEqual(['Hola.']);
  });

  it('an unclear line shows as such, and what it became once heard', () => {
    const unclear = textOfLine(undefined, { text: '', unclear: true, translation: undefined }, undefined);
    expect(unclear.lines).toEqual(['[audio unclear]']);
    expect(textOfLine(unclear.shown, { text: 'Turn left.', unclear: false, translation: undefined }, undefined).lines).toEqual([
      '  ✎ Turn left.',
    ]);
  });
});
