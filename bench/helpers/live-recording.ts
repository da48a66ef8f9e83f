/**
 * One clip recorded live through the public interface of a gateway started by `withBenchServices`, as a
 * microphone would send it, read back twice: when paused and when finalized.
 *
 * `POST /v1/transcriptions/live`, `POST /v1/transcriptions/{id}/recordings` (the publisher grant), the clip
 * streamed at real time to the grant's `streamUrl` with no `eof`, then `silenceS` of silence (still at real
 * time), then `POST /v1/recordings/{id}/pause` and `GET /v1/recordings/{id}/transcript` (the paused text), then
 * `POST /v1/recordings/{id}/stop`, `GET /v1/recordings/{id}` until `finalized` (the worker's catch-up with the
 * accurate model has run) and the transcript once more (the finalized text).
 */
import { decodeToChunks, SAMPLE_RATE, streamFile, type RealtimeConnection } from '../../test/helpers/realtime-client.js';
import type { BenchServices } from './services.js';

/** The gateway's REST API with the bench key: `rest.get<T>(path)`, `rest.post<T>(path, body)`. */
export function restClient(services: BenchServices) {
  async function send<T>(method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: { ...services.headers } };
    if (body !== undefined) init.headers = { ...services.headers, 'content-type': 'application/json' };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(services.base + pathname, init);
    const answer = await response.text();
    if (response.ok) return JSON.parse(answer) as T;
    throw new Error(`${method} ${pathname}: ${response.status} ${answer}`);
  }
  return {
    get: <T>(pathname: string) => send<T>('GET', pathname),
    post: <T>(pathname: string, body: unknown = {}) => send<T>('POST', pathname, body),
  };
}

export interface LiveRecordingResult {
  recordingId: string;
  /** The stored transcript's text right after `pause` (segments by start time, joined). */
  pausedText: string;
  /** The stored transcript's text once the recording is `finalized`. */
  finalizedText: string;
  /** Seconds from `stop` to the first read that said `finalized`. */
  finalizeS: number;
  /** Error frames, a session that did not end with `eof`, … (empty when all went as planned). */
  problems: string[];
}

export interface LiveRecordingOptions {
  name: string;
  language: string;
  /** Silence streamed after the clip, before `pause` (default 3 s). */
  silenceS?: number;
  finalizeTimeoutS?: number;
}

const CHUNK_S = 0.2;
const sleepUntil = (atMs: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - performance.now())));

/** Seconds of audio `file` decodes to (what `streamFile` will send: the trigger for the silence that follows). */
async function decodedSeconds(file: string): Promise<number> {
  let samples = 0;
  for await (const chunk of decodeToChunks(file, Math.round(CHUNK_S * SAMPLE_RATE))) samples += chunk.length;
  return samples / SAMPLE_RATE;
}

interface StoredTranscript { segments: { start: number; text: string }[] }
const textOf = (transcript: StoredTranscript) =>
  [...transcript.segments].sort((a, b) => a.start - b.start).map((segment) => segment.text.trim()).filter(Boolean).join(' ');

export async function recordClipLive(services: BenchServices, file: string, options: LiveRecordingOptions): Promise<LiveRecordingResult> {
  const rest = restClient(services);
  const silenceS = options.silenceS ?? 3;
  const finalizeTimeoutS = options.finalizeTimeoutS ?? 300;
  const clipS = await decodedSeconds(file);
  const live = await rest.post<{ id: string }>('/v1/transcriptions/live', {
    name: options.name, settings: { spokenLanguage: options.language },
  });
  const grant = await rest.post<{ streamUrl: string; recording: { id: string } }>(`/v1/transcriptions/${live.id}/recordings`);
  const recordingId = grant.recording.id;
  const transcriptPath = `/v1/recordings/${recordingId}/transcript`;

  let pausedText = '';
  let stopAt = 0;
  // After the clip's last chunk: silence at real time (a microphone keeps sending), pause, read, stop. A session
  // that stop does not end is closed after a minute (and reported: it did not end with eof).
  const afterClip = async (connection: RealtimeConnection) => {
    const silence = new Float32Array(Math.round(CHUNK_S * SAMPLE_RATE));
    const from = performance.now();
    for (let sent = 1; sent * CHUNK_S <= silenceS + 1e-9; sent++) {
      await sleepUntil(from + sent * CHUNK_S * 1000);
      connection.sendPcm(silence);
    }
    await rest.post(`/v1/recordings/${recordingId}/pause`);
    pausedText = textOf(await rest.get<StoredTranscript>(transcriptPath));
    stopAt = performance.now();
    await rest.post(`/v1/recordings/${recordingId}/stop`);
    setTimeout(() => connection.close(), 60_000).unref();
  };
  let ending: Promise<void> | undefined;
  let endError: unknown;
  const session = await streamFile(grant.streamUrl, file, {
    noEof: true,
    afterChunk: (connection, sentS) => {
      if (sentS < clipS - 1e-6) return;
      ending ??= afterClip(connection).catch((error: unknown) => {
        endError = error;
        connection.close();
      });
    },
  });
  if (!ending) throw new Error(`recording ${recordingId}: the stream closed (${session.closeCode}) before the clip was sent`);
  await ending;
  if (endError) throw endError;

  const deadline = stopAt + finalizeTimeoutS * 1000;
  for (;;) {
    const { state } = await rest.get<{ state: string }>(`/v1/recordings/${recordingId}`);
    if (state === 'finalized') break;
    if (performance.now() > deadline) throw new Error(`recording ${recordingId} still ${state} ${finalizeTimeoutS} s after stop`);
    await sleepUntil(performance.now() + 100);
  }
  const finalizeS = (performance.now() - stopAt) / 1000;
  const finalizedText = textOf(await rest.get<StoredTranscript>(transcriptPath));
  const problems = [
    ...session.errors.map((error) => `error frame ${error.code}: ${error.message}`),
    ...(session.done?.reason === 'eof' ? [] : [`session ended `
      + `${session.done?.reason ?? `without session.done (close ${session.closeCode})`}`]),
  ];
  return { recordingId, pausedText, finalizedText, finalizeS, problems };
}
