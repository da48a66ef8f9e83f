/**
 * A live recording's publisher: a `LiveSession` (the realtime protocol) whose commits are stored (with their event,
 * gapless `seq`) before their frame goes out, whose audio taken for transcription is kept (`capture.f32`), and which
 * hears the recording's moves made anywhere (pause, resume, stop, settings, a takeover) through `recording:<id>`
 * control frames. Two transports carry one: the publisher socket, `WS /v1/recordings/{id}/publish/{token}`
 * (`acceptPublisher`), and a stream the server pulls itself (stream-pull.ts).
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { WebSocket } from 'ws';
import type { Services } from '../../core/services.js';
import type { LiveSession } from '../session.js';
import type { SessionClaims } from '../session-token.js';
import type { SocketAttachment } from './realtime-socket.js';
import { PUBLISHER_HEARTBEAT_MS } from '../recordings.js';
import { CAPTURE_FILE, recordingMediaDir } from '../../transcript/index.js';

/** Where a publisher stands on its recording: the grant's epoch, where its audio starts on the media time line. */
export interface PublisherPlace {
  recordingId: string;
  epoch: number;
  offsetS: number;
  paused: boolean;
}

interface Attachment {
  claims: SessionClaims & { recording: NonNullable<SessionClaims['recording']> };
  place: PublisherPlace;
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
  // The capture settings as they stand now: a PATCH .../settings made after the grant was issued applies too.
  const options = await services.liveRecordings.captureOptions(recordingId);
  attached.set(req, { claims: { ...claims, options }, place: { recordingId, epoch: claims.recording.epoch, offsetS, paused } });
}

/** After the upgrade: the session on this socket, publishing to its recording. */
export function acceptPublisher(services: Services, dataDir: string, ws: WebSocket, req: IncomingMessage): void {
  const attachment = attached.get(req);
  if (!attachment) {
    ws.close(1011, 'not authorized');
    return;
  }
  publishToRecording(
    services, dataDir, attachment.place, (hooks) => services.realtime.runtime.sockets.accept(ws, attachment.claims, hooks),
  );
}

/**
 * Makes the session `open` starts a publisher of its recording: commits stored, audio kept, control frames obeyed,
 * presence reported every PUBLISHER_HEARTBEAT_MS. The transport calls the hooks' `closed` when it is over; that
 * ends the capture span (detach).
 */
export function publishToRecording(
  services: Services,
  dataDir: string,
  place: PublisherPlace,
  open: (hooks: SocketAttachment) => LiveSession,
  /** Asked when the session is over: true keeps the publisher present (a pulled stream about to reopen). */
  stayPresent: () => boolean = () => false,
): LiveSession {
  const { recordingId, epoch, offsetS } = place;
  const live = services.liveRecordings;
  const dir = recordingMediaDir(dataDir, recordingId);
  mkdirSync(dir, { recursive: true });
  const capture = createWriteStream(path.join(dir, CAPTURE_FILE), { flags: 'a' });
  capture.on('error', () => session.terminate('The capture audio could not be stored; reconnect to go on.'));
  const controls = live.controls(recordingId);
  const audio = live.audioRelay(recordingId);
  // Each heartbeat also reads the recording back: a control frame lost on the way (Redis restarting between a move
  // and this process's subscription coming back) is made good within PUBLISHER_HEARTBEAT_MS.
  // A control frame that arrives while a heartbeat is on its way wins: the heartbeat's reading may predate it.
  let controlsSeen = 0;
  const heartbeat = setInterval(() => {
    const seenBefore = controlsSeen;
    void live.heartbeat(recordingId, epoch).then((now) => now && controlsSeen === seenBefore && reconcile(now)).catch(() => undefined);
  }, PUBLISHER_HEARTBEAT_MS);

  const session = open({
    store: {
      commit: (body) => live.storeCommit(recordingId, epoch, offsetS, body),
      settleSpeakers: (labels) => live.settleSpeakers(recordingId, labels),
      translate: (seq, targets) => live.translateCommit(recordingId, seq, targets),
      amend: (seq, text, previousText) => live.amendCommit(recordingId, seq, text, previousText),
    },
    keep: (pcm) => {
      capture.write(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      audio.push(pcm);
    },
    closed: () => {
      clearInterval(heartbeat);
      void controls.return?.();
      capture.end(() => void live.detach(recordingId, epoch, { stayPresent: stayPresent() }).catch(() => undefined));
    },
  });
  let paused = place.paused;
  if (paused) void session.pause();

  // `recording.state` frames (not in the realtime protocol; clients ignore unknown types) tell the publisher when a
  // move made elsewhere took effect: audio sent after `paused` is dropped, after `live` transcribed again.
  // A pause is answered (`live.flushed`) once what was said before it is stored: `POST .../pause` waits for that, so
  // a transcript read after it has every word. A pause of a paused session answers when its pending flush is stored.
  const pause = (wanted: boolean) => {
    if (wanted) void session.pause().then(() => live.flushed(recordingId, epoch));
    if (wanted === paused) return;
    if (!wanted) session.resume();
    paused = wanted;
    session.notice({ type: 'recording.state', recordingId, state: wanted ? 'paused' : 'live' });
  };
  const demote = () => session.terminate('Another device took over this recording; this publisher is closed.', 'conflict', false);
  const reconcile = (now: { state: string; epoch: number }) => {
    if (now.epoch > epoch) demote();
    else if (now.state === 'ended' || now.state === 'finalized') session.finish();
    else if ((now.state === 'paused') !== paused) pause(now.state === 'paused');
  };
  void (async () => {
    for await (const frame of controls) {
      controlsSeen++;
      if (frame.action === 'pause') pause(true);
      else if (frame.action === 'resume') pause(false);
      else if (frame.action === 'settings' && typeof frame.settings === 'object' && frame.settings !== null) {
        session.changeOptions(frame.settings as Record<string, unknown>);
      } else if (frame.action === 'stop') session.finish();
      else if (frame.action === 'audio') audio.wanted();
      else if (frame.action === 'demote' && typeof frame.epoch === 'number' && frame.epoch > epoch) demote();
    }
  })();
  return session;
}
