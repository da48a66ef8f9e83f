/**
 * The English pivot of recordings: a sentence in English read from its audio by Whisper's own speech→English task
 * (`<|translate|>`, workers/engine/whisper/translate.ts), for a pair no text provider serves. The recording's master is read
 * again, a passage of neighbouring sentences at a time (up to 25 s: Whisper needs the context), each English word
 * going to the sentence its time falls in, with the spoken language forced (detected when not known) and beam
 * search, on the accurate model (MODEL_ACCURATE, else MODEL): the realtime engine threads when they run that model,
 * else a host of its own (one thread, started on the first read). Another target T is English, then English → T by
 * the text providers. The English comes from the audio, so a correction of the spoken text does not reach it (it
 * only has the sentence read again).
 *
 *   services.speechTranslation.serves(recording, from, to)              → whether the pivot serves the pair here
 *   services.speechTranslation.translate(recording, sentences, from, to) → [{ text, source }] one per sentence
 *
 * Readings are kept in the TranslationCache table (no table of their own): the key's `textHash` is the sha256 of
 * `speech:<recordingId>:<start>-<end>:<sha256 of the sentence text>`, with the spoken language (`auto` when it was
 * detected) and target `en`, provider `whisper`. The same sentence's audio is never read twice; a sentence whose
 * window or text changes (a correction, a retranscription) is read again. A text's own key is the sha256 of the
 * text, so the two never meet.
 *
 * `source`: `whisper` when the speech was read now, `cache` when the reading was kept. Through English to T, the
 * text step's source (`cache`, `apertium`, `google`, `llm`) unless the speech was read now (then `whisper`).
 * Failures (the engine unavailable, a read past READ_TIMEOUT_MS) are `503 unavailable` (provider `whisper`) and
 * nothing is kept. TRANSLATION_SPEECH=off turns the pivot off.
 */
import { createHash } from 'node:crypto';
import { recordEngineProvider } from '../core/metrics.js';
import type { ServiceDeps } from '../core/services.js';
import { EngineError, resolveModelDir, EngineThreads } from '../../workers/engine/index.js';
import { mediaPath } from '../transcript/index.js';
import { providerError } from './provider.js';
import type { Translated, TranslationService } from './service.js';

declare module '../core/services.js' {
  interface Services {
    speechTranslation: SpeechTranslation;
  }
}

/** The part of an engine host the pivot uses. */
export type SpeechHost = Pick<EngineThreads, 'translateSpeech' | 'unavailable'>;

/** What the pivot needs of a recording: its master audio (relative to DATA_DIR/media) and its length. */
export interface SpeechRecording {
  id: string;
  masterPath: string | null;
  durationS: number | null;
}

/** A sentence: its text as spoken and its window on the recording's time line (seconds). */
export interface TimedText {
  start: number;
  end: number;
  text: string;
}

/** The pivot language: Whisper translates speech into English only. */
const PIVOT = 'en';
/** One sentence's reading, waiting for a thread and loading the model included. */
const READ_TIMEOUT_MS = 120_000;
const BEAM_SIZE = 5;
/**
 * Sentence times are the words' (cross-attention) times, often a little early at the end: half a second of audio
 * either side of a passage keeps its edge words whole (a last word cut short is a word Whisper leaves out).
 */
const PAD_S = 0.5;
/** Longest passage read at once (under Whisper's 30 s window) and widest silence inside one. */
const PASSAGE_S = 25;
const PASSAGE_GAP_S = 2;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const primary = (code: string) => code.split('-')[0]!.toLowerCase();

export class SpeechTranslation {
  private own: EngineThreads | null = null;

