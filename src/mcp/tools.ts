/**
 * The MCP tools: what an assistant does with this API. Each runs the same typed GraphQL operation as its REST
 * route (schema/operations/*.graphql) with the caller's context; the export runs the recordings service's export,
 * as `GET /v1/recordings/{id}/export` does. Read tools need the `read` scope, the rest `write`; a key without it
 * gets a tool error naming the scope.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Context } from '../core/context.js';
import { requireScope, type Scope } from '../core/identity/scopes.js';
import {
  BroadcastsDocument, CreateBroadcastDocument, CreateTranscriptionDocument, PauseRecordingDocument, RecordingJobDocument,
  RecordingTranscriptDocument, ResumeRecordingDocument, SearchDocument, StartRecordingDocument, StopRecordingDocument,
  TranscriptionsDocument, type CreateTranscriptionInput,
} from '../generated/graphql.js';
import { readerOf } from '../recordings/service.js';
import { errorResult, jsonResult, textResult, type Run } from './operations.js';
import { transcriptText } from './transcript.js';

/** What a tool's body gets: the runner, the context, and a progress reporter (a no-op unless the client asked). */
export interface ToolCall {
  run: Run;
  ctx: Context;
  progress(value: number, total: number, message: string): Promise<void>;
  signal: AbortSignal;
}

interface ToolDefinition<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: Shape;
  call(args: z.infer<z.ZodObject<Shape>>, call: ToolCall): Promise<CallToolResult>;
}

const tool = <Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>) => definition as unknown as ToolDefinition<z.ZodRawShape>;

const page = {
  cursor: z.string().optional().describe('nextCursor of the previous page.'),
  limit: z.number().int().min(1).max(100).optional().describe('Items per page (default 20).'),
};
const listPage = { ...page, lifecycle: z.enum(['active', 'archived', 'all']).optional().describe('Default active.') };

const waitInput = {
  name: z.string().min(1).max(200).optional().describe('Default: the file name or the link.'),
  language: z.string().min(2).max(35).optional().describe('The spoken language (a code such as en); default: detected.'),
  wait: z.boolean().optional().describe('Wait for the job and answer the transcript (default true), with progress notifications.'),
  timeoutS: z.number().int().min(1).max(3600).optional().describe('How long to wait (default 600 s); then the answer says the job still '
    + 'runs.'),
};
type WaitArgs = { name?: string; language?: string; wait?: boolean; timeoutS?: number };

const WAIT_EVERY_MS = 500;
const FINISHED = new Set(['done', 'failed', 'cropping']);

/** Follows a new transcription's job (progress notifications from its `progress`), then answers its transcript. */
async function followJob(created: { id: string; recordingId?: string | null }, args: WaitArgs, call: ToolCall): Promise<CallToolResult> {
  const recordingId = created.recordingId!;
  const ids = `transcriptionId ${created.id}, recordingId ${recordingId}`;
  if (args.wait === false) {
    return textResult(`Transcription started (${ids}). Read it with get_transcript or the resource `
      + `speechgate://recordings/${recordingId}/transcript.`);
  }
  const deadline = Date.now() + (args.timeoutS ?? 600) * 1000;
  for (;;) {
    const { recordingJob: job } = await call.run(RecordingJobDocument, { recordingId });
    const progress = (job.progress ?? {}) as { pct?: number; phase?: string };
    await call.progress(
      Math.max(0, Math.min(100, Number(progress.pct) || 0)), 100, progress.phase ? `${job.state} (${progress.phase})` : job.state,
    );
    if (job.state === 'failed') {
      return { isError: true, content: [{ type: 'text', text: `${job.errorCode ?? 'failed'}: the job failed (${ids}): `
        + `${job.error ?? 'no reason given'}` }] };
    }
    if (FINISHED.has(job.state)) break;
    if (Date.now() > deadline || call.signal.aborted) return textResult(`Still ${job.state} (${ids}); read it later with get_transcript.`);
    await new Promise((resolve) => setTimeout(resolve, WAIT_EVERY_MS));
  }
  const { recordingTranscript } = await call.run(RecordingTranscriptDocument, { recordingId });
  return textResult(`${ids}\n\n${transcriptText(recordingTranscript)}`);
}

