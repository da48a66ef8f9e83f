/** Shared by the transcription suites: multipart bodies, JSON reading with a useful failure, job polling. */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { fixture } from './fixtures.js';
import type { TestServer } from './server.js';

export const goForward = await readFile(fixture('goforward.wav'));

export function uploadForm(bytes: Buffer, options?: Record<string, unknown>, name = 'goforward.wav') {
  const form = new FormData();
  if (options) form.append('options', JSON.stringify(options));
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'audio/wav' }), name);
  return form;
}

export async function json(res: Response) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
}

/** The answer has `status` (and the envelope `code`, when given); answers the parsed body for further checks. */
export async function expectStatus(response: Response, status: number, code?: string) {
  const body = await json(response);
  expect(response.status, JSON.stringify(body)).toBe(status);
  if (code) expect(body.code).toBe(code);
  return body;
}

export async function waitForJob(server: TestServer, recordingId: string, states: string[], timeoutMs = 90_000, auth?: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await json(await server.request(`/v1/recordings/${recordingId}/job`, { auth }));
    if (states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job stayed ${job.state} (${JSON.stringify(job)})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function upload(
  server: TestServer, options?: Record<string, unknown>, bytes = goForward, headers: Record<string, string> = {},
) {
  return server.request('/v1/transcriptions', { method: 'POST', body: uploadForm(bytes, options), headers });
}

/** A `400 invalid_options` naming `field` in `details.field`; answers the envelope for further checks. */
export async function expectInvalidOption(response: Response, field: string) {
  const envelope = await json(response);
  expect(response.status, JSON.stringify(envelope)).toBe(400);
  expect(envelope).toMatchObject({ code: 'invalid_options', data: { details: { field } } });
  return envelope;
}

/** The service is not ready (spec: 503 `unavailable`, retry after `Retry-After`), never a 500. */
export async function expectUnavailable(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await response.json()).toMatchObject({ code: 'unavailable', data: { retryable: true } });
}
