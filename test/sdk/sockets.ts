/**
 * What the SDK's socket suites share:
 *   - `loadFrameSchemas`: socket frames checked against the served OpenAPI document's frame schemas
 *     (rest/frame-schemas.ts). Each frame is matched to its union's member by `type` (the discriminator's mapping)
 *     and validated with ajv, which reads OpenAPI's `nullable` itself; a frame type the union does not name is a
 *     problem too (the server sent an undocumented frame).
 *   - `ScriptedSocket`: a WebSocket whose server side is the test (it opens at once; the test sends frames and
 *     reads what the SDK sent), for what a real server cannot be made to do on cue.
 */
import { Ajv } from 'ajv';
import { expect, vi } from 'vitest';
import type { WebSocketLike } from 'speechgate/sdk';
import type { OpenApiDocument, Schema } from '../helpers/openapi.js';

export type FrameUnion = 'RealtimeServerFrame' | 'SubscribeFrame';

export interface FrameSchemas {
  /** What is wrong with `frame` as a member of `union`, or null when it is valid. */
  problem(union: FrameUnion, frame: { type: string }): string | null;
  /** Fails the test, naming every frame that is not valid. */
  expectValid(union: FrameUnion, frames: Array<{ type: string }>): void;
}

export async function loadFrameSchemas(baseUrl: string): Promise<FrameSchemas> {
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  // Formats (date-time) are not what these checks are about; ajv's strict mode would refuse OpenAPI's own keywords.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document as object, 'openapi');
  const problem = (union: FrameUnion, frame: { type: string }): string | null => {
    const mapping = (document.components.schemas[union] as Schema).discriminator.mapping as Record<string, string>;
    const member = mapping[frame.type];
    if (!member) return `${union} names no frame of type ${JSON.stringify(frame.type)}`;
    const validate = ajv.getSchema(`openapi${member}`)!;
    return validate(frame) ? null : `${frame.type}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(frame).slice(0, 400)}`;
  };
  return {
    problem,
    expectValid(union, frames) {
      expect(frames.length).toBeGreaterThan(0);
      expect(frames.map((frame) => problem(union, frame)).filter((found) => found !== null)).toEqual([]);
    },
  };
}

/** Polls `check` until it holds (a generous deadline: a loaded machine is slow, never wrong). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  await vi.waitFor(async () => expect(await check(), what).toBe(true), { timeout: timeoutMs, interval: 100 });
}

/** A WebSocket scripted by the test: open from the start; `sent` holds what the SDK sent, `frame()` answers. */
export class ScriptedSocket implements WebSocketLike {
  /** Every socket made, in order. */
  static made: ScriptedSocket[] = [];
  readyState = 1;
  bufferedAmount = 0;
  binaryType = 'blob';
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onerror: WebSocketLike['onerror'] = null;
  onclose: WebSocketLike['onclose'] = null;
  readonly sent: Array<string | ArrayBufferView> = [];

  constructor(readonly url: string, _protocols?: unknown, readonly options?: { headers?: Record<string, string> }) {
    ScriptedSocket.made.push(this);
  }

  /** The server sends a text frame. */
  frame(frame: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }

  /** The text frames the SDK sent, parsed. */
  sentFrames(): unknown[] {
    return this.sent.filter((data): data is string => typeof data === 'string').map((data) => JSON.parse(data));
  }

  send(data: string | ArrayBuffer | ArrayBufferView): void {
    this.sent.push(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
  }

  close(code = 1000): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code });
  }

  /** Dropped as a network drops it (what `cut()` calls on a `ws` socket). */
  terminate(): void {
    this.close(1006);
  }
}
