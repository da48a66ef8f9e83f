/**
 * `createClient`: the typed REST client (openapi-fetch over the `paths` that openapi-typescript generates from the
 * route table, so every `/v1` path, parameter and body is typed from the server's own description), a GraphQL
 * helper over `POST /graphql`, and file uploads with progress. Every call goes through the spec's retry rules
 * (retry.ts) and every failure throws a SpeechgateError (errors.ts): a REST call resolves only with a 2xx, so its
 * `data` is the success body and its `error` is never set.
 */
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import { idempotentOperations } from '../generated/openapi-operations.js';
import { graphqlErrorOf, SpeechgateError } from './errors.js';
import { IDEMPOTENCY_KEY_HEADER, isSafeToRepeat, sendWithRetries, type RetryOptions } from './retry.js';
import type { CreateSessionResponse, RealtimeSessionOptions, WebSocketConstructor } from './frames.js';
import { connectRealtime, type RealtimeConnectOptions, type RealtimeStream } from './realtime.js';
import { subscribeRecording, type RecordingSubscription, type SubscribeOptions } from './subscribe.js';
import {
  blobOf, multipartBody, progressStream, sendWithXhr, usesXhr, type CreateTranscriptionOptions, type Transcription, type UploadProgress,
  type UploadSource,
} from './upload.js';

export type Credential = { apiKey: string; accessToken?: never } | { accessToken: string; apiKey?: never } | {
  apiKey?: undefined; accessToken?: undefined;
};

export type ClientOptions = Credential & RetryOptions & {
  /** The server, e.g. `https://speech.example.org` (paths start at `/v1`). */
  baseUrl: string;
  /** Default globalThis.fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** For the sockets (realtime, subscribe): default globalThis.WebSocket; in Node 20 pass `ws`'s WebSocket. */
  WebSocket?: WebSocketConstructor;
  /** Sent on every request (a `User-Agent`, a tracing header). */
  headers?: Record<string, string>;
};

export interface UploadControls {
  onProgress?: (progress: UploadProgress) => void;
  /** Default a fresh UUID: the upload's retries are then replays of the first answer, never a second transcription. */
  idempotencyKey?: string;
  /** Default the File's or path's name, else `upload`. */
  fileName?: string;
  /** Default the Blob's type, else `application/octet-stream` (the server sniffs the audio either way). */
  contentType?: string;
  signal?: AbortSignal;
}

export interface GraphQLCallOptions {
  /** Whether a 503 may be retried; default true for a query, false for a mutation (which may have run). */
  safeToRepeat?: boolean;
  signal?: AbortSignal;
}

export type RestClient = Client<paths, 'application/json'>;

/** A GraphQL operation as a string that carries its data and variables types (graphql-codegen's TypedDocumentString). */
export type GraphQLDocument<TData, TVariables> = { toString(): string } & DocumentTypeDecoration<TData, TVariables>;

export interface SpeechgateClient extends RestClient {
  /**
   * `POST /graphql` with `{query, variables}`: resolves with `data`; a GraphQL error (even in a 200 answer) throws a
   * SpeechgateError from its `extensions` (`code`, `status`, `retryable`, `details`, `requestId`). A document from
   * `graphqlDocuments` (the server's own operations, generated as typed strings) types its variables and data.
   */
  graphql<TData, TVariables>(
    document: GraphQLDocument<TData, TVariables>, variables?: TVariables, options?: GraphQLCallOptions,
  ): Promise<TData>;
  graphql<TData = Record<string, unknown>, TVariables extends Record<string, unknown> = Record<string, unknown>>(
    query: string, variables?: TVariables, options?: GraphQLCallOptions,
  ): Promise<TData>;
  realtime: {
    /** `POST /v1/realtime/sessions` (API key, servers): the session's `streamUrl`, to connect to or hand to a browser. */
    createSession(body?: RealtimeSessionOptions): Promise<CreateSessionResponse>;
    /** Creates a session and connects to it: resolves at `session.ready` (realtime.ts). */
    connect(body?: RealtimeSessionOptions, options?: RealtimeConnectOptions): Promise<RealtimeStream>;
  };
  recordings: {
    /** Follows a recording with this client's server and credential (subscribe.ts). */
    subscribe(
      recordingId: string, options?: Omit<SubscribeOptions, 'baseUrl' | 'recordingId' | 'apiKey' | 'accessToken'>,
    ): RecordingSubscription;
  };
  transcriptions: {
    /** A transcription from a file (multipart `POST /v1/transcriptions`), with byte progress; answers the 201 body. */
    upload(source: UploadSource, options?: CreateTranscriptionOptions, controls?: UploadControls): Promise<Transcription>;
  };
}

const IDEMPOTENT = new Set(idempotentOperations);

