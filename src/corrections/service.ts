/**
 * Corrections: a person fixes a recording's settled text. A CorrectionBatch (word edits, then whole-line rewrites)
 * is one transaction: every target is checked first, and on any refusal nothing is applied. Each Correction row is
 * one segment's change and one `transcript.corrected` frame in the durable log (a line rewrite over n neighbouring
 * segments is n `line` corrections sharing the batch); the Segment row holds the corrected text and words (so the
 * snapshot, exports and subscribers read them) and `recognizedText` keeps what the recognizer heard, for the voiced
 * rule (src/corrections/voiced.ts).
 *
 * Reverting puts the segment back as it was before that correction. When a later correction that still stands
 * touched the same words (any later change of a line correction's segment; a later line rewrite or an edit of the
 * same word for a word edit) the revert is refused `409 invalid_state` naming the later one
 * (`details.laterCorrectionId`): revert that first. Reverting twice is `409 invalid_state`.
 *
 * Translations follow the text: a segment whose text a batch, a retranscription or a revert changes loses its
 * stored translations (`Segment.translations`) in the same transaction, so no reader ever sees a translation of
 * text that no longer stands; once the transaction is committed each such segment is translated again into the
 * languages it had (src/recordings/translations.ts `translateSegments`: stored, and a `transcript.translated` frame
 * for subscribers). The translation cache keys on the text, so corrected text is translated anew and a revert's
 * text comes back from the cache. A provider's failure never fails the correction: it is logged, and that language
 * stays cleared for the segment (a reader asking for `lang` translates the sentence on demand).
 */
import { Prisma } from '../generated/prisma/client.js';
import { pageNewestFirst } from '../core/cursor.js';
import { ApiError, errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Identity } from '../core/identity/identity.js';
import { type Word, inTransaction, type PendingFrame, MAX_CLIP_S } from '../transcript/index.js';
import type { ServiceDeps } from '../core/services.js';
import type { Tx } from '../core/db/transactions.js';
import type { FreshReader } from './fresh-reading.js';
import { saysOnlyHeard, voicedVerdict } from './voiced.js';
import type { SummariesService } from '../summaries/service.js';
import { storedTranslations, translateSegments, type Translate } from '../recordings/index.js';
import { createLogger, type Logger } from '../core/logger.js';

/** What a correction tells the summaries (src/summaries/service.ts): the text a summary was made from changed. */
export type SummaryFollower = Pick<SummariesService, 'markStale' | 'rewriteSoon'>;

declare module '../core/services.js' {
  interface Services {
    corrections: CorrectionsService;
  }
}

export interface WordEdit {
  seq: number;
  wordIdx: number;
  to: string;
}

export interface LineEdit {
  seqs: number[];
  text: string;
}

export interface CorrectionBatch {
  edits: WordEdit[];
  lines: LineEdit[];
}

export interface Actor {
  apiKeyId: string | null;
  displayName: string | null;
  userId: string | null;
}

export interface CorrectionView {
  id: string;
  batchId: string;
  kind: 'word' | 'line';
  from: string;
  to: string;
  actor: Actor;
  appliedAt: string;
  seq: number | null;
  speaker: number | null;
  wordIdx: number | null;
  revertedAt: string | null;
  voiced: boolean | null;
  notVoicedReason: 'rewrite' | null;
}

type CorrectionRow = Prisma.CorrectionGetPayload<{}>;
type SegmentRow = Prisma.SegmentGetPayload<{}>;

/** The part of a segment a correction changes. */
interface SegmentText {
  text: string;
  words: Word[];
}

const MAX_ITEMS = 500;
const MAX_TEXT = 5_000;

