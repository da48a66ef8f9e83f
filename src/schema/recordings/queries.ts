import { requireScope } from '../../auth/scopes.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { MediaTokenType, RecordingEventPageType, RecordingType, TranscriptSnapshotType } from './types.js';

builder.queryFields((t) => ({
  recording: t.field({
    type: RecordingType,
    description: 'One recording: its owner, or anyone with a `shareCode` of its transcription.',
    authScopes: { public: true },
    args: { id: t.arg.id({ required: true }), shareCode: t.arg.string() },
    resolve: (_root, args, ctx) => {
      if (!args.shareCode) requireRead(ctx);
      return ctx.services.recordings.get(String(args.id), { accountId: ctx.identity?.account.id, shareCode: args.shareCode });
    },
  }),
  recordingTranscript: t.field({
    type: TranscriptSnapshotType,
    description: 'Transcript snapshot (sentences, segments with words, speakers, lastSeq). `after` returns segments past a seq. Owner, or anyone with a `shareCode`.',
    // A share code is a credential of its own: the service decides between owner and link.
    authScopes: { public: true },
    args: { recordingId: t.arg.id({ required: true }), after: t.arg.int(), lang: t.arg.string(), shareCode: t.arg.string() },
    resolve: (_root, args, ctx) => {
      if (!args.shareCode) requireRead(ctx);
      return ctx.services.recordings.transcript(String(args.recordingId), { accountId: ctx.identity?.account.id, shareCode: args.shareCode }, { after: args.after, lang: args.lang });
    },
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

/** Without a share code the caller needs a credential with `read`, exactly as the scoped fields demand. */
const requireRead = (ctx: Context) => requireScope(ctx, 'read', 'This read needs a credential: a bearer token, or a shareCode.');
