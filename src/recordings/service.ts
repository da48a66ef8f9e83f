/**
 * Reading a recording: the transcript snapshot, exports, audio (signed URLs and the files behind them), WAV clips,
 * the media token, and who may follow it on the subscribe socket. Who may read what is decided here, in one place:
 *
 * | reader                   | transcript      | export      | audio delivery | audio source  | master | clip          | media token |
 * |--------------------------|-----------------|-------------|----------------|---------------|--------|---------------|-------------|
 * | owner (credential)       | yes             | yes         | yes            | yes           | yes    | yes           | yes         |
 * | owner (media token)      | no              | no          | yes            | yes           | yes    | yes           | no          |
 * | share link (`shareCode`) | yes             | allowExport | allowDownload  | allowDownload | no     | allowDownload | no          |
 * | broadcast listener       | unclear blanked | once ended  | yes            | no            | no     | yes           | no          |
 *
 * A share link is its transcription's, or a broadcast's that the recording's transcription feeds. A broadcast
 * listener sends nothing (a public broadcast) or a listener token (a private one) and reads what its broadcast is
 * fed. The cropping preview (`/job/preview`) is read by the owner, with a credential or the media token.
 *
 * Anything else is 404 (not the owner, revoked link, archived transcription or broadcast) or 403 `forbidden` (a
 * link without the permission), never a silently reduced answer.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import { signingSecret } from '../core/signing-secret.js';
import type { Context } from '../core/context.js';
import {
  type CommittedSegment, type Word, CAPTURE_FILE, capturedSeconds, CONTENT_TYPES, ensureRendition, mediaPath,
  mediaToken, parseAudioFormat, parseAudioKind, recordingMediaDir, signMedia, verifyMediaSignature, verifyMediaToken,
  wavClip, MAX_CLIP_S, type AudioFormat, type AudioKind, buildSentences, isUnclear, isUnclearSegment, markLowWords,
  recordingConfidencePolicy, broadcastIdsOf, type SignedMedia,
} from '../transcript/index.js';
import { requireScope } from '../core/identity/scopes.js';
import type { ServiceDeps } from '../core/services.js';
import { renderExport, parseExportFormat, type ExportSnapshot, type RenderedExport } from './exports/index.js';
import { nameSpeaker, parseSpeakerIndex, storedSpeakers, type SpeakerName } from './speakers.js';
import type { ShareLinkRow, ShareLinksService } from '../share-links/service.js';
import { networkOf, type ListenerLanguages } from './listener-languages.js';
import { canonicalLanguage } from '../core/config/translation.js';
import type { TranslationService } from '../translation/service.js';
import type { SpeechRecording, SpeechTranslation } from '../translation/index.js';
import { storedTranslations, translateSentences, type SpeechTranslate } from './translations.js';
import { TX_OPTIONS } from '../core/db/transactions.js';


declare module '../core/services.js' {
  interface Services {
    recordings: RecordingsService;
  }
}

export type Reader =
  | { kind: 'owner'; accountId: string }
  /** An owner's media token: reads this recording's media only. */
  | { kind: 'mediaToken'; recordingId: string }
  | { kind: 'shareLink'; link: ShareLinkRow }
  /** A broadcast's listener: public, or with a listener token (the broadcasts through which it reached the recording). */
  | { kind: 'listener'; broadcastIds: string[]; network: string };

export interface ReaderCredentials {
  /** The caller's account when a credential was sent. */
  accountId?: string | null;
  shareCode?: string | null;
  /** `media=` on media URLs. */
  media?: string | null;
  /** A private broadcast's listener (`POST /v1/listen/{code}/token`). */
  listenerToken?: string | null;
  /** Nothing was sent: only a public broadcast's listener may read. */
  anonymous?: boolean;
  /** The caller's network (listener-languages.ts networkOf): a listener's new translation pairs are counted per network. */
  network?: string;
}

/**
 * Who reads a recording, decided here and nowhere else (REST routes and GraphQL fields ask this): a share code
 * wins over a credential; without one the caller needs `read`, and a presented credential that is bad is
 * refused, never silently ignored; a media token (`media=`) counts only where media is served.
 */
