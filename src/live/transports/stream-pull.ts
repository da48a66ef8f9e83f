/**
 * Stream sources (`source: {kind: 'stream', url}`): the server itself is the recording's publisher. It opens the
 * URL (HTTP live audio such as an internet radio, or an HLS playlist whose segments it fetches in turn), every
 * connection through the link policy of file jobs (no private, loopback or metadata address, on every redirect and
 * segment), decodes it with ffmpeg to 16 kHz mono and feeds a `LiveSession` that publishes to the recording
 * (publisher.ts): commits stored, audio kept, pause/resume/stop/settings obeyed as for a microphone.
 *
 * Life of one pull, until the recording stops or another process takes it over:
 *   open → audio flows (`streaming`) → the source ends or drops → reopened with backoff (`reconnecting`,
 *   1, 2, 4 … 30 s) → …
 * A source that never gave audio fails the recording after OPEN_ATTEMPTS tries, and one that gave audio but cannot
 * be reopened after REOPEN_ATTEMPTS: the recording ends (`recording.ingest` `failed` with the reason, then
 * finalization), never a silent hang. Progress goes out as `stream.ingest` frames every INGEST_REPORT_MS
 * (bytes, seconds, reconnects), state changes as durable `recording.ingest` events.
 *
 * Which process pulls: any that runs the background workers. A sweep (every SWEEP_MS, and at once when a recording
 * starts) claims open stream recordings that no live puller reports for (the publisher presence rule: 15 s), by
 * moving the grant's epoch on, so a process that died mid-recording is replaced and two never pull one stream.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SAMPLE_RATE, decodeStream } from '../../../workers/engine/index.js';
import type { BackgroundWorker } from '../../core/background.js';
import type { Services } from '../../core/services.js';
import { toApiError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { LiveEvent, LiveOutput, LiveSession } from '../session.js';
import { LinkError, openLink, type LinkFetchPolicy, type OpenedLink } from '../../links/index.js';
import { publishToRecording } from './publisher.js';
import { INGEST_CONNECTING, STREAM_PULLS_TOPIC, type IngestReport } from '../recordings.js';

const OPEN_ATTEMPTS = 3;
const REOPEN_ATTEMPTS = 20;
const MAX_BACKOFF_MS = 30_000;
const INGEST_REPORT_MS = 2_000;
const SWEEP_MS = 5_000;
/** Audio goes to the session in pieces of this many samples (0.25 s, the protocol's chunk size). */
const PIECE_SAMPLES = SAMPLE_RATE / 4;
const MAX_PLAYLIST_BYTES = 1024 * 1024;
/** A playlist that names no new segment for this many of its target durations has stopped. */
const STALE_PLAYLIST_TARGETS = 6;

/** The bytes of a live source, as they arrive: the body of an HTTP stream, or an HLS playlist's segments in order. */
export async function* sourceBytes(url: string, policy: LinkFetchPolicy, signal: AbortSignal): AsyncGenerator<Buffer> {
  const opened = await openSource(url, policy, signal, 'source.url');
  const type = String(opened.response.headers['content-type'] ?? '').toLowerCase();
  if (type.includes('mpegurl') || /\.m3u8$/i.test(opened.url.pathname)) {
    yield* hlsSegments(opened.url, await readText(opened.response), policy, signal);
    return;
  }
  for await (const chunk of opened.response) yield chunk as Buffer;
}