const optionsOf = (args: WaitArgs & { url?: string }): CreateTranscriptionInput => ({
  ...(args.url ? { url: args.url } : {}),
  ...(args.name ? { name: args.name } : {}),
  ...(args.language ? { settings: { spokenLanguage: args.language } } : {}),
});

/** Text formats come back inline; binary ones as an embedded resource (base64 `blob`). */
const TEXT_FORMATS = new Set(['srt', 'json']);

const recordingActions = [
  { name: 'pause_recording', verb: 'Pause', document: PauseRecordingDocument, field: 'pauseRecording', rule: 'A live one.' },
  { name: 'resume_recording', verb: 'Resume', document: ResumeRecordingDocument, field: 'resumeRecording', rule: 'A paused one.' },
  { name: 'stop_recording', verb: 'Stop', document: StopRecordingDocument, field: 'stopRecording', rule: 'A paused one (pause it first); '
    + 'it ends for good.' },
] as const;

export const tools: ToolDefinition<z.ZodRawShape>[] = [
  tool({
    name: 'transcribe_link', title: 'Transcribe a link', scope: 'write',
    description: 'Transcribe audio or video at an http(s) link (fetched by the server), waiting for the job by default, and answer the '
      + 'transcript.',
    input: { url: z.string().url().describe('An http or https link to an audio or video file.'), ...waitInput },
    call: async (args, call) => followJob(
      (await call.run(CreateTranscriptionDocument, { options: optionsOf(args) })).createTranscription, args, call,
    ),
  }),
  tool({
    name: 'transcribe_file', title: 'Transcribe an uploaded file', scope: 'write',
    description: 'Transcribe a file sent as base64 (mp3, wav, flac, ogg, m4a, mp4…), waiting for the job by default, and answer the '
      + 'transcript.',
    input: {
      fileName: z.string().min(1).max(255).describe('The file name, with its extension.'),
      contentBase64: z.string().min(1).describe('The file\'s bytes, base64.'),
      mimeType: z.string().max(255).optional(),
      ...waitInput,
    },
    call: async (args, call) => {
      const file = new File([Buffer.from(args.contentBase64, 'base64')], args.fileName, { type: args.mimeType ?? '' });
      const { createTranscription } = await call.run(CreateTranscriptionDocument, { options: optionsOf(args), file });
      return followJob(createTranscription, args, call);
    },
  }),
  tool({
    name: 'get_transcript', title: 'Read a transcript', scope: 'read',
    description: 'The transcript of a recording as text lines with times and speakers, optionally translated (`lang`).',
    input: {
      recordingId: z.string().min(1),
      lang: z.string().min(2).max(35).optional().describe('Read it in this language (a translation target).'),
    },
    call: async (args, call) => {
      const { recordingTranscript } = await call.run(RecordingTranscriptDocument, {
        recordingId: args.recordingId, lang: args.lang ?? null,
      });
      return textResult(transcriptText(recordingTranscript, args.lang));
    },
  }),
  tool({
    name: 'search', title: 'Search transcripts', scope: 'read',
    description: 'Full-text search over the account\'s transcripts: matching sentences with their recording and time.',
    input: {
      q: z.string().min(1).max(500),
      lang: z.string().min(2).max(35).optional(),
      transcriptionId: z.string().optional().describe('Only this transcription.'),
      ...page,
    },
    call: async (args, call) => jsonResult((await call.run(SearchDocument, {
      q: args.q, lang: args.lang ?? null, transcriptionId: args.transcriptionId ?? null, cursor: args.cursor ?? null,
      limit: args.limit ?? null,
    })).search),
  }),
  tool({
    name: 'list_transcriptions', title: 'List transcriptions', scope: 'read',
    description: 'The account\'s transcriptions, newest first (id, name, kind, recordingId, job state).',
    input: listPage,
    call: async (args, call) => jsonResult((await call.run(TranscriptionsDocument, {
      cursor: args.cursor ?? null, limit: args.limit ?? null, lifecycle: args.lifecycle ?? null,
    })).transcriptions),
  }),
  tool({
    name: 'list_broadcasts', title: 'List broadcasts', scope: 'read',
    description: 'The account\'s broadcasts, newest first (code, share URL, access, current recording).',
    input: listPage,
    call: async (args, call) => jsonResult((await call.run(BroadcastsDocument, {
      cursor: args.cursor ?? null, limit: args.limit ?? null, lifecycle: args.lifecycle ?? null,
    })).broadcasts),
  }),
  tool({
    name: 'create_broadcast', title: 'Create a broadcast', scope: 'write',
    description: 'A broadcast: a public or private (password) page where listeners follow live transcriptions.',
    input: {
      name: z.string().min(1).max(200),
      access: z.enum(['public', 'private']).optional().describe('Default public.'),
      code: z.string().optional().describe('The listeners\' link: 3 to 64 lower-case letters, digits and hyphens.'),
      password: z.string().optional().describe('Required when access is private.'),
    },
    call: async (args, call) => jsonResult((await call.run(CreateBroadcastDocument, { input: args as never })).createBroadcast),
  }),
  tool({
    name: 'start_recording', title: 'Start a recording', scope: 'write',
    description: 'Start a recording of a live transcription: answers the recording and the stream URL that audio is sent to.',
    input: {
      transcriptionId: z.string().min(1).describe('A live transcription.'),
      scriptText: z.string().optional().describe('The text expected to be read, if any.'),
    },
    call: async (args, call) => jsonResult((await call.run(StartRecordingDocument, {
      transcriptionId: args.transcriptionId, input: args.scriptText === undefined ? null : { scriptText: args.scriptText },
    })).startRecording),
  }),
  ...recordingActions.map((action) => tool({
    name: action.name, title: `${action.verb} a recording`, scope: 'write',
    description: `${action.verb} a recording of a live transcription. ${action.rule}`,
    input: { recordingId: z.string().min(1) },
    call: async (args, call) => jsonResult((await call.run(
      action.document as TypedDocumentNode<Record<string, unknown>, { id: string }>, { id: args.recordingId },
    ))[action.field]),
  })),
  tool({
    name: 'export_transcript', title: 'Export a transcript', scope: 'read',
    description: 'The transcript as a file: srt and json inline as text; xlsx and pdf as an embedded resource (base64).',
    input: {
      recordingId: z.string().min(1),
      format: z.enum(['srt', 'json', 'xlsx', 'pdf']),
      lang: z.string().min(2).max(35).optional().describe('The file in this language (a translation target).'),
    },
    call: async (args, call) => {
      const rendered = await call.ctx.services.recordings.export(
        args.recordingId, readerOf(call.ctx, {}), { format: args.format, lang: args.lang },
      );
      const uri = `speechgate://recordings/${args.recordingId}/export/${rendered.fileName}`;
      const bytes = Buffer.from(rendered.body);
      const resource = TEXT_FORMATS.has(args.format)
        ? { uri, mimeType: rendered.contentType, text: bytes.toString('utf8') }
        : { uri, mimeType: rendered.contentType, blob: bytes.toString('base64') };
      return { content: [
        { type: 'text', text: `${rendered.fileName}${rendered.partial ? ' (partial: the job still runs)' : ''}` },
        { type: 'resource', resource },
      ] };
    },
  }),
];

