import { builder } from '../core/builder.js';
import { PurgedType } from '../core/lifecycle.js';
import { MAX_TRANSLATION_SENTENCES, readerOf, type RecordingTranslation, type TranscriptSnapshot } from './service.js';
import { parseSpeakerName } from './speakers.js';

/**
 * A recording read by its owner, a `shareCode` or a broadcast's listener (`listenerToken`, or nothing for a public
 * broadcast), from `after` (a cursor), in `lang`: the snapshot query's and the frames subscription's arguments.
 */
export const recordingReaderArgs = builder.args((t) => ({
  recordingId: t.id({ required: true }), after: t.int(), lang: t.string(), shareCode: t.string(), listenerToken: t.string(),
}));

export const ConfidencePolicyInput = builder.inputType('ConfidencePolicyInput', {
  description: 'ConfidencePolicy: when a line is hidden as unclear and which words are low confidence.',
  fields: (t) => ({
    hideBelow: t.float({ description: '0..1, default 0.60: a line whose confidence is below it is flagged unclear.' }),
    lowThreshold: t.float({ description: '0..1: words with `prob` below it are low confidence.' }),
    suppressCount: t.int({ description: 'No longer read; accepted so stored settings round-trip.' }),
  }),
});

type Stored = Record<string, unknown>;
const storedNumber = (value: unknown) => (typeof value === 'number' ? value : null);
const storedString = (value: unknown) => (typeof value === 'string' ? value : null);

const ConfidencePolicyType = builder.objectRef<Stored>('ConfidencePolicy').implement({
  description: 'When a line is hidden as unclear and which words are low confidence; a field left unset is null (its default).',
  fields: (t) => ({
    hideBelow: t.float({
      nullable: true, description: '0..1 (default 0.60): a line whose confidence is below it is flagged unclear.',
      resolve: (policy) => storedNumber(policy.hideBelow),
    }),
    lowThreshold: t.float({
      nullable: true, description: '0..1: words with `prob` below it are low confidence.',
      resolve: (policy) => storedNumber(policy.lowThreshold),
    }),
    suppressCount: t.int({
      nullable: true, description: 'No longer read; kept so stored settings round-trip.',
      resolve: (policy) => storedNumber(policy.suppressCount),
    }),
  }),
});

/**
 * Capture settings as stored on a transcription, a broadcast (the defaults of what they record) or a recording (as it
 * was recorded, and as changed while live). A setting never set is null: its default applies.
 */
export const SettingsType = builder.objectRef<Stored>('Settings').implement({
  description: 'Capture settings; a setting never set is null (its default applies). `latencyMode`, `translate` and `llmFix` are a '
    + 'live recording\'s own, as changed while recording.',
  fields: (t) => ({
    spokenLanguage: t.string({
      nullable: true, description: 'A language code; null: detect.', resolve: (s) => storedString(s.spokenLanguage),
    }),
    speakerLabels: t.string({ nullable: true, description: '`auto`, `on` or `off`.', resolve: (s) => storedString(s.speakerLabels) }),
    confidencePolicy: t.field({
      type: ConfidencePolicyType, nullable: true,
      resolve: (s) => (typeof s.confidencePolicy === 'object' && s.confidencePolicy !== null ? (s.confidencePolicy as Stored) : null),
    }),
    voiceByLang: t.field({
      type: 'LanguageMap', nullable: true, description: 'The voice that speaks each language of a spoken translation.',
      resolve: (s) => (typeof s.voiceByLang === 'object' && s.voiceByLang !== null ? (s.voiceByLang as Record<string, string>) : null),
    }),
    latencyMode: t.string({
      nullable: true, description: 'A live recording\'s: `auto`, `fast` or `accuracy`.', resolve: (s) => storedString(s.latencyMode),
    }),
    translate: t.stringList({
      nullable: true, description: 'A live recording\'s: the languages each line is translated into as it is committed.',
      resolve: (s) => (Array.isArray(s.translate) ? s.translate.filter((lang): lang is string => typeof lang === 'string') : null),
    }),
    llmFix: t.boolean({
      nullable: true, description: 'A live recording\'s: lines fixed by the chat model.',
      resolve: (s) => (typeof s.llmFix === 'boolean' ? s.llmFix : null),
    }),
  }),
});

