/**
 * Spoken translation: a finished recording's sentences spoken in another language (or its own), one sentence clip at
 * a time and as whole tracks on the recording's time line.
 *
 *   POST /v1/recordings/{id}/voice   {languages, force?}  one Bull job per language renders a track (`render`)
 *   GET  /v1/recordings/{id}/voice                        one row per language: track state, job, current clips
 *   GET  /v1/recordings/{id}/voice/{sentence}             one sentence's clip, made now when missing or stale
 *   GET  /v1/recordings/{id}/audio?kind=voice&lang=       302 to the sealed track (`audioUrl`, `signedMediaFile`)
 *
 * What a sentence speaks: its corrected text, except that a segment carrying a correction that stands and is not
 * voiced (src/corrections/voiced.ts) speaks the recognizer's words (the earliest correction's `before` of that
 * segment), translated into the language (the spoken language itself is spoken as is). A line hidden as unclear
 * (the confidence policy) has no clip and is silence in a track.
 *
 * A clip is kept (VoiceClip) with the text it was made from and its voice; it stands while the sentence still speaks
 * that text with that voice, and is made again otherwise. A sealed track records the sentences it was assembled
 * from: when a correction changes one, the track is `stale`; the first read that finds it so queues a re-render,
 * which synthesises only the sentences whose clips no longer stand and reassembles the rest from the kept clips.
 * Nothing stale is ever served: a stale clip is re-made before it is answered, a stale track is 409 until re-sealed.
 *
 * Track assembly: each clip starts at its sentence's start, silence between. A clip longer than the time to the
 * next spoken sentence is sped up (pitch kept) up to MAX_SPEEDUP; beyond that it runs over and the next clip
 * starts when it ends (later silences absorb the drift). The track lasts at least the recording's duration.
 */
import { CLONED_VOICE_ID } from '../core/voice-pins.js';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Prisma } from '../generated/prisma/client.js';
import { ApiError, errors, isUniqueViolation, knownError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import {
  type Word, CONTENT_TYPES, ensureRendition, mediaPath, parseAudioFormat, signMedia,
  type AudioFormat, buildSentences, isUnclear, joinWords, recordingConfidencePolicy,
} from '../transcript/index.js';
import type { ServiceDeps } from '../core/services.js';
import { canonicalLanguage } from '../core/config/translation.js';
import {
  ffmpegPath, encodeSpeech, encodeSpeechStream, ffmpegTransform, resample, type SpeechFormat, Kokoro,
  KOKORO_SAMPLE_RATE, defaultVoice, findVoiceLanguage, resolveVoice, voicesFor,
} from '../../workers/engine/index.js';
import type { Reader, ReaderCredentials, RecordingsService } from './service.js';
import type { Translate } from './translations.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

declare module '../core/services.js' {
  interface Services {
    voiceTracks: VoiceTracksService;
  }
}

/** Spec "Limits": 1 to 10 language codes per render request. */
export const MAX_VOICE_LANGUAGES = 10;
/** The most a clip is sped up to fit before the next sentence; beyond it the clip runs over. */
export const MAX_SPEEDUP = 1.25;
/** Below this the fit is not worth a tempo change. */
const MIN_SPEEDUP = 1.03;
/** Progress is written at most this often while rendering. */
const PROGRESS_EVERY_MS = 500;

/** The Bull side of track renders (workers/voice-render.ts), injected by the entry point. */
export interface VoiceRenderWork {
  trackId: string;
  /** VoiceTrack.attempts when queued: work of an older run finds it stale and does nothing. */
  attempt: number;
}
export interface VoiceRenderQueue {
  add(work: VoiceRenderWork): Promise<void>;
  close(): Promise<void>;
}

/** `POST /v1/recordings/{id}/voice`. */
export interface VoiceRenderInput {
  languages: string[];
  force?: boolean | null;
}

export type VoiceJobState = 'queued' | 'rendering' | 'done' | 'failed';

export interface VoiceClipView {
  sentenceId: string;
  /** The voice that spoke it. */
  voice: string;
  start: number;
  end: number;
  durationS: number;
  /** The sentence text it was made from, in the recording's language. */
  text: string;
  /**
   * Why the sentence speaks `text` now: `corrected` the transcript's text; `recognized` the recognizer's words (a
   * correction that is not voiced).
   */
  textFrom: 'corrected' | 'recognized';
  /** The words spoken: `text` translated into the row's language, or `text` itself in the spoken language. */
  spoken: string;
  translationSource: string;
}

export interface VoiceTrackView {
  lang: string;
  /** The voice the track speaks with (the recording's `settings.voiceByLang` pin, else the language's default). */
  voice: string;
  /** True when this is the recording's spoken language (spoken as is, not translated). */
  spokenLanguage: boolean;
  /** A sealed track exists whose sentences all still stand (`/audio?kind=voice` serves it). */
  sealed: boolean;
  /** A sealed track whose sentences changed since (a correction, a new voice pin); a re-render is queued. */
  stale: boolean;
  staleSentences: string[];
  sealedAt: string | null;
  durationS: number | null;
  /** The render job of this language's track; null when only clips were asked for. */
  job: {
    state: VoiceJobState; progress: number; error: string | null; attempts: number; renderS: number | null; synthesizedS: number | null;
    startedAt: string | null;
  } | null;
  /** Clips that stand now, in sentence order. */
  clips: VoiceClipView[];
}

export interface VoiceTracksView {
  recordingId: string;
  /** The recording's spoken language (null: not known). */
  language: string | null;
  tracks: VoiceTrackView[];
}

/** A sentence as voices speak it. */
export interface SpokenSentence {
  id: string;
  start: number;
  end: number;
  text: string;
  textFrom: 'corrected' | 'recognized';
  unclear: boolean;
}

type TrackRow = Prisma.VoiceTrackGetPayload<{}>;
type ClipRow = Prisma.VoiceClipGetPayload<{}>;
type RecordingRow = Awaited<ReturnType<RecordingsService['reader']>>['recording'];
/** What a sealed track was assembled from, per sentence. */
interface SealedSentence { id: string; text: string; voice: string }

/**
 * The voice that speaks `lang` for a recording: the pin (`settings.voiceByLang[lang]` of the recording, else its
 * transcription) when it is a catalogue voice that speaks the language, else the catalogue's default for it (a cloned
 * voice, `voi_…`, is the service's voiceFor's). Null when no voice speaks the language.
 */
export function lookupVoice(lang: string, pinned: string | null | undefined): string | null {
  if (pinned) {
    try {
      const resolved = resolveVoice({ voice: pinned });
      if (resolved.language.code === findVoiceLanguage(lang)?.code) return resolved.voice;
    } catch {
      // a pin the catalogue does not have (a cloned voice, a voice since removed): the default speaks
    }
  }
  return defaultVoice(lang)?.id ?? null;
}

/** A cloned voice's id (src/voices), as opposed to a catalogue voice's (`ef_dora`). */
export const isClonedVoice = (voice: string): boolean => CLONED_VOICE_ID.test(voice);

/** The pin of `settings.voiceByLang` for `lang`, the recording's over its transcription's (keys compared canonically). */
export function pinnedVoice(lang: string, ...settings: unknown[]): string | null {
  for (const level of settings) {
    const pins = (level as { voiceByLang?: unknown } | null)?.voiceByLang;
    if (!pins || typeof pins !== 'object' || Array.isArray(pins)) continue;
    for (const [key, voice] of Object.entries(pins as Record<string, unknown>)) {
      if (typeof voice === 'string' && voice && canonicalLanguage(key)?.toLowerCase() === lang.toLowerCase()) return voice;
    }
  }
  return null;
}

/** Same language for voices: the same primary subtag (`en` is spoken as is in an `en-GB` voice). */
export function sameLanguage(a: string | null, b: string | null): boolean {
  return !!a && !!b && a.split('-')[0]!.toLowerCase() === b.split('-')[0]!.toLowerCase();
}

/** `{languages, force?}`, refused naming the field: 1 to 10 language codes, each one a voice speaks. */
export function parseVoiceRender(body: unknown): { languages: string[]; force: boolean } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.invalidOptions('The body must be a JSON object: '
    + '{"languages": ["es", …], "force": false}.', { field: 'languages' });
  const { languages, force, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw errors.invalidOptions(`${unknown}: not a field of a voice render (languages, force).`, { field: unknown });
  }
  if (force !== undefined && force !== null && typeof force !== 'boolean') {
    throw errors.invalidOptions('force must be a boolean.', { field: 'force' });
  }
  if (!Array.isArray(languages) || languages.length < 1 || languages.length > MAX_VOICE_LANGUAGES) {
    throw errors.invalidOptions(`languages must be an array of 1 to ${MAX_VOICE_LANGUAGES} language codes.`, {
      field: 'languages', min: 1, max: MAX_VOICE_LANGUAGES,
    });
  }
  const out: string[] = [];
  languages.forEach((code, i) => {
    const field = `languages[${i}]`;
    const canonical = typeof code === 'string' && code.trim() ? canonicalLanguage(code.trim()) : null;
    if (!canonical) throw errors.invalidOptions(`${field}: ${JSON.stringify(code)} is not a language code.`, { field });
    if (voicesFor(canonical).length === 0) {
      throw errors.invalidOptions(`${field}: no voice speaks ${canonical} (GET /v1/languages lists the voice languages).`, { field });
    }
    if (!out.includes(canonical)) out.push(canonical);
  });
  return { languages: out, force: force === true };
}

