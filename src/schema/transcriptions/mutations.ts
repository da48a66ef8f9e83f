import { Readable } from 'node:stream';
import { builder } from '../builder.js';
import { errors } from '../../errors.js';
import { JobType, TranscriptionType } from './types.js';
import { CreateTranscriptionInput, CropWindowInput, UpdateTranscriptionInput } from './inputs.js';

/** The GraphQL multipart request spec's file (graphql-yoga hands resolvers a WHATWG File). */
interface UploadedFileValue { name: string; type: string; stream(): ReadableStream<Uint8Array> }

/** Reads a WHATWG stream chunk by chunk; yoga's may be a ponyfill that Readable.fromWeb refuses. */
async function* readChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

// The builder declares DateTime and JSON; `Upload` is added here because only file transcriptions take files.
(builder as unknown as { scalarType: (name: string, options: object) => void }).scalarType('Upload', {
  description: 'A file sent with the GraphQL multipart request spec.',
  serialize: () => {
    throw new Error('Upload is an input-only scalar.');
  },
  parseValue: (value: unknown) => value,
});

builder.mutationFields((t) => ({
  createTranscription: t.field({
    type: TranscriptionType,
    description: 'Transcribe an uploaded file (`file`) or a link (`options.url`). `options` holds the CreateTranscription fields. Answers at once; follow `job`.',
    authScopes: { write: true },
    args: {
      options: t.arg({ type: CreateTranscriptionInput }),
      file: t.arg({ type: 'Upload' as never }),
    },
    resolve: (_root, args, ctx) => {
      const file = args.file as unknown as UploadedFileValue | null | undefined;
      if (file && typeof file.stream !== 'function') throw errors.invalidOptions('file must be sent as a multipart upload.', { field: 'file' });
      const upload = file
        ? { stream: Readable.from(readChunks(file.stream())), fileName: file.name || null, mimeType: file.type || null }
        : null;
      return ctx.services.transcriptions.create({ accountId: ctx.identity!.account.id, principalId: ctx.identity!.principal.id }, args.options ?? {}, upload);
    },
  }),
  updateTranscription: t.field({
    type: TranscriptionType,
    description: 'Rename (`name`) or change default settings (`settings`, merged; null clears a key).',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateTranscriptionInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.update(ctx.identity!.account.id, String(args.id), args.input),
  }),
  archiveTranscription: t.field({
    type: TranscriptionType,
    description: 'Hide it; its share links stop working; data kept until restored or purged.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.archive(ctx.identity!.account.id, String(args.id)),
  }),
  restoreTranscription: t.field({
    type: TranscriptionType,
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.restore(ctx.identity!.account.id, String(args.id)),
  }),
  purgeTranscription: t.field({
    type: 'JSON',
    description: 'Delete an archived transcription and its media for good: `{id, purged: true}`.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.purge(ctx.identity!.account.id, String(args.id)),
  }),
  startRecordingJob: t.field({
    type: JobType,
    description: 'Release a cropping job with a window (`startS`, optional `endS`); transcript times count from `startS`.',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }), window: t.arg({ type: CropWindowInput }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.startJob(ctx.identity!.account.id, String(args.recordingId), args.window ?? {}),
  }),
  retryRecordingJob: t.field({
    type: JobType,
    description: 'Re-queue a failed job (a link whose fetch failed is fetched again).',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.retryJob(ctx.identity!.account.id, String(args.recordingId)),
  }),
}));