type Sentence = TranscriptSnapshot['sentences'][number];
type SegmentRow = TranscriptSnapshot['segments'][number];
interface WordValue { start: number; end: number; text: string; prob: number; low?: true }

export const WordType = builder.objectRef<WordValue>('Word').implement({
  fields: (t) => ({
    start: t.exposeFloat('start'),
    end: t.exposeFloat('end'),
    text: t.exposeString('text'),
    prob: t.exposeFloat('prob'),
    low: t.boolean({ nullable: true, description: 'True when `prob` is below the confidence policy\'s `lowThreshold` (a low-confidence '
      + 'word); null otherwise or without a threshold.', resolve: (w) => w.low ?? null }),
  }),
});

export const TranscriptSentenceType = builder.objectRef<Sentence>('TranscriptSentence').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    speaker: t.exposeInt('speaker', { description: '-1: speaker labels were off.' }),
    start: t.exposeFloat('start'),
    end: t.exposeFloat('end'),
    text: t.exposeString('text'),
    translations: t.field({ type: 'LanguageMap', description: 'Translations of `text` by language.', resolve: (s) => s.translations }),
    confidence: t.exposeFloat('confidence', { nullable: true }),
    unclear: t.boolean({ nullable: true, description: 'Below the confidence policy\'s hideBelow; every word is kept (owner and share-link '
      + 'readers).', resolve: (s) => s.unclear ?? null }),
    suppressed: t.boolean({ nullable: true, description: 'Below the confidence policy\'s hideBelow, read by a broadcast listener: the '
      + 'text is blank ("Audio unclear").', resolve: (s) => s.suppressed ?? null }),
  }),
});

export const TranscriptSegmentType = builder.objectRef<SegmentRow>('TranscriptSegment').implement({
  fields: (t) => ({
    seq: t.exposeInt('seq'),
    speaker: t.exposeInt('speaker'),
    speakerConfidence: t.exposeFloat('speakerConfidence', { nullable: true, description: '0..1 diarization confidence of `speaker`; null '
      + 'when speaker labels were off.' }),
    translations: t.field({ type: 'LanguageMap', description: 'Machine translations of `text` by language (`{"de": "…"}`), made as it was '
      + 'committed (the session\'s `translate`) or later; a listener sees only its `lang`. `{}`: none.', resolve: (s) => s.translations }),
    translationSources: t.field({ type: 'LanguageMap', description: 'Who made each translation, by language: `cache`, `apertium`, '
      + '`google`, `llm` or `whisper`.', resolve: (s) => s.translationSources }),
    speakerProvisional: t.exposeBoolean('speakerProvisional', { nullable: true, description: 'Live capture: true while `speaker` is the '
      + 'online guess; a `transcript.speaker` frame settles it (false). Null for file jobs and when labels were off.' }),
    start: t.exposeFloat('start'),
    end: t.exposeFloat('end'),
    text: t.exposeString('text'),
    words: t.field({ type: [WordType], resolve: (s) => s.words as WordValue[] }),
    confidence: t.exposeFloat('confidence', { nullable: true }),
    language: t.exposeString('language', { nullable: true }),
    decoder: t.exposeString('decoder', { nullable: true }),
    recognizedText: t.exposeString('recognizedText', { nullable: true, description: 'What the recognizer heard, when `text` is not it: '
      + 'the segment follows the recording\'s script (`text` is the script\'s words), or a person corrected it. Null otherwise.' }),
    scriptFrom: t.exposeInt('scriptFrom', { nullable: true, description: 'Script following: the first script word matched (inclusive; '
      + 'script words are its whitespace-separated tokens carrying a letter or digit, from 0). Null without a script or when unmatched.' }),
    scriptPos: t.exposeInt('scriptPos', { nullable: true, description: 'Script following: one past the last script word matched '
      + '(exclusive), the teleprompter\'s position. Null without a script or when unmatched.' }),
    suppressed: t.boolean({ nullable: true, description: 'Below the confidence policy, read by a broadcast listener: text blank, no '
      + 'words.', resolve: (s) => s.suppressed ?? null }),
  }),
});

