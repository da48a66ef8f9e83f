/**
 * The RTMP server (RTMP ingest, issue 15): encoders (OBS, ffmpeg `-f flv`) publish to
 * `rtmp://<host>:<RTMP_PORT>/live/<streamKey>`. The protocol (handshake, chunk stream, AMF commands, FLV tags) is
 * node-media-server's (`protocol/rtmp.js`, `protocol/flv.js`); this file owns the TCP server, the key check and
 * what a publish does. Its server class is not used: it keeps one global context per process, starts an HTTP API
 * and a file store beside RTMP, and exits the process when its port is taken.
 *
 * Life of one publish:
 *   connect → `publish <key>`: the key is checked (src/live/rtmp-ingests.ts); a wrong key, an app other than `live`, or
 *   a second publish on a key that is publishing closes the connection (the encoder fails) and records nothing.
 *   → a recording of the key's live transcription starts (an open one left by a crashed process is stopped first)
 *   → the audio tags (video is dropped) go as an FLV stream to a stream pull (src/live/transports/stream-pull.ts with the
 *   bytes given and `once`): decoded by ffmpeg to 16 kHz mono float32 and fed to the recording's session, as a
 *   pulled HTTP stream is → the encoder stops or drops: what was heard is committed, then the recording is stopped
 *   (and finalized as any stopped recording). The next publish starts a new recording of the same transcription.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Config } from '../../core/config/index.js';
import { ApiError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Services } from '../../core/services.js';
import { StreamPull } from './stream-pull.js';
import { RTMP_APP, type RtmpAudio, type RtmpPublisher } from '../rtmp-ingests.js';

interface AVPacket { codec_id: number; codec_type: number; flags: number; dts: number; size: number; data: Buffer }
interface RtmpProtocol {
  onConnectCallback: (req: { app: string; name: string }) => void;
  onPlayCallback: () => void;
  onPushCallback: () => void;
  onPacketCallback: (packet: AVPacket) => void;
  onOutputCallback: (buffer: Buffer) => void;
  parserData(buffer: Buffer): string | null;
  respondPublish(): void;
  sendStatusMessage(streamId: number, level: string, code: string, description: string): void;
  streamId: number;
}
const require = createRequire(import.meta.url);
const Rtmp = require('node-media-server/src/protocol/rtmp.js') as new () => RtmpProtocol;
const Flv = require('node-media-server/src/protocol/flv.js') as {
  createHeader(audio: boolean, video: boolean): Buffer; createMessage(packet: AVPacket): Buffer;
};

const FLV_AUDIO = 8;
/** Bytes of audio held for a subscriber that does not keep up (a slow monitor) before it is dropped. */
const MAX_QUEUED = 4 * 1024 * 1024;
/** A connection silent this long (no handshake, no publish, no media) is closed. */
const IDLE_MS = 30_000;
const SOUND_FORMATS: Record<number, string> = {
  0: 'pcm', 1: 'adpcm', 2: 'mp3', 3: 'pcm_s16le', 4: 'nellymoser', 5: 'nellymoser', 6: 'nellymoser', 7: 'pcm_alaw', 8: 'pcm_mulaw',
  10: 'aac', 11: 'speex', 14: 'mp3', 13: 'enhanced',
};
const AAC_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const FLV_RATES = [5512, 11025, 22050, 44100];

/** What an audio tag says about the stream: an AAC sequence header's AudioSpecificConfig, else the FLV tag header. */
export function describeAudio(packet: Pick<AVPacket, 'codec_id' | 'data'>): Omit<RtmpAudio, 'since'> {
  const codec = SOUND_FORMATS[packet.codec_id] ?? `flv-${packet.codec_id}`;
  if (packet.codec_id === 10 && packet.data.length >= 4 && packet.data[1] === 0) {
    const config = packet.data.readUInt16BE(2);
    return { codec, sampleRate: AAC_RATES[(config >> 7) & 0x0f] ?? null, channels: (config >> 3) & 0x0f || null };
  }
  const header = packet.data[0] ?? 0;
  return { codec, sampleRate: FLV_RATES[(header >> 2) & 0x03] ?? null, channels: (header & 0x01) + 1 };
}

