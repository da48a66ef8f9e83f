/**
 * Idempotency-Key records (spec, Errors): the first request with a key claims it with a fingerprint of the whole
 * request; a repeat within 24 h with the same fingerprint gets the stored answer, with another fingerprint `422
 * idempotency_key_reused`, and while the first still runs `409 conflict`. Keys are per account. The REST edge
 * (rest/middleware/idempotency.ts) decides what the fingerprint covers and when to claim; the records live here.
 */
import crypto from 'node:crypto';
import { ApiError, errors, isUniqueViolation } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { newId } from './ids.js';
import type { ServiceDeps } from './services.js';

declare module './services.js' {
  interface Services {
    idempotency: IdempotencyService;
  }
}

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** A `running` record older than this belongs to a process that died mid-request; the next repeat takes it over. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

/** A stored first answer, replayed to a repeat. */
export interface StoredAnswer { status: number; body: unknown; headers: Record<string, string> }

/** JSON with object keys sorted, so equal bodies fingerprint equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
    ).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** sha256 over the parts, each length-prefixed so no two different part lists hash alike. */
export function fingerprintOf(parts: string[]): string {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  return hash.digest('hex');
}

export class IdempotencyService {
  private loggerInstance: Logger | null = null;

  constructor(private readonly deps: ServiceDeps) {}

  get logger(): Logger {
    return (this.loggerInstance ??= createLogger(this.deps.config.logLevel));
  }

  /**
   * Claims `key` for a request with this fingerprint. `claimed`: run the request, then `complete` or `release`.
   * `{ replay }`: answer the stored answer. Throws 422 for another fingerprint and 409 while the first runs.
   */
  async claim(accountId: string, key: string, requestHash: string, now = Date.now()): Promise<'claimed' | { replay: StoredAnswer }> {
    if (key.length > MAX_KEY_LENGTH) {
      throw errors.invalidOptions(`Idempotency-Key is longer than ${MAX_KEY_LENGTH} characters.`, { field: 'Idempotency-Key' });
    }
    const { prisma } = this.deps;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await prisma.idempotencyRecord.create({
          data: { id: newId('idem'), accountId, key, requestHash, state: 'running', expiresAt: new Date(now + IDEMPOTENCY_WINDOW_MS) },
        });
        return 'claimed';
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const existing = await prisma.idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } });
      if (!existing) continue; // released between our insert and read: try again
      const expired = existing.expiresAt.getTime() <= now;
      const abandoned = existing.state === 'running' && existing.createdAt.getTime() + ABANDONED_AFTER_MS <= now;
      if (expired || abandoned) {
        await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id } });
        continue;
      }
      if (existing.requestHash !== requestHash) {
        throw new ApiError(
          'idempotency_key_reused', 422, 'This Idempotency-Key was already used with a different request body.',
          { details: { field: 'Idempotency-Key' } },
        );
      }
      if (existing.state === 'running') throw errors.conflict('A request with this Idempotency-Key is still running; retry after it '
        + 'finishes.', { idempotencyKey: key });
      return {
        replay: { status: existing.status ?? 200, body: existing.body, headers: (existing.headers ?? {}) as Record<string, string> },
      };
    }
    throw errors.conflict('Could not claim the Idempotency-Key; retry.');
  }

  /** The claimed request succeeded: keep its answer for repeats. */
  async complete(accountId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.deps.prisma.idempotencyRecord.update({
      where: { accountId_key: { accountId, key } },
      data: { state: 'done', status: answer.status, body: answer.body as object, headers: answer.headers },
    });
  }

  /** The claimed request failed: nothing was created, so the key is free for the corrected or retried request. */
  async release(accountId: string, key: string): Promise<void> {
    await this.deps.prisma.idempotencyRecord.deleteMany({ where: { accountId, key } });
  }

  /** Deletes records past their 24 h window (run periodically). */
  async sweep(): Promise<void> {
    await this.deps.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: new Date() } } });
  }
}