export const SpeakerType = builder.objectRef<{ index: number; name: string | null }>('TranscriptSpeaker').implement({
  description: 'A speaker of the recording: its label (`index`, from 0, as segments carry it) and the name given to it, or null.',
  fields: (t) => ({ index: t.exposeInt('index'), name: t.exposeString('name', { nullable: true }) }),
});

builder.mutationFields((t) => ({
  nameRecordingSpeaker: t.field({
    type: SpeakerType,
    description: 'Name speaker `idx` (an integer from 0) of a recording: trimmed, at most 100 characters; null or empty clears the name. '
      + 'Shown in snapshots (`speakers`) and every export; subscribers get a `transcript.speaker` frame (`speaker`, `name`). Owner '
      + 'only.',
    authScopes: { write: true },
    args: {
      recordingId: t.arg.id({ required: true }), idx: t.arg.int({ required: true }),
      name: t.arg.string({ description: 'null or empty: clear the name.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.recordings.nameSpeaker(
      ctx.identity!.account.id, String(args.recordingId), args.idx, parseSpeakerName({ name: args.name ?? null }),
    ),
  }),
}));

export const TranscriptJobStateType = builder.objectRef<NonNullable<TranscriptSnapshot['job']>>('TranscriptJobState').implement({
  fields: (t) => ({ state: t.exposeString('state'), pct: t.exposeFloat('pct') }),
});

export const TranscriptSnapshotType = builder.objectRef<TranscriptSnapshot>('TranscriptSnapshot').implement({
  description: 'The transcript up to `lastSeq`; while the job runs it is `partial`.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    transcriptionId: t.exposeID('transcriptionId'),
    state: t.exposeString('state'),
    language: t.exposeString('language', { nullable: true }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    lastSeq: t.exposeInt('lastSeq', { description: 'The durable log\'s cursor this snapshot reflects (-1: nothing yet).' }),
    partial: t.exposeBoolean('partial', { description: 'The job still runs.' }),
    job: t.field({ type: TranscriptJobStateType, nullable: true, resolve: (s) => s.job }),
    sentences: t.field({ type: [TranscriptSentenceType], resolve: (s) => s.sentences }),
    segments: t.field({ type: [TranscriptSegmentType], resolve: (s) => s.segments }),
    speakers: t.field({ type: [SpeakerType], resolve: (s) => s.speakers }),
  }),
});

const TranslatedSentenceType = builder.objectRef<RecordingTranslation['sentences'][number]>('TranslatedSentence').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The sentence id, as the transcript snapshot gives it.' }),
    start: t.exposeFloat('start'),
    end: t.exposeFloat('end'),
    text: t.exposeString('text', { description: 'The sentence as spoken (corrections included); blank when `suppressed`.' }),
    translation: t.exposeString('translation', { description: 'The sentence in `lang`; blank when `suppressed`.' }),
    source: t.exposeString('source', { description: 'Who translated it: `cache`, `apertium`, `google`, `llm` or `whisper` (read in '
      + 'English from the sentence\'s audio: the English pivot); `none` for a blank line.' }),
    suppressed: t.boolean({
      nullable: true, description: 'A broadcast listener\'s line under the confidence policy: blank.', resolve: (s) => s.suppressed ?? null,
    }),
  }),
});

const RecordingTranslationType = builder.objectRef<RecordingTranslation>('RecordingTranslation').implement({
  description: 'Sentences of a recording in a translation target.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    lang: t.exposeString('lang', { description: 'The language translated into.' }),
    language: t.exposeString('language', { nullable: true, description: 'The spoken language translated from.' }),
    sentences: t.field({ type: [TranslatedSentenceType], resolve: (r) => r.sentences }),
  }),
});

