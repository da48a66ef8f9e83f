/** Shared pieces of the realtime suites: fixtures, session creation through REST, text checks. */
import { expect } from 'vitest';
import { decodeToChunks, SAMPLE_RATE, type CommittedSegment } from './realtime-client.js';
import { fixture } from './fixtures.js';
import type { TestServer } from './server.js';

export const GO_FORWARD = fixture('goforward.wav');
export const LECTURE = fixture('political-philosophy-60s.wav');
/** "go forward ten meters"; whisper-tiny writes the number as "10". */
export const GO_FORWARD_TEXT = /go forward,? (ten|10) meters/;

/** Committed segments carry seq 0, 1, 2, ... with none missing or repeated. */
export function expectGapless(commits: CommittedSegment[]): void {
  expect(commits.map((segment) => segment.seq)).toEqual(commits.map((_segment, index) => index));
}

/** Lower case, punctuation gone, spaces collapsed. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}' ]/gu, ' ').replace(/\s+/g, ' ').trim();
}

/** `POST /v1/realtime/sessions` with the server's key; fails the test on anything but 201. */
export async function createStreamUrl(server: TestServer, options: Record<string, unknown> = {}): Promise<string> {
  const response = await server.request('/v1/realtime/sessions', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(options),
  });
  const body = (await response.json()) as { streamUrl?: string };
  if (response.status !== 201 || !body.streamUrl) throw new Error(`session not created: ${response.status} ${JSON.stringify(body)}`);
  return body.streamUrl;
}

/** The whole file as 200 ms chunks of 16 kHz mono float32. */
export async function fileChunks(path: string, chunkS = 0.2): Promise<Float32Array[]> {
  const chunks: Float32Array[] = [];
  for await (const chunk of decodeToChunks(path, Math.round(chunkS * SAMPLE_RATE))) chunks.push(chunk);
  return chunks;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
