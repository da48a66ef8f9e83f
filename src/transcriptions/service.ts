/**
 * File and link transcriptions: creation (upload or link), listing, renaming, lifecycle moves, the probe, and
 * the job moves a client can make (start a cropped job, retry a failed one). The heavy work happens in the
 * workers (workers/transcription-worker.ts); the rules of job states live in ./jobs.ts.
 *
 * A file or link transcription holds exactly one recording, and that recording has one job.
 */
import crypto from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Prisma } from '../generated/prisma/client.js';
import { ApiError, errors, knownError } from '../core/errors.js';
import { probeAudio } from '../../workers/engine/index.js';
import { createLogger, type Logger } from '../core/logger.js';
import { newId } from '../core/ids.js';
import { stagedUploads } from '../core/uploads.js';
import { pageByLifecycle } from '../core/cursor.js';
import { lifecycleTimes, type LifecycleTimes } from '../core/lifecycle.js';
import { SPEAKER_LABEL_MODES, type CapabilitiesService } from '../meta/service.js';
import { parseVoicePins } from '../core/voice-pins.js';
import type { ServiceDeps } from '../core/services.js';
import { isObject, optionalNumber } from '../core/validate.js';
import { createJob, dispatchQueued, jobView, queuePositions, type JobsService, type JobView } from '../jobs/service.js';
import { inTransaction, parseConfidencePolicy, type StoredConfidencePolicy, recordingMediaDir } from '../transcript/index.js';
import { lockTranscription, TX_OPTIONS, type Tx } from '../core/db/transactions.js';
import type { Actor } from '../core/identity/actor.js';
import { windowSeconds, type Metering } from '../billing/index.js';
import {
  linkFetchPolicyOf, parseLinkUrl, probeLink, refusedAddressReason, refusedHostNameReason, LinkError,
  type LinkFetchPolicy, type ProbeRecord,
} from '../links/index.js';
import { recordingView, type RecordingView } from '../recordings/service.js';
import { newShareCode, type ShareLinkRow } from '../share-links/service.js';

declare module '../core/services.js' {
  interface Services {
    transcriptions: TranscriptionsService;
  }
}

export type Lifecycle = 'active' | 'archived';

export interface TranscriptionSettings {
  spokenLanguage?: string | null;
  /** null in a PATCH clears it (back to the default). */
  speakerLabels?: 'auto' | 'on' | 'off' | null;
  /** null in a PATCH clears a stored policy (back to the default `hideBelow` 0.60). */
  confidencePolicy?: StoredConfidencePolicy | null;
  /** The voice that speaks each language of a spoken translation (src/core/voice-pins.ts); null clears. */
  voiceByLang?: Record<string, string> | null;
}

export interface CreateTranscriptionOptions {
  url: string | null;
  name: string | null;
  settings: TranscriptionSettings;
  crop: boolean;
  startS: number | null;
  endS: number | null;
  durationS: number | null;
  shareLink: boolean;
}

/** CaptureSource: where a live transcription's audio comes from. */
export type CaptureSource = { kind: 'mic' } | { kind: 'stream'; url: string };

export interface CreateLiveTranscriptionOptions {
  name: string;
  settings: TranscriptionSettings;
  source: CaptureSource;
  broadcasts: string[];
}

export interface UploadedFile {
  /** The bytes as they arrive; written straight to storage with the size cap applied while streaming. */
  stream: AsyncIterable<Uint8Array> | NodeJS.ReadableStream;
  fileName: string | null;
  mimeType: string | null;
}

/**
 * An upload already written to its recording's folder (size-capped while it arrived), with the sha256 of its
 * bytes: what an Idempotency-Key fingerprint needs before anything is created. `create` takes it over; a request
 * refused before that hands it to `discardUpload`.
 */
export interface StagedUpload {
  recordingId: string;
  bytes: number;
  sha256: string;
  fileName: string | null;
  mimeType: string | null;
}

const isStaged = (upload: UploadedFile | StagedUpload): upload is StagedUpload => 'sha256' in upload;

/** Uploads `stageUpload` wrote in this process, until a create takes one over (src/core/uploads.ts). */
const stagedHere = stagedUploads<StagedUpload>();

/** An upload `stageUpload` wrote in this process that no create has taken over yet. */
export const isStagedUpload = stagedHere.has;

/** Hands a staged upload to the create that stores it (which removes it if it fails); null for anything else. */
export const takeStagedUpload = stagedHere.take;