/** A document whose first operation is a mutation or a subscription: not safe to repeat after a 503. */
const MUTATION = /^\s*(mutation|subscription)\b/m;

export function createClient(options: ClientOptions): SpeechgateClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const token = options.apiKey ?? options.accessToken;
  const headers: Record<string, string> = { ...options.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const retry: RetryOptions = { retries: options.retries, maxRetryDelayMs: options.maxRetryDelayMs, sleep: options.sleep };

  const rest = createFetchClient<paths, 'application/json'>({
    baseUrl,
    headers,
    // openapi-fetch hands over a built Request; each attempt sends a clone so the body can be sent again.
    fetch: (request) => sendWithRetries(
      { send: () => baseFetch(request.clone()), safeToRepeat: isSafeToRepeat(request.method, request.headers) }, retry,
    ),
  });
  // A create carries a generated key unless the caller gave one, so its retries are replays (spec: Errors).
  const idempotencyKeys: Middleware = {
    onRequest({ request, schemaPath }) {
      if (IDEMPOTENT.has(`${request.method} ${schemaPath}`) && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
        request.headers.set(IDEMPOTENCY_KEY_HEADER, crypto.randomUUID());
      }
      return request;
    },
  };
  rest.use(idempotencyKeys);

  async function graphql<TData>(
    document: string | GraphQLDocument<TData, unknown>, variables?: unknown, callOptions: GraphQLCallOptions = {},
  ): Promise<TData> {
    const query = document.toString();
    const body = JSON.stringify({ query, ...(variables ? { variables } : {}) });
    const response = await sendWithRetries({
      send: () => baseFetch(new Request(`${baseUrl}/graphql`, {
        method: 'POST', headers: {
          ...headers, 'content-type': 'application/json', accept: 'application/json',
        }, body, signal: callOptions.signal,
      })),
      safeToRepeat: callOptions.safeToRepeat ?? !MUTATION.test(query),
    }, retry);
    const result = (await response.json()) as { data?: TData | null; errors?: unknown[] };
    if (result.errors?.length) throw graphqlErrorOf(result.errors[0], response.status, response.headers.get('x-request-id'), result);
    if (result.data == null) {
      throw new SpeechgateError({
        code: 'graphql_error', status: response.status, message: 'The GraphQL answer holds no data.', retryable: false,
        requestId: response.headers.get('x-request-id'), body: result,
      });
    }
    return result.data;
  }

  async function upload(
    source: UploadSource, createOptions?: CreateTranscriptionOptions, controls: UploadControls = {},
  ): Promise<Transcription> {
    const { blob, name } = await blobOf(source);
    const body = multipartBody(
      blob, controls.fileName ?? name ?? 'upload', controls.contentType ?? (blob.type || 'application/octet-stream'), createOptions,
    );
    const requestHeaders = {
      ...headers, 'content-type': body.contentType, [IDEMPOTENCY_KEY_HEADER]: controls.idempotencyKey ?? crypto.randomUUID(),
    };
    const onProgress = controls.onProgress ?? (() => undefined);
    const url = `${baseUrl}/v1/transcriptions`;
    // A browser streams a fetch body only over HTTP/2: there XMLHttpRequest reports the progress (upload.ts).
    const send = usesXhr(options.fetch)
      ? () => sendWithXhr(url, requestHeaders, body, onProgress, controls.signal)
      // `duplex` is not in every RequestInit typing yet; Node's fetch requires it for a stream body.
      : () => baseFetch(new Request(url, {
        method: 'POST', headers: requestHeaders, body: progressStream(body, onProgress), signal: controls.signal, duplex: 'half',
      } as RequestInit));
    const response = await sendWithRetries({ send, safeToRepeat: true }, retry);
    return (await response.json()) as Transcription;
  }

  const realtime: SpeechgateClient['realtime'] = {
    async createSession(body = {}) {
      const { data } = await rest.POST('/v1/realtime/sessions', { body });
      // The retry rules throw for anything but a 2xx, so the answer is the 201 body.
      return data!;
    },
    async connect(body = {}, connectOptions = {}) {
      const { streamUrl } = await realtime.createSession(body);
      return connectRealtime(streamUrl, { WebSocket: options.WebSocket, ...connectOptions });
    },
  };
  const recordings: SpeechgateClient['recordings'] = {
    subscribe: (recordingId, subscribeOptions = {}) => subscribeRecording({
      WebSocket: options.WebSocket, fetch: options.fetch, headers: options.headers, retry, ...subscribeOptions,
      baseUrl, recordingId, apiKey: options.apiKey, accessToken: options.accessToken,
    }),
  };

  return Object.assign(rest, { graphql, realtime, recordings, transcriptions: { upload } }) as SpeechgateClient;
}