export function correctionView(row: CorrectionRow): CorrectionView {
  const stands = row.revertedAt === null;
  return {
    id: row.id,
    batchId: row.batchId,
    kind: row.kind as CorrectionView['kind'],
    from: row.from,
    to: row.to,
    actor: { apiKeyId: row.actorApiKeyId, displayName: row.actorName, userId: row.actorUserId },
    appliedAt: row.createdAt.toISOString(),
    seq: row.seq,
    speaker: row.speaker,
    wordIdx: row.wordIdx,
    revertedAt: row.revertedAt?.toISOString() ?? null,
    // The spec: present on a correction that stands.
    voiced: stands ? row.voiced : null,
    notVoicedReason: stands ? (row.notVoicedReason as 'rewrite' | null) : null,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSeq = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 2147483647;

function onlyFields(input: Record<string, unknown>, allowed: string[], where: string): void {
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) {
      throw errors.invalidOptions(`${where}${key} is not a field here (${allowed.join(', ')}).`, { field: `${where}${key}` });
    }
  }
}

function nonBlank(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || !value.trim()) throw errors.invalidOptions(`${field} must be a non-blank string.`, { field });
  if (value.length > max) throw errors.invalidOptions(`${field} must be at most ${max} characters.`, { field });
  return value.trim();
}

/** A line's `seqs`: a non-empty array of consecutive segment seqs, in order; otherwise 400 naming `field`. */
function parseLineSeqs(seqs: unknown, field: string): number[] {
  if (!Array.isArray(seqs) || seqs.length === 0 || !seqs.every(isSeq)) {
    throw errors.invalidOptions(`${field} must be a non-empty array of segment seqs.`, { field });
  }
  if (seqs.some((seq, i) => i > 0 && seq !== seqs[i - 1]! + 1)) {
    throw errors.invalidOptions(`${field} must list neighbouring segments only, in order (consecutive seqs such as 4, 5, 6).`, { field });
  }
  return seqs as number[];
}

/** A Retranscribe body: the line and the language to force (null: the recording's, else the line's). */
export interface RetranscribeRequest {
  seqs: number[];
  language: string | null;
}

/** Retranscribe (no extra properties): `seqs` as a LineEdit's, `language` a language code or null/absent. */
export function parseRetranscribe(body: unknown): RetranscribeRequest {
  if (!isObject(body)) throw errors.invalidOptions('The body must be an object: {"seqs": [4, 5], "language": "en"}.', { field: 'body' });
  onlyFields(body, ['seqs', 'language'], '');
  const language = body.language ?? null;
  if (language !== null && (typeof language !== 'string' || !/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(language))) {
    throw errors.invalidOptions(`language must be a language code such as "en" (GET /v1/languages lists them), not `
      + `${JSON.stringify(language)}.`, { field: 'language' });
  }
  return { seqs: parseLineSeqs(body.seqs, 'seqs'), language: language as string | null };
}

/** Validates a CorrectionBatch; a wrong field is `400 invalid_options` naming it (`edits[0].wordIdx`). */
export function parseCorrectionBatch(body: unknown): CorrectionBatch {
  if (!isObject(body)) throw errors.invalidOptions('The body must be a CorrectionBatch object (edits, lines).', { field: 'body' });
  onlyFields(body, ['edits', 'lines'], '');
  const list = (name: 'edits' | 'lines'): unknown[] => {
    const value = body[name] ?? [];
    if (!Array.isArray(value)) throw errors.invalidOptions(`${name} must be an array.`, { field: name });
    return value;
  };
  const edits = list('edits').map((raw, index): WordEdit => {
    const where = `edits[${index}]`;
    if (!isObject(raw)) throw errors.invalidOptions(`${where} must be a WordEdit (seq, wordIdx, to).`, { field: where });
    onlyFields(raw, ['seq', 'wordIdx', 'to'], `${where}.`);
    if (!isSeq(raw.seq)) {
      throw errors.invalidOptions(`${where}.seq must be a segment seq (an integer at or above 0).`, { field: `${where}.seq` });
    }
    if (!isSeq(raw.wordIdx)) {
      throw errors.invalidOptions(`${where}.wordIdx must be an integer at or above 0.`, { field: `${where}.wordIdx` });
    }
    return { seq: raw.seq, wordIdx: raw.wordIdx, to: nonBlank(raw.to, `${where}.to`, 200) };
  });
  const lines = list('lines').map((raw, index): LineEdit => {
    const where = `lines[${index}]`;
    if (!isObject(raw)) throw errors.invalidOptions(`${where} must be a LineEdit (seqs, text).`, { field: where });
    onlyFields(raw, ['seqs', 'text'], `${where}.`);
    return { seqs: parseLineSeqs(raw.seqs, `${where}.seqs`), text: nonBlank(raw.text, `${where}.text`, MAX_TEXT) };
  });
  if (edits.length + lines.length === 0) {
    throw errors.invalidOptions('A CorrectionBatch needs at least one of edits or lines.', { field: 'edits' });
  }
  if (edits.length + lines.length > MAX_ITEMS) {
    throw errors.invalidOptions(`A CorrectionBatch holds at most ${MAX_ITEMS} edits and lines together.`, { field: 'edits' });
  }
  return { edits, lines };
}

