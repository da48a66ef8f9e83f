import { builder } from '../core/builder.js';
import type { Actor, CorrectionView } from './service.js';

export const WordEditInput = builder.inputType('WordEditInput', {
  description: 'WordEdit: replace one word of a settled segment.',
  fields: (t) => ({
    seq: t.int({ required: true, description: 'The committed segment\'s seq.' }),
    wordIdx: t.int({ required: true, description: 'The word\'s index in the segment\'s `words`, from 0.' }),
    to: t.string({ required: true, description: 'The word as it should read. Not blank; at most 200 characters.' }),
  }),
});

export const LineEditInput = builder.inputType('LineEditInput', {
  description: 'LineEdit: rewrite a whole line, one segment or several neighbouring ones.',
  fields: (t) => ({
    seqs: t.intList({ required: true, description: 'The line\'s segments: consecutive seqs in order (4, 5, 6).' }),
    text: t.string({ required: true, description: 'The line as it should read; its words are spread over the segments by duration. Not '
      + 'blank; at most 5000 characters.' }),
  }),
});

export const CorrectionBatchInput = builder.inputType('CorrectionBatchInput', {
  description: 'CorrectionBatch: `edits` then `lines`, applied atomically; at least one edit or line, at most 500 together.',
  fields: (t) => ({
    edits: t.field({ type: [WordEditInput], description: 'Word edits (WordEdit: replace word `wordIdx`, from 0, of segment `seq` with '
      + '`to`), applied first, in order.' }),
    lines: t.field({ type: [LineEditInput], description: 'Whole-line rewrites (LineEdit: rewrite segments `seqs`, consecutive and in '
      + 'order, as `text`; its words are spread over the segments by their duration), applied after `edits`.' }),
  }),
});

export const ActorType = builder.objectRef<Actor>('Actor').implement({
  description: 'Who did it: the API key or the signed-in person, and their display name.',
  fields: (t) => ({
    apiKeyId: t.exposeString('apiKeyId', { nullable: true }),
    displayName: t.exposeString('displayName', { nullable: true }),
    userId: t.exposeString('userId', { nullable: true }),
  }),
});

export const CorrectionType = builder.objectRef<CorrectionView>('Correction').implement({
  description: 'One segment\'s correction: a word edit (`wordIdx`) or its part of a line rewrite.',
  fields: (t) => ({
    id: t.exposeID('id'),
    batchId: t.exposeID('batchId', { description: 'The CorrectionBatch it came in.' }),
    kind: t.exposeString('kind', {
      description: '`word`: one word of a segment (`wordIdx`); `line`: one segment\'s part of a whole-line rewrite (a line over n '
        + 'segments is n corrections of one batch).',
    }),
    from: t.exposeString('from', { description: 'The word (`word`) or the segment\'s text (`line`) before.' }),
    to: t.exposeString('to', { description: 'The word or the segment\'s text after.' }),
    actor: t.field({ type: ActorType, resolve: (c) => c.actor }),
    appliedAt: t.exposeString('appliedAt'),
    seq: t.exposeInt('seq', { nullable: true }),
    speaker: t.exposeInt('speaker', { nullable: true }),
    wordIdx: t.exposeInt('wordIdx', { nullable: true }),
    revertedAt: t.exposeString('revertedAt', { nullable: true }),
    voiced: t.exposeBoolean('voiced', {
      nullable: true,
      description: 'On a correction that stands. True only when every word it says is a word of the recognizer\'s text of the line '
        + '(punctuation, case, Latin accents and number formatting aside: "twenty one" = "21") or of a fresh automatic reading of the '
        + 'line\'s audio (made when the recognizer\'s text lacks a word it says), and it drops no negation the recognizer heard ("not", '
        + '"never", "n\'t", "no" and their equivalents).',
    }),
    notVoicedReason: t.exposeString('notVoicedReason', { nullable: true, description: '`rewrite` when not voiced: voices keep speaking '
      + 'what the recognizer heard.' }),
  }),
});

export const CorrectionPageType = builder.objectRef<{
  corrections: CorrectionView[]; nextCursor: string | null;
}>('CorrectionPage').implement({
  fields: (t) => ({
    corrections: t.field({ type: [CorrectionType], resolve: (p) => p.corrections }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Absent on the last page.' }),
  }),
});

export const CorrectionBatchResultType = builder.objectRef<{
  batchId: string; corrections: CorrectionView[];
}>('CorrectionBatchResult').implement({
  fields: (t) => ({
    batchId: t.exposeID('batchId'),
    corrections: t.field({
      type: [CorrectionType], description: 'One per corrected segment, in the order applied.', resolve: (b) => b.corrections,
    }),
  }),
});

export const RetranscribeInput = builder.inputType('RetranscribeInput', {
  description: 'Retranscribe: one line of settled segments and the language to read it in.',
  fields: (t) => ({
    seqs: t.intList({ required: true, description: 'The line\'s segments, as a LineEdit\'s: consecutive seqs in order (4, 5, 6), each '
      + 'committed.' }),
    language: t.string({ description: 'The language the line is read in (forced; a code GET /v1/languages lists). Absent or null: the '
      + 'recording\'s spoken language, else the one the line was recognized in.' }),
  }),
});

export const RetranscribeResultType = builder.objectRef<{ batchId: string; corrections: CorrectionView[]; text: string; language: string }>(
  'RetranscribeResult',
).implement({
  description: 'What the engine heard, applied as a line rewrite: one `line` correction per segment of one batch, each revertible.',
  fields: (t) => ({
    batchId: t.exposeID('batchId'),
    corrections: t.field({
      type: [CorrectionType], description: 'One `line` correction per segment, in order; voiced.', resolve: (r) => r.corrections,
    }),
    text: t.exposeString('text', { description: 'The line as the engine read it.' }),
    language: t.exposeString('language', { description: 'The language it was read in.' }),
  }),
});

builder.queryFields((t) => ({
  recordingCorrections: t.field({
    type: CorrectionPageType,
    description: 'A recording\'s corrections, newest first, paged with `cursor`. Owner only.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }), cursor: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.corrections.list(ctx.identity!.account.id, String(args.recordingId), args),
  }),
}));

builder.mutationFields((t) => ({
  correctRecording: t.field({
    type: CorrectionBatchResultType,
    description: 'Apply a CorrectionBatch atomically (word edits, then line rewrites); every target must be a committed segment. Owner '
      + 'only.',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }), input: t.arg({ type: CorrectionBatchInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.corrections.apply(ctx.identity!, String(args.recordingId), args.input),
  }),
  retranscribeLine: t.field({
    type: RetranscribeResultType,
    description: 'Read one line\'s stored audio again with the language forced (beam search) and apply the result as a line rewrite '
      + '(revertible `line` corrections). Segments must be settled. 503 `engine_unavailable` (Retry-After) while the line\'s audio has '
      + 'not reached this machine or the engine is unavailable. Owner only.',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }), input: t.arg({ type: RetranscribeInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.corrections.retranscribe(ctx.identity!, String(args.recordingId), args.input),
  }),
  revertCorrection: t.field({
    type: CorrectionType,
    description: 'Undo one correction: its segment reads as before it. 409 `invalid_state` when already reverted, or when a later '
      + 'correction that stands changed the same words (`details.laterCorrectionId`).',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.corrections.revert(ctx.identity!.account.id, String(args.id)),
  }),
}));
