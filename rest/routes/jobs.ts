/**
 * The job of a file or link recording: its state and progress, the cropping preview, starting a cropped job and
 * retrying a failed one. The JSON routes run src/jobs/graphql.ts; the preview is a handler (binary media).
 */
import type { CropWindowInput } from '../../src/generated/graphql.js';
import { RecordingJobDocument, RetryRecordingJobDocument, StartRecordingJobDocument } from '../../src/generated/graphql.js';
import { parseCropWindow } from '../../src/jobs/service.js';
import { sendJobPreview } from '../recording-media.js';
import { inputSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';
import { mediaParam, notFound } from './recordings.js';

export const jobRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/job', operationId: 'getRecordingJob', tags: ['recordings'],
    document: RecordingJobDocument, variables: ({ params }) => ({ recordingId: params.id! }),
    response: { status: 200, description: 'The job.' }, errors: [notFound],
  }),
  {
    method: 'get', path: '/v1/recordings/{id}/job/preview', operationId: 'getRecordingJobPreview', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [mediaParam],
    response: { status: 200, description: 'The preview audio.', contentType: 'audio/ogg' },
    errors: [notFound, { status: 401, code: 'invalid_token' }, { status: 403, code: 'forbidden' }], handler: sendJobPreview,
  },
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/job/start', operationId: 'startRecordingJob', tags: ['recordings'],
    document: StartRecordingJobDocument,
    variables: ({ params, body }) => {
      parseCropWindow(body ?? {});
      return { recordingId: params.id!, window: (body ?? {}) as CropWindowInput };
    },
    request: { schema: inputSchema('CropWindowInput') },
    response: { status: 200, description: 'The job, now queued.' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/job/retry', operationId: 'retryRecordingJob', tags: ['recordings'],
    document: RetryRecordingJobDocument, variables: ({ params }) => ({ recordingId: params.id! }),
    response: { status: 200, description: 'The job.' }, errors: [notFound, { status: 409, code: 'invalid_state' }],
  }),
];
