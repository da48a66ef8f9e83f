/**
 * The creates that take a file: `POST /v1/transcriptions` and `POST /v1/transcriptions/{id}/recordings/upload` (a file,
 * or JSON naming a link) and `POST /v1/voices` (a sample). A `multipart/form-data` body is one JSON part, checked as
 * soon as it arrives so a bad one is refused before the file is read, and one file part streamed into storage as it
 * arrives (never held in memory); the mutation a GraphQL multipart request runs then takes the stored file as its
 * variable.
 */
import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { Context } from '../src/core/context.js';
import { ApiError, errors } from '../src/core/errors.js';
import { requireScope } from '../src/core/identity/scopes.js';
import { canonicalJson, fingerprintOf } from '../src/core/idempotency.js';
import { refuseBadInput } from '../src/core/text-input.js';
import {
  CreateTranscriptionDocument, type CreateTranscriptionInput, CreateVoiceDocument, type CreateVoiceInput, UploadRecordingDocument,
} from '../src/generated/graphql.js';
import { isStagedUpload, parseCreateOptions, type StagedUpload } from '../src/transcriptions/service.js';
import { isStagedSample, parseCreateVoice } from '../src/voices/service.js';
import { holdIdempotencyKey, requestLine } from './middleware/idempotency.js';
import { useJsonBody } from './middleware/json-body.js';
import { readMultipart, type MultipartFileInfo } from './multipart.js';
import type { HandlerRoute, RunTyped } from './types.js';

/** Multipart framing around the file: an upload whose Content-Length exceeds the limit by more is refused unread. */
const MULTIPART_SLACK_BYTES = 64 * 1024;

/** An upload's two parts, and where its file is kept until the mutation takes it over. */
interface UploadForm<T> {
  /** The JSON part's name (`options`, `meta`) and the file part's (`file`, `sample`). */
  json: string;
  file: string;
  /** The file's limit in bytes, and the 413's message when the declared Content-Length is past it. */
  limit: number;
  tooLarge: string;
  /** Checks the JSON part as it arrives: a throw refuses the request before the file is read. */
  check: (value: string) => void;
  /** The JSON part's value for the mutation, once the whole body is read (`undefined`: the part was not sent). */
  parse: (value: string | undefined) => unknown;
  stage: (file: { stream: Readable } & MultipartFileInfo) => Promise<T>;
  discard: (file: T) => Promise<void>;
  /** Whether the file is still staged: no create has taken it over yet. */
  staged: (file: T) => boolean;
  /** For a create that honours Idempotency-Key: what of the file its fingerprint takes, besides the request and the JSON part. */
  fingerprint?: (file: T | null) => string[];
}

/**
 * A multipart upload to `create`: refused unread when the declared Content-Length is past the limit, the
 * Idempotency-Key (with `fingerprint`) claimed once the whole body is read. Null when the key answered already.
 */
async function receiveUpload<T, R>(
  req: Request, res: Response, ctx: Context, form: UploadForm<T>, create: (json: unknown, file: T | null) => Promise<R>,
): Promise<R | null> {
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > form.limit + MULTIPART_SLACK_BYTES) {
    // Refused before reading: the client stops sending, and nothing was stored.
    res.setHeader('Connection', 'close');
    throw new ApiError('invalid_options', 413, form.tooLarge, { details: { field: form.file, limit: form.limit } });
  }
  try {
    const { fields, file } = await readMultipart(req, {
      fields: [form.json], onField: (_name, value) => form.check(value),
      file: form.file, onFile: (stream, info) => form.stage({ stream, ...info }), discard: form.discard,
    });
    try {
      const json = form.parse(fields[form.json]);
      const fingerprint = form.fingerprint && fingerprintOf([requestLine(req), canonicalJson(json), ...form.fingerprint(file)]);
      if (fingerprint && await holdIdempotencyKey(ctx.services.idempotency, req, res, fingerprint)) {
        if (file) await form.discard(file);
        return null;
      }
      return await create(json, file);
    } catch (error) {
      // Refused before the service took the file over (variables GraphQL could not take): nothing may keep it. Once
      // taken, the service removes it on its own failures, and a failure after it stored the recording keeps it.
      if (file && form.staged(file)) await form.discard(file);
      throw error;
    }
  } catch (error) {
    // The rest of a refused upload is not read: close the connection after the answer.
    res.setHeader('Connection', 'close');
    throw error;
  }
}

/** A JSON part: parsed, its text checked, or refused naming the part. */
function jsonPart(value: string, field: string, message: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw errors.invalidOptions(message, { field });
  }
  refuseBadInput(parsed);
  return parsed;
}

/** What a transcription create makes: a new transcription, or a recording uploaded into a live one. */
export type CreateTarget = { into: 'transcription' } | { into: 'recording'; transcriptionId: string };