/**
 * One publish's audio as an FLV stream, to any number of readers. The decoder reads `fromStart`: every tag since
 * the publish began (held until it attaches, so a recording that takes a moment to start loses nothing); a monitor
 * reads from now on. Each reader gets the FLV header and the codec's setup (an AAC sequence header) first.
 */
class AudioFanout {
  private readonly head: Buffer[] = [Flv.createHeader(true, false)];
  private backlog: Buffer[] | null = [];
  private backlogBytes = 0;
  private readonly readers = new Set<{ queue: Buffer[]; bytes: number; wake: (() => void) | null }>();
  private ended = false;

  push(packet: AVPacket): void {
    const tag = Flv.createMessage(packet);
    if (packet.flags === 0) this.head.push(tag);
    else if (this.backlog && this.backlogBytes < MAX_QUEUED) {
      this.backlog.push(tag);
      this.backlogBytes += tag.length;
    }
    for (const reader of this.readers) {
      reader.queue.push(tag);
      reader.bytes += tag.length;
      // A reader that does not keep up (a slow monitor) skips what it missed rather than holding memory.
      if (reader.bytes > MAX_QUEUED) reader.queue.length = 0;
      reader.wake?.();
    }
  }

  end(): void {
    this.ended = true;
    for (const reader of this.readers) reader.wake?.();
  }

  async *read(signal: AbortSignal, fromStart = false): AsyncGenerator<Buffer> {
    const reader = { queue: [...this.head, ...(fromStart ? (this.backlog ?? []) : [])], bytes: 0, wake: null as (() => void) | null };
    if (fromStart) this.backlog = null;
    this.readers.add(reader);
    const stop = () => reader.wake?.();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for (;;) {
        const next = reader.queue.shift();
        if (next) {
          reader.bytes = Math.max(0, reader.bytes - next.length);
          yield next;
          continue;
        }
        if (this.ended || signal.aborted) return;
        await new Promise<void>((resolve) => (reader.wake = resolve));
        reader.wake = null;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      this.readers.delete(reader);
    }
  }
}

export interface RunningRtmpServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the RTMP server on RTMP_PORT (HOST); the app stops it (src/entry/app.ts). */
export async function startRtmpServer(options: { services: Services; config: Config; logger: Logger }): Promise<RunningRtmpServer> {
  const { services, config, logger } = options;
  const sockets = new Set<net.Socket>();
  const publishes = new Set<Promise<void>>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const publish = handleConnection(socket, options);
    publishes.add(publish);
    void publish.finally(() => publishes.delete(publish));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.rtmp.port ?? 1935, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  services.rtmp.listening(port);
  logger.info({ port }, 'RTMP ingest listening');
  return {
    port,
    async close() {
      services.rtmp.listening(null);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      // Each publish commits what it heard and stops its recording before the services close.
      await Promise.allSettled([...publishes]);
    },
  };
}

