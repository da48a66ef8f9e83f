import { builder } from '../builder.js';
import { RecordingType } from './types.js';

// Job moves of a file recording (start, retry) live with the transcriptions module, whose service owns jobs.
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
    type: 'JSON',
    description: 'Delete an archived recording (transcript, events, job, media) for good: `{id, purged: true}`.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.purgeRecording(ctx.identity!.account.id, String(args.id)),
  }),
}));