builder.queryFields((t) => ({
  recordingTranslation: t.field({
    type: RecordingTranslationType,
    description: `Sentences of a recording in \`lang\` (a translation target; GET /v1/languages lists them): \`sentences\` names up to `
      + `${MAX_TRANSLATION_SENTENCES} ids as the snapshot gives them (all when absent). Owner, a broadcast listener, or a share link that `
        + `allows translation.`,
    authScopes: { public: true },
    args: {
      recordingId: t.arg.id({ required: true }), lang: t.arg.string({ required: true }), sentences: t.arg.stringList(),
      shareCode: t.arg.string(), listenerToken: t.arg.string(),
    },
    resolve: (_root, args, ctx) => ctx.services.recordings.translation(String(args.recordingId), readerOf(ctx, args), {
      lang: args.lang, sentences: args.sentences ?? null,
    }),
  }),
}));

interface EventEntry { seq: number; type: string; at: string; frame: unknown }
export const RecordingEventType = builder.objectRef<EventEntry>('RecordingEvent').implement({
  fields: (t) => ({
    seq: t.exposeInt('seq'),
    type: t.exposeString('type'),
    at: t.exposeString('at', { description: 'When the event was written.' }),
    frame: t.field({ type: 'Frame', resolve: (e) => e.frame as { type: string } }),
  }),
});

export const RecordingEventPageType = builder.objectRef<{ events: EventEntry[]; lastSeq: number; nextCursor: string | null }>(
  'RecordingEventPage',
).implement({
  fields: (t) => ({
    events: t.field({ type: [RecordingEventType], resolve: (p) => p.events }),
    lastSeq: t.exposeInt('lastSeq'),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

export const MediaTokenType = builder.objectRef<{ token: string; expiresAt: string }>('MediaToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Pass as `media=` on /audio and /audio/clip of this recording.' }),
    expiresAt: t.exposeString('expiresAt'),
  }),
});

export const CaptureSpanType = builder.objectRef<import('./service.js').CaptureSpanView>('CaptureSpan').implement({
  description: 'CaptureSpan: wall and media seconds from the recording\'s start; `mediaEnd`/`wallEnd` absent while it runs.',
  fields: (t) => ({
    idx: t.exposeInt('idx'),
    wallStart: t.exposeFloat('wallStart'),
    mediaStart: t.exposeFloat('mediaStart'),
    reason: t.exposeString('reason', { description: 'start, resume or attach.' }),
    mediaEnd: t.exposeFloat('mediaEnd', { nullable: true }),
    wallEnd: t.exposeFloat('wallEnd', { nullable: true }),
  }),
});

/** A stream source's pull as stored (the live module's IngestReport), read defensively: it is a JSON column. */
export const RecordingIngestType = builder.objectRef<Record<string, unknown>>('RecordingIngest').implement({
  description: 'A stream source\'s pull by the server, as `stream.ingest` frames report it.',
  fields: (t) => ({
    state: t.string({
      description: 'connecting, streaming, reconnecting or failed.', resolve: (ingest) => String(ingest.state ?? 'connecting'),
    }),
    bytes: t.float({
      description: 'Bytes read from the source (HLS playlists and segments included).', resolve: (ingest) => Number(ingest.bytes ?? 0),
    }),
    seconds: t.float({ description: 'Seconds of audio decoded from it.', resolve: (ingest) => Number(ingest.seconds ?? 0) }),
    reconnects: t.int({ resolve: (ingest) => Number(ingest.reconnects ?? 0) }),
    error: t.string({
      nullable: true,
      description: 'Why the last connection ended or failed.',
      resolve: (ingest) => (typeof ingest.error === 'string' ? ingest.error : null),
    }),
  }),
});