export function readerOf(
  ctx: Context, given: { shareCode?: string | null; media?: string | null; listenerToken?: string | null },
  options: { allowMedia?: boolean } = {},
): ReaderCredentials {
  if (given.shareCode) return { shareCode: given.shareCode };
  if (given.listenerToken) return { listenerToken: given.listenerToken, network: networkOf(ctx.clientAddress) };
  if (options.allowMedia && given.media && !ctx.identity && !ctx.credentialError) return { media: given.media };
  // Nothing at all: a public broadcast's listener, or a refusal that names what to send (RecordingsService.reader).
  if (!ctx.identity && !ctx.credentialError) return { anonymous: true, network: networkOf(ctx.clientAddress) };
  const identity = requireScope(
    ctx, 'read', 'This read needs a credential: a bearer token, a shareCode' + (options.allowMedia ? ' or a media token (media=).' : '.'),
  );
  return { accountId: identity.account.id };
}

type RecordingRow = Prisma.RecordingGetPayload<{ include: { transcription: true; job: true; captureSpans: true } }>;

/** `GET /v1/recordings/{id}/translation`: sentences of a recording in a translation target. */
export interface RecordingTranslation {
  recordingId: string;
  /** The target. */
  lang: string;
  /** The spoken language it was translated from (null: not known; the provider detected it). */
  language: string | null;
  sentences: Array<{ id: string; start: number; end: number; text: string; translation: string; source: string; suppressed?: true }>;
}

/** Most sentence ids one translation read names. */
export const MAX_TRANSLATION_SENTENCES = 500;

export interface TranscriptSnapshot {
  recordingId: string;
  transcriptionId: string;
  state: string;
  language: string | null;
  durationS: number | null;
  /** The durable log's cursor this snapshot reflects (-1: nothing yet); a subscribe frame at or below it is already here. */
  lastSeq: number;
  /** True while the job runs: later segments will follow. */
  partial: boolean;
  job: { state: string; pct: number } | null;
  sentences: Array<{
    id: string; speaker: number; start: number; end: number; text: string; translations: Record<string, string>; confidence: number | null;
    unclear?: true; suppressed?: true;
  }>;
  segments: Array<{
    seq: number; speaker: number; speakerConfidence: number | null; speakerProvisional: boolean | null;
    translations: Record<string, string>; translationSources: Record<string, string>; start: number; end: number; text: string;
    words: unknown; confidence: number | null; language: string | null; decoder: string | null; recognizedText: string | null;
    scriptFrom: number | null; scriptPos: number | null; suppressed?: true;
  }>;
  speakers: Array<{ index: number; name: string | null }>;
}

/**
 * The snapshot's `speakers`: every speaker label the segments carry (0 and up; -1 means labels were off) and every
 * named one, by index, with its name (`PUT /v1/recordings/{id}/speakers/{idx}`) or null.
 */
export function speakersOf(stored: unknown, segments: Array<{ speaker: number }>): Array<{ index: number; name: string | null }> {
  const names = new Map(storedSpeakers(stored).map((s) => [s.index, s.name]));
  const indexes = new Set([...names.keys(), ...segments.map((s) => s.speaker).filter((speaker) => speaker >= 0)]);
  return [...indexes].sort((a, b) => a - b).map((index) => ({ index, name: names.get(index) ?? null }));
}

/** A delivery rendition already made and kept, as `/audio` lists it in `media`. */
export interface SealedRendition {
  rendition: 'delivery' | 'delivery_caf' | 'delivery_mp3';
  format: 'ogg' | 'caf' | 'mp3';
  contentType: string;
  bytes: number;
  /** The signed URL's path (`/v1/media/...`), valid until `expiresAt`. */
  path: string;
  expiresAt: string;
}

/** Which of a recording's broadcasts a listener token reaches (src/listeners/access.ts answers it); null: none. */
export interface BroadcastReach {
  reach(broadcastIds: string[], listenerToken: string | null): Promise<{ broadcastIds: string[] } | null>;
}