export interface TranscriptionView extends LifecycleTimes {
  id: string;
  kind: 'file' | 'link' | 'live';
  name: string;
  /** `active` or `archived` (the lifecycle). */
  state: Lifecycle;
  settings: TranscriptionSettings;
  sourceUrl: string | null;
  /** Live transcriptions: where the audio comes from (null for file and link ones). */
  source: CaptureSource | null;
  /** Live transcriptions: ids of the broadcasts it feeds (the API shows them as BroadcastRef: src/broadcasts). */
  broadcastIds: string[];
  /** The newest recording (a file or link transcription's only one; a live one's latest, null until one starts). */
  recordingId: string | null;
  job: JobView | null;
  durationS: number | null;
  spokenLanguage: string | null;
  /** The default share link made at creation (null when `shareLink: false` or since revoked). */
  shareLink: ShareLinkRow | null;
}

export interface TranscriptionPage { items: TranscriptionView[]; nextCursor: string | null }

const CREATE_FIELDS = ['url', 'name', 'settings', 'crop', 'startS', 'endS', 'durationS', 'shareLink'] as const;
const CREATE_LIVE_FIELDS = ['name', 'settings', 'source', 'broadcasts'] as const;
/** A name's most characters (transcriptions, live transcriptions, broadcasts and their audio sources). */
export const MAX_NAME = 300;
const SETTINGS_FIELDS = new Set(['spokenLanguage', 'speakerLabels', 'confidencePolicy', 'voiceByLang']);

/** SettingsPatch: the capture settings a job or live capture reads. Unknown keys are refused by name so typos are not silently ignored. */
export function parseSettings(value: unknown, field = 'settings'): TranscriptionSettings {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw errors.invalidOptions(`${field} must be an object or null.`, { field });
  const out: TranscriptionSettings = {};
  for (const key of Object.keys(value)) {
    if (!SETTINGS_FIELDS.has(key)) {
      throw errors.invalidOptions(
        `${field}.${key} is not a setting of file transcriptions (${[...SETTINGS_FIELDS].join(', ')}).`, { field: `${field}.${key}` },
      );
    }
  }
  if (value.spokenLanguage !== undefined) {
    const language = value.spokenLanguage;
    if (language !== null && (typeof language !== 'string' || !/^(auto|[a-z]{2,3}(-[A-Za-z]{2,4})?)?$/.test(language))) {
      throw errors.invalidOptions(
        `${field}.spokenLanguage must be a language code such as "en", "auto" or null.`, { field: `${field}.spokenLanguage` },
      );
    }
    out.spokenLanguage = language === '' || language === 'auto' ? null : (language as string | null);
  }
  if (value.speakerLabels === null) out.speakerLabels = null;
  else if (value.speakerLabels !== undefined) {
    if (!(SPEAKER_LABEL_MODES as readonly unknown[]).includes(value.speakerLabels)) {
      throw errors.invalidOptions(`${field}.speakerLabels must be auto, on or off.`, { field: `${field}.speakerLabels` });
    }
    out.speakerLabels = value.speakerLabels as 'auto' | 'on' | 'off';
  }
  if (value.confidencePolicy !== undefined) {
    out.confidencePolicy = parseConfidencePolicy(value.confidencePolicy, `${field}.confidencePolicy`);
  }
  if (value.voiceByLang !== undefined) out.voiceByLang = parseVoicePins(value.voiceByLang, `${field}.voiceByLang`);
  return out;
}

/**
 * CreateTranscription (no extra properties). `hasFile` tells whether the body came with a `file` part. A recording
 * uploaded into a live transcription (`into: 'recording'`) takes the same fields but `shareLink` (the transcription
 * and its links exist already).
 */
export function parseCreateOptions(
  body: unknown, hasFile: boolean, into: 'transcription' | 'recording' = 'transcription',
): CreateTranscriptionOptions {
  const input = body === undefined || body === null ? {} : body;
  if (!isObject(input)) throw errors.invalidOptions('options must be a JSON object.', { field: 'options' });
  const fields: readonly string[] = into === 'transcription' ? CREATE_FIELDS : CREATE_FIELDS.filter((field) => field !== 'shareLink');
  for (const key of Object.keys(input)) {
    if (!fields.includes(key)) {
      throw errors.invalidOptions(
        `${key} is not a field of ${into === 'transcription' ? 'CreateTranscription' : 'a recording upload'}.`, { field: key },
      );
    }
  }
  const url = input.url === undefined || input.url === null ? null : input.url;
  if (url !== null && typeof url !== 'string') throw errors.invalidOptions('url must be a string or null.', { field: 'url' });
  if (hasFile && url) throw errors.invalidOptions('url must be absent when a file is uploaded.', { field: 'url' });
  if (!hasFile && !url) throw errors.invalidOptions('url is required without a file part (send multipart with `file`, or JSON with '
    + '`url`).', { field: 'url' });
  const name = input.name === undefined || input.name === null ? null : input.name;
  if (name !== null && (typeof name !== 'string' || !name.trim() || name.length > 300)) {
    throw errors.invalidOptions('name must be a non-empty string of at most 300 characters, or null.', { field: 'name' });
  }
  for (const flag of ['crop', 'shareLink'] as const) {
    if (input[flag] !== undefined && input[flag] !== null && typeof input[flag] !== 'boolean') {
      throw errors.invalidOptions(`${flag} must be true, false or null.`, { field: flag });
    }
  }
  const crop = input.crop === true;
  const startS = optionalNumber(input, 'startS');
  const endS = optionalNumber(input, 'endS');
  if (crop && (startS !== null || endS !== null)) {
    throw errors.invalidOptions(`${startS !== null ? 'startS' : 'endS'} cannot be given together with crop: the window is chosen in the `
      + `cropping step.`, { field: startS !== null ? 'startS' : 'endS' });
  }
  if (startS !== null && endS !== null && endS <= startS) throw errors.invalidOptions('endS must be after startS.', { field: 'endS' });
  return {
    url: url as string | null,
    name: name ? (name as string).trim() : null,
    settings: parseSettings(input.settings),
    crop,
    startS,
    endS,
    durationS: optionalNumber(input, 'durationS'),
    shareLink: input.shareLink !== false,
  };
}

