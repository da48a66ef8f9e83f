import { builder } from '../core/builder.js';
import { readerOf } from '../recordings/service.js';
import type { SummaryView } from './service.js';

export const RecordingSummaryType = builder.objectRef<SummaryView>('RecordingSummary').implement({
  description: 'A recording\'s title and summary: `ready` (title and summary present), `pending` (being written; written after finalize), '
    + 'or `unavailable` (`reason`: `off` the server has no summariser, `failed` the summariser failed, `missing` none was written, '
    + '`no_transcript` the job failed).',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    state: t.exposeString('state', {
      description: '`ready`: title and summary present. `pending`: being written (a recording is summarised after finalize, and again '
        + 'after its text is corrected). `unavailable`: see `reason`.',
    }),
    title: t.exposeString('title', { nullable: true, description: 'Present when `ready`.' }),
    summary: t.exposeString('summary', { nullable: true, description: 'Present when `ready`. From the built-in summariser: sentences of '
      + 'the transcript, in order.' }),
    language: t.exposeString('language', { nullable: true, description: 'The language it is written in (the spoken one).' }),
    lang: t.exposeString('lang', { nullable: true, description: 'Set when the answer is a translation (none exist on this server yet).' }),
    provider: t.exposeString('provider', { nullable: true, description: 'Which summariser wrote it: `builtin` (extractive, no language '
      + 'model) or `openai:<model>` (an OpenAI-compatible chat API).' }),
    writtenAt: t.exposeString('writtenAt', { nullable: true }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: '`unavailable` only. `off`: the server has no summariser (SUMMARY_PROVIDER=off). `failed`: the summariser failed '
        + '(error status, timeout, unusable answer; `error` says which). `missing`: the recording was finished without one. '
        + '`no_transcript`: its job failed. `summarize` asks again for `failed` and `missing`.',
    }),
    retryable: t.exposeBoolean('retryable', { description: '`unavailable` only: true when `summarize` may succeed now.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the last attempt failed.' }),
  }),
});

builder.queryFields((t) => ({
  recordingSummary: t.field({
    type: RecordingSummaryType,
    description: 'The recording\'s title and summary. Owner, or a `shareCode` (another `lang` than the spoken one needs '
      + '`allowTranslate`). Queues nothing.',
    // A share code is a credential of its own: the service decides between owner and link.
    authScopes: { public: true },
    args: { recordingId: t.arg.id({ required: true }), lang: t.arg.string(), shareCode: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.summaries.get(String(args.recordingId), readerOf(ctx, args), args.lang),
  }),
}));

builder.mutationFields((t) => ({
  summarizeRecording: t.field({
    type: RecordingSummaryType,
    description: 'Ask for the title and summary of a finished recording that has none (or whose last attempt failed); answers the state '
      + 'after asking. Idempotent. Owner only.',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.summaries.summarize(ctx.identity!.account.id, String(args.recordingId)),
  }),
}));