async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_PLAYLIST_BYTES) {
      throw new LinkError('too_large', `source.url: the playlist is larger than ${MAX_PLAYLIST_BYTES} bytes.`, { field: 'source.url' });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One request of a pull (the stream, a playlist, a segment) through the link policy; an HTTP error status is a
 * `link_http_error` naming `what` (`source.url`, or the playlist or segment of it that failed).
 */
async function openSource(url: string, policy: LinkFetchPolicy, signal: AbortSignal, what: string): Promise<OpenedLink> {
  const opened = await openLink(url, { policy, signal, headers: { 'icy-metadata': '0' } });
  const status = opened.response.statusCode ?? 0;
  if (status >= 400) {
    opened.response.resume();
    throw new LinkError('link_http_error', `${what} answered HTTP ${status}.`, { httpStatus: status, field: 'source.url' });
  }
  return opened;
}

async function fetchText(url: URL, policy: LinkFetchPolicy, signal: AbortSignal): Promise<string> {
  return readText((await openSource(url.toString(), policy, signal, `source.url: ${url.pathname}`)).response);
}

export interface MediaPlaylist {
  mediaSequence: number;
  targetDurationS: number;
  /** The init section (`#EXT-X-MAP`) of fragmented MP4 segments. */
  map: string | null;
  segments: string[];
  ended: boolean;
}

/** An HLS media playlist's segment URIs and what paces them (RFC 8216, the tags a live audio stream uses). */
export function parseMediaPlaylist(text: string): MediaPlaylist {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  if (lines[0] !== '#EXTM3U') {
    throw new LinkError('link_http_error', 'source.url: the playlist does not start with #EXTM3U.', { field: 'source.url' });
  }
  const playlist: MediaPlaylist = { mediaSequence: 0, targetDurationS: 6, map: null, segments: [], ended: false };
  for (const line of lines) {
    if (line.startsWith('#EXT-X-MEDIA-SEQUENCE:')) playlist.mediaSequence = Number(line.slice(22)) || 0;
    else if (line.startsWith('#EXT-X-TARGETDURATION:')) playlist.targetDurationS = Math.max(1, Number(line.slice(22)) || 6);
    else if (line.startsWith('#EXT-X-MAP:')) playlist.map = /URI="([^"]+)"/.exec(line)?.[1] ?? null;
    else if (line === '#EXT-X-ENDLIST') playlist.ended = true;
    else if (!line.startsWith('#')) playlist.segments.push(line);
  }
  return playlist;
}

/** The first variant of a master playlist (the one listed first is the one players start with), or null. */
export function firstVariant(text: string): string | null {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const at = lines.findIndex((line) => line.startsWith('#EXT-X-STREAM-INF'));
  return at === -1 ? null : (lines.slice(at + 1).find((line) => line && !line.startsWith('#')) ?? null);
}

async function* hlsSegments(playlistUrl: URL, first: string, policy: LinkFetchPolicy, signal: AbortSignal): AsyncGenerator<Buffer> {
  let url = playlistUrl;
  let text = first;
  const variant = firstVariant(text);
  if (variant) {
    url = new URL(variant, url);
    text = await fetchText(url, policy, signal);
  }
  let next = -1;
  let mapSent = false;
  let quietSince = Date.now();
  for (;;) {
    const playlist = parseMediaPlaylist(text);
    if (playlist.map && !mapSent) {
      yield* segmentBytes(new URL(playlist.map, url), policy, signal);
      mapSent = true;
    }
    for (const [index, segment] of playlist.segments.entries()) {
      const sequence = playlist.mediaSequence + index;
      if (sequence <= next) continue;
      next = sequence;
      quietSince = Date.now();
      yield* segmentBytes(new URL(segment, url), policy, signal);
    }
    if (playlist.ended) return;
    // A live playlist is refetched about twice per target duration; one that stops growing has ended.
    if (Date.now() - quietSince > STALE_PLAYLIST_TARGETS * playlist.targetDurationS * 1000) return;
    await sleep((playlist.targetDurationS * 1000) / 2, signal);
    text = await fetchText(url, policy, signal);
  }
}