/** Settings as stored: a null in a create body means "no value", so nothing is kept for it. */
export function storedSettings(settings: TranscriptionSettings): Prisma.InputJsonValue {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== null)) as Prisma.InputJsonValue;
}

/** A settings PATCH merged key by key into what is stored; a key set to null is cleared. */
export function mergeSettings(stored: Prisma.JsonValue, patch: TranscriptionSettings): Prisma.InputJsonValue {
  return storedSettings({ ...(stored as TranscriptionSettings), ...patch });
}

/** Only a live, active transcription takes uploaded recordings (a file or link one has its one recording). */
function refuseRecordingUpload(transcription: { kind: string; lifecycle: string }): void {
  if (transcription.kind !== 'live') throw errors.invalidState('Only a live transcription takes uploaded recordings; a file or link '
    + 'transcription has its one recording already.', { kind: transcription.kind });
  if (transcription.lifecycle !== 'active') {
    throw errors.invalidState('The transcription is archived; restore it first.', { state: transcription.lifecycle });
  }
}

/** CaptureSource (no extra properties): `{kind: 'mic'}` (the default, also for null) or `{kind: 'stream', url}`. */
export function parseCaptureSource(raw: unknown): CaptureSource {
  if (raw === undefined || raw === null) return { kind: 'mic' };
  if (!isObject(raw)) {
    throw errors.invalidOptions('source must be an object ({kind: "mic"} or {kind: "stream", url}) or null.', { field: 'source' });
  }
  for (const key of Object.keys(raw)) if (key !== 'kind' && key !== 'url') throw errors.invalidOptions(`source.${key} is not a field of `
    + `CaptureSource (kind, url).`, { field: `source.${key}` });
  if (raw.kind === 'mic') {
    if (raw.url !== undefined && raw.url !== null) {
      throw errors.invalidOptions('source.url is only for kind "stream".', { field: 'source.url' });
    }
    return { kind: 'mic' };
  }
  if (raw.kind === 'stream') {
    if (typeof raw.url !== 'string' || !raw.url) throw errors.invalidOptions('source.url is required for kind "stream": the http(s) '
      + 'address of the live audio.', { field: 'source.url' });
    return { kind: 'stream', url: raw.url };
  }
  throw errors.invalidOptions('source.kind must be "mic" or "stream".', { field: 'source.kind' });
}

/** CreateLiveTranscription (no extra properties): `name` required, `settings`, `source` (default mic), `broadcasts`. */
export function parseCreateLiveOptions(body: unknown): CreateLiveTranscriptionOptions {
  if (!isObject(body)) throw errors.invalidOptions('The body must be a JSON object (CreateLiveTranscription).', { field: 'body' });
  for (const key of Object.keys(body)) {
    if (!(CREATE_LIVE_FIELDS as readonly string[]).includes(key)) {
      throw errors.invalidOptions(`${key} is not a field of CreateLiveTranscription.`, { field: key });
    }
  }
  if (typeof body.name !== 'string' || !body.name.trim() || body.name.length > MAX_NAME) {
    throw errors.invalidOptions(`name is required: a non-empty string of at most ${MAX_NAME} characters.`, { field: 'name' });
  }
  const source = parseCaptureSource(body.source);
  const broadcasts = body.broadcasts ?? [];
  if (!Array.isArray(broadcasts) || broadcasts.some((id) => typeof id !== 'string' || !id || id.length > 100)) {
    throw errors.invalidOptions('broadcasts must be a list of broadcast ids.', { field: 'broadcasts' });
  }
  return { name: body.name.trim(), settings: parseSettings(body.settings), source, broadcasts: [...new Set(broadcasts as string[])] };
}

