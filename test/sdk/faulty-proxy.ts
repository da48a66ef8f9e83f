/**
 * A loopback proxy in front of the real test server that answers the next requests with scripted failures (a 429,
 * a 503 with or without the envelope), optionally after forwarding the request (the server did the work, the answer
 * was lost on the way back), and forwards everything else unchanged. It records what it saw, so a test can count
 * the SDK's attempts and compare the `Idempotency-Key` each one carried.
 */
import type http from 'node:http';
import { listenOnLoopback } from '../helpers/loopback.js';

export interface Fault {
  status: 429 | 503;
  /** The `Retry-After` header; absent when not given. */
  retryAfter?: string;
  /** The envelope's code (default `rate_limited` / `unavailable`); `null` answers a bare status with no body. */
  code?: string | null;
  /** Forward first and drop the server's answer: the request ran, the client sees the fault. */
  afterForwarding?: boolean;
}

export interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** `fault` when the proxy answered (after forwarding or not), else the server's status. */
  answer: 'fault' | number;
  /** The server's status when it was asked (also under a fault sent after forwarding). */
  serverStatus: number | null;
  /** The server's `Idempotent-Replayed` header, when it was asked. */
  replayed: string | null;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export async function startFaultyProxy(target: string) {
  const faults: Fault[] = [];
  const seen: SeenRequest[] = [];

  async function forward(req: http.IncomingMessage, body: Buffer): Promise<Response> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers.set(
      name, value,
    );
    return fetch(`${target}${req.url}`, {
      method: req.method, headers, body: body.length ? new Uint8Array(body) : undefined, redirect: 'manual',
    });
  }

  const loopback = await listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const fault = faults.shift();
      const record: SeenRequest = {
        method: req.method ?? '', path: req.url ?? '', idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
        answer: 'fault', serverStatus: null, replayed: null,
      };
      seen.push(record);
      try {
        if (!fault || fault.afterForwarding) {
          const answer = await forward(req, body);
          record.serverStatus = answer.status;
          record.replayed = answer.headers.get('idempotent-replayed');
          const bytes = Buffer.from(await answer.arrayBuffer());
          if (!fault) {
            record.answer = answer.status;
            // fetch decoded the body: its length and encoding headers no longer apply.
            answer.headers.forEach((value, name) => {
              if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') res.setHeader(name, value);
            });
            res.writeHead(answer.status).end(bytes);
            return;
          }
        }
        const code = fault.code === undefined ? (fault.status === 429 ? 'rate_limited' : 'unavailable') : fault.code;
        const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
        if (code === null) {
          res.writeHead(fault.status, headers).end();
          return;
        }
        res.writeHead(fault.status, { ...headers, 'content-type': 'application/json', 'x-request-id': 'req_proxy' }).end(JSON.stringify({
          defined: true, code, status: fault.status, message: `A scripted ${code}.`, data: { retryable: true, details: {} },
          requestId: 'req_proxy',
        }));
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    });
  });

  return {
    url: loopback.url,
    /** The next requests' answers, in order; the rest are forwarded. */
    fail(...next: Fault[]) {
      faults.push(...next);
    },
    /** What it saw since the last `reset()`. */
    seen,
    reset() {
      faults.length = 0;
      seen.length = 0;
    },
    close: () => loopback.close(),
  };
}
