/**
 * `Idempotency-Key` for create routes (spec, Errors): a repeat within 24 h with the same key and body answers the
 * first answer again with `Idempotent-Replayed: true`; the same key with another body is `422
 * idempotency_key_reused`; a repeat while the first still runs is `409 conflict`. Keys are per account. A route
 * opts in with `idempotent: true` in its table entry; handlers outside the table can mount it directly.
 *
 * The first request claims the key by inserting a `running` record (the unique (accountId, key) index decides
 * races between processes) and its JSON answer is stored when sent. A failed request (4xx or 5xx) releases the key:
 * nothing was created, so the corrected or retried request runs (and a replayed error would carry a stale requestId).
 */
import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError, errors } from '../../src/errors.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { newId } from '../../src/services/accounts.js';
import type { Logger } from '../../src/logger.js';

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** A `running` record older than this belongs to a process that died mid-request; the next repeat takes it over. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;
/** Response headers worth replaying (the body and status always are). */
const REPLAYED_HEADERS = ['location', 'content-type'];

export interface IdempotencyOptions {
  prisma: PrismaClient;
  logger?: Logger;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Method, path and the parsed JSON body. A route that streams its own body (multipart uploads, `ownBody`) has no
 * parsed body here: its size stands in for it, since buffering an upload to hash it would defeat the streaming.
 */
const fingerprint = (req: Request) => `${req.method} ${req.baseUrl}${req.path}\n${
  req.body === undefined && req.get('content-length') ? `length:${req.get('content-length')}` : canonicalJson(req.body)}`;

export function useIdempotency(options: IdempotencyOptions): RequestHandler {
  const { prisma } = options;
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    const accountId = req.sg.identity?.account.id;
    // Without a key there is nothing to do; without an account the operation itself refuses the request.
    if (!key || !accountId) return next();
    try {
      if (key.length > 255) throw errors.invalidOptions('Idempotency-Key is longer than 255 characters.', { field: 'Idempotency-Key' });
      const requestHash = crypto.createHash('sha256').update(fingerprint(req)).digest('hex');
      const now = Date.now();
      const claimed = await claim(prisma, { accountId, key, requestHash, now });
      if (claimed !== 'claimed') {
        if (claimed.requestHash !== requestHash) {
          throw new ApiError('idempotency_key_reused', 422, 'This Idempotency-Key was already used with a different request body.', { details: { field: 'Idempotency-Key' } });
        }
        if (claimed.state === 'running') {
          throw errors.conflict('A request with this Idempotency-Key is still running; retry after it finishes.', { idempotencyKey: key });
        }
        for (const [name, value] of Object.entries((claimed.headers ?? {}) as Record<string, string>)) res.setHeader(name, value);
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(claimed.status ?? 200).json(claimed.body);
        return;
      }
      const sendJson = res.json.bind(res);
      res.json = (body: unknown) => {
        const status = res.statusCode;
        const where = { accountId_key: { accountId, key } };
        const stored = status >= 400
          ? prisma.idempotencyRecord.delete({ where })
          : prisma.idempotencyRecord.update({
            where,
            data: {
              state: 'done', status, body: body as object,
              headers: Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => {
                const value = res.getHeader(name);
                return value === undefined ? [] : [[name, String(value)]];
              })),
            },
          });
        // The answer waits for the record so a repeat arriving right after it sees `done`, never `running`.
        stored.catch((error: unknown) => options.logger?.warn({ err: error, requestId: req.sg.requestId }, 'idempotency record not stored')).finally(() => sendJson(body));
        return res;
      };
      next();
    } catch (error) {
      next(error);
    }
  };
}

type ClaimResult = 'claimed' | { requestHash: string; state: string; status: number | null; body: unknown; headers: unknown };

async function claim(prisma: PrismaClient, input: { accountId: string; key: string; requestHash: string; now: number }): Promise<ClaimResult> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await prisma.idempotencyRecord.create({
        data: {
          id: newId('idem'), accountId: input.accountId, key: input.key, requestHash: input.requestHash,
          state: 'running', expiresAt: new Date(input.now + IDEMPOTENCY_WINDOW_MS),
        },
      });
      return 'claimed';
    } catch (error) {
      if ((error as { code?: string }).code !== 'P2002') throw error;
    }
    const existing = await prisma.idempotencyRecord.findUnique({ where: { accountId_key: { accountId: input.accountId, key: input.key } } });
    if (!existing) continue; // released between our insert and read: try again
    const expired = existing.expiresAt.getTime() <= input.now;
    const abandoned = existing.state === 'running' && existing.createdAt.getTime() + ABANDONED_AFTER_MS <= input.now;
    if (expired || abandoned) {
      await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id } });
      continue;
    }
    return existing;
  }
  throw errors.conflict('Could not claim the Idempotency-Key; retry.');
}

/** Deletes records past their 24 h window (run periodically by the app). */
export async function sweepIdempotencyRecords(prisma: PrismaClient) {
  await prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: new Date() } } });
}