export class RecordingsService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly shareLinks: ShareLinksService,
    private readonly listenerAccess: BroadcastReach,
    private readonly translator: Pick<TranslationService, 'translate' | 'serves' | 'targets'>,
    private readonly listenerLanguages?: Pick<ListenerLanguages, 'admit'>,
    /** The English pivot (sentences read from their audio) for pairs no text provider serves; null: none. */
    private readonly speech: Pick<SpeechTranslation, 'serves' | 'translate'> | null = null,
  ) {}

  /** The key that signs media URLs and media tokens (src/core/signing-secret.ts). */
  mediaSecret(): Promise<string> {
    return signingSecret(this.deps.config);
  }

  /** Refuses (403) a signed media URL whose `sig` does not sign `media` with its `exp`, or that expired. */
  async checkMediaSignature(media: Omit<SignedMedia, 'expiresAt'>, query: Record<string, unknown>): Promise<void> {
    const signed = { ...media, expiresAt: Number(query.exp) };
    if (typeof query.sig !== 'string' || !verifyMediaSignature(await this.mediaSecret(), signed, query.sig)) {
      throw errors.forbidden('This media URL is not valid or has expired; ask /audio for a new one.');
    }
  }

  /**
   * Works out who is reading: a share code wins over a credential (the link's permissions apply, not the owner's);
   * a listener (no credential, or a listener token) reads what a broadcast it reaches is fed.
   */
  async reader(recordingId: string, credentials: ReaderCredentials): Promise<{ reader: Reader; recording: RecordingRow }> {
    const recording = await this.deps.prisma.recording.findUnique({
      where: { id: recordingId }, include: { transcription: true, job: true, captureSpans: true },
    });
    const readable = recording?.lifecycle === 'active' && recording.transcription.lifecycle === 'active' ? recording : null;
    if (credentials.shareCode) {
      const link = await this.shareLinks.resolve(credentials.shareCode);
      const reaches = link.transcriptionId
        ? readable?.transcriptionId === link.transcriptionId
        : !!readable && broadcastIdsOf(readable.transcription).includes(link.broadcastId!);
      if (!readable || !reaches) throw errors.notFound('The recording');
      return { reader: { kind: 'shareLink', link }, recording: readable };
    }
    if (credentials.accountId) {
      if (!recording || recording.accountId !== credentials.accountId) throw errors.notFound('The recording');
      return { reader: { kind: 'owner', accountId: credentials.accountId }, recording };
    }
    if (credentials.media) {
      if (!recording || !verifyMediaToken(await this.mediaSecret(), recordingId, credentials.media)) {
        throw errors.invalidToken('The media token is not valid for this recording (wrong recording, or past the end of the day after it '
          + 'was issued).');
      }
      return { reader: { kind: 'mediaToken', recordingId }, recording };
    }
    if (credentials.listenerToken || credentials.anonymous) {
      const reach = readable ? await this.listenerAccess.reach(
        broadcastIdsOf(readable.transcription), credentials.listenerToken ?? null,
      ) : null;
      if (reach) {
        return {
          reader: { kind: 'listener', broadcastIds: reach.broadcastIds, network: credentials.network ?? 'unknown' }, recording: readable!,
        };
      }
      if (credentials.listenerToken) throw errors.notFound('The recording');
    }
    throw errors.invalidToken('This read needs a credential: a bearer token, a shareCode, a listenerToken, or a media token (media=).');
  }

  private requireOwner(reader: Reader, what: string): void {
    if (reader.kind === 'owner') return;
    throw errors.forbidden(`${what} is for the recording's owner only.`, { needs: 'owner' });
  }

  /**
   * The language a read asks for (`lang`), when it is not the spoken one: the target to translate into, or null for
   * the spoken language (absent, empty, or the spoken one). Through a share link without `allowTranslate` another
   * language is 403 (never a silently untranslated answer); a code that is not a language, or one no translation
   * provider serves from the spoken language, is 400 naming `lang`. Summaries and the subscribe socket ask it too.
   * `speech`: a read of sentences (transcript, translation, export), which the English pivot also serves.
   */
  async translationTarget(
    reader: Reader, recording: Pick<RecordingRow, 'id' | 'spokenLanguage' | 'settings' | 'masterPath' | 'durationS'>,
    lang: string | null | undefined, options: { speech?: boolean } = {},
  ): Promise<string | null> {
    if (lang === undefined || lang === null || lang.trim() === '') return null;
    const target = canonicalLanguage(lang.trim());
    if (!target) throw errors.invalidOptions(`lang: "${lang}" is not a language code.`, { field: 'lang' });
    // The language heard, else the one the capture was told (a live recording before its first commit).
    const told = (recording.settings as { spokenLanguage?: unknown } | null)?.spokenLanguage;
    const known = recording.spokenLanguage ?? (typeof told === 'string' && told && told !== 'auto' ? told : null);
    const spoken = known ? canonicalLanguage(known) : null;
    if (target === spoken) return null;
    if (reader.kind === 'shareLink' && !reader.link.allowTranslate) {
      throw errors.forbidden(`lang: this share link does not allow translation; only the spoken language `
        + `(${recording.spokenLanguage ?? 'not yet known'}) can be read.`, { field: 'lang', permission: 'allowTranslate' });
    }
    // Not known yet (detected from the first words): any language some provider translates into.
    const served = spoken ? await this.translator.serves(spoken, target) : (await this.translator.targets()).includes(target);
    if (!served && !(options.speech && (await this.speech?.serves(recording, spoken, target)))) {
      throw errors.invalidOptions(`lang: this server does not translate ${spoken ? `from ${spoken} ` : ''}into ${target} (GET `
        + `/v1/languages lists the translation targets); read the spoken language (${recording.spokenLanguage ?? 'not yet known'}) or `
          + `leave lang out.`, { field: 'lang' });
    }
    // A listener's language the recording is not yet translated into is a new pair, limited per network (429).
    if (reader.kind === 'listener') await this.listenerLanguages?.admit(recording.id, target, reader.network);
    return target;
  }

  /** The English pivot for a recording's sentences when no text provider serves `from` → `to` (null: text does). */
  private async speechFor<S extends { start: number; end: number; text: string }>(
    recording: SpeechRecording, from: string | null, to: string,
  ): Promise<SpeechTranslate<S> | null> {
    if (!this.speech || (await this.translator.serves(from, to).catch(() => false)) || !(await this.speech.serves(recording, from, to))) {
      return null;
    }
    return (sentences) => this.speech!.translate(recording, sentences, from, to);
  }

  /**
   * Who may follow a recording on the subscribe socket, and what they see there: `listener` (unclear lines withheld)
   * for a broadcast's listeners, `full` for the owner and share-link readers. `broadcastIds`: the broadcasts whose
   * link the reader came through (counted in their `listenersNow`).
   */
  async subscriber(recordingId: string, credentials: ReaderCredentials, lang: string | null): Promise<{
    view: 'full' | 'listener'; lang: string | null; broadcastIds: string[];
  }> {
    const { reader, recording } = await this.reader(recordingId, credentials);
    if (reader.kind === 'mediaToken') throw errors.forbidden('A media token reads media only; send a bearer token, shareCode or '
      + 'listenerToken to subscribe.');
    const target = await this.translationTarget(reader, recording, lang);
    if (reader.kind === 'listener') return { view: 'listener', lang: target, broadcastIds: reader.broadcastIds };
    return {
      view: 'full', lang: target, broadcastIds: reader.kind === 'shareLink' && reader.link.broadcastId ? [reader.link.broadcastId] : [],
    };
  }

  async transcript(
    recordingId: string, credentials: ReaderCredentials, query: { after?: unknown; lang?: string | null },
  ): Promise<TranscriptSnapshot> {
    const { reader, recording } = await this.reader(recordingId, credentials);
    if (reader.kind === 'mediaToken') throw errors.forbidden('A media token reads media only; send a bearer token or shareCode for the '
      + 'transcript.');
    const lang = await this.translationTarget(reader, recording, query.lang, { speech: true });
    let after = -1;
    if (query.after !== undefined && query.after !== null && query.after !== '') {
      after = Number(query.after);
      if (!Number.isInteger(after) || after < -1) {
        throw errors.invalidOptions('after must be a cursor (an integer at or above -1).', { field: 'after' });
      }
    }
    return this.snapshot(recording, { after, listener: reader.kind === 'listener', lang });
  }

  /**
   * The transcript as it stands. `after` (a cursor) keeps the segments changed since that place in the log (and the
   * sentences holding them); a `listener` gets the lines under the confidence policy blank and `suppressed`, where
   * the owner and share-link readers get them whole and `unclear`. With `lang` (a translation target) each sentence
   * carries its translation in `translations` (made now when not cached; a provider's failure fails the read), and
   * a listener's segments carry only that language's stored translations (owners see every stored one).
   */
  private async snapshot(
    recording: RecordingRow, options: { after?: number; listener?: boolean; lang?: string | null } = {},
  ): Promise<TranscriptSnapshot> {
    const after = options.after ?? -1;
    // One read of segments and the log's cursor together, so the snapshot and its lastSeq always agree.
    const [segments, fresh] = await this.deps.prisma.$transaction([
      this.deps.prisma.segment.findMany({ where: { recordingId: recording.id }, orderBy: { seq: 'asc' } }),
      this.deps.prisma.recording.findUniqueOrThrow({ where: { id: recording.id }, include: { job: true } }),
    ], TX_OPTIONS);
    const policy = await recordingConfidencePolicy(this.deps.prisma, recording);
    const changed = new Set(segments.filter((s) => s.cursor > after).map((s) => s.seq));
    const sources = segments.map((s) => ({
      seq: s.seq, speaker: s.speaker, start: s.start, end: s.end, text: s.text, words: s.words as never, confidence: s.confidence,
    }));
    const sentences = buildSentences(sources)
      .filter((sentence) => sentence.seqs.some((seq) => changed.has(seq)))
      .map((sentence) => {
        const unclear = isUnclear(sentence, policy);
        return {
          id: sentence.id,
          speaker: sentence.speaker,
          start: sentence.start,
          end: sentence.end,
          text: unclear && options.listener ? '' : sentence.text,
          translations: {} as Record<string, string>,
          confidence: sentence.confidence,
          ...(unclear ? (options.listener ? { suppressed: true as const } : { unclear: true as const }) : {}),
        };
      });
    const language = fresh.spokenLanguage ?? segments[0]?.language ?? null;
    if (options.lang) {
      const translated = await translateSentences(
        this.translator.translate.bind(this.translator), sentences, language, options.lang,
        await this.speechFor(fresh, language, options.lang),
      );
      translated.forEach((sentence, i) => {
        if (sentence.text !== '') sentences[i]!.translations = { [options.lang!]: sentence.translation };
      });
    }
    const job = fresh.job;
    return {
      recordingId: recording.id,
      transcriptionId: recording.transcriptionId,
      state: fresh.state,
      language,
      durationS: fresh.durationS,
      lastSeq: fresh.lastEventSeq,
      // Partial only while the job runs (spec): a done or failed job adds nothing more until it is retried.
      partial: !!job && job.state !== 'done' && job.state !== 'failed',
      job: job ? { state: job.state, pct: Number((job.progress as { pct?: number }).pct ?? 0) } : null,
      sentences,
      segments: await this.withSegmentTranslations(segments
        .filter((s) => changed.has(s.seq))
        .map((s) => {
          const segment = {
            seq: s.seq, speaker: s.speaker, speakerConfidence: s.speakerConfidence, speakerProvisional: s.speakerProvisional,
            ...(options.listener ? storedTranslations(s, options.lang ?? null) : storedTranslations(s)), start: s.start, end: s.end,
            text: s.text, words: markLowWords(s.words as unknown as Word[], policy), confidence: s.confidence, language: s.language,
            decoder: s.decoder, recognizedText: s.recognizedText, scriptFrom: s.scriptFrom, scriptPos: s.scriptPos,
          };
          return options.listener && isUnclearSegment(segment, policy) ? {
            ...segment, text: '', words: [], recognizedText: null, suppressed: true as const,
          } : segment;
        }), language, options.lang ?? null),
      speakers: speakersOf(fresh.speakers, segments),
    };
  }

  /**
   * Segments read in `lang` carry it in `translations` even when it was not made as they were committed (a language
   * asked for later): translated now, through the cache, when a text provider serves the pair; stored ones stay.
   */
  private async withSegmentTranslations<S extends {
    text: string; language: string | null; translations: Record<string, string>; suppressed?: true;
  }>(segments: S[], language: string | null, lang: string | null): Promise<S[]> {
    if (!lang) return segments;
    const missing = segments.filter((s) => !s.suppressed && s.text.trim() !== '' && !(lang in s.translations));
    if (missing.length === 0 || !(await this.translator.serves(language, lang))) return segments;
    const translated = await translateSentences(this.translator.translate.bind(this.translator), missing, language, lang);
    const byText = new Map(translated.map((s, i) => [missing[i]!, s.translation]));
    return segments.map((s) => (byText.has(s) ? { ...s, translations: { ...s.translations, [lang]: byText.get(s)! } } : s));
  }

  /**
   * `GET /v1/recordings/{id}/translation`: sentences (`sentences`, ids as the snapshot gives them; all when absent)
   * in `lang`, a translation target. The owner, a listener (lines under the confidence policy come back
   * `suppressed` and blank), or a share link that allows translation. Each sentence is translated now unless the
   * cache has it; a provider's failure fails the read (never an untranslated answer).
   */
  async translation(
    recordingId: string, credentials: ReaderCredentials, query: { lang?: string | null; sentences?: string[] | null },
  ): Promise<RecordingTranslation> {
    const { reader, recording } = await this.reader(recordingId, credentials);
    if (reader.kind === 'mediaToken') throw errors.forbidden('A media token reads media only; send a bearer token, shareCode or '
      + 'listenerToken for translations.');
    if (!query.lang?.trim()) throw errors.invalidOptions('lang is required: the language to translate into (GET /v1/languages lists the '
      + 'targets).', { field: 'lang' });
    const lang = await this.translationTarget(reader, recording, query.lang, { speech: true });
    if (!lang) {
      throw errors.invalidOptions(`lang: ${query.lang} is the spoken language; read the transcript (GET /v1/recordings/{id}/transcript) `
        + `for it.`, { field: 'lang' });
    }
    const wanted = query.sentences ?? null;
    if (wanted && wanted.length > MAX_TRANSLATION_SENTENCES) {
      throw errors.invalidOptions(
        `sentences: at most ${MAX_TRANSLATION_SENTENCES} sentence ids per read (got ${wanted.length}).`, { field: 'sentences' },
      );
    }
    const snapshot = await this.snapshot(recording, { listener: reader.kind === 'listener' });
    const byId = new Map(snapshot.sentences.map((s) => [s.id, s]));
    const unknown = wanted?.find((id) => !byId.has(id));
    if (unknown !== undefined) {
      throw errors.invalidOptions(`sentences: "${unknown}" is not a sentence of this recording (ids as the transcript snapshot gives `
        + `them, like 4.0).`, { field: 'sentences' });
    }
    const chosen = wanted ? [...new Set(wanted)].map((id) => byId.get(id)!) : snapshot.sentences;
    const translated = await translateSentences(
      this.translator.translate.bind(this.translator), chosen, snapshot.language, lang,
      await this.speechFor(recording, snapshot.language, lang),
    );
    return {
      recordingId,
      lang,
      language: snapshot.language,
      sentences: translated.map((s) => ({
        id: s.id, start: s.start, end: s.end, text: s.text, translation: s.translation, source: s.source,
        ...(s.suppressed ? { suppressed: true as const } : {}),
      })),
    };
  }

  /** `PUT /v1/recordings/{id}/speakers/{idx}`: names (or, with null, unnames) a speaker of the owner's recording. */
  nameSpeaker(accountId: string, recordingId: string, idx: unknown, name: string | null): Promise<SpeakerName> {
    return nameSpeaker(this.deps, accountId, recordingId, parseSpeakerIndex(idx), name);
  }

  async export(
    recordingId: string, credentials: ReaderCredentials, query: { format?: unknown; lang?: string | null },
  ): Promise<RenderedExport> {
    const format = parseExportFormat(query.format);
    const { reader, recording } = await this.reader(recordingId, credentials);
    if (reader.kind === 'mediaToken') throw errors.forbidden('A media token reads media only; send a bearer token or shareCode to export.');
    if (reader.kind === 'shareLink' && !reader.link.allowExport) {
      throw errors.forbidden('This share link does not allow exports.', { permission: 'allowExport' });
    }
    if (reader.kind === 'listener' && recording.state !== 'ended' && recording.state !== 'finalized') {
      throw errors.forbidden('A listener may export a recording once it has ended.', { state: recording.state });
    }
    const lang = await this.translationTarget(reader, recording, query.lang, { speech: true });
    const snapshot = await this.snapshot(recording, { listener: reader.kind === 'listener', lang });
    const exportable: ExportSnapshot = {
      recordingId,
      name: recording.transcription.name,
      language: snapshot.language,
      durationS: snapshot.durationS,
      partial: snapshot.partial,
      createdAt: recording.createdAt,
      lastSeq: snapshot.lastSeq,
      // In another language every line reads translated (the snapshot translated them, the cache answering lines
      // read before); the spoken text rides along as `original`.
      lang,
      sentences: lang ? snapshot.sentences.map(
        (s) => ({ ...s, text: s.translations[lang] ?? s.text, original: s.text }),
      ) : snapshot.sentences,
      segments: snapshot.segments.map((s) => ({ ...s, words: s.words as Word[], decoder: s.decoder as CommittedSegment['decoder'] })),
      speakers: snapshot.speakers,
    };
    return renderExport(exportable, format, { pdfFontPath: this.deps.config.pdfFontPath });
  }

  private audioPermission(reader: Reader, kind: AudioKind): void {
    if (reader.kind === 'listener' && kind !== 'delivery') {
      throw errors.forbidden(`kind ${kind} is not for listeners; they hear the delivery audio.`, { field: 'kind' });
    }
    if (reader.kind === 'shareLink') {
      if (kind === 'master') throw errors.forbidden('kind master is for the recording\'s owner only.', { field: 'kind' });
      if (!reader.link.allowDownload) throw errors.forbidden('This share link does not allow downloads.', { permission: 'allowDownload' });
    }
  }

  /** Where `/audio` redirects: a URL path signed for this recording, kind and format (1 h delivery, 5 min master/source). */
  async audioUrl(recordingId: string, credentials: ReaderCredentials, query: { kind?: unknown; format?: unknown }): Promise<{
    path: string; expiresAt: string;
  }> {
    const kind = parseAudioKind(query.kind);
    const format = parseAudioFormat(query.format);
    const { reader, recording } = await this.reader(recordingId, credentials);
    this.audioPermission(reader, kind);
    this.audioInput(recording, kind); // 404 now rather than after the redirect
    const { exp, sig } = signMedia(await this.mediaSecret(), { recordingId, kind, format });
    return { path: `/v1/media/${recordingId}/${kind}.${format}?exp=${exp}&sig=${sig}`, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /**
   * `/audio`'s `media` list: the delivery renditions already encoded and kept (`delivery` Ogg, `delivery_caf`,
   * `delivery_mp3`), each with a URL signed as `/audio` signs it, in that order; none for a reader who may not have the
   * delivery audio. Nothing is encoded by asking: a rendition is made on its first request through `/audio`.
   */
  async sealedMedia(recordingId: string, credentials: ReaderCredentials): Promise<SealedRendition[]> {
    const { reader } = await this.reader(recordingId, credentials);
    try {
      this.audioPermission(reader, 'delivery');
    } catch {
      return [];
    }
    const dir = recordingMediaDir(this.deps.config.dataDir, recordingId);
    const sealed: SealedRendition[] = [];
    for (const format of ['ogg', 'caf', 'mp3'] as const) {
      const file = await stat(path.join(dir, `delivery.${format}`)).catch(() => null);
      if (!file?.isFile() || file.size === 0) continue;
      const { exp, sig } = signMedia(await this.mediaSecret(), { recordingId, kind: 'delivery', format });
      sealed.push({
        rendition: format === 'ogg' ? 'delivery' : `delivery_${format}`,
        format,
        contentType: CONTENT_TYPES[format],
        bytes: file.size,
        path: `/v1/media/${recordingId}/delivery.${format}?exp=${exp}&sig=${sig}`,
        expiresAt: new Date(exp * 1000).toISOString(),
      });
    }
    return sealed;
  }

  private audioInput(recording: Pick<RecordingRow, 'sourcePath' | 'masterPath'>, kind: AudioKind): string {
    const relative = kind === 'source' ? recording.sourcePath : (recording.masterPath ?? null);
    if (!relative) throw errors.notFound(kind === 'source' ? 'The stored source of this recording' : 'Audio of this recording (the job '
      + 'has not reached transcription yet)');
    return mediaPath(this.deps.config.dataDir, relative);
  }

  /** Serves a signed media URL: checks the signature, makes the rendition once, returns the file to stream. */
  async signedMediaFile(recordingId: string, file: string, query: { exp?: unknown; sig?: unknown }): Promise<{
    path: string; contentType: string;
  }> {
    const match = /^(delivery|source|master)\.(ogg|caf|mp3)$/.exec(file);
    if (!match) throw errors.notFound('The media file');
    const kind = match[1] as AudioKind;
    const format = match[2] as AudioFormat;
    await this.checkMediaSignature({ recordingId, kind, format }, query);
    const recording = await this.deps.prisma.recording.findUnique({
      where: { id: recordingId }, include: { transcription: true, job: true },
    });
    if (!recording || recording.lifecycle !== 'active') throw errors.notFound('The recording');
    const rendition = await ensureRendition(
      this.audioInput(recording, kind), recordingMediaDir(this.deps.config.dataDir, recordingId), kind, format,
    );
    return { path: rendition, contentType: CONTENT_TYPES[format] };
  }

  /** WAV (16-bit, 16 kHz, mono) of [startS, endS) of what was transcribed, at most 120 s; times as in the transcript. */
  async clip(recordingId: string, credentials: ReaderCredentials, query: { startS?: unknown; endS?: unknown }): Promise<Buffer> {
    const { reader, recording } = await this.reader(recordingId, credentials);
    if (reader.kind === 'shareLink' && !reader.link.allowDownload) {
      throw errors.forbidden('This share link does not allow downloads.', { permission: 'allowDownload' });
    }
    // An open live recording has no master yet: the clip is cut from the capture as it stands.
    const capture = recording.kind === 'live' && !recording.masterPath;
    const lengthS = capture ? capturedSeconds(this.deps.config.dataDir, recordingId) : recording.durationS;
    const startS = query.startS === undefined || query.startS === '' ? 0 : Number(query.startS);
    const endS = query.endS === undefined || query.endS === '' ? Math.min(startS + MAX_CLIP_S, lengthS ?? startS + MAX_CLIP_S) : Number(
      query.endS,
    );
    if (capture) {
      if (lengthS === 0) throw errors.notFound('Audio of this recording (nothing captured yet)');
      if (Number.isFinite(startS) && startS >= (lengthS ?? 0)) {
        throw errors.invalidOptions(
          `startS (${startS}) is at or past the end of what was captured so far (${(lengthS ?? 0).toFixed(2)} s).`,
          { field: 'startS', capturedS: lengthS },
        );
      }
      return wavClip(mediaPath(this.deps.config.dataDir, path.join(recordingId, CAPTURE_FILE)), startS, endS, { rawPcm: true });
    }
    return wavClip(this.audioInput(recording, 'master'), startS, endS);
  }

  async mediaToken(recordingId: string, credentials: ReaderCredentials): Promise<{ token: string; expiresAt: string }> {
    const { reader } = await this.reader(recordingId, credentials);
    this.requireOwner(reader, 'The media token');
    const { token, expiresAt } = mediaToken(await this.mediaSecret(), recordingId);
    return { token, expiresAt: expiresAt.toISOString() };
  }

  /** One recording: its owner, or anyone holding a share link of its transcription. */
  async get(recordingId: string, credentials: ReaderCredentials): Promise<RecordingView> {
    const { reader, recording } = await this.reader(recordingId, credentials);
    if (reader.kind === 'mediaToken') throw errors.forbidden('A media token reads media only.');
    return recordingView(recording);
  }

  /** The cropping preview: the stored source while the job is `cropping` (a link's copy only for ten minutes). */
  async previewFile(recordingId: string, credentials: ReaderCredentials): Promise<{ path: string; contentType: string }> {
    const { reader, recording } = await this.reader(recordingId, credentials);
    // The owner's media token reads it too (an <audio> element cannot send a header), as it does `/audio`.
    if (reader.kind === 'shareLink' || reader.kind === 'listener') this.requireOwner(reader, 'The job preview');
    const job = recording.job;
    if (!job || job.state !== 'cropping' || !job.previewPath || (job.previewExpiresAt && job.previewExpiresAt.getTime() < Date.now())) {
      throw errors.notFound('The job preview (it exists only while the job is cropping, and a link\'s copy for ten minutes)');
    }
    const dir = recordingMediaDir(this.deps.config.dataDir, recordingId);
    const rendition = await ensureRendition(
      mediaPath(this.deps.config.dataDir, job.previewPath), path.join(dir, 'preview'), 'delivery', 'ogg',
    );
    return { path: rendition, contentType: CONTENT_TYPES.ogg };
  }
}

export interface CaptureSpanView {
  idx: number;
  wallStart: number;
  mediaStart: number;
  reason: string;
  mediaEnd: number | null;
  wallEnd: number | null;
}

export interface RecordingView {
  id: string;
  transcriptionId: string;
  kind: 'file' | 'live';
  name: string | null;
  /** File recordings: processing → ended (job failed) / finalized. Live: live ⇄ paused → ended → finalized. */
  state: string;
  lifecycle: 'active' | 'archived';
  durationS: number | null;
  spokenLanguage: string | null;
  lastSeq: number;
  scriptText: string | null;
  /** The capture settings (a live recording's as changed while recording). */
  settings: Record<string, unknown>;
  /** Live, stream source: the server's pull (state, bytes, seconds, reconnects, error); null otherwise. */
  ingest: Record<string, unknown> | null;
  captureSpans: CaptureSpanView[];
  endedAt: string | null;
  finalizedAt: string | null;
  /** The summary's title and text once it is ready (null before; GET /summary says its state and translates it). */
  title: string | null;
  summary: string | null;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

/** A recording row as the API shows it; a live recording's spans when the row was read with them. */
export function recordingView(row: Prisma.RecordingGetPayload<{}> & { captureSpans?: Prisma.CaptureSpanGetPayload<{}>[] }): RecordingView {
  return {
    id: row.id,
    transcriptionId: row.transcriptionId,
    kind: row.kind as RecordingView['kind'],
    name: row.name,
    state: row.state,
    lifecycle: row.lifecycle as RecordingView['lifecycle'],
    durationS: row.durationS,
    spokenLanguage: row.spokenLanguage,
    lastSeq: row.lastSeq,
    scriptText: row.scriptText,
    settings: (row.settings ?? {}) as Record<string, unknown>,
    ingest: (row.ingest ?? null) as Record<string, unknown> | null,
    captureSpans: [...(row.captureSpans ?? [])]
      .sort((a, b) => a.idx - b.idx)
      .map(({ idx, wallStart, mediaStart, reason, mediaEnd, wallEnd }) => ({ idx, wallStart, mediaStart, reason, mediaEnd, wallEnd })),
    endedAt: row.endedAt?.toISOString() ?? null,
    finalizedAt: row.finalizedAt?.toISOString() ?? null,
    title: row.summaryState === 'ready' ? row.summaryTitle : null,
    summary: row.summaryState === 'ready' ? row.summaryText : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    archivedAt: row.archivedAt?.toISOString() ?? null,
  };
}