  /** `realtimeEngine`: the gateway's realtime engine threads (used when they run the accurate model). */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly text: Pick<TranslationService, 'translate' | 'serves'>,
    private readonly realtimeEngine: () => SpeechHost | null,
  ) {}

  /**
   * Whether the pivot translates this recording from `from` (null: not known) into `to`: on (TRANSLATION_SPEECH),
   * the recording's master kept, the accurate model installed, speech not English, and `to` English or a target a
   * text provider serves from English. An engine that refuses for now (a failed load, shutting down) still serves:
   * the read is then `503 unavailable`, not a `400` saying the server never translates the pair.
   */
  async serves(recording: SpeechRecording, from: string | null, to: string): Promise<boolean> {
    if (!this.deps.config.translation.speech || !recording.masterPath || (from && primary(from) === PIVOT)) return false;
    if (!this.modelInstalled()) return false;
    return primary(to) === PIVOT || (await this.text.serves(PIVOT, to).catch(() => false));
  }

  /**
   * One `{text, source}` per sentence, in order, in `to`: English read from each sentence's audio (kept: a sentence
   * read before answers `cache`), then English → `to` by the text providers when `to` is not English. Throws
   * `503 unavailable` when the engine cannot read, and the text provider's errors.
   */
  async translate(recording: SpeechRecording, sentences: TimedText[], from: string | null, to: string): Promise<Translated[]> {
    const english = await this.english(recording, sentences, from);
    if (primary(to) === PIVOT) return english;
    const onward = await this.text.translate(english.map((e) => e.text), PIVOT, to);
    // A new reading is the news (`whisper`); a kept one defers to what the text step did.
    return onward.map((t, i) => ({
      text: t.text, source: english[i]!.source === 'whisper' || t.source === 'none' ? english[i]!.source : t.source,
    }));
  }

  /** Stops the engine host of its own, if it started one. */
  async close(): Promise<void> {
    await this.own?.close();
  }

  private async english(recording: SpeechRecording, sentences: TimedText[], from: string | null): Promise<Translated[]> {
    const sourceLang = from ?? 'auto';
    const keys = sentences.map((s) => sha256(`speech:${recording.id}:${s.start.toFixed(3)}-${s.end.toFixed(3)}:${sha256(s.text)}`));
    const kept = await this.deps.prisma.translationCache.findMany({
      where: { sourceLang, targetLang: PIVOT, textHash: { in: [...new Set(keys)] } },
      select: { textHash: true, translation: true },
    });
    const known = new Map<string, Translated>(kept.map((row) => [row.textHash, { text: row.translation, source: 'cache' }]));
    const missing = [...new Map(sentences.map((s, i) => [keys[i]!, s])).entries()].filter(([key]) => !known.has(key));
    // One passage after another, each kept as soon as it is read: a read cut short keeps what it made.
    for (const passage of passagesOf(missing)) {
      const english = await this.read(recording, passage.map(([, s]) => s), from);
      await this.deps.prisma.translationCache.createMany({
        data: passage.map(([key], i) => ({ textHash: key, sourceLang, targetLang: PIVOT, translation: english[i]!, provider: 'whisper' })),
        skipDuplicates: true,
      });
      passage.forEach(([key], i) => known.set(key, { text: english[i]!, source: 'whisper' }));
    }
    return keys.map((key) => known.get(key)!);
  }

  /**
   * The English the engine hears in a passage (sentences close together, in order): the passage's window of the
   * master read once, each English word given to the sentence its time falls in (else the nearest one).
   */
  private async read(recording: SpeechRecording, passage: TimedText[], from: string | null): Promise<string[]> {
    const host = this.host();
    const refusal = host ? host.unavailable() : null;
    if (!host || refusal) {
      throw providerError('whisper', 'failed', `The speech engine cannot translate speech now: `
        + `${refusal?.message ?? 'this process runs no speech engine'}.`, { retryAfterS: Number(refusal?.details.retryAfterS ?? 5) || 5 });
    }
    const startS = Math.max(0, passage[0]!.start - PAD_S);
    const endS = Math.min(recording.durationS ?? Number.POSITIVE_INFINITY, passage.at(-1)!.end + PAD_S);
    const words: string[][] = passage.map(() => []);
    if (!(endS > startS)) return words.map(() => '');
    try {
      const result = await host.translateSpeech({
        path: mediaPath(this.deps.config.dataDir, recording.masterPath!),
        startS,
        ...(Number.isFinite(endS) ? { endS } : {}),
        beamSize: BEAM_SIZE,
        ...(from ? { language: primary(from) } : {}),
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
      for (const segment of result.segments) {
        for (const word of segment.words.length ? segment.words : [segment]) words[ownerOf(passage, (word.start + word.end) / 2)]!.push(
          word.text,
        );
      }
      return words.map((list) => list.join(' ').replace(/\s+/g, ' ').trim());
    } catch (error) {
      if ((error as Error | null)?.name === 'TimeoutError') {
        throw providerError('whisper', 'timeout', `The speech engine did not translate a passage's speech within `
          + `${READ_TIMEOUT_MS / 1000} s (busy).`, { cause: error });
      }
      const retryAfterS = error instanceof EngineError ? Number(error.details.retryAfterS ?? 5) || 5 : 5;
      throw providerError(
        'whisper', 'failed', `The speech engine could not translate a passage's speech: ${(error as Error).message}`,
        { retryAfterS, cause: error },
      );
    }
  }

  /** The accurate model's host: the realtime threads when they run it, else one of its own (started on first use). */
  private host(): SpeechHost | null {
    const { models, modelsDir, realtime } = this.deps.config;
    if (models.accurate === models.fast) {
      try {
        return this.realtimeEngine();
      } catch {
        return null;
      }
    }
    this.own ??= new EngineThreads({
      engine: { modelsDir, model: models.accurate, ...(realtime.intraOpThreads > 0 ? { intraOpThreads: realtime.intraOpThreads } : {}) },
      threads: 1,
      retryAfterS: 30,
      onReady: recordEngineProvider('translation'),
    });
    return this.own;
  }

  private modelInstalled(): boolean {
    try {
      resolveModelDir({ modelsDir: this.deps.config.modelsDir, model: this.deps.config.models.accurate });
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Sentences grouped into passages read at once: in time order, a passage takes the next sentence while it stays
 * within PASSAGE_S and the silence before it is under PASSAGE_GAP_S (a wider gap may hold a sentence not asked for,
 * whose words would be given to a neighbour). Whisper translates a passage far better than its sentences one by one:
 * a short sentence read alone ("Buongiorno.") comes out as its favourite filler ("Thanks for watching!").
 */
function passagesOf<T extends [string, TimedText]>(sentences: T[]): T[][] {
  const passages: T[][] = [];
  for (const entry of [...sentences].sort((a, b) => a[1].start - b[1].start)) {
    const current = passages.at(-1);
    const [first, last] = [current?.[0]?.[1], current?.at(-1)?.[1]];
    if (current && first && last && entry[1].end - first.start <= PASSAGE_S && entry[1].start - last.end <= PASSAGE_GAP_S) current.push(
      entry,
    );
    else passages.push([entry]);
  }
  return passages;
}

/** The passage's sentence a moment belongs to: the one holding it, else the nearest. */
function ownerOf(passage: TimedText[], atS: number): number {
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  passage.forEach((sentence, i) => {
    const distance = atS < sentence.start ? sentence.start - atS : atS >= sentence.end ? atS - sentence.end : 0;
    if (distance < bestDistance) [best, bestDistance] = [i, distance];
  });
  return best;
}
