/**
 * The speechgate SDK (`import { createClient } from 'speechgate/sdk'`): a typed REST client generated from the
 * server's OpenAPI document, a GraphQL helper, uploads with progress, realtime sessions (realtime.ts), following a
 * recording (subscribe.ts) with frame types generated from the same document (frames.ts), and the spec's retry rules
 * and typed errors.
 * It imports nothing from the server (the layer rule `sdk-is-a-leaf`), only what is generated for clients (the
 * OpenAPI types, the GraphQL operations as typed strings).
 */
export {
  createClient, type ClientOptions, type Credential, type GraphQLCallOptions, type GraphQLDocument, type RestClient,
  type SpeechgateClient, type UploadControls,
} from './client.js';
export type {
  CommittedSegment, CreateSessionResponse, DraftSegment, FrameOf, RealtimeServerFrame, RealtimeSessionOptions, SessionDoneFrame,
  SessionReadyFrame, SnapshotSegment,
  SocketErrorFrame, SubscribeFrame, SubscribeReadyFrame, TranscriptSnapshot, WebSocketConstructor, WebSocketLike, Word,
} from './frames.js';
export {
  connectRealtime, DEFAULT_HIGH_WATER_MARK_BYTES, DEFAULT_READY_TIMEOUT_MS, MAX_CHUNK_SAMPLES,
  type RealtimeConnectOptions, type RealtimeListener, type RealtimeStream,
} from './realtime.js';
export {
  defaultReconnectDelayMs, subscribeRecording,
  type ConnectionStatus, type ReconnectContext, type RecordingSubscription, type SubscribedSegment, type SubscribeOptions,
  type SubscriptionEvent, type SubscriptionListener,
} from './subscribe.js';
export { NETWORK_ERROR, SpeechgateError, type ErrorEnvelope, type SpeechgateErrorFields } from './errors.js';
export { DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_RETRIES, IDEMPOTENCY_KEY_HEADER, type RetryOptions } from './retry.js';
export type { CreateTranscriptionOptions, Transcription, UploadProgress, UploadSource } from './upload.js';
export type { components, operations, paths } from '../generated/openapi.js';
/**
 * The server's GraphQL operations (schema/operations/*.graphql) as typed strings for `client.graphql`: `MeDocument`,
 * `TranscriptionDocument`, …
 */
export * as graphqlDocuments from '../generated/graphql-documents.js';
