/**
 * `speechgate stream <file>`: a realtime session (`POST /v1/realtime/sessions`, then its socket, through the SDK's
 * `client.realtime.connect`) fed with a local file, at real time like a microphone (`--fast`: as fast as the socket
 * drains). Drafts are redrawn on one terminal line, commits printed as lines; nothing is stored on the server.
 * `--stream-url` publishes to a socket given instead, such as a live recording's grant (its token is in the URL, so
 * no key is needed; what it commits is stored with the recording).
 */
import { Command, Option } from 'commander';
import { connectRealtime, type RealtimeServerFrame, type RealtimeSessionOptions } from '../../sdk/index.js';
import { action, NODE_WEBSOCKET, type CommandContext } from '../context.js';
import { usageError } from '../errors.js';
import { doneLine, publishFile, showFrames } from '../realtime-view.js';
import { readableFile } from '../local-file.js';

interface StreamOptions {
  language?: string;
  latencyMode?: 'auto' | 'fast' | 'accuracy';
  speakers?: 'auto' | 'on' | 'off';
  translate?: string[];
  fast?: boolean;
  streamUrl?: string;
}

/** The session options from the flags (spec: "Realtime session options"). */
export function sessionOptions(options: StreamOptions): RealtimeSessionOptions {
  return {
    ...(options.language ? { spokenLanguage: options.language } : {}),
    ...(options.latencyMode ? { latencyMode: options.latencyMode } : {}),
    ...(options.speakers ? { speakerLabels: options.speakers } : {}),
    ...(options.translate?.length ? { translate: options.translate } : {}),
  };
}

async function stream(ctx: CommandContext, [file]: string[], options: StreamOptions): Promise<void> {
  // A given socket's options are its recording's settings: a flag here would be ignored, so it is refused.
  if (options.streamUrl && Object.keys(sessionOptions(options)).length > 0) {
    throw usageError('--language, --latency-mode, --speakers and --translate make a new session; with --stream-url the recording\'s '
      + 'settings apply (PATCH /v1/recordings/{id}/settings)');
  }
  const path = await readableFile(file!);
  let stage: string | null = null;
  // `session.loading` is a heartbeat: said once per stage.
  const onFrame = (frame: RealtimeServerFrame) => {
    if (frame.type === 'session.loading' && frame.stage !== stage) ctx.out.note(`loading (${(stage = frame.stage)})…`);
  };
  const session = options.streamUrl
    ? await connectRealtime(options.streamUrl, { WebSocket: NODE_WEBSOCKET, onFrame })
    : await (await ctx.client()).realtime.connect(sessionOptions(options), { onFrame });
  ctx.out.note(`session ${session.sessionId} ready; sending ${file}${options.fast ? ' as fast as it goes' : ' at real time'}`);
  showFrames(ctx, session);
  const done = await publishFile(ctx, session, path, options.fast === true);
  ctx.out.note(doneLine(done));
}

export function streamCommand(): Command {
  return new Command('stream')
    .description('transcribe a local file through a realtime session, showing drafts and commits as they come (nothing stored)')
    .argument('<file>', 'any audio or video file ffmpeg reads')
    .option('--language <code>', 'the spoken language (default: detected)')
    .addOption(new Option('--latency-mode <mode>', 'latency against accuracy').choices(['auto', 'fast', 'accuracy']))
    .addOption(new Option('--speakers <mode>', 'speaker labels').choices(['auto', 'on', 'off']))
    .option('--translate <lang...>', 'translate each commit into these languages')
    .option('--fast', 'send as fast as the socket drains instead of at real time')
    .option('--stream-url <url>', 'publish to this socket instead of a new session (a live recording\'s grant: no key needed)')
    .action(action(stream));
}
