/** The steps the live tests share: a live transcription with a recording started, and its publisher connected. */
import { RealtimeConnection } from './realtime-client.js';
import { json } from './http.js';
import { fileChunks } from './realtime.js';
import type { TestServer } from './server.js';

/** `POST /v1/transcriptions/live` with `body`, then a recording of it: its id and the publisher grant's socket. */
export async function startLiveRecording(server: TestServer, body: Record<string, unknown>): Promise<{
  recordingId: string; streamUrl: string;
}> {
  const live = await json(await server.postJson('/v1/transcriptions/live', body));
  const grant = await json(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}));
  return { recordingId: grant.recording.id as string, streamUrl: grant.streamUrl as string };
}

/** The publisher on a grant's socket, once its session is ready. */
export async function connectPublisher(streamUrl: string): Promise<RealtimeConnection> {
  const publisher = new RealtimeConnection(streamUrl);
  await publisher.ready();
  return publisher;
}

/** `PATCH /v1/recordings/{id}/settings` (a running recording's capture settings), expected to answer 200. */
export async function patchRecordingSettings(server: TestServer, recordingId: string, settings: Record<string, unknown>): Promise<void> {
  const patched = await server.request(`/v1/recordings/${recordingId}/settings`, {
    method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(settings),
  });
  if (patched.status !== 200) throw new Error(`settings not changed: ${patched.status} ${await patched.text()}`);
}

/** A publisher connects and says `file` (as fast as it sends), then the recording is paused: what was said is committed. */
export async function publishThenPause(
  server: TestServer, recordingId: string, streamUrl: string, file: string,
): Promise<RealtimeConnection> {
  const publisher = await connectPublisher(streamUrl);
  for (const chunk of await fileChunks(file)) publisher.sendPcm(chunk);
  const paused = await server.postJson(`/v1/recordings/${recordingId}/pause`, {});
  if (paused.status !== 200) throw new Error(`not paused: ${paused.status} ${await paused.text()}`);
  return publisher;
}

/** The seqs of the committed segments an events page (`GET /v1/recordings/{id}/events`) holds, in log order. */
export function committedSeqsOf(log: { events: { type: string; frame: unknown }[] }): number[] {
  return log.events.filter((event) => event.type === 'transcript.committed')
    .map((event) => (event.frame as { segment: { seq: number } }).segment.seq);
}