async function* segmentBytes(url: URL, policy: LinkFetchPolicy, signal: AbortSignal): AsyncGenerator<Buffer> {
  const opened = await openSource(url.toString(), policy, signal, `source.url: segment ${url.pathname}`);
  for await (const chunk of opened.response) yield chunk as Buffer;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The frames a pulled session would send a client: kept only for what the puller needs (the last error, the end). */
class PullOutput implements LiveOutput {
  lastError: string | null = null;
  lastErrorCode: string | null = null;
  /** The session ended with `session.done` (a stop, or this pull's own finish). */
  done = false;
  private resolveFinished!: () => void;
  private resolveReady!: (ready: boolean) => void;
  readonly finished$ = new Promise<void>((resolve) => (this.resolveFinished = resolve));
  /** True once the session is ready for audio (audio before `session.ready` is dropped); false if it ended first. */
  readonly ready$ = new Promise<boolean>((resolve) => (this.resolveReady = resolve));
  onFinished: (() => void) | null = null;

  send(event: LiveEvent): boolean {
    if (event.type === 'session.ready') this.resolveReady(true);
    if (event.type === 'error') {
      this.lastError = String(event.message ?? event.code ?? 'error');
      this.lastErrorCode = typeof event.code === 'string' ? event.code : null;
    }
    if (event.type === 'session.done') this.done = true;
    return true;
  }

  behind(): boolean {
    return false;
  }

  finished(): void {
    this.resolveReady(false);
    this.onFinished?.();
    this.resolveFinished();
  }
}

interface PullTarget {
  recordingId: string;
  accountId: string;
  url: string;
  epoch: number;
}

/**
 * How a pull gets its bytes. Default: it opens `url` itself (sourceBytes) and reopens it with backoff when it ends.
 * A source pushed to this server (RTMP ingest, src/live/transports/rtmp.ts) brings its own `bytes` and is pulled `once`: when the
 * pushed stream ends, what was heard is committed and the pull is over (the pusher decides what happens next).
 */
export interface PullOptions {
  bytes?: (signal: AbortSignal) => AsyncIterable<Buffer>;
  once?: boolean;
}

/**
 * One recording's pull, for as long as this process holds its grant: sessions one after another (a new one after
 * each drop, on the same recording and time line), until the recording ends, another process takes it over, or
 * this process stops.
 */
export class StreamPull {
  private readonly abort = new AbortController();
  private session: LiveSession | null = null;
  private report: IngestReport = { ...INGEST_CONNECTING };
  private over = false;

  constructor(
    private readonly services: Services, private readonly dataDir: string, private readonly policy: LinkFetchPolicy,
    private readonly target: PullTarget, private readonly logger: Logger, private readonly options: PullOptions = {},
  ) {}

  /** Stops pulling (the process is shutting down): the session ends as a dropped publisher's does. */
  stop(): void {
    this.over = true;
    this.abort.abort();
    this.session?.shutdown();
  }

  async run(): Promise<void> {
    const { recordingId, epoch } = this.target;
    // Progress every few seconds for as long as this process pulls, across connections and the waits between them.
    const reporter = setInterval(
      () => void this.services.liveRecordings.reportIngest(recordingId, epoch, this.report, false).catch(() => undefined), INGEST_REPORT_MS,
    );
    try {
      await this.pullUntilOver();
    } finally {
      clearInterval(reporter);
    }
  }

  private async pullUntilOver(): Promise<void> {
    const live = this.services.liveRecordings;
    const { recordingId, epoch } = this.target;
    let failures = 0;
    let everStreamed = false;
    while (!this.over) {
      let place;
      try {
        place = await live.attach(recordingId, epoch);
      } catch {
        return; // ended, or taken over by a newer grant: nothing left to pull here
      }
      const attempt = await this.pullOnce(place);
      if (this.over) return;
      if (attempt.ended || this.options.once) return;
      everStreamed ||= attempt.gotAudio;
      failures = attempt.gotAudio ? 0 : failures + 1;
      const limit = everStreamed ? REOPEN_ATTEMPTS : OPEN_ATTEMPTS;
      if (failures >= limit) {
        const reason = attempt.error ?? 'the stream gave no audio';
        await live.failIngest(recordingId, epoch, { ...this.report, state: 'failed', error: reason }).catch(
          (error: unknown) => this.logger.warn({ recordingId, error: String(error) }, 'failing a stream recording'),
        );
        return;
      }
      this.report = { ...this.report, state: 'reconnecting', reconnects: this.report.reconnects + 1, error: attempt.error };
      await live.reportIngest(recordingId, epoch, this.report, true).catch(() => undefined);
      await sleep(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1)), this.abort.signal);
    }
  }

  /** One session on one connection to the source. `ended`: the recording stopped (or was taken over) meanwhile. */
  private async pullOnce(
    place: { offsetS: number; paused: boolean },
  ): Promise<{ gotAudio: boolean; error: string | null; ended: boolean }> {
    const { recordingId, epoch, accountId } = this.target;
    const runtime = this.services.realtime.runtime;
    const output = new PullOutput();
    let ended = false;
    let finishing = false;
    const options = await this.services.liveRecordings.captureOptions(recordingId);
    const claims = {
      sessionId: `ses_${randomUUID().replaceAll('-', '')}`, accountId, options, recording: { id: recordingId, epoch },
      issuedAt: Math.floor(Date.now() / 1000), expiresAt: Math.floor(Date.now() / 1000) + 3600,
    };
    const connection = new AbortController();
    const stopConnection = () => connection.abort();
    this.abort.signal.addEventListener('abort', stopConnection, { once: true });
    const session = publishToRecording(this.services, this.dataDir, { recordingId, epoch, offsetS: place.offsetS, paused: place.paused }, (
      hooks,
    ) => {
      output.onFinished = () => {
        // The session ended by itself: a stop (`session.done`) or a takeover (`conflict`) ends this pull; anything
        // else (the engine lost, no slot) is one more failed attempt, retried with backoff.
        ended = !this.over && !finishing && !connection.signal.aborted && (output.done || output.lastErrorCode === 'conflict');
        connection.abort();
        hooks.closed?.();
      };
      return runtime.sockets.open(claims, output, hooks);
    }, () => !ended && !this.over);
    this.session = session;
    let gotAudio = false;
    let error: string | null = null;
    try {
      if (!(await output.ready$)) throw new Error(output.lastError ?? 'the engine took no session (every slot busy)');
      const source = this.options.bytes ? this.options.bytes(connection.signal) : sourceBytes(
        this.target.url, this.policy, connection.signal,
      );
      const counted = countBytes(source, (bytes) => (this.report.bytes += bytes));
      for await (const pcm of decodeStream(counted, { signal: connection.signal, what: 'source.url' })) {
        if (!gotAudio) {
          gotAudio = true;
          this.report = { ...this.report, state: 'streaming', error: null };
          await this.services.liveRecordings.reportIngest(recordingId, epoch, this.report, true).catch(() => undefined);
        }
        this.report.seconds += pcm.length / SAMPLE_RATE;
        for (let at = 0; at < pcm.length; at += PIECE_SAMPLES) {
          const piece = pcm.subarray(at, at + PIECE_SAMPLES);
          session.audio(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength));
        }
      }
    } catch (caught) {
      if (!connection.signal.aborted) error = toApiError(caught).message;
    } finally {
      this.abort.signal.removeEventListener('abort', stopConnection);
    }
    if (!connection.signal.aborted) {
      // The source ended or dropped: what was heard is committed, then this session ends; the next one continues.
      finishing = true;
      connection.abort();
      session.finish();
    }
    await output.finished$;
    this.session = null;
    return { gotAudio, error: error ?? output.lastError, ended };
  }
}