/** A name (transcriptions, broadcasts): not blank, at most MAX_NAME characters; trimmed. */
export function parseName(value: unknown): string {
  if (typeof value !== 'string' || !value.trim() || value.length > MAX_NAME) {
    throw errors.invalidOptions(`name must be a non-empty string of at most ${MAX_NAME} characters.`, { field: 'name' });
  }
  return value.trim();
}

/** The PATCH of a transcription (UpdateTranscription: `name`, `settings` as a SettingsPatch); unknown fields are refused by name. */
export function parseTranscriptionPatch(body: unknown): { name?: string; settings?: TranscriptionSettings } {
  if (!isObject(body)) throw errors.invalidOptions('The body must be a JSON object.', { field: 'body' });
  for (const key of Object.keys(body)) if (key !== 'name' && key !== 'settings') throw errors.invalidOptions(`${key} cannot be changed `
    + `(name, settings).`, { field: key });
  const out: { name?: string; settings?: TranscriptionSettings } = {};
  if (body.name !== undefined) out.name = parseName(body.name);
  if (body.settings !== undefined) out.settings = parseSettings(body.settings);
  return out;
}


type TranscriptionWithRecording = Prisma.TranscriptionGetPayload<{ include: { recordings: { include: { job: true } }; shareLinks: true } }>;

export class TranscriptionsService {
  private loggerInstance: Logger | null = null;
  readonly linkPolicy: LinkFetchPolicy;

