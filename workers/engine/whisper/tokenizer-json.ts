/**
 * The two parts of a Hugging Face `tokenizer.json` the decoding tokenizer needs (tokenizer.ts): the model's `vocab`
 * and the `added_tokens`, read from the file's bytes without parsing the rest. `JSON.parse` of the whole file (2.3 MB,
 * half of it the BPE merges the engine never uses) built a 50,000-key object and took ~180 ms CPU of every engine load
 * (decoding the file as UTF-8 ~55, parsing ~105, listing the keys ~20); this scan takes ~25 ms, the vocabulary's
 * strings read straight into one array of UTF-16 code units, the same ones `JSON.parse` gives (tested on both models).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** JSON's one-character escapes (`\n` …) by the letter after the backslash; `"`, `\` and `/` stand for themselves. */
const ESCAPED: Record<number, number> = { 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };

export interface TokenizerJson {
  /** Vocabulary entries in file order: entry n is token `ids[n]`, its text `units[unitStarts[n]…unitStarts[n + 1])`. */
  vocab: { ids: Int32Array; units: Uint16Array; unitStarts: Uint32Array };
  addedTokens: { id: number; content: string }[];
}

function malformed(what: string): Error {
  return new Error(`tokenizer.json: ${what}`);
}

/** Reads the file's `model.vocab` and `added_tokens` (see the file's comment); an error names what is missing. */
export function readTokenizerJson(json: Uint8Array): TokenizerJson {
  const text = (from: number, to: number): string => Buffer.from(json.buffer, json.byteOffset + from, to - from).toString('utf8');
  const at = (i: number): number => {
    if (i >= json.length) throw malformed('ends early');
    return json[i]!;
  };
  const skipSpace = (i: number): number => {
    while (i < json.length && (json[i] === 0x20 || json[i] === 0x0a || json[i] === 0x0d || json[i] === 0x09)) i++;
    return i;
  };
  const stringEnd = (i: number): number => {
    if (at(i) !== QUOTE) throw malformed(`a string expected at byte ${i}`);
    for (i++; at(i) !== QUOTE; i += json[i] === BACKSLASH ? 2 : 1);
    return i + 1;
  };
  // Past the value at `i`: a string, an object or array (nesting counted, strings skipped whole), or a literal.
  const valueEnd = (i: number): number => {
    const first = at(i);
    if (first === QUOTE) return stringEnd(i);
    if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      while (i < json.length && json[i] !== COMMA && json[i] !== CLOSE_OBJECT && json[i] !== CLOSE_ARRAY) i++;
      return i;
    }
    let depth = 0;
    do {
      const c = at(i);
      if (c === QUOTE) {
        i = stringEnd(i);
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
      i++;
    } while (depth > 0);
    return i;
  };
  // Each member of the object at `i`, in order: `visit` gets its key and where its value starts, and returns where the
  // value ends, or undefined to have it skipped, or null to stop there.
  const members = (i: number, visit: (key: string, value: number) => number | undefined | null): void => {
    i = skipSpace(i);
    if (at(i) !== OPEN_OBJECT) throw malformed(`an object expected at byte ${i}`);
    i = skipSpace(i + 1);
    while (at(i) !== CLOSE_OBJECT) {
      const keyEnd = stringEnd(i);
      const key = JSON.parse(text(i, keyEnd)) as string;
      i = skipSpace(keyEnd);
      if (at(i) !== COLON) throw malformed(`':' expected at byte ${i}`);
      const value = skipSpace(i + 1);
      const end = visit(key, value);
      if (end === null) return;
      i = skipSpace(end ?? valueEnd(value));
      if (at(i) === COMMA) i = skipSpace(i + 1);
    }
  };

  let vocab: TokenizerJson['vocab'] | undefined;
  let addedTokens: TokenizerJson['addedTokens'] | undefined;
  members(0, (key, value) => {
    if (key === 'added_tokens') {
      const end = valueEnd(value);
      addedTokens = JSON.parse(text(value, end)) as TokenizerJson['addedTokens'];
      return vocab ? null : end;
    }
    if (key !== 'model') return undefined;
    members(value, (modelKey, modelValue) => {
      if (modelKey !== 'vocab') return undefined;
      vocab = readVocab(json, modelValue, at, skipSpace);
      return null;
    });
    // The rest of the model (its merges) is skipped only when the added tokens come after it.
    return addedTokens ? null : valueEnd(value);
  });
  if (!vocab || !addedTokens) throw malformed(`${vocab ? 'added_tokens' : 'model.vocab'} not found`);
  return { vocab, addedTokens };
}

/** The vocabulary object at `i` ({"text": id, …}): its strings decoded from UTF-8 and JSON escapes into code units. */
function readVocab(
  json: Uint8Array, i: number, at: (i: number) => number, skipSpace: (i: number) => number,
): TokenizerJson['vocab'] {
  if (at(i) !== OPEN_OBJECT) throw malformed('model.vocab is not an object');
  // At most one code unit per byte of the file.
  const units = new Uint16Array(json.length);
  const ids: number[] = [];
  const starts: number[] = [0];
  let count = 0;
  i = skipSpace(i + 1);
  while (at(i) !== CLOSE_OBJECT) {
    if (at(i) !== QUOTE) throw malformed(`a vocabulary string expected at byte ${i}`);
    for (i++; ;) {
      const c = at(i);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const escape = at(i + 1);
        if (escape === 0x75) {
          units[count++] = Number.parseInt(Buffer.from(json.buffer, json.byteOffset + i + 2, 4).toString('latin1'), 16);
          i += 6;
        } else {
          units[count++] = ESCAPED[escape] ?? escape;
          i += 2;
        }
      } else if (c < 0x80) {
        units[count++] = c;
        i++;
      } else if (c < 0xe0) {
        units[count++] = ((c & 0x1f) << 6) | (at(i + 1) & 0x3f);
        i += 2;
      } else if (c < 0xf0) {
        units[count++] = ((c & 0x0f) << 12) | ((at(i + 1) & 0x3f) << 6) | (at(i + 2) & 0x3f);
        i += 3;
      } else {
        // Beyond the basic plane: two UTF-16 units, as JSON.parse gives (none is a byte stand-in of the tokenizer's).
        const point = ((c & 0x07) << 18) | ((at(i + 1) & 0x3f) << 12) | ((at(i + 2) & 0x3f) << 6) | (at(i + 3) & 0x3f);
        units[count++] = 0xd800 + ((point - 0x10000) >> 10);
        units[count++] = 0xdc00 + ((point - 0x10000) & 0x3ff);
        i += 4;
      }
    }
    starts.push(count);
    i = skipSpace(i + 1);
    if (at(i) !== COLON) throw malformed(`':' expected at byte ${i}`);
    i = skipSpace(i + 1);
    let id = 0;
    const digits = i;
    for (; at(i) >= 0x30 && at(i) <= 0x39; i++) id = id * 10 + json[i]! - 0x30;
    if (i === digits) throw malformed(`a token id expected at byte ${i}`);
    ids.push(id);
    i = skipSpace(i);
    if (at(i) === COMMA) i = skipSpace(i + 1);
  }
  return { ids: Int32Array.from(ids), units: units.slice(0, count), unitStarts: Uint32Array.from(starts) };
}
