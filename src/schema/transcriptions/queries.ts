import { builder } from '../builder.js';
import { JobType, ProbeRecordType, TranscriptionPageType, TranscriptionType } from './types.js';

builder.queryFields((t) => ({
  transcriptions: t.field({
    type: TranscriptionPageType,
    description: 'The caller\'s transcriptions, newest first, paged with `cursor`; `lifecycle` active (default), archived or all.',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), lifecycle: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.list(ctx.identity!.account.id, args),
  }),
  transcription: t.field({
    type: TranscriptionType,
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.get(ctx.identity!.account.id, String(args.id)),
  }),
  transcriptionProbe: t.field({
    type: ProbeRecordType,
    description: 'Looks at a link without storing anything. Private, loopback and cloud-metadata addresses are refused.',
    authScopes: { read: true },
    args: { url: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.probe(args.url),
  }),
  recordingJob: t.field({
    type: JobType,
    description: 'Job state and progress; a queued job carries its place in the account\'s queue.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.job(ctx.identity!.account.id, String(args.recordingId)),
  }),
}));
