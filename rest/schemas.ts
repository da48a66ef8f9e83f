/** JSON Schemas shared by route entries (OpenAPI 3.0 dialect: `nullable`, no type arrays). */
import type { JsonSchema } from './types.js';
import {
  ApiKeyFieldsFragmentDoc, CapabilitiesFieldsFragmentDoc, LanguageFieldsFragmentDoc, PrincipalFieldsFragmentDoc,
} from '../src/generated/graphql.js';
import { frameSchemas } from './frame-schemas.js';
import { fragmentSchema } from './shapes.js';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

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
  // Derived from the GraphQL types (rest/shapes.ts): named here so the OpenAPI document and the SDK can refer to them.
  Principal: fragmentSchema(PrincipalFieldsFragmentDoc),
  ApiKey: fragmentSchema(ApiKeyFieldsFragmentDoc),
  Language: fragmentSchema(LanguageFieldsFragmentDoc),
  Capabilities: fragmentSchema(CapabilitiesFieldsFragmentDoc),
  // The sockets' frames (rest/frame-schemas.ts): the SDK's frame types are generated from them.
  ...frameSchemas,
};
