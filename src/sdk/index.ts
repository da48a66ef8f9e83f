/**
 * The speechgate SDK (`import { createClient } from 'speechgate/sdk'`): a typed REST client generated from the
 * server's OpenAPI document, a GraphQL helper, uploads with progress, and the spec's retry rules and typed errors.
 * It imports nothing from the server (the layer rule `sdk-is-a-leaf`), only the generated OpenAPI types.
 */
export { createClient, type ClientOptions, type Credential, type GraphQLCallOptions, type RestClient, type SpeechgateClient, type UploadControls } from './client.js';
export { NETWORK_ERROR, SpeechgateError, type ErrorEnvelope, type SpeechgateErrorFields } from './errors.js';
export { DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_RETRIES, IDEMPOTENCY_KEY_HEADER, type RetryOptions } from './retry.js';
export type { CreateTranscriptionOptions, Transcription, UploadProgress, UploadSource } from './upload.js';
export type { components, operations, paths } from '../generated/openapi.js';
