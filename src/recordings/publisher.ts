/**
 * `WS /v1/recordings/{id}/publish/{token}`: a live recording's publisher. The same protocol and frames as a
 * realtime session (the realtime socket adapter around a `LiveSession`), plus what makes it a recording: each
 * commit is stored (with its event, gapless `seq`) before its frame goes out, the audio taken for transcription is
 * kept (`capture.f32`), and the recording's moves made anywhere (pause, resume, stop, a takeover) reach the
 * session through `recording:<id>` control frames.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { WebSocket } from 'ws';
import type { Services } from '../core/services.js';
import type { SessionClaims } from '../realtime/session-token.js';
import { PUBLISHER_HEARTBEAT_MS } from './live.js';
import { CAPTURE_FILE, recordingMediaDir } from './media.js';

interface Attachment {
  claims: SessionClaims & { recording: NonNullable<SessionClaims['recording']> };
  offsetS: number;
  paused: boolean;
}

/** What the upgrade's check found, for the connection that follows it. */
const attached = new WeakMap<IncomingMessage, Attachment>();

/**
 * Before the upgrade: the token must be this recording's current grant, the engine must take a session, and the
 * recording must be open. Opens the publisher's capture span; refusals become HTTP envelopes.
 */
export async function authorizePublisher(services: Services, req: IncomingMessage, recordingId: string, token: string): Promise<void> {
  const claims = services.realtime.runtime.sockets.authorize(token, recordingId) as Attachment['claims'];
  const { offsetS, paused } = await services.liveRecordings.attach(recordingId, claims.recording.epoch);
  attached.set(req, { claims, offsetS, paused });
}

/** After the upgrade: the session, storing what it commits and keeping what it hears. */
export function acceptPublisher(services: Services, dataDir: string, ws: WebSocket, req: IncomingMessage): void {
  const attachment = attached.get(req);
  if (!attachment) {
    ws.close(1011, 'not authorized');
    return;
  }
  const { claims, offsetS } = attachment;
  const recordingId = claims.recording.id;
  const live = services.liveRecordings;
  const dir = recordingMediaDir(dataDir, recordingId);
  mkdirSync(dir, { recursive: true });
  const capture = createWriteStream(path.join(dir, CAPTURE_FILE), { flags: 'a' });
  capture.on('error', () => session.terminate('The capture audio could not be stored; reconnect to go on.'));
  const controls = live.controls(recordingId);
  const epoch = claims.recording.epoch;
  const heartbeat = setInterval(() => void live.heartbeat(recordingId, epoch).catch(() => undefined), PUBLISHER_HEARTBEAT_MS);

  const session = services.realtime.runtime.sockets.accept(ws, claims, {
    store: { commit: (body) => live.storeCommit(recordingId, epoch, offsetS, body) },
    keep: (pcm) => capture.write(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)),
    closed: () => {
      clearInterval(heartbeat);
      void controls.return?.();
      capture.end(() => void live.detach(recordingId, epoch).catch(() => undefined));
    },
  });
  if (attachment.paused) session.pause();

  // `recording.state` frames (not in the realtime protocol; clients ignore unknown types) tell the publisher when a
  // move made elsewhere took effect: audio sent after `paused` is dropped, after `live` transcribed again.
  void (async () => {
    for await (const frame of controls) {
      if (frame.action === 'pause') {
        session.pause();
        session.notice({ type: 'recording.state', recordingId, state: 'paused' });
      } else if (frame.action === 'resume') {
        session.resume();
        session.notice({ type: 'recording.state', recordingId, state: 'live' });
      } else if (frame.action === 'settings' && typeof frame.settings === 'object' && frame.settings !== null) {
        session.changeOptions(frame.settings as Record<string, unknown>);
      } else if (frame.action === 'stop') session.finish();
      else if (frame.action === 'demote' && typeof frame.epoch === 'number' && frame.epoch > epoch) {
        session.terminate('Another device took over this recording; this publisher is closed.', 'conflict', false);
      }
    }
  })();
}