  /** `jobs`: the owner of job state; a transcription writes only its job's first row, in its own transaction. */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly capabilities: CapabilitiesService,
    private readonly jobs: JobsService,
    /** Admits each new file or link recording against the account's credit (src/billing); absent: all admitted. */
    private readonly metering?: Metering,
  ) {
    this.linkPolicy = linkFetchPolicyOf(deps.config.transcriptions);
  }

  /**
   * A spoken language the model does not know is refused now rather than failing the job later (a region suffix,
   * `en-US`, is judged by its language). When the model cannot be read yet, the job is where it will be judged.
   */
  async checkSpokenLanguage(settings: TranscriptionSettings, field = 'settings.spokenLanguage'): Promise<void> {
    const language = settings.spokenLanguage;
    if (!language) return;
    const known = await this.capabilities.transcriptionLanguages().catch(() => null);
    if (known && !known.includes(language.split('-')[0]!.toLowerCase())) {
      throw errors.invalidOptions(
        `${field} "${language}" is not a language the speech model knows (GET /v1/languages lists them).`, { field },
      );
    }
  }

  private get logger(): Logger {
    return (this.loggerInstance ??= createLogger(this.deps.config.logLevel));
  }

  private mediaDir(recordingId: string) {
    return recordingMediaDir(this.deps.config.dataDir, recordingId);
  }

  /** `positions`: the queue positions of a page's jobs read together (queuePositions). */
  async view(row: TranscriptionWithRecording, positions?: Map<string, number>): Promise<TranscriptionView> {
    const recording = row.recordings[0] ?? null;
    const defaultLink = row.shareLinks.find((link) => link.isDefault && !link.revokedAt) ?? null;
    return {
      id: row.id,
      kind: row.kind as TranscriptionView['kind'],
      name: row.name,
      state: row.lifecycle as Lifecycle,
      settings: row.settings as TranscriptionSettings,
      sourceUrl: row.sourceUrl,
      source: (row.source as CaptureSource | null) ?? null,
      broadcastIds: row.kind === 'live' ? (row.broadcastIds as string[]) : [],
      recordingId: recording?.id ?? null,
      job: recording?.job ? await jobView(this.deps.prisma, recording.job, positions) : null,
      durationS: recording?.durationS ?? null,
      spokenLanguage: recording?.spokenLanguage ?? null,
      shareLink: defaultLink ?? null,
      ...lifecycleTimes(row),
    };
  }

  private readonly include = {
    recordings: { include: { job: true }, orderBy: { createdAt: 'desc' as const }, take: 1 },
    shareLinks: { where: { isDefault: true, revokedAt: null } },
  };

  private async owned(accountId: string, id: string): Promise<TranscriptionWithRecording> {
    const row = await this.deps.prisma.transcription.findFirst({ where: { id, accountId }, include: this.include });
    if (!row) throw errors.notFound('The transcription');
    return row;
  }

  async get(accountId: string, id: string): Promise<TranscriptionView> {
    return this.view(await this.owned(accountId, id));
  }

  /**
   * Creates a transcription from an upload or a link and answers at once. An upload is streamed to storage
   * with the size cap applied while it arrives and checked to be audio; on any refusal nothing is kept.
   */
  async create(actor: Actor, rawOptions: unknown, upload: UploadedFile | StagedUpload | null, baseUrl: string): Promise<TranscriptionView> {
    const options = await this.parseOrDiscard(upload, () => parseCreateOptions(rawOptions, upload !== null));
    const transcriptionId = newId('trn');
    await this.addFileRecording(actor, options, upload, baseUrl, async (tx, name) => {
      await tx.transcription.create({
        data: {
          id: transcriptionId,
          accountId: actor.accountId,
          ownerPrincipalId: actor.principalId,
          kind: options.url ? 'link' : 'file',
          name,
          // A null in the create body means "no value": nothing to store.
          settings: storedSettings(options.settings),
          sourceUrl: options.url,
        },
      });
      if (options.shareLink) {
        await tx.shareLink.create({
          data: {
            id: newId('shl'), code: newShareCode(), accountId: actor.accountId, transcriptionId, label: 'Default link', isDefault: true,
          },
        });
      }
      return { transcriptionId, recordingSettings: {} };
    });
    return this.get(actor.accountId, transcriptionId);
  }

  /**
   * `POST /v1/transcriptions/{id}/recordings/upload`: a file or link recording inside a live transcription, with no
   * live phase: the file-job path transcribes it at full speed. Its `settings` apply to this recording only (over the
   * transcription's). Refused: another account's transcription (404), a file or link one or an archived one (409).
   */
  async uploadRecording(
    actor: Actor, transcriptionId: string, rawOptions: unknown, upload: UploadedFile | StagedUpload | null, baseUrl: string,
  ): Promise<TranscriptionView> {
    const options = await this.parseOrDiscard(upload, async () => {
      const parsed = parseCreateOptions(rawOptions, upload !== null, 'recording');
      // Refused before the upload is probed; checked again under the row's lock below.
      refuseRecordingUpload(await this.owned(actor.accountId, transcriptionId));
      return parsed;
    });
    await this.addFileRecording(actor, options, upload, baseUrl, async (tx) => {
      refuseRecordingUpload(await lockTranscription(tx, actor.accountId, transcriptionId));
      return { transcriptionId, recordingSettings: storedSettings(options.settings) };
    });
    return this.get(actor.accountId, transcriptionId);
  }

  /** Parses a create body; a refused one removes the upload already staged for it. */
  private async parseOrDiscard(
    upload: UploadedFile | StagedUpload | null, parse: () => CreateTranscriptionOptions | Promise<CreateTranscriptionOptions>,
  ): Promise<CreateTranscriptionOptions> {
    try {
      const options = await parse();
      await this.checkSpokenLanguage(options.settings);
      return options;
    } catch (error) {
      if (upload && isStaged(upload)) await this.discardUpload(upload);
      throw error;
    }
  }

  /**
   * A file or link recording and its job, in the transcription `owner` makes or names (inside the same
   * transaction). The upload is checked to be audio first; on any refusal nothing is kept. Billing admits the
   * recording in that transaction (402/429 refuse it whole); an upload's cost is checked whole (its window's length).
   */
  private async addFileRecording(
    actor: Actor,
    options: CreateTranscriptionOptions,
    upload: UploadedFile | StagedUpload | null,
    baseUrl: string,
    owner: (tx: Tx, name: string) => Promise<{ transcriptionId: string; recordingSettings: Prisma.InputJsonValue }>,
  ): Promise<void> {
    const file = upload && !isStaged(upload) ? await this.stageUpload(upload) : upload;
    const recordingId = file?.recordingId ?? newId('rec');
    const jobId = newId('job');
    const dir = this.mediaDir(recordingId);
    let stored: { bytes: number; durationS: number } | null = null;
    if (options.url) {
      this.refuseUnfetchable(options.url, 'url');
    } else if (file) {
      stored = await this.probeUpload(file, options);
    }
    const name = options.name ?? (options.url ? options.url : file?.fileName) ?? 'Untitled transcription';
    const window = { windowStartS: options.startS, windowEndS: options.endS };
    const initialState = options.url ? 'fetching' : options.crop ? 'cropping' : 'queued';
    try {
      await inTransaction(this.deps, recordingId, async (tx) => {
        const { transcriptionId, recordingSettings } = await owner(tx, name);
        await tx.recording.create({
          data: {
            id: recordingId,
            transcriptionId,
            accountId: actor.accountId,
            state: 'processing',
            name,
            settings: recordingSettings,
            durationS: stored?.durationS ?? options.durationS,
            sourcePath: stored ? path.join(recordingId, 'source') : null,
            sourceMime: file?.mimeType ?? null,
            sourceBytes: stored?.bytes ?? null,
          },
        });
        // A cropped upload's window is chosen later: its cost is not known up front.
        const knownSeconds = stored && !options.crop ? windowSeconds(stored.durationS, window) : null;
        await this.metering?.billing.admitActor(tx, actor, { kind: 'file', workId: recordingId, knownSeconds }, baseUrl);
        const { job, frame } = await createJob(tx, {
          id: jobId, recordingId, accountId: actor.accountId, state: initialState, sourceUrl: options.url, ...window,
        });
        return { result: job, frames: [frame] };
      });
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    // Committed: from here a failure to hand the work on must not fail the request. The worker's sweeper
    // admits queued jobs and re-adds missing Bull work within seconds.
    try {
      await this.jobs.handOver({ id: jobId, accountId: actor.accountId, state: initialState, crop: options.crop });
    } catch (error) {
      this.logger.warn({ jobId, error: String(error) }, 'handing a new job to the queue failed; the sweeper will');
    }
  }

  /**
   * Refuses now a link that can be refused without DNS (a typo'd scheme, a literal private address, a metadata
   * host); names are checked again on every connection while fetching.
   */
  refuseUnfetchable(link: string, field: string): void {
    const url = parseLinkUrl(link, field);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (this.linkPolicy.allowHosts.includes(host)) return;
    const reason = refusedHostNameReason(host) ?? (/^[\d.]+$|:/.test(host) ? refusedAddressReason(host) : null);
    if (reason) {
      throw new LinkError(
        'link_refused', `${field} points to an address the server does not fetch from (${reason}): ${url.hostname}.`,
        { host: url.hostname, reason, field },
      );
    }
  }

  /** A live transcription, created idle: it has no recording until one is started. */
  async createLive(actor: { accountId: string; principalId: string }, body: unknown): Promise<TranscriptionView> {
    const options = parseCreateLiveOptions(body);
    await this.checkSpokenLanguage(options.settings);
    if (options.source.kind === 'stream') this.refuseUnfetchable(options.source.url, 'source.url');
    if (options.broadcasts.length > 0) {
      const found = await this.deps.prisma.broadcast.count({ where: {
        id: { in: options.broadcasts }, accountId: actor.accountId, lifecycle: 'active',
      } });
      if (found !== options.broadcasts.length) {
        throw new ApiError(
          'not_found', 404, 'A broadcast in broadcasts was not found (not one of this account\'s active broadcasts).',
          { details: { field: 'broadcasts' } },
        );
      }
    }
    const id = newId('trn');
    await this.deps.prisma.transcription.create({
      data: {
        id,
        accountId: actor.accountId,
        ownerPrincipalId: actor.principalId,
        kind: 'live',
        name: options.name,
        settings: storedSettings(options.settings),
        source: options.source as Prisma.InputJsonValue,
        broadcastIds: options.broadcasts,
      },
    });
    return this.get(actor.accountId, id);
  }

  /**
   * Streams an upload into a new recording's folder with the size cap applied while it arrives, hashing it on the
   * way. A refused or broken upload leaves nothing behind.
   */
  async stageUpload(file: UploadedFile): Promise<StagedUpload> {
    const limit = this.deps.config.limits.maxUploadBytes;
    const recordingId = newId('rec');
    const dir = this.mediaDir(recordingId);
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > limit) {
          done(new ApiError(
            'invalid_options', 413, `file is larger than limits.maxUploadBytes (${limit} bytes).`, { details: { field: 'file', limit } },
          ));
          return;
        }
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await mkdir(dir, { recursive: true });
      await pipeline(file.stream as NodeJS.ReadableStream, cap, createWriteStream(path.join(dir, 'source')));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    const staged: StagedUpload = { recordingId, bytes, sha256: hash.digest('hex'), fileName: file.fileName, mimeType: file.mimeType };
    stagedHere.add(staged);
    return staged;
  }

  /** Removes a staged upload that no transcription took over. */
  async discardUpload(upload: StagedUpload): Promise<void> {
    await rm(this.mediaDir(upload.recordingId), { recursive: true, force: true });
  }

  /** Checks a staged upload is audio, and that a window asked for lies inside it; refused uploads are removed. */
  private async probeUpload(upload: StagedUpload, options: CreateTranscriptionOptions): Promise<{ bytes: number; durationS: number }> {
    try {
      if (upload.bytes === 0) throw errors.invalidAudio('file is empty.', { field: 'file' });
      const probe = await probeAudio(path.join(this.mediaDir(upload.recordingId), 'source')).catch((error: unknown) => {
        const known = knownError(error);
        throw known ? new ApiError(known.code, known.status, `file: ${known.message}`, { details: { field: 'file' } }) : error;
      });
      if (!probe.hasAudio) throw errors.invalidAudio('file has no audio stream.', { field: 'file' });
      if (options.startS !== null && probe.durationS > 0 && options.startS >= probe.durationS) {
        throw errors.invalidOptions(
          `startS (${options.startS}) is at or past the end of the file (${probe.durationS.toFixed(2)} s).`,
          { field: 'startS', durationS: probe.durationS },
        );
      }
      return { bytes: upload.bytes, durationS: probe.durationS };
    } catch (error) {
      await this.discardUpload(upload);
      throw error;
    }
  }

  /**
   * Newest first; the cursor is the last item's (createdAt, id), so changes while paging neither repeat nor skip items.
   * `limit` counts per lifecycle: with `lifecycle=all` a page holds up to `limit` active and up to `limit` archived
   * transcriptions (the spec's "up to 500 of each"), merged newest first and cut where the first lifecycle that has more
   * ends, so the next page (from that item) skips nothing of either.
   */
  async list(
    accountId: string, query: { cursor?: string | null; lifecycle?: string | null; limit?: number | null },
  ): Promise<TranscriptionPage> {
    const { rows, nextCursor } = await pageByLifecycle(query, (where, take) =>
      this.deps.prisma.transcription.findMany({
        where: { ...where, accountId }, include: this.include, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take,
      }));
    const positions = await queuePositions(
      this.deps.prisma, rows.flatMap((row) => (row.recordings[0]?.job ? [row.recordings[0].job] : [])),
    );
    return { items: await Promise.all(rows.map((row) => this.view(row, positions))), nextCursor };
  }


  /** PATCH: rename, or change the default capture settings (merged key by key; null clears a key). */
  async update(accountId: string, id: string, body: unknown): Promise<TranscriptionView> {
    const { name, settings: patch } = parseTranscriptionPatch(body);
    const row = await this.owned(accountId, id);
    const data: Prisma.TranscriptionUpdateInput = {};
    if (name !== undefined) data.name = name;
    if (patch !== undefined) {
      await this.checkSpokenLanguage(patch);
      data.settings = mergeSettings(row.settings, patch);
    }
    await this.deps.prisma.transcription.update({ where: { id }, data });
    return this.get(accountId, id);
  }

  async archive(accountId: string, id: string): Promise<TranscriptionView> {
    const row = await this.owned(accountId, id);
    if (row.lifecycle !== 'archived') {
      await this.deps.prisma.$transaction([
        this.deps.prisma.transcription.update({ where: { id }, data: { lifecycle: 'archived', archivedAt: new Date() } }),
        this.deps.prisma.recording.updateMany({ where: { transcriptionId: id }, data: { lifecycle: 'archived', archivedAt: new Date() } }),
      ], TX_OPTIONS);
      // Archiving does not stop a running job: its Bull run goes on storing segments and finishes (the worker
      // checks only the job's state and attempt). What changes is that archived work no longer counts against the
      // account's concurrency limit, so its slot is freed and the next queued job may be admitted now.
      await dispatchQueued(this.jobs.context, accountId);
    }
    return this.get(accountId, id);
  }

  async restore(accountId: string, id: string): Promise<TranscriptionView> {
    const row = await this.owned(accountId, id);
    if (row.lifecycle !== 'active') {
      await this.deps.prisma.$transaction([
        this.deps.prisma.transcription.update({ where: { id }, data: { lifecycle: 'active', archivedAt: null, purgeAfter: null } }),
        this.deps.prisma.recording.updateMany({ where: { transcriptionId: id }, data: { lifecycle: 'active', archivedAt: null } }),
      ], TX_OPTIONS);
      // Restored work counts again: a job still running holds its slot again, a queued one rejoins the line (and
      // is admitted now if a slot is free), and one stranded while archived is seen by the sweeper again.
      await dispatchQueued(this.jobs.context, accountId);
    }
    return this.get(accountId, id);
  }

  /** Irreversible; only an archived transcription. Deletes rows (cascade) and the stored media. */
  async purge(accountId: string, id: string): Promise<{ id: string; purged: true }> {
    const row = await this.owned(accountId, id);
    if (row.lifecycle !== 'archived') {
      throw errors.invalidState('Only an archived transcription can be purged; archive it first.', { state: row.lifecycle });
    }
    await this.deleteWithMedia(accountId, [id]);
    return { id, purged: true };
  }

  /**
   * The plan's retention (src/billing): deletes the account's transcriptions created before `cutoff` whose every
   * recording is older too and none is still running, with their media. Answers how many were deleted.
   */
  async deleteOlderThan(accountId: string, cutoff: Date): Promise<number> {
    const old = await this.deps.prisma.transcription.findMany({
      where: {
        accountId, createdAt: { lt: cutoff },
        recordings: { none: { OR: [{ createdAt: { gte: cutoff } }, { state: { in: ['live', 'paused', 'processing'] } }] } },
      },
      select: { id: true },
    });
    if (old.length) await this.deleteWithMedia(accountId, old.map((row) => row.id));
    return old.length;
  }

  private async deleteWithMedia(accountId: string, ids: string[]): Promise<void> {
    const recordings = await this.deps.prisma.recording.findMany({ where: { transcriptionId: { in: ids } }, select: { id: true } });
    await this.deps.prisma.transcription.deleteMany({ where: { id: { in: ids }, accountId } });
    // Credit held for work that will now never run is free again.
    await this.deps.prisma.creditHold.deleteMany({ where: { workId: { in: recordings.map((recording) => recording.id) } } });
    await Promise.all(recordings.map((recording) => rm(this.mediaDir(recording.id), { recursive: true, force: true })));
    await dispatchQueued(this.jobs.context, accountId);
  }


  /** Searching a web page for recordings counts against the account's hourly allowance (src/billing); files and streams do not. */
  async probe(accountId: string, url: unknown): Promise<ProbeRecord> {
    if (typeof url !== 'string' || !url) throw errors.invalidOptions('url is required (the link to look at).', { field: 'url' });
    return probeLink(url, {
      policy: this.linkPolicy, beforePageSearch: () => this.metering?.billing.admitPageSearch(accountId) ?? Promise.resolve(),
    });
  }

  // ---- the lifecycle of one recording (a file transcription's only recording) ----

  private async ownedRecording(accountId: string, recordingId: string) {
    const recording = await this.deps.prisma.recording.findFirst({ where: { id: recordingId, accountId } });
    if (!recording) throw errors.notFound('The recording');
    return recording;
  }

  /** Hidden (share-link reads answer 404), its job leaves the queue; data kept until restored or purged. */
  async archiveRecording(accountId: string, recordingId: string): Promise<RecordingView> {
    const recording = await this.ownedRecording(accountId, recordingId);
    if (recording.lifecycle === 'archived') return recordingView(recording);
    const updated = await this.deps.prisma.recording.update({
      where: { id: recordingId }, data: { lifecycle: 'archived', archivedAt: new Date() },
    });
    await dispatchQueued(this.jobs.context, accountId);
    return recordingView(updated);
  }

  async restoreRecording(accountId: string, recordingId: string): Promise<RecordingView> {
    const recording = await this.ownedRecording(accountId, recordingId);
    if (recording.lifecycle === 'active') return recordingView(recording);
    const updated = await this.deps.prisma.recording.update(
      { where: { id: recordingId }, data: { lifecycle: 'active', archivedAt: null } },
    );
    await dispatchQueued(this.jobs.context, accountId);
    return recordingView(updated);
  }

  /** Irreversible; only an archived recording: its transcript, events, job and media go. */
  async purgeRecording(accountId: string, recordingId: string): Promise<{ id: string; purged: true }> {
    const recording = await this.ownedRecording(accountId, recordingId);
    if (recording.lifecycle !== 'archived') {
      throw errors.invalidState('Only an archived recording can be purged; archive it first.', { state: recording.lifecycle });
    }
    await this.deps.prisma.recording.delete({ where: { id: recordingId } });
    await this.deps.prisma.creditHold.deleteMany({ where: { workId: recordingId } });
    await rm(this.mediaDir(recordingId), { recursive: true, force: true });
    return { id: recordingId, purged: true };
  }

  /** The durable event log of a recording, oldest first; `cursor` (from a previous page) or `after` (a seq), not both. */
  async events(accountId: string, recordingId: string, query: { cursor?: string | null; after?: number | null; limit?: number | null }) {
    const recording = await this.ownedRecording(accountId, recordingId);
    if (query.cursor && query.after !== undefined && query.after !== null) {
      throw errors.invalidOptions('after cannot be combined with cursor; send one.', { field: 'after' });
    }
    const limit = query.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
      throw errors.invalidOptions('limit must be an integer from 1 to 500.', { field: 'limit' });
    }
    let after = -1;
    if (query.cursor) {
      const decoded = Number(Buffer.from(query.cursor, 'base64url').toString('utf8').replace(/^seq:/, ''));
      if (!Number.isInteger(decoded)) throw errors.invalidOptions('cursor is not one this endpoint returned.', { field: 'cursor' });
      after = decoded;
    } else if (query.after !== undefined && query.after !== null) {
      if (!Number.isInteger(query.after) || query.after < -1) throw errors.invalidOptions('after must be an event seq (an integer at or '
        + 'above -1).', { field: 'after' });
      after = query.after;
    }
    const rows = await this.deps.prisma.recordingEvent.findMany({
      where: { recordingId, seq: { gt: after } }, orderBy: { seq: 'asc' }, take: limit + 1,
    });
    const page = rows.slice(0, limit);
    return {
      events: page.map((row) => ({ seq: row.seq, type: row.type, at: row.createdAt.toISOString(), frame: row.payload })),
      lastSeq: recording.lastEventSeq,
      nextCursor: rows.length > limit ? Buffer.from(`seq:${page[page.length - 1]!.seq}`).toString('base64url') : null,
    };
  }
}
