/**
 * What `stream` and `live` share: a file sent through a realtime socket (the SDK's RealtimeStream) and what the
 * server answers shown as it comes. For people: the draft redrawn on one terminal line, each commit printed as a
 * line (translations indented under it). With `--json`: every frame the server sends, one JSON object a line.
 */
import type { RealtimeServerFrame, RealtimeStream, SessionDoneFrame } from '../sdk/index.js';
import { sendFile } from './audio.js';
import type { CommandContext } from './context.js';
import { CliError, EXIT } from './errors.js';

/** Prints the session's frames from now on; answers how to stop. */
export function showFrames(ctx: CommandContext, stream: RealtimeStream): () => void {
  const { out } = ctx;
  return stream.on((frame: RealtimeServerFrame) => {
    out.jsonLine(frame);
    if (frame.type === 'transcript.draft') out.draft(frame.segments.map((segment) => segment.text.trim()).filter(Boolean).join(' '));
    else if (frame.type === 'transcript.committed') out.print(frame.segment.text.trim());
    else if (frame.type === 'transcript.translated') out.print(
      Object.entries(frame.translations ?? {}).map(([lang, text]) => `  ${lang}: ${String(text).trim()}`),
    );
    else if (frame.type === 'error') out.note(`server: ${frame.code}: ${frame.message}`);
  });
}

/**
 * Sends the file at real time (or as fast as the socket drains), then `eof`, and resolves with `session.done`.
 * Ctrl-C stops the audio and cancels the session; the command then ends as interrupted.
 */
export async function publishFile(ctx: CommandContext, stream: RealtimeStream, file: string, fast: boolean): Promise<SessionDoneFrame> {
  await sendFile(file, (pcm) => stream.sendAudio(pcm), { realtime: !fast, signal: ctx.signal });
  if (ctx.signal.aborted) {
    await stream.cancel().catch(() => undefined);
    throw new CliError('interrupted: the session was cancelled', EXIT.interrupted, 'interrupted');
  }
  const done = await stream.finish();
  ctx.out.clearDraft();
  return done;
}

/** `session.done`'s stats as a person reads them. */
export function doneLine(done: SessionDoneFrame): string {
  const stats = done.stats as { audioS?: number; processingS?: number; realtimeFactor?: number } | undefined;
  const audio = typeof stats?.audioS === 'number' ? `${stats.audioS.toFixed(1)} s of audio` : '';
  const factor = typeof stats?.realtimeFactor === 'number' ? `, real-time factor ${stats.realtimeFactor.toFixed(2)}` : '';
  return `done (${done.reason})${audio ? `: ${audio}${factor}` : ''}`;
}
