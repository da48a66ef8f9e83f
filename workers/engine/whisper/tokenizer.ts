/**
 * Whisper's tokenizer, the decoding half only: the engine never needs to encode text (prompts are built
 * from token ids the model itself produced), so this reads `tokenizer.json` + `generation_config.json` and
 * turns ids back into bytes and text. Byte-level BPE: every vocabulary string is a sequence of printable
 * stand-ins for raw bytes (GPT-2's `bytes_to_unicode` table); decoding maps them back and UTF-8 decodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { engineErrors } from '../errors.js';
import { readTokenizerJson } from './tokenizer-json.js';

/** GPT-2's reversible byte ↔ printable-character table, inverted: character code → byte (undefined: none). */
function unicodeToByteTable(): (number | undefined)[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const table: (number | undefined)[] = [];
  for (const b of printable) table[b] = b;
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (!printable.includes(b)) table[256 + extra++] = b;
  }
  return table;
}

export interface SpecialTokens {
  endOfText: number;
  startOfTranscript: number;
  translate: number;
  transcribe: number;
  startOfLm: number;
  startOfPrev: number;
  noSpeech: number;
  noTimestamps: number;
  /** `<|0.00|>`; every id at or above it is a timestamp, 0.02 s apart. */
  timestampBegin: number;
}

export class WhisperTokenizer {
  readonly special: SpecialTokens;
  /** Language code ('en') → its `<|en|>` token id, in the model's order. */
  readonly languageTokens: Map<string, number>;
  /** Ids generation_config says never to sample (plus the task/control tokens, added by the decoder). */
  readonly suppressTokens: number[];
  readonly beginSuppressTokens: number[];
  /** Encoder (layer, head) pairs whose cross-attention follows the audio: word alignment reads these. */
  readonly alignmentHeads: [number, number][];
  /**
   * Every token's bytes end to end, token `id`'s from `byteStarts[id]` to `byteStarts[id + 1]` (none for ids the
   * vocabulary lacks): one array instead of 51,865 small ones (constructing the tokenizer took 360 ms CPU, then 230;
   * ~125 since tokenizer-json.ts reads only the parts it needs from the file's bytes).
   */
  private readonly bytePool: Uint8Array;
  private readonly byteStarts: Uint32Array;
  private readonly utf8 = new TextDecoder('utf-8');

  constructor(modelDir: string) {
    const { vocab, addedTokens } = readTokenizerJson(readFileSync(join(modelDir, 'tokenizer.json')));
    const generation = JSON.parse(readFileSync(join(modelDir, 'generation_config.json'), 'utf8')) as {
      lang_to_id?: Record<string, number>;
      suppress_tokens?: number[];
      begin_suppress_tokens?: number[];
      alignment_heads?: [number, number][];
      no_timestamps_token_id?: number;
      task_to_id?: Record<string, number>;
    };
    const charToByte = unicodeToByteTable();
    const { ids, units, unitStarts } = vocab;
    let vocabSize = 0;
    for (const id of ids) vocabSize = Math.max(vocabSize, id + 1);
    for (const { id } of addedTokens) vocabSize = Math.max(vocabSize, id + 1);
    // Lengths first (each stand-in character is one byte), then each token's bytes at its start.
    const lengths = new Uint32Array(vocabSize);
    ids.forEach((id, entry) => (lengths[id] = unitStarts[entry + 1]! - unitStarts[entry]!));
    this.byteStarts = new Uint32Array(vocabSize + 1);
    for (let id = 0; id < vocabSize; id++) this.byteStarts[id + 1] = this.byteStarts[id]! + lengths[id]!;
    this.bytePool = new Uint8Array(this.byteStarts[vocabSize]!);
    ids.forEach((id, entry) => {
      const start = this.byteStarts[id]!;
      for (let unit = unitStarts[entry]!; unit < unitStarts[entry + 1]!; unit++) {
        this.bytePool[start + unit - unitStarts[entry]!] = charToByte[units[unit]!] ?? 0x3f;
      }
    });
    const byContent = new Map<string, number>();
    for (const added of addedTokens) byContent.set(added.content, added.id);
    const need = (content: string): number => {
      const id = byContent.get(content);
      if (id === undefined) throw new Error(`tokenizer.json has no ${content} token`);
      return id;
    };
    this.special = {
      endOfText: need('<|endoftext|>'),
      startOfTranscript: need('<|startoftranscript|>'),
      translate: generation.task_to_id?.translate ?? need('<|translate|>'),
      transcribe: generation.task_to_id?.transcribe ?? need('<|transcribe|>'),
      startOfLm: need('<|startoflm|>'),
      startOfPrev: need('<|startofprev|>'),
      // Older exports call the no-speech token <|nocaptions|>, newer ones <|nospeech|>.
      noSpeech: byContent.get('<|nospeech|>') ?? need('<|nocaptions|>'),
      noTimestamps: generation.no_timestamps_token_id ?? need('<|notimestamps|>'),
      timestampBegin: need('<|0.00|>'),
    };
    this.languageTokens = new Map();
    const langToId = generation.lang_to_id ?? {};
    const entries = Object.entries(langToId).sort((a, b) => a[1] - b[1]);
    for (const [content, id] of entries) this.languageTokens.set(content.slice(2, -2), id);
    this.suppressTokens = generation.suppress_tokens ?? [];
    this.beginSuppressTokens = generation.begin_suppress_tokens ?? [220, this.special.endOfText];
    this.alignmentHeads = generation.alignment_heads ?? [];
  }

  /**
   * The language to force: undefined for absent or 'auto' (detect it), the code when the model knows it,
   * else `invalid_options` naming the field.
   */
  forcedLanguage(language: string | undefined): string | undefined {
    if (!language || language === 'auto') return undefined;
    if (!this.languageTokens.has(language)) {
      throw engineErrors.invalidOptions(`language '${language}' is not one the model knows`, { field: 'language' });
    }
    return language;
  }

  get vocabSize(): number {
    return this.byteStarts.length - 1;
  }

  isTimestamp(id: number): boolean {
    return id >= this.special.timestampBegin;
  }

  /** Seconds a timestamp token stands for, relative to the start of its 30 s window. */
  timestampSeconds(id: number): number {
    return (id - this.special.timestampBegin) * 0.02;
  }

  /** Raw bytes of a text token (empty for special and timestamp tokens). */
  tokenBytes(id: number): Uint8Array {
    const text = Number.isInteger(id) && id >= 0 && id < this.special.endOfText && id < this.vocabSize;
    return text ? this.bytePool.subarray(this.byteStarts[id], this.byteStarts[id + 1]) : new Uint8Array(0);
  }

  /** Text of text tokens; special and timestamp tokens are dropped. */
  decode(ids: readonly number[]): string {
    return this.utf8.decode(Buffer.concat(ids.map((id) => this.tokenBytes(id))));
  }
}