async function* countBytes(source: AsyncIterable<Buffer>, count: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    count(chunk.length);
    yield chunk;
  }
}

/**
 * The background worker that runs stream pulls in this process: claims open stream recordings nobody pulls (at
 * start-up, every SWEEP_MS, and at once when a recording starts) and runs them until they end.
 */
export const streamPullWorker: BackgroundWorker = {
  name: 'stream-pulls',
  async start({ services, config, logger, pubsub }) {
    const pulls = new Map<string, StreamPull>();
    const policy = services.transcriptions.linkPolicy;
    let sweeping = false;
    let stopped = false;
    const sweep = async () => {
      if (sweeping || stopped) return;
      sweeping = true;
      try {
        for (const target of await services.liveRecordings.claimStreamPulls([...pulls.keys()])) {
          const pull = new StreamPull(services, config.dataDir, policy, target, logger);
          pulls.set(target.recordingId, pull);
          void pull
            .run()
            .catch((error: unknown) => logger.error({ recordingId: target.recordingId, error: String(error) }, 'stream pull failed'))
            .finally(() => pulls.delete(target.recordingId));
        }
      } catch (error) {
        logger.warn({ error: String(error) }, 'stream pull sweep failed; the next one retries');
      } finally {
        sweeping = false;
      }
    };
    const timer = setInterval(() => void sweep(), SWEEP_MS);
    const nudges = pubsub.subscribe(STREAM_PULLS_TOPIC);
    void (async () => {
      for await (const _nudge of nudges) void sweep();
    })();
    void sweep();
    return {
      async stop() {
        stopped = true;
        clearInterval(timer);
        void nudges.return?.();
        for (const pull of pulls.values()) pull.stop();
      },
    };
  },
};