/** Registers every tool on `server` for one request's caller: the scope is checked before the tool runs. */
export function registerTools(server: McpServer, ctx: Context, run: Run): void {
  for (const definition of tools) {
    server.registerTool(definition.name, {
      title: definition.title,
      description: `${definition.description} Needs the "${definition.scope}" scope.`,
      inputSchema: definition.input,
      annotations: { readOnlyHint: definition.scope === 'read', openWorldHint: definition.name === 'transcribe_link' },
    }, (async (args: Record<string, unknown>, extra: ToolExtra) => {
      try {
        requireScope(ctx, definition.scope);
        return await definition.call(args, { run, ctx, signal: extra.signal, progress: progressReporter(extra) });
      } catch (error) {
        return errorResult(error);
      }
    }) as never);
  }
}

interface ToolExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total: number; message: string };
  }): Promise<void>;
}

/** Progress notifications when the client sent a progressToken; each one's value goes up (the protocol's rule). */
function progressReporter(extra: ToolExtra): ToolCall['progress'] {
  const token = extra._meta?.progressToken;
  let last = -1;
  let lastMessage = '';
  return async (value, total, message) => {
    if (token === undefined || (value <= last && message === lastMessage)) return;
    // A new phase at the same percentage still counts: nudge it up a hair so the value keeps rising.
    const progress = value > last ? value : last + 0.001;
    last = progress;
    lastMessage = message;
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } });
  };
}
