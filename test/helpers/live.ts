/** The steps the live tests share: a live transcription with a recording started, and its publisher connected. */
import { RealtimeConnection } from '../../src/realtime/client.js';
import { json } from './http.js';
import type { TestServer } from './server.js';

/** `POST /v1/transcriptions/live` with `body`, then a recording of it: its id and the publisher grant's socket. */
export async function startLiveRecording(server: TestServer, body: Record<string, unknown>): Promise<{ recordingId: string; streamUrl: string }> {
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
