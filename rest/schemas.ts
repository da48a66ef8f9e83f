/** JSON Schemas shared by route entries (OpenAPI 3.0 dialect: `nullable`, no type arrays). */
import type { JsonSchema } from './types.js';
import { frameSchemas } from './frame-schemas.js';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const str = { type: 'string' };
const nullableStr = { type: 'string', nullable: true };
const time = { type: 'string', format: 'date-time' };
const nullableTime = { type: 'string', format: 'date-time', nullable: true };

export const components: Record<string, JsonSchema> = {
  ApiErrorBody: {
    type: 'object',
    required: ['defined', 'code', 'status', 'message', 'data'],
    properties: {
      defined: { type: 'boolean' },
      code: { type: 'string', description: 'Branch on this.' },
      status: { type: 'integer', minimum: 0, maximum: 65535 },
      message: { type: 'string', description: 'For people.' },
      data: {
        type: 'object',
        required: ['retryable', 'details'],
        properties: { retryable: { type: 'boolean' }, details: { type: 'object', additionalProperties: true } },
      },
      requestId: { type: 'string', nullable: true, description: 'The X-Request-Id of the failed request.' },
    },
  },
  Principal: {
    type: 'object',
    required: ['id', 'kind', 'displayName', 'scopes', 'createdAt'],
    properties: {
      id: str,
      kind: { type: 'string', enum: ['user', 'api_key'] },
      displayName: str,
      email: nullableStr,
      keyPrefix: { ...nullableStr, description: 'Public part of an API key.' },
      scopes: { type: 'array', items: { type: 'string', enum: ['read', 'write', 'recordings:publish', '*'] } },
      expiresAt: nullableTime,
      revokedAt: nullableTime,
      lastUsedAt: nullableTime,
      createdAt: time,
    },
  },
  ApiKey: {
    allOf: [ref('Principal'), {
      type: 'object',
      properties: { createdBy: { type: 'object', nullable: true, properties: { id: str, displayName: str, kind: str } } },
    }],
  },
  Language: {
    type: 'object',
    required: ['code', 'name', 'nativeName'],
    properties: { code: str, name: { ...str, description: 'English name.' }, nativeName: { ...str, description: 'Name in the language itself.' } },
  },
  Capabilities: {
    type: 'object',
    required: ['languages', 'speakerLabelModes', 'latencyModes', 'audio', 'limits'],
    properties: {
      languages: { type: 'array', items: str },
      speakerLabelModes: { type: 'array', items: { type: 'string', enum: ['auto', 'on', 'off'] }, description: 'Empty: speaker labels are not offered.' },
      latencyModes: { type: 'array', items: { type: 'string', enum: ['auto', 'fast', 'accuracy'] } },
      audio: {
        type: 'object',
        required: ['encodings', 'sampleRates', 'channels'],
        properties: {
          encodings: { type: 'array', items: { type: 'string', enum: ['pcm_f32le'] } },
          sampleRates: { type: 'array', items: { type: 'integer', minimum: 0 } },
          channels: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } },
        },
      },
      limits: {
        type: 'object',
        required: ['maxUploadBytes', 'maxDurationS'],
        properties: { maxUploadBytes: { type: 'number' }, maxDurationS: { type: 'number' } },
      },
    },
  },
  // The sockets' frames (rest/frame-schemas.ts): the SDK's frame types are generated from them.
  ...frameSchemas,
};