const joinWords = (words: Word[]) => words.map((word) => word.text.trim()).filter(Boolean).join(' ');

/**
 * A segment that follows the recording's script (src/transcript/script.ts) shows the script's words as `text`,
 * while its `words` (what `wordIdx` counts) are the recognizer's: a word edit rebuilds `text` from the words, which
 * would throw the script's text away for the recognizer's, and the index would not point at the word the reader
 * sees. Refused (400 naming `edits[i].seq`): a line rewrite (`lines`) says the whole line as it should read. Once a
 * line rewrite stands, `text` is built from the words again and word edits are taken.
 */
function refuseScriptWordEdit(segment: SegmentRow, current: SegmentText, index: number): void {
  if (segment.scriptPos === null || current.text === joinWords(current.words)) return;
  throw errors.invalidOptions(
    `edits[${index}].seq: segment ${segment.seq} follows the recording's script: its text is the script's words, while wordIdx counts the `
      + `recognizer's words (recognizedText), so a word edit would replace the script's text. Rewrite the line instead: {"lines": `
        + `[{"seqs": [${segment.seq}], "text": "…"}]}.`,
    { field: `edits[${index}].seq`, seq: segment.seq, scriptFrom: segment.scriptFrom, scriptPos: segment.scriptPos },
  );
}

/**
 * A line's new words spread over its segments by their share of its duration, each segment's words evenly over its
 * own time (a person's rewrite has no word timings of its own).
 */