export const RecordingType = builder.objectRef<import('./service.js').RecordingView>('Recording').implement({
  description: 'The unit that holds a transcript. A file or link transcription has exactly one; a live one, one per start.',
  fields: (t) => ({
    id: t.exposeID('id'),
    transcriptionId: t.exposeID('transcriptionId'),
    kind: t.exposeString('kind', { description: 'file (a file or link job) or live.' }),
    name: t.exposeString('name', { nullable: true }),
    state: t.exposeString('state', { description: 'File recordings: processing, ended (job failed) or finalized. Live: live ⇄ paused → '
      + 'ended → finalized.' }),
    lifecycle: t.exposeString('lifecycle', { description: 'active or archived.' }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    spokenLanguage: t.exposeString('spokenLanguage', { nullable: true }),
    lastSeq: t.exposeInt('lastSeq'),
    scriptText: t.exposeString('scriptText', { nullable: true }),
    settings: t.field({
      type: SettingsType,
      description: 'Capture settings: spokenLanguage, speakerLabels, confidencePolicy; a live recording also latencyMode, as changed while '
        + 'recording.',
      resolve: (r) => r.settings,
    }),
    ingest: t.field({ type: RecordingIngestType, nullable: true, description: 'Live, stream source (null otherwise): the server\'s pull '
      + 'of the stream, as `stream.ingest` frames report it.', resolve: (r) => r.ingest }),
    captureSpans: t.field({
      type: [CaptureSpanType],
      description: 'Live: stretches of capture; `wallStart`/`wallEnd` seconds since the recording started, `mediaStart`/`mediaEnd` on the '
        + 'media time line (paused audio is not on it).',
      resolve: (r) => r.captureSpans,
    }),
    endedAt: t.exposeString('endedAt', { nullable: true }),
    finalizedAt: t.exposeString('finalizedAt', { nullable: true }),
    title: t.exposeString('title', { nullable: true, description: 'The summary\'s title once it is ready: poll the recording after asking '
      + 'for a summary; the summary query says its state and translates it.' }),
    summary: t.exposeString('summary', { nullable: true, description: 'The summary\'s text once it is ready, in the spoken language.' }),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    archivedAt: t.exposeString('archivedAt', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  recording: t.field({
    type: RecordingType,
    description: 'One recording: its owner, anyone with a `shareCode` of its transcription or of a broadcast it feeds, or that '
      + 'broadcast\'s listener (nothing for a public broadcast, a `listenerToken` for a private one).',
    authScopes: { public: true },
    args: { id: t.arg.id({ required: true }), shareCode: t.arg.string(), listenerToken: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.recordings.get(String(args.id), readerOf(ctx, args)),
  }),
  recordingTranscript: t.field({
    type: TranscriptSnapshotType,
    description: 'Transcript snapshot (sentences, segments with words, speakers) up to `lastSeq`, the durable log\'s cursor it reflects; '
      + '`after` (a cursor) returns what changed since. Owner, a `shareCode`, or a broadcast listener (nothing for a public broadcast, '
      + 'a `listenerToken` for a private one; lines under the confidence policy come `suppressed`).',
    // A share code is a credential of its own: the service decides between owner and link.
    authScopes: { public: true },
    args: recordingReaderArgs,
    resolve: (_root, args, ctx) => ctx.services.recordings.transcript(
      String(args.recordingId), readerOf(ctx, args), { after: args.after, lang: args.lang },
    ),
  }),
  recordingEvents: t.field({
    type: RecordingEventPageType,
    description: 'The recording\'s durable event log in order; `cursor` from a previous page or `after` a seq, not both.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }), cursor: t.arg.string(), after: t.arg.int(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.events(ctx.identity!.account.id, String(args.recordingId), args),
  }),
  recordingMediaToken: t.field({
    type: MediaTokenType,
    description: 'The owner\'s credential for this recording\'s media URLs: the same for a UTC day, valid to the end of the next.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.recordings.mediaToken(String(args.recordingId), { accountId: ctx.identity!.account.id }),
  }),
}));

builder.mutationFields((t) => ({
  archiveRecording: t.field({
    type: RecordingType,
    description: 'Hide a recording: share-link reads answer 404 and its job leaves the queue; data kept.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.archiveRecording(ctx.identity!.account.id, String(args.id)),
  }),
  restoreRecording: t.field({
    type: RecordingType,
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.restoreRecording(ctx.identity!.account.id, String(args.id)),
  }),
  purgeRecording: t.field({
    type: PurgedType,
    description: 'Delete an archived recording (transcript, events, job, media) for good: `{id, purged: true}`.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.purgeRecording(ctx.identity!.account.id, String(args.id)),
  }),
}));

// No recording subscription yet: the live recordings module adds one (and publishes its topic) with the subscribe socket.