/**
 * The sentences of a recording as voices speak them (ids as the transcript snapshot gives them). Pure: segments
 * (words as stored) and the recording's corrections, oldest first.
 */
export function spokenSentencesOf(
  segments: Array<{
    seq: number; speaker: number; start: number; end: number; text: string; words: unknown; confidence: number | null;
    recognizedText: string | null;
  }>,
  corrections: Array<{ seq: number; voiced: boolean; revertedAt: Date | null; before: unknown }>,
  policy: Parameters<typeof isUnclear>[1],
): SpokenSentence[] {
  const bySeq = new Map(segments.map((s) => [s.seq, s]));
  const notVoiced = new Set(corrections.filter((c) => !c.revertedAt && !c.voiced).map((c) => c.seq));
  const wordsOf = (seq: number): Word[] => {
    const segment = bySeq.get(seq)!;
    if (!notVoiced.has(seq)) {
      const words = segment.words as Word[];
      return words.length ? words : [{ start: segment.start, end: segment.end, text: segment.text, prob: 1 }];
    }
    // The recognizer's words: the segment as it stood before its first correction.
    const first = corrections.find((c) => c.seq === seq)?.before as { text?: string; words?: Word[] } | undefined;
    if (first?.words?.length) return first.words;
    return [{ start: segment.start, end: segment.end, text: first?.text ?? segment.recognizedText ?? segment.text, prob: 1 }];
  };
  const sources = segments.map((s) => ({
    seq: s.seq, speaker: s.speaker, start: s.start, end: s.end, text: s.text, words: s.words as Word[], confidence: s.confidence,
  }));
  return buildSentences(sources).map((sentence) => {
    const base = { id: sentence.id, start: sentence.start, end: sentence.end, unclear: isUnclear(sentence, policy) };
    if (!sentence.seqs.some((seq) => notVoiced.has(seq))) return { ...base, text: sentence.text, textFrom: 'corrected' as const };
    // Words whose middle falls in the sentence's span: word and line corrections keep the segment's time line.
    const inside = (w: Word) => (w.start + w.end) / 2 >= sentence.start - 0.01 && (w.start + w.end) / 2 <= sentence.end + 0.01;
    const words = sentence.seqs.flatMap((seq) => wordsOf(seq).filter(inside));
    return { ...base, text: words.length ? joinWords(words.map((w) => w.text)) : sentence.text, textFrom: 'recognized' as const };
  });
}

