/**
 * `speechgate stream <file>`: a realtime session (`POST /v1/realtime/sessions`, then its socket, through the SDK's
 * `client.realtime.connect`) fed with a local file, at real time like a microphone (`--fast`: as fast as the socket
 * drains). Drafts are redrawn on one terminal line, commits printed as lines; nothing is stored on the server.
 */
import { Command, Option } from 'commander';
import type { RealtimeSessionOptions } from '../../sdk/index.js';
import { action, type CommandContext } from '../context.js';
import { doneLine, publishFile, showFrames } from '../realtime-view.js';
import { readableFile } from '../local-file.js';

interface StreamOptions {
  language?: string;
  latencyMode?: 'auto' | 'fast' | 'accuracy';
  speakers?: 'auto' | 'on' | 'off';
  translate?: string[];
  fast?: boolean;
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
  const path = await readableFile(file!);
  const client = await ctx.client();
  let stage: string | null = null;
  const session = await client.realtime.connect(sessionOptions(options), {
    // `session.loading` is a heartbeat: said once per stage.
    onFrame: (frame) => {
      if (frame.type === 'session.loading' && frame.stage !== stage) ctx.out.note(`loading (${(stage = frame.stage)})…`);
    },
  });
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
    .action(action(stream));
}