function spreadLine(segments: SegmentRow[], text: string): SegmentText[] {
  const said = text.split(/\s+/).filter(Boolean);
  const durations = segments.map((s) => Math.max(s.end - s.start, 0.001));
  const total = durations.reduce((a, b) => a + b, 0);
  let elapsed = 0;
  let taken = 0;
  return segments.map((segment, index) => {
    elapsed += durations[index]!;
    const upTo = index === segments.length - 1 ? said.length : Math.round((said.length * elapsed) / total);
    const own = said.slice(taken, upTo);
    taken = upTo;
    const step = (segment.end - segment.start) / Math.max(own.length, 1);
    const words = own.map((word, i) => ({
      start: round(segment.start + i * step), end: round(segment.start + (i + 1) * step), text: ` ${word}`, prob: 1,
    }));
    return { text: own.join(' '), words };
  });
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** A segment as committed segments look in frames (`transcript.committed`), with its corrected text. */
function committedView(row: SegmentRow, text: SegmentText): Record<string, unknown> {
  const { seq, speaker, start, end, confidence, language, decoder } = row;
  return { seq, speaker, start, end, text: text.text, words: text.words, confidence, language, decoder };
}

/** `503 engine_unavailable` with Retry-After: the line cannot be read now, and a retry is worthwhile. */
function engineUnavailable(message: string, retryAfterS: number, details: Record<string, unknown>): ApiError {
  const after = Math.max(1, Math.ceil(retryAfterS));
  return new ApiError('engine_unavailable', 503, message, {
    details: { retryAfterS: after, ...details }, headers: { 'Retry-After': String(after) },
  });
}

/** The key of a line's fresh reading: its seqs. */
const lineKey = (seqs: number[]) => seqs.join(',');

/** Segments whose text changed, by seq, with the languages their stored translations were in (to translate again). */
type Retranslate = Map<number, string[]>;

/**
 * In the correction's transaction, for a segment whose text it changes: the stored translations are dropped (the
 * text they translate no longer stands), and the languages they were in are noted to translate the new text into.
 */
function dropTranslations(segment: SegmentRow, retranslate: Retranslate): Prisma.SegmentUpdateInput {
  const languages = Object.keys(storedTranslations(segment).translations);
  if (languages.length === 0) return {};
  retranslate.set(segment.seq, languages);
  return { translations: Prisma.DbNull, translationSources: Prisma.DbNull };
}

export class CorrectionsService {
  /**
   * `reader`: fresh readings of a line's audio for the voiced rule (without one the rule has the recognizer's text
   * only) and for retranscribe (without one it answers 503). `languages`: the codes the speech model knows.
   * `summaries`: told of every change of a recording's text (batch, retranscription, revert), so its summary follows.
   * `translate`: text translation (services.translation), for the segments with stored translations a change touches;
   * without it those segments' translations are only dropped.
   */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly reader: FreshReader | null = null,
    private readonly languages: (() => Promise<string[]>) | null = null,
    private readonly summaries: SummaryFollower | null = null,
    private readonly translate: Translate | null = null,
  ) {}

  private loggerInstance: Logger | null = null;

  private get logger(): Logger {
    return (this.loggerInstance ??= createLogger(this.deps.config.logLevel));
  }

  /**
   * After the commit: the changed segments translated again into the languages they had, one language at a time
   * (`translateSegments` stores each and appends its `transcript.translated` frame). A language that fails is logged
   * and stays dropped; the correction stands either way.
   */
  private async retranslate(recordingId: string, retranslate: Retranslate): Promise<void> {
    if (!this.translate || retranslate.size === 0) return;
    const byLanguage = new Map<string, number[]>();
    for (const [seq, languages] of retranslate) for (const lang of languages) byLanguage.set(lang, [...(byLanguage.get(lang) ?? []), seq]);
    for (const [lang, seqs] of byLanguage) {
      try {
        await translateSegments(
          { prisma: this.deps.prisma, pubsub: this.deps.pubsub, translate: this.translate }, recordingId, seqs, [lang],
        );
      } catch (error) {
        this.logger.warn({ recordingId, seqs, lang, error: String(error) }, 'translating corrected segments failed; their translation '
          + 'stays dropped until read again');
      }
    }
  }

  /** In the correction's transaction: the recording's summary, made from the text before it, is stale. */
  private async textChanged(tx: Tx, recordingId: string): Promise<boolean> {
    return (await this.summaries?.markStale(tx, recordingId)) ?? false;
  }

  /** After the commit: its summary is written again (debounced). */
  private afterTextChange(recordingId: string, stale: boolean): void {
    if (stale) this.summaries?.rewriteSoon(recordingId);
  }

  /**
   * Fresh readings of the lines whose recognizer's text lacks a word the batch says there (read before the
   * transaction: decoding must not hold the recording's lock). Targets that do not exist are left to the
   * transaction to refuse.
   */
  private async freshReadings(recordingId: string, batch: CorrectionBatch): Promise<Map<string, string>> {
    const readings = new Map<string, string>();
    if (!this.reader) return readings;
    const targets = [
      ...batch.edits.map((e) => ({ seqs: [e.seq], said: e.to })), ...batch.lines.map((l) => ({ seqs: l.seqs, said: l.text })),
    ];
    const segments = new Map(
      (await this.deps.prisma.segment.findMany({ where: { recordingId, seq: { in: targets.flatMap((t) => t.seqs) } } })).map(
        (s) => [s.seq, s],
      ),
    );
    const recording = await this.deps.prisma.recording.findUniqueOrThrow({
      where: { id: recordingId }, select: { id: true, kind: true, masterPath: true, durationS: true, spokenLanguage: true },
    });
    for (const target of targets) {
      const lineSegments = target.seqs.map((seq) => segments.get(seq));
      const key = lineKey(target.seqs);
      if (readings.has(key) || lineSegments.some((s) => !s)) continue;
      const found = lineSegments as SegmentRow[];
      if (saysOnlyHeard(target.said, [found.map((s) => s.recognizedText ?? s.text).join(' ')])) continue;
      const reading = await this.reader.read(recording, found[0]!.start, found[found.length - 1]!.end, found[0]!.language);
      if (reading !== null) readings.set(key, reading);
    }
    return readings;
  }

  /** The caller's recording, or 404 (another account's looks the same as none). */
  private async ownedRecording(accountId: string, recordingId: string) {
    const recording = await this.deps.prisma.recording.findFirst({
      where: { id: recordingId, accountId }, select: { id: true, lifecycle: true },
    });
    if (!recording) throw errors.notFound('The recording');
    return recording;
  }

  /** Serialises corrections of one recording: the batch reads segments as they stand under the row's lock. */
  private async lockRecording(tx: Tx, recordingId: string): Promise<void> {
    await tx.$queryRaw`SELECT id FROM "Recording" WHERE id = ${recordingId} FOR UPDATE`;
  }

  /** Applies a batch: word edits in order, then line rewrites; all or nothing. */
  async apply(identity: Identity, recordingId: string, body: unknown): Promise<{ batchId: string; corrections: CorrectionView[] }> {
    return this.applyBatch(identity, recordingId, parseCorrectionBatch(body), new Map());
  }

  /** A batch already parsed; `known`: fresh readings the caller already made, by line key. */
  private async applyBatch(identity: Identity, recordingId: string, batch: CorrectionBatch, known: Map<string, string>): Promise<{
    batchId: string; corrections: CorrectionView[];
  }> {
    const recording = await this.ownedRecording(identity.account.id, recordingId);
    if (recording.lifecycle !== 'active') throw errors.invalidState('The recording is archived; restore it before correcting it.');
    const readings = new Map([
      ...(await this.freshReadings(recordingId, { ...batch, lines: batch.lines.filter((l) => !known.has(lineKey(l.seqs))) })), ...known,
    ]);
    const batchId = newId('cbt');
    const actor = {
      actorApiKeyId: identity.principal.kind === 'api_key' ? identity.principal.id : null,
      actorUserId: identity.principal.kind === 'user' ? identity.principal.id : null,
      actorName: identity.principal.displayName,
    };
    const retranslate: Retranslate = new Map();
    const rows = await inTransaction(this.deps, recordingId, async (tx) => {
      retranslate.clear();
      await this.lockRecording(tx, recordingId);
      const wanted = [...new Set([...batch.edits.map((e) => e.seq), ...batch.lines.flatMap((l) => l.seqs)])];
      const stored = await tx.segment.findMany({ where: { recordingId, seq: { in: wanted } } });
      const segments = new Map(stored.map((s) => [s.seq, s]));
      const settled = (seq: number, field: string): SegmentRow => {
        const segment = segments.get(seq);
        if (!segment) {
          throw errors.invalidState(`${field}: segment ${seq} is not settled (no committed segment of this recording has that seq); only `
            + `committed text can be corrected.`, { field, seq });
        }
        return segment;
      };
      // The text of each touched segment as the batch goes, starting from what is stored.
      const current = new Map<number, SegmentText>(stored.map((s) => [s.seq, { text: s.text, words: s.words as unknown as Word[] }]));
      const recognized = (seq: number) => segments.get(seq)!.recognizedText ?? segments.get(seq)!.text;
      // What the audio supports: the recognizer's text of the line, and its fresh reading when one was made.
      const heard = (seqs: number[]) => [
        seqs.map(recognized).join(' '), ...(readings.has(lineKey(seqs)) ? [readings.get(lineKey(seqs))!] : []),
      ];
      const pending: Array<Omit<Prisma.CorrectionCreateManyInput, 'id' | 'batchId' | 'recordingId' | 'createdAt'>> = [];
      batch.edits.forEach((edit, index) => {
        const segment = settled(edit.seq, `edits[${index}].seq`);
        const before = current.get(edit.seq)!;
        refuseScriptWordEdit(segment, before, index);
        const word = before.words[edit.wordIdx];
        if (!word) {
          throw errors.invalidOptions(`edits[${index}].wordIdx: segment ${edit.seq} has ${before.words.length} words (0 to `
            + `${before.words.length - 1}).`, { field: `edits[${index}].wordIdx` });
        }
        // The engine's words carry their leading space: the edited word keeps it.
        const words = before.words.map((w, i) => (i === edit.wordIdx ? { ...w, text: `${/^\s*/.exec(w.text)![0]}${edit.to}` } : w));
        const after = { text: joinWords(words), words };
        current.set(edit.seq, after);
        const verdict = voicedVerdict({ said: edit.to, heard: heard([edit.seq]), resulting: after.text });
        pending.push({
          kind: 'word', seq: edit.seq, speaker: segment.speaker, wordIdx: edit.wordIdx, from: word.text.trim(), to: edit.to,
          before: before as never, after: after as never, voiced: verdict.voiced, notVoicedReason: verdict.notVoicedReason,
        });
      });
      batch.lines.forEach((line, index) => {
        const lineSegments = line.seqs.map((seq) => settled(seq, `lines[${index}].seqs`));
        const verdict = voicedVerdict({ said: line.text, heard: heard(line.seqs), resulting: line.text });
        const spread = spreadLine(lineSegments, line.text);
        lineSegments.forEach((segment, i) => {
          const before = current.get(segment.seq)!;
          current.set(segment.seq, spread[i]!);
          pending.push({
            kind: 'line', seq: segment.seq, speaker: segment.speaker, wordIdx: null, from: before.text, to: spread[i]!.text,
            before: before as never, after: spread[i]! as never, voiced: verdict.voiced, notVoicedReason: verdict.notVoicedReason,
          });
        });
      });
      // Distinct times, newest last, after any correction already stored: the listing's order is the order applied.
      const latest = await tx.correction.findFirst({ where: { recordingId }, orderBy: { createdAt: 'desc' }, select: { createdAt: true } });
      const base = Math.max(Date.now(), (latest?.createdAt.getTime() ?? 0) + 1);
      const created = pending.map((row, index) => ({
        ...row, ...actor, id: newId('cor'), batchId, recordingId, createdAt: new Date(base + index),
      }));
      await tx.correction.createMany({ data: created });
      for (const [seq, text] of current) {
        const segment = segments.get(seq)!;
        if (text.text === segment.text && JSON.stringify(text.words) === JSON.stringify(segment.words)) continue;
        const translations = text.text === segment.text ? {} : dropTranslations(segment, retranslate);
        await tx.segment.update({
          where: { id: segment.id },
          data: { text: text.text, words: text.words as object[], recognizedText: segment.recognizedText ?? segment.text, ...translations },
        });
      }
      const frames: PendingFrame[] = created.map((row) => ({
        type: 'transcript.corrected', audience: 'log',
        body: {
          seq: row.seq, segment: committedView(segments.get(row.seq)!, row.after as unknown as SegmentText), correctionId: row.id, batchId,
        },
      }));
      return { result: { created, stale: await this.textChanged(tx, recordingId) }, frames };
    });
    this.afterTextChange(recordingId, rows.stale);
    await this.retranslate(recordingId, retranslate);
    const saved = await this.deps.prisma.correction.findMany({
      where: { id: { in: rows.created.map((r) => r.id) } }, orderBy: { createdAt: 'asc' },
    });
    return { batchId, corrections: saved.map(correctionView) };
  }

  /**
   * `POST /v1/recordings/{id}/retranscribe`: reads one line's stored audio again with the language forced (beam
   * search) and applies what the engine heard as a line rewrite: the same revertible `line` corrections as a
   * CorrectionBatch's, one per segment, voiced (the words are the audio's own). Refused: a target not settled
   * (409), a line over MAX_CLIP_S or past the end of a finished recording's audio (400), a language the model does
   * not know (400), no speech heard (409); `503 engine_unavailable` with Retry-After while the line's audio has not
   * reached this machine or the engine is unavailable or busy (nothing applied; retrying is worthwhile).
   */
  async retranscribe(identity: Identity, recordingId: string, body: unknown): Promise<{
    batchId: string; corrections: CorrectionView[]; text: string; language: string;
  }> {
    const request = parseRetranscribe(body);
    const owned = await this.ownedRecording(identity.account.id, recordingId);
    if (owned.lifecycle !== 'active') throw errors.invalidState('The recording is archived; restore it before correcting it.');
    const recording = await this.deps.prisma.recording.findUniqueOrThrow({
      where: { id: recordingId }, select: { id: true, kind: true, masterPath: true, durationS: true, spokenLanguage: true },
    });
    const found = new Map(
      (await this.deps.prisma.segment.findMany({ where: { recordingId, seq: { in: request.seqs } } })).map((s) => [s.seq, s]),
    );
    const missing = request.seqs.find((seq) => !found.has(seq));
    if (missing !== undefined) {
      throw errors.invalidState(`seqs: segment ${missing} is not settled (no committed segment of this recording has that seq); only `
        + `committed text can be retranscribed.`, { field: 'seqs', seq: missing });
    }
    const line = request.seqs.map((seq) => found.get(seq)!);
    const language = request.language ?? recording.spokenLanguage ?? line[0]!.language;
    if (!language) {
      throw errors.invalidOptions('language is required: the recording has no spoken language to default to.', { field: 'language' });
    }
    const known = await this.languages?.().catch(() => null);
    if (known && !known.includes(language.split('-')[0]!.toLowerCase())) {
      throw errors.invalidOptions(
        `language "${language}" is not a language the speech model knows (GET /v1/languages lists them).`, { field: 'language', language },
      );
    }
    const startS = line[0]!.start;
    const endS = line[line.length - 1]!.end;
    const reading = this.reader
      ? await this.reader.readLine(recording, startS, endS, language, { whole: true })
      : ({ kind: 'engine', retryAfterS: 5, message: 'This process runs no speech engine.' } as const);
    switch (reading.kind) {
      case 'text':
        break;
      case 'no_audio':
        throw engineUnavailable(`The line's audio (to ${endS.toFixed(2)} s) has not reached this machine yet (${reading.haveS.toFixed(2)} `
          + `s so far); retry shortly.`, 2, { reason: 'audio_not_here', haveS: reading.haveS, needS: endS });
      case 'engine':
        throw engineUnavailable(
          `The speech engine cannot read the line now: ${reading.message}`, reading.retryAfterS, { reason: 'engine' },
        );
      case 'too_long':
        throw errors.invalidOptions(`seqs: the line is ${(endS - startS).toFixed(1)} s long; at most ${MAX_CLIP_S} s can be retranscribed `
          + `at once.`, { field: 'seqs' });
      case 'past_end':
        throw errors.invalidOptions(`seqs: the line ends at ${endS.toFixed(2)} s, past the end of the recording's audio `
          + `(${reading.haveS.toFixed(2)} s).`, { field: 'seqs' });
    }
    if (!reading.text) {
      throw errors.invalidState('The engine heard no speech in the line\'s audio; nothing was applied.', { field: 'seqs' });
    }
    const text = reading.text.slice(0, MAX_TEXT);
    const applied = await this.applyBatch(
      identity, recordingId, { edits: [], lines: [{ seqs: request.seqs, text }] }, new Map([[lineKey(request.seqs), text]]),
    );
    return { ...applied, text, language };
  }

  /** A recording's corrections, newest first, paged with `cursor`. */
  async list(accountId: string, recordingId: string, query: { cursor?: string | null; limit?: number | null }): Promise<{
    corrections: CorrectionView[]; nextCursor: string | null;
  }> {
    await this.ownedRecording(accountId, recordingId);
    const page = await pageNewestFirst(query, (after, take) => this.deps.prisma.correction.findMany({
      where: { recordingId, ...after },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    }));
    return { corrections: page.rows.map(correctionView), nextCursor: page.nextCursor };
  }

  /** Undoes one correction: its segment reads as it did before it; `transcript.corrected` goes out again. */
  async revert(accountId: string, correctionId: string): Promise<CorrectionView> {
    const found = await this.deps.prisma.correction.findFirst({
      where: { id: correctionId, recording: { accountId } }, select: { recordingId: true },
    });
    if (!found) throw errors.notFound('The correction');
    const retranslate: Retranslate = new Map();
    const row = await inTransaction(this.deps, found.recordingId, async (tx) => {
      await this.lockRecording(tx, found.recordingId);
      const correction = await tx.correction.findUniqueOrThrow({ where: { id: correctionId } });
      if (correction.revertedAt) {
        throw errors.invalidState(`The correction was already reverted at ${correction.revertedAt.toISOString()}.`, {
          revertedAt: correction.revertedAt.toISOString(),
        });
      }
      const later = await tx.correction.findMany({
        where: { recordingId: correction.recordingId, seq: correction.seq, revertedAt: null, createdAt: { gt: correction.createdAt } },
        orderBy: { createdAt: 'desc' },
      });
      const blocking = later.find((other) => correction.kind === 'line' || other.kind === 'line' || other.wordIdx === correction.wordIdx);
      if (blocking) {
        throw errors.invalidState(
          `A later correction (${blocking.id}) changed the same words; revert it first.`, { laterCorrectionId: blocking.id },
        );
      }
      const segment = await tx.segment.findUniqueOrThrow({ where: { recordingId_seq: {
        recordingId: correction.recordingId, seq: correction.seq,
      } } });
      const before = correction.before as unknown as SegmentText;
      let restored = before;
      if (correction.kind === 'word') {
        // Only this word goes back: edits of other words (later ones that stand, earlier ones reverted since) keep
        // their state. When the words come out as they were before it, so does the text, exactly.
        const words = (segment.words as unknown as Word[]).map((w, i) => (i === correction.wordIdx ? before.words[i]! : w));
        restored = JSON.stringify(words) === JSON.stringify(before.words) ? before : { text: joinWords(words), words };
      }
      retranslate.clear();
      const translations = restored.text === segment.text ? {} : dropTranslations(segment, retranslate);
      await tx.segment.update({
        where: { id: segment.id }, data: { text: restored.text, words: restored.words as object[], ...translations },
      });
      const reverted = await tx.correction.update({ where: { id: correctionId }, data: { revertedAt: new Date() } });
      const frame: PendingFrame = {
        type: 'transcript.corrected', audience: 'log',
        body: { seq: segment.seq, segment: committedView(segment, restored), correctionId, batchId: correction.batchId, reverted: true },
      };
      return { result: { reverted, stale: await this.textChanged(tx, found.recordingId) }, frames: [frame] };
    });
    this.afterTextChange(found.recordingId, row.stale);
    await this.retranslate(found.recordingId, retranslate);
    return correctionView(row.reverted);
  }
}