const run = promisify(execFile);

const SENTENCE_ID = /^\d{1,9}\.\d{1,6}$/;

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Decodes an audio file to mono float32 at `rate`. */
async function decodeAt(file: string, rate: number): Promise<Float32Array> {
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-i', file, '-f', 'f32le', '-acodec', 'pcm_f32le', '-ac', '1', '-ar', String(rate),
    'pipe:1',
  ];
  const { stdout } = await run(ffmpegPath(), args, { encoding: 'buffer', maxBuffer: 1 << 30 });
  return floats(stdout);
}

function floats(bytes: Buffer): Float32Array {
  const out = new Float32Array(Math.floor(bytes.length / 4));
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 4));
  return out;
}

/** `samples` played `tempo` times faster, pitch kept (ffmpeg's atempo). */
async function speedUp(samples: Float32Array, tempo: number): Promise<Float32Array> {
  const parts: Buffer[] = [];
  for await (const part of ffmpegTransform([samples], KOKORO_SAMPLE_RATE, [
    '-filter:a', `atempo=${tempo.toFixed(4)}`, '-f', 'f32le', '-acodec', 'pcm_f32le',
  ])) parts.push(part);
  return floats(Buffer.concat(parts));
}

export class VoiceTracksService {
  private kokoro: Promise<Kokoro> | null = null;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly recordings: Pick<RecordingsService, 'reader' | 'mediaSecret' | 'checkMediaSignature'>,
    private readonly translate: Translate,
    private readonly serves: (from: string | null, to: string) => Promise<boolean>,
    private readonly queue: VoiceRenderQueue,
    /** The account's cloned voices (src/voices): a usable one's style table, else null. */
    private readonly clonedStyle: (accountId: string, voiceId: string) => Promise<Float32Array | null> = async () => null,
  ) {}

  close(): Promise<void> {
    return this.queue.close();
  }

  /**
   * The text-to-speech model, loaded once per process with the voices' settings (KOKORO_DIR, KOKORO_DOWNLOAD,
   * KOKORO_THREADS: the same instance src/voices uses); 503 `unavailable` when it cannot be had.
   */
  private model(): Promise<Kokoro> {
    const { kokoroDir, kokoroDownload, kokoroThreads: threads } = this.deps.config.voices;
    const options = kokoroDownload ? { modelsDir: path.dirname(kokoroDir), download: true, threads } : { modelDir: kokoroDir, threads };
    this.kokoro ??= Kokoro.load(options).catch((error: unknown) => {
      this.kokoro = null;
      throw new ApiError(
        'unavailable', 503, `The text-to-speech model is not available on this server: ${(error as Error).message}`,
        { headers: { 'Retry-After': '30' }, cause: error },
      );
    });
    return this.kokoro;
  }

  private async ownedRecording(accountId: string, recordingId: string) {
    const recording = await this.deps.prisma.recording.findUnique({
      where: { id: recordingId }, include: { transcription: true, job: true },
    });
    if (!recording || recording.accountId !== accountId || recording.lifecycle !== 'active') throw errors.notFound('The recording');
    return recording;
  }

  /** The sentences as voices speak them now, and the recording's spoken language. */
  async spokenSentences(recording: {
    id: string; spokenLanguage: string | null; settings: unknown; transcription: { settings: unknown; broadcastIds: unknown };
  }): Promise<{ sentences: SpokenSentence[]; language: string | null }> {
    const [segments, corrections] = await this.deps.prisma.$transaction([
      this.deps.prisma.segment.findMany({ where: { recordingId: recording.id }, orderBy: { seq: 'asc' } }),
      this.deps.prisma.correction.findMany({
        where: { recordingId: recording.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { seq: true, voiced: true, revertedAt: true, before: true },
      }),
    ], TX_OPTIONS);
    const policy = await recordingConfidencePolicy(this.deps.prisma, recording);
    const language = recording.spokenLanguage ?? segments[0]?.language ?? null;
    return { sentences: spokenSentencesOf(segments, corrections, policy), language: language ? canonicalLanguage(language) : null };
  }

  /**
   * The voice that speaks `lang`: a pinned cloned voice of the account while it can speak (ready, enabled), else
   * lookupVoice's catalogue choice (a pin to a cloned voice that is training, switched off or deleted speaks with the
   * language's default until it can).
   */
  private async voiceFor(
    recording: { accountId: string; settings: unknown; transcription: { settings: unknown } }, lang: string,
  ): Promise<string> {
    const pinned = pinnedVoice(lang, recording.settings, recording.transcription.settings);
    if (pinned && isClonedVoice(pinned) && (await this.clonedStyle(recording.accountId, pinned))) return pinned;
    const voice = lookupVoice(lang, pinned);
    if (!voice) throw errors.invalidOptions(`lang: no voice speaks ${lang}.`, { field: 'lang' });
    return voice;
  }

  // ---- rendering a track (POST, the Bull job) ----

  /** `POST /v1/recordings/{id}/voice`: queues one render per language that has no sealed or running track. */
  async requestRender(accountId: string, recordingId: string, input: VoiceRenderInput): Promise<VoiceTracksView> {
    const { languages, force } = parseVoiceRender(input);
    const recording = await this.ownedRecording(accountId, recordingId);
    const finished =
      recording.kind === 'live' ? recording.state === 'ended' || recording.state === 'finalized' : recording.job?.state === 'done';
    if (!finished) {
      throw errors.invalidState(`Spoken tracks are rendered for a finished recording (a live recording ended or finalized, a file job `
        + `done); this one is ${recording.kind === 'live' ? recording.state : `a file job ${recording.job?.state ?? 'without a job'}`}.`, {
          state: recording.state, jobState: recording.job?.state ?? null,
        });
    }
    const { sentences, language } = await this.spokenSentences(recording);
    for (const [i, lang] of languages.entries()) {
      if (sameLanguage(lang, language)) continue;
      if (!(await this.serves(language, lang))) {
        throw errors.invalidOptions(`languages[${i}]: this server does not translate ${language ? `from ${language} ` : ''}into ${lang} `
          + `(GET /v1/languages lists the translation targets).`, { field: `languages[${i}]` });
      }
    }
    for (const lang of languages) {
      const voice = await this.voiceFor(recording, lang);
      const existing = await this.deps.prisma.voiceTrack.findUnique({ where: { recordingId_lang: { recordingId, lang } } });
      if (existing && !force) {
        if (existing.state === 'queued' || existing.state === 'rendering') continue;
        if (existing.state === 'sealed' && this.staleSentences(existing, sentences, voice).length === 0) continue;
      }
      await this.queueRender(recordingId, lang, voice, force, existing);
    }
    return this.view(recording, { languages, sentences, language });
  }

  /** Puts a (re-)render of the track on the queue: a new attempt, so older work of the same track does nothing. */
  private async queueRender(recordingId: string, lang: string, voice: string, force: boolean, existing: TrackRow | null): Promise<void> {
    const data = { voice, state: 'queued', progress: 0, error: null, force };
    const track = existing
      ? await this.deps.prisma.voiceTrack.update({ where: { id: existing.id }, data: { ...data, attempts: { increment: 1 } } })
      : await this.deps.prisma.voiceTrack.create({ data: { id: newId('vtr'), recordingId, lang, ...data, attempts: 1 } });
    await this.queue.add({ trackId: track.id, attempt: track.attempts });
  }

  /** Tracks queued or rendering whose work may have been lost with a process: queued again (Bull ignores duplicates). */
  async resumeUnfinished(): Promise<void> {
    const open = await this.deps.prisma.voiceTrack.findMany({
      where: { state: { in: ['queued', 'rendering'] } }, select: { id: true, attempts: true },
    });
    for (const track of open) await this.queue.add({ trackId: track.id, attempt: track.attempts });
  }

  /** Sentence ids whose speech no longer matches what the sealed track was assembled from. */
  private staleSentences(track: TrackRow, sentences: SpokenSentence[], voice: string): string[] {
    const sealed = new Map((track.sentences as unknown as SealedSentence[]).map((s) => [s.id, s]));
    const now = sentences.filter((s) => !s.unclear);
    const changed = now.filter((s) => sealed.get(s.id)?.text !== s.text || sealed.get(s.id)?.voice !== voice).map((s) => s.id);
    const ids = new Set(now.map((s) => s.id));
    return [...changed, ...[...sealed.keys()].filter((id) => !ids.has(id))];
  }

  /**
   * The Bull job: renders the track of `work.trackId` if `work.attempt` is still its current run. Clips whose text
   * and voice still stand are reused (all are made again when the run was forced). Never throws for the track's own
   * failures: they are stored on it (`failed`, `error`).
   */
  async render(work: VoiceRenderWork): Promise<void> {
    const began = Date.now();
    const claimed = await this.deps.prisma.voiceTrack.updateMany({
      where: { id: work.trackId, attempts: work.attempt, state: { in: ['queued', 'rendering'] } },
      data: { state: 'rendering', startedAt: new Date(), progress: 0 },
    });
    if (claimed.count === 0) return;
    const track = await this.deps.prisma.voiceTrack.findUniqueOrThrow({ where: { id: work.trackId } });
    const current = { id: track.id, attempts: work.attempt };
    try {
      const recording = await this.deps.prisma.recording.findUniqueOrThrow({
        where: { id: track.recordingId }, include: { transcription: true },
      });
      const { sentences, language } = await this.spokenSentences(recording);
      const speakable = sentences.filter((s) => !s.unclear);
      const clips = new Map(
        (await this.deps.prisma.voiceClip.findMany({ where: { recordingId: recording.id, lang: track.lang } })).map((c) => [
          c.sentenceId, c,
        ]),
      );
      const todo = speakable.filter((s) => track.force || !this.clipStands(clips.get(s.id), s, track.voice));
      let lastWrite = 0;
      let synthesizedS = 0;
      const translated = await this.translated(todo, language, track.lang);
      for (const [i, sentence] of todo.entries()) {
        const clip = await this.makeClip(recording.id, track.lang, track.voice, sentence, translated[i]!);
        if (clip) {
          clips.set(sentence.id, clip);
          synthesizedS += clip.durationS;
        }
        if (Date.now() - lastWrite > PROGRESS_EVERY_MS) {
          lastWrite = Date.now();
          await this.progress(current, (90 * (i + 1)) / todo.length);
        }
      }
      await this.progress(current, 90);
      const assembled = await this.assemble(recording, track, speakable, clips);
      const moved = await this.deps.prisma.voiceTrack.updateMany({
        where: { id: track.id, attempts: work.attempt },
        data: {
          state: 'sealed', progress: 100, error: null, force: false, trackPath: assembled.trackPath, durationS: assembled.durationS,
          sealedAt: new Date(),
          sentences: speakable.filter((s) => clips.has(s.id)).map(
            (s) => ({ id: s.id, text: s.text, voice: track.voice }),
          ) as unknown as Prisma.InputJsonValue,
          renderS: (Date.now() - began) / 1000, synthesizedS,
        },
      });
      // A newer run took over while this one worked: its file is not the track's.
      const dropped = moved.count === 0 ? assembled.trackPath : track.trackPath !== assembled.trackPath ? track.trackPath : null;
      if (dropped) await rm(path.dirname(mediaPath(this.deps.config.dataDir, dropped)), { recursive: true, force: true });
    } catch (error) {
      const known = knownError(error);
      const message = known?.message ?? `The track could not be rendered: ${(error as Error)?.message ?? String(error)}`;
      await this.deps.prisma.voiceTrack.updateMany({
        where: { id: track.id, attempts: work.attempt }, data: { state: 'failed', error: message, renderS: (Date.now() - began) / 1000 },
      });
    }
  }

  private async progress(track: { id: string; attempts: number }, pct: number): Promise<void> {
    await this.deps.prisma.voiceTrack.updateMany({
      where: { id: track.id, attempts: track.attempts, state: 'rendering' }, data: { progress: Math.round(pct * 10) / 10 },
    });
  }

  private clipStands(clip: ClipRow | undefined, sentence: SpokenSentence, voice: string): clip is ClipRow {
    return !!clip && clip.text === sentence.text && clip.voice === voice;
  }

  /** The words each sentence speaks in `lang`: translated, or as they are in the spoken language. */
  private async translated(sentences: SpokenSentence[], language: string | null, lang: string): Promise<Array<{
    text: string; source: string;
  }>> {
    if (sentences.length === 0) return [];
    if (sameLanguage(language, lang)) return sentences.map((s) => ({ text: s.text, source: 'none' }));
    return this.translate(sentences.map((s) => s.text), language, lang);
  }

  /** A pinned cloned voice's style table, for the recording's account (checked usable by voiceFor just before). */
  private async styleOf(recordingId: string, voice: string): Promise<Float32Array> {
    const { accountId } = await this.deps.prisma.recording.findUniqueOrThrow({ where: { id: recordingId }, select: { accountId: true } });
    const style = await this.clonedStyle(accountId, voice);
    if (!style) {
      throw errors.invalidState(`The cloned voice ${voice} can no longer speak (switched off or deleted); render again to speak with the `
        + `default voice.`, { voice });
    }
    return style;
  }

  /** Synthesises one sentence and keeps it (replacing an older clip of it); null when there is nothing to speak. */
  private async makeClip(
    recordingId: string, lang: string, voice: string, sentence: SpokenSentence, spoken: { text: string; source: string },
  ): Promise<ClipRow | null> {
    const kokoro = await this.model();
    let samples: Float32Array;
    try {
      samples = isClonedVoice(voice)
        ? await kokoro.synthesize(spoken.text, { language: lang, style: await this.styleOf(recordingId, voice) })
        : await kokoro.synthesize(spoken.text, { voice });
    } catch (error) {
      // Only punctuation, or nothing left after translation: a sentence with nothing to say has no clip.
      if (knownError(error)?.details.field === 'text') return null;
      throw error;
    }
    const relative = path.join(
      recordingId, 'voice', lang, 'clips', `${sentence.id}-${sha(`${voice}\n${sentence.text}\n${spoken.text}`).slice(0, 12)}.ogg`,
    );
    const file = mediaPath(this.deps.config.dataDir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, await encodeSpeech(samples, 'ogg'));
    const data = {
      voice, text: sentence.text, textFrom: sentence.textFrom, spoken: spoken.text, translationSource: spoken.source, path: relative,
      durationS: samples.length / KOKORO_SAMPLE_RATE,
    };
    const key = { recordingId_lang_sentenceId: { recordingId, lang, sentenceId: sentence.id } };
    const previous = await this.deps.prisma.voiceClip.findUnique({ where: key });
    const upsert = () => this.deps.prisma.voiceClip.upsert({
      where: key, create: { id: newId('vcl'), recordingId, lang, sentenceId: sentence.id, ...data }, update: data,
    });
    // A render and an on-demand read making the same clip at once: the second create becomes an update.
    const clip = await upsert().catch((error: unknown) => (isUniqueViolation(error) ? upsert() : Promise.reject(error)));
    if (previous && previous.path !== relative) await rm(mediaPath(this.deps.config.dataDir, previous.path), { force: true });
    return clip;
  }

  /** The whole track, Ogg/Opus, on the recording's time line (see the top of this file). */
  private async assemble(
    recording: { id: string; durationS: number | null }, track: TrackRow, speakable: SpokenSentence[], clips: Map<string, ClipRow>,
  ): Promise<{ trackPath: string; durationS: number }> {
    const rate = KOKORO_SAMPLE_RATE;
    const placed = speakable.filter((s) => clips.has(s.id));
    const endS = Math.max(recording.durationS ?? 0, ...speakable.map((s) => s.end));
    const dataDir = this.deps.config.dataDir;
    let totalSamples = 0;
    async function* timeline(): AsyncGenerator<Float32Array> {
      for (const [i, sentence] of placed.entries()) {
        let samples = await decodeAt(mediaPath(dataDir, clips.get(sentence.id)!.path), rate);
        const slotS = (placed[i + 1]?.start ?? Math.max(endS, sentence.end)) - Math.max(sentence.start, totalSamples / rate);
        const lengthS = samples.length / rate;
        if (slotS > 0 && lengthS / slotS > MIN_SPEEDUP) samples = await speedUp(samples, Math.min(MAX_SPEEDUP, lengthS / slotS));
        const at = Math.max(Math.round(sentence.start * rate), totalSamples);
        yield* silence(at - totalSamples);
        totalSamples = at + samples.length;
        yield samples;
      }
      yield* silence(Math.round(endS * rate) - totalSamples);
    }
    function* silence(count: number): Generator<Float32Array> {
      for (let left = count; left > 0; left -= rate) {
        const n = Math.min(rate, left);
        totalSamples += n;
        yield new Float32Array(n);
      }
    }
    const relative = path.join(recording.id, 'voice', track.lang, `track-${track.attempts}`, 'voice.ogg');
    const file = mediaPath(dataDir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await pipeline(Readable.from(encodeSpeechStream(timeline())), createWriteStream(file));
    return { trackPath: relative, durationS: totalSamples / rate };
  }

  // ---- reading ----

  /** Who reads, with the share-link rule for languages: another language than the spoken one needs `allowTranslate`. */
  private async readerFor(recordingId: string, credentials: ReaderCredentials) {
    const { reader, recording } = await this.recordings.reader(recordingId, credentials);
    return { reader, recording };
  }

  private languageAllowed(reader: Reader, lang: string, language: string | null): void {
    if (reader.kind === 'shareLink' && !reader.link.allowTranslate && !sameLanguage(lang, language)) {
      throw errors.forbidden(`lang: this share link does not allow translation; only the spoken language (${language ?? 'not yet known'}) `
        + `can be heard.`, { field: 'lang', permission: 'allowTranslate' });
    }
  }

  private parseLang(lang: string | null | undefined, required: boolean, fallback: string | null): string {
    const given = lang?.trim();
    if (!given) {
      if (required || !fallback) {
        throw errors.invalidOptions(`lang is required: the language of the `
          + `voice${fallback ? '' : ' (the recording\'s spoken language is not known)'}.`, { field: 'lang' });
      }
      return fallback;
    }
    const canonical = canonicalLanguage(given);
    if (!canonical) throw errors.invalidOptions(`lang: "${given}" is not a language code.`, { field: 'lang' });
    if (voicesFor(canonical).length === 0) throw errors.invalidOptions(`lang: no voice speaks ${canonical}.`, { field: 'lang' });
    return canonical;
  }

  /** `GET /v1/recordings/{id}/voice`: one row per language with a track or clips (`lang` narrows). */
  async list(recordingId: string, credentials: ReaderCredentials, query: { lang?: string | null }): Promise<VoiceTracksView> {
    const { reader, recording } = await this.readerFor(recordingId, credentials);
    if (reader.kind === 'mediaToken') throw errors.forbidden('A media token reads media only; send a bearer token, shareCode or '
      + 'listenerToken to list voice tracks.');
    const spoken = await this.spokenSentences(recording);
    let languages: string[] | null = null;
    if (query.lang?.trim()) {
      const lang = canonicalLanguage(query.lang.trim());
      if (!lang) throw errors.invalidOptions(`lang: "${query.lang}" is not a language code.`, { field: 'lang' });
      this.languageAllowed(reader, lang, spoken.language);
      languages = [lang];
    }
    const view = await this.view(recording, { languages, ...spoken });
    if (reader.kind === 'shareLink' && !reader.link.allowTranslate) {
      view.tracks = view.tracks.filter((t) => sameLanguage(t.lang, spoken.language));
    }
    return view;
  }

  /** Rows for `languages` (null: every language with a track or clips); stale sealed tracks are queued again. */
  private async view(
    recording: RecordingRow | Awaited<ReturnType<VoiceTracksService['ownedRecording']>>,
    spoken: { languages: string[] | null; sentences: SpokenSentence[]; language: string | null },
  ): Promise<VoiceTracksView> {
    const where = { recordingId: recording.id, ...(spoken.languages ? { lang: { in: spoken.languages } } : {}) };
    const [tracks, clips] = await Promise.all([
      this.deps.prisma.voiceTrack.findMany({ where }), this.deps.prisma.voiceClip.findMany({ where }),
    ]);
    const langs = spoken.languages ?? [...new Set([...tracks.map((t) => t.lang), ...clips.map((c) => c.lang)])].sort();
    const order = new Map(spoken.sentences.map((s, i) => [s.id, i]));
    const rows: VoiceTrackView[] = [];
    for (const lang of langs) {
      let track = tracks.find((t) => t.lang === lang) ?? null;
      if (!track && !clips.some((c) => c.lang === lang)) continue;
      const voice = await this.voiceFor(recording, lang);
      const stale = track?.state === 'sealed' ? this.staleSentences(track, spoken.sentences, voice) : [];
      if (track && stale.length) {
        await this.queueRender(recording.id, lang, voice, false, track);
        track = await this.deps.prisma.voiceTrack.findUniqueOrThrow({ where: { id: track.id } });
      }
      const standing = clips
        .filter((c) => c.lang === lang)
        .filter((c) => {
          const sentence = spoken.sentences[order.get(c.sentenceId) ?? -1];
          return !!sentence && !sentence.unclear && sentence.text === c.text && c.voice === voice;
        })
        .sort((a, b) => order.get(a.sentenceId)! - order.get(b.sentenceId)!);
      rows.push({
        lang,
        voice: track?.voice ?? voice,
        spokenLanguage: sameLanguage(lang, spoken.language),
        sealed: !!track?.trackPath && stale.length === 0 && track.state === 'sealed',
        stale: stale.length > 0,
        staleSentences: stale,
        sealedAt: track?.sealedAt?.toISOString() ?? null,
        durationS: track?.durationS ?? null,
        job: track ? {
          state: track.state === 'sealed' ? 'done' : (track.state as VoiceJobState), progress: track.progress, error: track.error,
          attempts: track.attempts, renderS: track.renderS, synthesizedS: track.synthesizedS,
          startedAt: track.startedAt?.toISOString() ?? null,
        } : null,
        clips: standing.map((c) => {
          const sentence = spoken.sentences[order.get(c.sentenceId)!]!;
          return {
            sentenceId: c.sentenceId, voice: c.voice, start: sentence.start, end: sentence.end, durationS: c.durationS, text: c.text,
            textFrom: sentence.textFrom, spoken: c.spoken, translationSource: c.translationSource,
          };
        }),
      });
    }
    return { recordingId: recording.id, language: spoken.language, tracks: rows };
  }

  /**
   * `GET /v1/recordings/{id}/voice/{sentence}`: one sentence spoken in `lang` (default: the spoken language), made
   * now when it has no clip or its clip no longer stands. 404 for a line hidden as unclear or an unknown sentence.
   */
  async clip(
    recordingId: string, sentenceId: string, credentials: ReaderCredentials, query: { lang?: string | null; format?: unknown },
  ): Promise<{ path: string; contentType: string }> {
    if (!SENTENCE_ID.test(sentenceId)) {
      throw errors.invalidOptions(
        `sentence: "${sentenceId}" is not a sentence id (ids as the transcript snapshot gives them, like 4.0).`, { field: 'sentence' },
      );
    }
    const format = query.format === undefined || query.format === null || query.format === '' ? 'ogg' : query.format;
    if (format !== 'ogg' && format !== 'caf') {
      throw errors.invalidOptions('format must be ogg or caf.', { field: 'format', allowed: ['ogg', 'caf'] });
    }
    const { reader, recording } = await this.readerFor(recordingId, credentials);
    const { sentences, language } = await this.spokenSentences(recording);
    const lang = this.parseLang(query.lang, false, language && voicesFor(language).length ? language : null);
    this.languageAllowed(reader, lang, language);
    const sentence = sentences.find((s) => s.id === sentenceId);
    if (!sentence) throw errors.notFound(`Sentence ${sentenceId} of this recording`);
    if (sentence.unclear) throw errors.notFound(`A voice clip of sentence ${sentenceId} (the line is hidden as unclear)`);
    if (!sameLanguage(lang, language) && !(await this.serves(language, lang))) {
      throw errors.invalidOptions(
        `lang: this server does not translate ${language ? `from ${language} ` : ''}into ${lang}.`, { field: 'lang' },
      );
    }
    const clip = await this.standingClip(recordingId, lang, await this.voiceFor(recording, lang), sentence, language);
    if (!clip) throw errors.notFound(`A voice clip of sentence ${sentenceId} (it has nothing to speak)`);
    const ogg = mediaPath(this.deps.config.dataDir, clip.path);
    return { path: format === 'ogg' ? ogg : await this.caf(ogg), contentType: CONTENT_TYPES[format as SpeechFormat] };
  }

  /** A sentence's clip in `lang` by `voice`: the kept one while it stands, else made now (null: nothing to speak). */
  private async standingClip(
    recordingId: string, lang: string, voice: string, sentence: SpokenSentence, language: string | null,
  ): Promise<ClipRow | null> {
    const kept = (await this.deps.prisma.voiceClip.findUnique({ where: { recordingId_lang_sentenceId: {
      recordingId, lang, sentenceId: sentence.id,
    } } })) ?? undefined;
    if (this.clipStands(kept, sentence, voice) && (await stat(mediaPath(this.deps.config.dataDir, kept.path)).catch(() => null))) {
      return kept;
    }
    return this.makeClip(recordingId, lang, voice, sentence, (await this.translated([sentence], language, lang))[0]!);
  }

  /** The CAF beside an Ogg clip (the same Opus packets), made once. */
  private async caf(ogg: string): Promise<string> {
    const output = ogg.replace(/\.ogg$/, '.caf');
    if ((await stat(output).catch(() => null))?.size) return output;
    const partial = `${output}.${process.pid}.${Date.now()}.part`;
    try {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          ffmpegPath(), ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', ogg, '-c:a', 'copy', '-f', 'caf', partial],
          { stdio: 'ignore' },
        );
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code} writing a CAF clip`))));
      });
      await rename(partial, output);
    } finally {
      await rm(partial, { force: true });
    }
    return output;
  }

  /** A sealed track that stands, or the refusal: 404 none was asked for, 409 `invalid_state` while not (re)sealed. */
  private async sealedTrack(recording: RecordingRow, lang: string): Promise<TrackRow> {
    const track = await this.deps.prisma.voiceTrack.findUnique({ where: { recordingId_lang: { recordingId: recording.id, lang } } });
    if (!track) throw errors.notFound(`A ${lang} voice track of this recording (POST /v1/recordings/{id}/voice renders one)`);
    const voice = await this.voiceFor(recording, lang);
    if (track.state === 'sealed' && track.trackPath) {
      const stale = this.staleSentences(track, (await this.spokenSentences(recording)).sentences, voice);
      if (stale.length === 0) return track;
      await this.queueRender(recording.id, lang, voice, false, track);
      throw errors.invalidState(`The ${lang} voice track is being rendered again: sentences changed since it was sealed `
        + `(${stale.slice(0, 5).join(', ')}${stale.length > 5 ? ', …' : ''}); poll GET /v1/recordings/{id}/voice.`, {
          state: 'queued', staleSentences: stale,
        });
    }
    throw errors.invalidState(`The ${lang} voice track is not sealed yet (${track.state}${track.error ? `: ${track.error}` : ''}); poll `
      + `GET /v1/recordings/{id}/voice.`, { state: track.state, progress: track.progress });
  }

  private voiceAudioPermission(reader: Reader, lang: string, language: string | null): void {
    if (reader.kind === 'shareLink' && !reader.link.allowDownload) {
      throw errors.forbidden('This share link does not allow downloads.', { permission: 'allowDownload' });
    }
    this.languageAllowed(reader, lang, language);
  }

  /** `GET /v1/recordings/{id}/audio?kind=voice&lang=`: where it redirects, a URL signed for the recording, language and format (1 h). */
  async audioUrl(recordingId: string, credentials: ReaderCredentials, query: { lang?: string | null; format?: unknown }): Promise<{
    path: string; expiresAt: string;
  }> {
    const format = parseAudioFormat(query.format);
    const lang = this.parseLang(query.lang, true, null);
    const { reader, recording } = await this.readerFor(recordingId, credentials);
    this.voiceAudioPermission(reader, lang, recording.spokenLanguage ? canonicalLanguage(recording.spokenLanguage) : null);
    await this.sealedTrack(recording, lang);
    const { exp, sig } = signMedia(await this.recordings.mediaSecret(), { recordingId, kind: 'voice', lang, format });
    return {
      path: `/v1/media/${recordingId}/voice-${lang}.${format}?exp=${exp}&sig=${sig}`, expiresAt: new Date(exp * 1000).toISOString(),
    };
  }

  // ---- sentences spoken on the subscribe socket (`voice`) ----

  /** The language a subscriber reading `lang` hears (null: as spoken, until the recording's language is known). */
  private async readingLanguage(recordingId: string, lang: string | null): Promise<string | null> {
    if (lang) return lang;
    const recording = await this.deps.prisma.recording.findUnique({ where: { id: recordingId }, select: { spokenLanguage: true } });
    return recording?.spokenLanguage ? canonicalLanguage(recording.spokenLanguage) : null;
  }

  /**
   * Checks a subscribe socket's `voice` for reading `lang` (null: as spoken): `auto` (the recording's voice for the
   * language: its `voiceByLang` pin, cloned voices included, else the default) or a catalogue voice that speaks it.
   * A language not known yet (a live recording still detecting it) is checked as each sentence is spoken. `field`
   * names what a refusal blames: `voice` at the upgrade, `lang` when a `subscribe.update` changes the language.
   */
  async checkSubscriberVoice(recordingId: string, lang: string | null, voice: string, field: 'voice' | 'lang' = 'voice'): Promise<void> {
    const refuse = (message: string) => errors.invalidOptions(`${field}: ${message}`, { field });
    const language = await this.readingLanguage(recordingId, lang);
    if (voice === 'auto') {
      if (language && voicesFor(language).length === 0) {
        throw refuse(`no voice speaks ${language} (GET /v1/languages lists the voice languages).`);
      }
      return;
    }
    if (isClonedVoice(voice)) throw refuse('a cloned voice speaks here through the recording\'s settings.voiceByLang pin; ask for '
      + 'voice=auto.');
    let speaks: string;
    try {
      speaks = resolveVoice({ voice }).language.code;
    } catch {
      throw refuse(`${JSON.stringify(voice)} is neither auto nor a catalogue voice (GET /v1/voices/available lists them).`);
    }
    if (language && findVoiceLanguage(language)?.code !== speaks) {
      throw refuse(`${voice} does not speak ${language}; ask for a voice GET /v1/voices/available?lang=${language} lists, or auto.`);
    }
  }

  /**
   * One finished sentence spoken for subscribers reading `lang` with `voice` (checkSubscriberVoice's): 16-bit
   * little-endian PCM, 16 kHz, mono, the socket's audio format. Null when there is nothing to speak: a line hidden as
   * unclear, a sentence that no longer exists, a language no voice speaks. The recording's own voice keeps its clip
   * as `/voice/{sentence}` does (the same clip serves both); another catalogue voice is spoken and not kept. Only the
   * sentence's segments are read (a sentence's id is the same built from them alone).
   */
  async speakForSubscriber(
    recordingId: string, sentence: { id: string; seqs: number[] }, lang: string | null, voice: string,
  ): Promise<Buffer | null> {
    const recording = await this.deps.prisma.recording.findUnique({ where: { id: recordingId }, include: { transcription: true } });
    if (!recording) return null;
    const [segments, corrections] = await this.deps.prisma.$transaction([
      this.deps.prisma.segment.findMany({ where: { recordingId, seq: { in: sentence.seqs } }, orderBy: { seq: 'asc' } }),
      this.deps.prisma.correction.findMany({
        where: { recordingId, seq: { in: sentence.seqs } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { seq: true, voiced: true, revertedAt: true, before: true },
      }),
    ], TX_OPTIONS);
    const spoken = spokenSentencesOf(segments, corrections, await recordingConfidencePolicy(this.deps.prisma, recording)).find(
      (s) => s.id === sentence.id,
    );
    const language = recording.spokenLanguage ?? segments[0]?.language ?? null;
    const target = lang ?? (language ? canonicalLanguage(language) : null);
    if (!spoken || spoken.unclear || !target || voicesFor(target).length === 0) return null;
    const from = language ? canonicalLanguage(language) : null;
    const own = await this.voiceFor(recording, target);
    // A catalogue voice asked for that does not speak the language (it was not known when the socket opened): the recording's.
    const speaker = voice !== 'auto' && findVoiceLanguage(target)?.code === resolveVoice({ voice }).language.code ? voice : own;
    let samples: Float32Array;
    if (speaker === own) {
      const clip = await this.standingClip(recordingId, target, own, spoken, from);
      if (!clip) return null;
      samples = await decodeAt(mediaPath(this.deps.config.dataDir, clip.path), 16_000);
    } else {
      try {
        const words = (await this.translated([spoken], from, target))[0]!;
        samples = await resample(await (await this.model()).synthesize(words.text, { voice: speaker }), KOKORO_SAMPLE_RATE, 16_000);
      } catch (error) {
        if (knownError(error)?.details.field === 'text') return null;
        throw error;
      }
    }
    const pcm = Buffer.alloc(samples.length * 2);
    samples.forEach((sample, i) => pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, sample)) * 32767), i * 2));
    return pcm;
  }

  /** Serves `/v1/media/{id}/voice-<lang>.<format>`: the signature, then the sealed track (caf/mp3 encoded once from it). */
  async signedMediaFile(recordingId: string, file: string, query: { exp?: unknown; sig?: unknown }): Promise<{
    path: string; contentType: string;
  }> {
    const match = /^voice-([A-Za-z0-9-]{2,35})\.(ogg|caf|mp3)$/.exec(file);
    if (!match) throw errors.notFound('The media file');
    const lang = match[1]!;
    const format = match[2] as AudioFormat;
    await this.recordings.checkMediaSignature({ recordingId, kind: 'voice', lang, format }, query);
    const recording = await this.deps.prisma.recording.findUnique({
      where: { id: recordingId }, include: { transcription: true, job: true, captureSpans: true },
    });
    if (!recording || recording.lifecycle !== 'active') throw errors.notFound('The recording');
    const track = await this.sealedTrack(recording, lang);
    const sealed = mediaPath(this.deps.config.dataDir, track.trackPath!);
    const served = format === 'ogg' ? sealed : await ensureRendition(sealed, path.dirname(sealed), 'voice', format);
    return { path: served, contentType: CONTENT_TYPES[format] };
  }
}
