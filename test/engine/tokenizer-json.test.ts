/**
 * tokenizer-json.ts reads `model.vocab` and `added_tokens` from the file's bytes: the same token texts, ids and added
 * tokens as `JSON.parse` of the whole file, for both shipped models and for the JSON forms those files do not use
 * (escapes, characters beyond the basic plane, another member order); a file cut short of them is an error, not a hang.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';
import { readTokenizerJson, type TokenizerJson } from '../../workers/engine/whisper/tokenizer-json.js';

/** id → text, as the scan read it. */
function texts(read: TokenizerJson): Map<number, string> {
  const { ids, units, unitStarts } = read.vocab;
  return new Map(Array.from(ids, (id, entry) => [id, String.fromCharCode(...units.subarray(unitStarts[entry], unitStarts[entry + 1]))]));
}

function expectAsParsed(bytes: Buffer): void {
  const parsed = JSON.parse(bytes.toString('utf8')) as { model: { vocab: Record<string, number> }; added_tokens: unknown[] };
  const read = readTokenizerJson(bytes);
  const expected = new Map(Object.entries(parsed.model.vocab).map(([text, id]) => [id, text]));
  expect(read.vocab.ids.length).toBe(expected.size);
  expect(texts(read)).toEqual(expected);
  expect(read.addedTokens).toEqual(parsed.added_tokens);
}

describe('readTokenizerJson', () => {
  it.each(['whisper-tiny', 'whisper-base'])('reads %s’s vocabulary and added tokens as JSON.parse does', (model) => {
    const bytes = readFileSync(join(resolveModelDir({ model }), 'tokenizer.json'));
    expectAsParsed(bytes);
    expect(readTokenizerJson(bytes).vocab.ids.length).toBeGreaterThan(50_000);
  });

  it('decodes escapes and characters beyond the basic plane, whatever the members’ order and spacing', () => {
    const vocab = { 'a"b': 0, 'c\\d': 1, 'tab\tnew\nline/': 2, 'Ġthe': 3, 'é€': 4, '😀x': 5, '{[}]': 6, '': 7, '\u0001\b\f\r': 8 };
    const added = [{ id: 9, content: '<|endoftext|>', special: true }];
    const model = { type: 'BPE', vocab, merges: ['Ġ t', 'h e'] };
    for (const text of [
      JSON.stringify({ version: '1.0', added_tokens: added, model }),
      JSON.stringify({ model, normalizer: null, added_tokens: added }, null, 2),
      // JSON's optional escapes written out: \/ and \u sequences (a surrogate pair among them).
      `{"added_tokens":${JSON.stringify(added)},"model":{"vocab":{"\\/\\u00e9":1,"\\ud83d\\ude00":2,"plain":3}}}`,
    ]) expectAsParsed(Buffer.from(text));
  });

  it('refuses a file without the vocabulary or the added tokens, or cut short of them', () => {
    expect(() => readTokenizerJson(Buffer.from('{"model":{"vocab":{"a":0}}}'))).toThrow(/added_tokens not found/);
    expect(() => readTokenizerJson(Buffer.from('{"added_tokens":[],"model":{"merges":[]}}'))).toThrow(/model.vocab not found/);
    const whole = JSON.stringify({ added_tokens: [], model: { vocab: { abc: 0, 'd"e': 1 } } });
    // What follows both parts is not read (here the closing braces of the model and the file).
    expect(readTokenizerJson(Buffer.from(whole.slice(0, -2))).vocab.ids).toEqual(Int32Array.of(0, 1));
    for (let cut = 1; cut < whole.length - 2; cut++) {
      expect(() => readTokenizerJson(Buffer.from(whole.slice(0, cut))), `cut at ${cut}`).toThrow(/tokenizer.json/);
    }
  });
});