/** The JSON body of a link transcription: parsed like every other route's, its errors answered by the envelope. */
const parseJson = useJsonBody();

const optionsPart = (value: string) => jsonPart(value, 'options', 'options must be a JSON object.');

/**
 * The handler of both transcription creates: a file (`multipart/form-data`: one `file` part and an optional `options`
 * part, in either order) or a link (JSON, which runs the typed GraphQL operation). Answers 201 with the transcription.
 */
export function fileOrLinkCreate(targetOf: (req: Request) => CreateTarget): HandlerRoute['handler'] {
  return async (req, res, ctx, run) => {
    requireScope(ctx, 'write');
    const target = targetOf(req);
    // The same mutations as a GraphQL multipart request, a file already in storage as the `file` variable.
    const create = async (variables: { options: CreateTranscriptionInput; file?: StagedUpload | null }) => (target.into === 'recording'
      ? (await run(UploadRecordingDocument, { transcriptionId: target.transcriptionId, ...variables })).uploadRecording
      : (await run(CreateTranscriptionDocument, variables)).createTranscription);
    let created: { id: string } | null;
    if (req.is('multipart/form-data')) {
      const service = ctx.services.transcriptions;
      const limit = ctx.config.limits.maxUploadBytes;
      created = await receiveUpload(req, res, ctx, {
        json: 'options', file: 'file', limit, tooLarge: `file is larger than limits.maxUploadBytes (${limit} bytes).`,
        // Checked as if a file followed, unless the options name a link (a multipart body may carry only options).
        check: (value) => {
          const options = optionsPart(value);
          parseCreateOptions(options, !(options && typeof options === 'object' && 'url' in options && options.url), target.into);
        },
        parse: (value) => (value === undefined ? {} : optionsPart(value)),
        stage: (file) => service.stageUpload(file), discard: (upload) => service.discardUpload(upload), staged: isStagedUpload,
        fingerprint: (upload) => [upload?.sha256 ?? '', upload?.fileName ?? '', upload?.mimeType ?? ''],
      }, (options, file) => create({ options: options as CreateTranscriptionInput, file }));
    } else if (req.is('application/json')) {
      // Parser errors go on as they are: the envelope maps them (bad JSON 400, too large 413, bad charset 415).
      await new Promise<void>((resolve, reject) => parseJson(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
      // The link form runs the typed mutation (CreateTranscriptionInput, shared with GraphQL); the service's
      // parser runs on the raw body first so a bad field is refused by name, not by coercion.
      parseCreateOptions(req.body, false, target.into);
      if (await holdIdempotencyKey(ctx.services.idempotency, req, res, fingerprintOf([requestLine(req), canonicalJson(req.body)]))) return;
      created = await create({ options: req.body as CreateTranscriptionInput });
    } else {
      throw new ApiError('invalid_options', 415, `The body must be multipart/form-data (a file) or application/json (a url), not `
        + `${req.get('content-type') ?? 'untyped'}.`, { details: { field: 'Content-Type' } });
    }
    if (created) res.status(201).json(created);
  };
}

const metaPart = (value: string) => {
  const meta = jsonPart(value, 'meta', 'meta must be a JSON object (CreateVoice).');
  parseCreateVoice(meta);
  return meta;
};

/** `POST /v1/voices`: `sample` streamed into the voice's folder, `meta` (CreateVoice) checked before it; 201 with the voice. */
export async function createVoiceFromUpload(req: Request, res: Response, ctx: Context, run: RunTyped): Promise<void> {
  requireScope(ctx, 'write');
  if (!req.is('multipart/form-data')) {
    throw new ApiError('invalid_options', 415, `The body must be multipart/form-data with a "sample" audio part and a "meta" JSON part, `
      + `not ${req.get('content-type') ?? 'untyped'}.`, { details: { field: 'Content-Type' } });
  }
  const service = ctx.services.voices;
  const limit = ctx.config.voices.sampleMaxBytes;
  const created = await receiveUpload(req, res, ctx, {
    json: 'meta', file: 'sample', limit, tooLarge: `sample is larger than ${limit} bytes (VOICE_SAMPLE_MAX_BYTES).`, check: metaPart,
    parse: (value) => {
      if (value === undefined) {
        throw errors.invalidOptions('meta is required: a JSON part with CreateVoice (name, consent …).', { field: 'meta' });
      }
      return metaPart(value);
    },
    stage: (file) => service.stageSample(file), discard: (sample) => service.discardSample(sample), staged: isStagedSample,
  }, async (meta, sample) => (await run(CreateVoiceDocument, { input: meta as CreateVoiceInput, sample })).createVoice);
  res.status(201).json(created);
}