/** One TCP connection: the RTMP protocol until `publish`, then the key check and, if it passes, one recording. */
function handleConnection(socket: net.Socket, options: { services: Services; config: Config; logger: Logger }): Promise<void> {
  const { services, logger } = options;
  const rtmp = new Rtmp();
  // Made at `publish`; an encoder sends media only once the publish is accepted (a client that does not wait
  // fills only its own capped backlog, dropped with it if the key is refused).
  let fanout: AudioFanout | null = null;
  let publisher: RtmpPublisher | null = null;
  let closed = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const refuse = (why: string) => {
    logger.info({ why, remote: socket.remoteAddress }, 'RTMP publish refused');
    if (!socket.destroyed) {
      rtmp.sendStatusMessage(rtmp.streamId, 'error', 'NetStream.Publish.BadName', why);
      socket.end();
      setTimeout(() => socket.destroy(), 2000).unref();
    }
    resolveDone();
  };
  rtmp.onOutputCallback = (buffer) => {
    if (!socket.destroyed) socket.write(buffer);
  };
  // `NetStream.Publish.Start` waits for the key check (an encoder sends no media before it): a refused publish
  // fails at the handshake with `NetStream.Publish.BadName`.
  const acceptPublish = rtmp.respondPublish.bind(rtmp);
  rtmp.respondPublish = () => undefined;
  rtmp.onPlayCallback = () => refuse('playing is not offered; the monitor URL of GET /v1/rtmp plays the audio');
  rtmp.onConnectCallback = (req) => {
    if (req.app !== RTMP_APP) return refuse(`unknown application ${req.app}`);
    const audio = new AudioFanout();
    fanout = audio;
    void services.rtmp.publisherFor(req.name).then(
      (found) => {
        if (!found) return refuse('wrong stream key');
        if (services.rtmp.publishing(found.accountId)) return refuse('this stream key is publishing already');
        publisher = found;
        acceptPublish();
        services.rtmp.published(found.accountId, (signal) => audio.read(signal));
        if (closed) audio.end();
        void runPublish(socket, audio, found, options).finally(resolveDone);
      },
      (error: unknown) => {
        logger.warn({ error: String(error) }, 'RTMP key check failed');
        refuse('the key could not be checked');
      },
    );
  };
  let described = false;
  rtmp.onPacketCallback = (packet) => {
    if (packet.codec_type !== FLV_AUDIO || !fanout) return;
    fanout.push(packet);
    if (publisher && !described) {
      described = true;
      services.rtmp.heard(publisher.accountId, { ...describeAudio(packet), since: new Date().toISOString() });
    }
  };
  socket.on('data', (data: Buffer) => {
    const error = rtmp.parserData(data);
    if (error) refuse(`protocol error: ${error}`);
  });
  socket.on('error', () => undefined);
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  socket.on('close', () => {
    closed = true;
    (fanout as AudioFanout | null)?.end();
    if (!fanout) resolveDone();
  });
  return done;
}

/** A checked publish: a recording starts, the audio feeds it through a stream pull, the end stops it. */
async function runPublish(
  socket: net.Socket, fanout: AudioFanout, publisher: RtmpPublisher, options: { services: Services; config: Config; logger: Logger },
): Promise<void> {
  const { services, config, logger } = options;
  let recordingId: string | null = null;
  try {
    const started = await startRecording(services, publisher);
    recordingId = started.recordingId;
    const url = services.rtmp.serverUrl(`http://${config.host}`);
    const pull = new StreamPull(
      services, config.dataDir, services.transcriptions.linkPolicy,
      { recordingId, accountId: publisher.accountId, url, epoch: started.epoch }, logger,
      { bytes: (signal) => fanout.read(signal, true), once: true },
    );
    await pull.run();
  } catch (error) {
    logger.warn({ accountId: publisher.accountId, error: String(error) }, 'RTMP publish could not record');
  } finally {
    services.rtmp.unpublished(publisher.accountId);
    fanout.end();
    // The recording is over (the encoder stopped, or the recording was stopped through the API): an encoder still
    // connected is told so by the connection closing, and starts a new recording if it reconnects.
    socket.destroy();
    if (recordingId) await endRecording(services, publisher.accountId, recordingId);
  }
}

/** A new recording of the key's transcription; an open one (left by a process that died mid-publish) is stopped first. */
async function startRecording(services: Services, publisher: RtmpPublisher): Promise<{ recordingId: string; epoch: number }> {
  const open = await services.liveRecordings.list(publisher.accountId, publisher.transcriptionId, { limit: 5 });
  for (const recording of open.items) {
    if (recording.state === 'live' || recording.state === 'paused') await endRecording(services, publisher.accountId, recording.id);
  }
  const grant = await services.liveRecordings.start({ accountId: publisher.accountId }, publisher.transcriptionId, {}, 'http://localhost');
  // A recording starts on its first grant (epoch 1), which this publish holds.
  return { recordingId: grant.recording.id, epoch: 1 };
}

/**
 * Stops a recording as its owner would (a live one is paused first: stop moves from paused). The session's own end
 * (closing its capture span) may race the move: a conflicting transaction is tried again; a recording that ended
 * meanwhile is left as it is.
 */
async function endRecording(services: Services, accountId: string, recordingId: string): Promise<void> {
  for (const move of ['pause', 'stop'] as const) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const outcome = await services.liveRecordings[move](accountId, recordingId).then(
        () => 'done', (error: unknown) => (error instanceof ApiError ? 'refused' : 'retry'),
      );
      if (outcome !== 'retry') break;
      await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
    }
  }
}
