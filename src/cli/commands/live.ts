/**
 * `speechgate live <file>`: publishes a file as a live recording, as a microphone would. A live transcription is
 * created (`POST /v1/transcriptions/live`, feeding the `--broadcast` ids given) or named (`--transcription`), a
 * recording started (`POST …/recordings`: a grant with the publisher's `streamUrl`), the file sent through that
 * socket with the SDK's realtime module at real time (`--fast`: as fast as it drains), then the recording is
 * paused and stopped (stop only from paused). Lines print as they commit; listeners follow it meanwhile
 * (`speechgate listen <code>`). `--wait` waits for finalize (the accurate pass over what was said live).
 */
import path from 'node:path';
import { Command } from 'commander';
import { connectRealtime, type paths, type SpeechgateClient } from '../../sdk/index.js';
import { action, NODE_WEBSOCKET, type CommandContext } from '../context.js';
import { doneLine, publishFile, showFrames } from '../realtime-view.js';
import { readableFile } from '../local-file.js';
import type { Transcription } from '../transcripts.js';

type Recording = paths['/v1/recordings/{id}']['get']['responses'][200]['content']['application/json'];

interface LiveOptions {
  name?: string;
  language?: string;
  broadcast?: string[];
  transcription?: string;
  fast?: boolean;
  wait?: boolean;
}

const FINALIZE_POLL_MS = 1_000;

async function liveTranscription(client: SpeechgateClient, file: string, options: LiveOptions): Promise<Transcription> {
  if (options.transcription) {
    return (await client.GET('/v1/transcriptions/{id}', { params: { path: { id: options.transcription } } })).data!;
  }
  const { data } = await client.POST('/v1/transcriptions/live', {
    body: {
      name: options.name ?? path.basename(file),
      ...(options.language ? { settings: { spokenLanguage: options.language } } : {}),
      ...(options.broadcast?.length ? { broadcasts: options.broadcast } : {}),
    },
  });
  return data!;
}

/** Where listeners find it: the transcription's share code, and each broadcast it feeds. */
function listenerLines(transcription: Transcription): string[] {
  return [
    ...(transcription.shareLink ? [`share code: ${transcription.shareLink.code}`] : []),
    ...(transcription.broadcasts ?? []).map((broadcast) => `broadcast ${broadcast.name}: ${broadcast.shareUrl}  (speechgate listen `
      + `${broadcast.code})`),
  ];
}

/** Pause, then stop (the state table allows stop only from paused); a recording already ended is left as it is. */
async function stopRecording(client: SpeechgateClient, recordingId: string): Promise<Recording> {
  const { data: recording } = await client.GET('/v1/recordings/{id}', { params: { path: { id: recordingId } } });
  if (recording!.state !== 'live' && recording!.state !== 'paused') return recording!;
  await client.POST('/v1/recordings/{id}/pause', { params: { path: { id: recordingId } } });
  return (await client.POST('/v1/recordings/{id}/stop', { params: { path: { id: recordingId } } })).data!;
}

async function waitForFinalized(ctx: CommandContext, client: SpeechgateClient, recordingId: string): Promise<Recording> {
  ctx.out.note('waiting for finalize…');
  for (;;) {
    const { data } = await client.GET('/v1/recordings/{id}', { params: { path: { id: recordingId } } });
    if (data!.state === 'finalized' || ctx.signal.aborted) return data!;
    await new Promise((resolve) => setTimeout(resolve, FINALIZE_POLL_MS));
  }
}

async function live(ctx: CommandContext, [file]: string[], options: LiveOptions): Promise<void> {
  const audio = await readableFile(file!);
  const client = await ctx.client();
  const transcription = await liveTranscription(client, file!, options);
  const { data: grant } = await client.POST('/v1/transcriptions/{id}/recordings', { params: { path: { id: transcription.id } } });
  const recordingId = grant!.recording.id;
  ctx.out.note(`recording ${recordingId} of ${transcription.id} (${transcription.name})`);
  for (const line of listenerLines(transcription)) ctx.out.note(line);
  let stopped: Recording | null = null;
  try {
    const publisher = await connectRealtime(grant!.streamUrl!, { WebSocket: NODE_WEBSOCKET });
    showFrames(ctx, publisher);
    const done = await publishFile(ctx, publisher, audio, options.fast === true);
    ctx.out.note(doneLine(done));
  } finally {
    // Whatever happened to the socket, the recording does not stay live (a dropped publisher does not end it).
    stopped = await stopRecording(client, recordingId);
  }
  const recording = options.wait ? await waitForFinalized(ctx, client, recordingId) : stopped;
  const summary = {
    type: 'live.stopped', transcriptionId: transcription.id, recordingId, state: recording.state,
    shareCode: transcription.shareLink?.code ?? null, broadcasts: transcription.broadcasts ?? [],
  };
  ctx.out.jsonLine(summary);
  ctx.out.note(`recording ${recordingId} ${recording.state}`);
  for (const line of listenerLines(transcription)) ctx.out.note(line);
}

export function liveCommand(): Command {
  return new Command('live')
    .description('publish a local file as a live recording (listeners follow it as it is spoken), then stop it')
    .argument('<file>', 'any audio or video file ffmpeg reads')
    .option('--name <name>', 'the live transcription\'s name (default: the file name)')
    .option('--language <code>', 'the spoken language (default: detected)')
    .option('--broadcast <id...>', 'feed these broadcasts (their listeners see it live)')
    .option('--transcription <id>', 'record into this live transcription instead of a new one')
    .option('--fast', 'send as fast as the socket drains instead of at real time')
    .option('--wait', 'after stopping, wait until the recording is finalized')
    .action(action(live));
}
