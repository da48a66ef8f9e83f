/**
 * The realtime stream token: a stateless, signed, expiring capability carried in the `streamUrl`.
 *
 * `POST /v1/realtime/sessions` stores nothing: the session id, the account, the validated options and the
 * expiry travel inside the token, authenticated by HMAC-SHA256 with a secret every gateway process shares.
 * Any process holding the secret can therefore accept the socket, and a restart loses nothing.
 *
 * Wire form: `rt1.<base64url(JSON payload)>.<base64url(HMAC-SHA256("rt1." + payload part))>`.
 */
import { createHmac, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, errors } from '../core/errors.js';
import type { RealtimeSessionOptions } from './options.js';

const VERSION = 'rt1';

/** A live recording's publisher grant: which recording, and which grant of it (a newer one demotes older sockets). */
export interface RecordingClaim {
  id: string;
  epoch: number;
}

export interface SessionClaims {
  sessionId: string;
  accountId: string;
  options: RealtimeSessionOptions;
  /** Set on a live recording's publisher token; such a token opens only that recording's publish socket. */
  recording?: RecordingClaim;
  /** Seconds since the epoch: connect before this. */
  expiresAt: number;
  issuedAt: number;
}

interface WirePayload {
  sid: string;
  acct: string;
  iat: number;
  exp: number;
  opts: RealtimeSessionOptions;
  rec?: { id: string; ep: number };
}

export interface IssuedSession {
  sessionId: string;
  token: string;
  expiresAt: Date;
}

export class SessionTokenSigner {
  private readonly key: Buffer;

  constructor(secret: Buffer | string, private readonly now: () => number = Date.now) {
    const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
    if (key.length < 16) throw new Error('The realtime token secret must be at least 16 bytes.');
    this.key = key;
  }

  issue(accountId: string, options: RealtimeSessionOptions, ttlS: number, recording?: RecordingClaim): IssuedSession {
    const issuedAt = Math.floor(this.now() / 1000);
    const payload: WirePayload = {
      sid: `rts_${randomUUID().replaceAll('-', '')}`, acct: accountId, iat: issuedAt, exp: issuedAt + ttlS, opts: options,
      ...(recording ? { rec: { id: recording.id, ep: recording.epoch } } : {}),
    };
    const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return { sessionId: payload.sid, token: `${body}.${this.sign(body)}`, expiresAt: new Date(payload.exp * 1000) };
  }

  /** Throws 401 `invalid_token` for anything not signed by us, 410 `session_expired` past the expiry. */
  verify(token: string): SessionClaims {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) throw invalidStreamToken();
    const body = `${parts[0]}.${parts[1]}`;
    const expected = Buffer.from(this.sign(body), 'base64url');
    const given = Buffer.from(parts[2]!, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidStreamToken();

    let payload: WirePayload;
    try {
      payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as WirePayload;
    } catch {
      throw invalidStreamToken();
    }
    if (typeof payload.sid !== 'string' || typeof payload.exp !== 'number' || typeof payload.opts !== 'object') throw invalidStreamToken();
    if (this.now() / 1000 >= payload.exp) {
      throw new ApiError('session_expired', 410, `The realtime session expired at ${new Date(payload.exp * 1000).toISOString()}; create a `
        + `new one.`, {
        retryable: false,
        details: { sessionId: payload.sid, expiresAt: new Date(payload.exp * 1000).toISOString() },
      });
    }
    const recording = payload.rec && typeof payload.rec.id === 'string' && typeof payload.rec.ep === 'number' ? {
      id: payload.rec.id, epoch: payload.rec.ep,
    } : undefined;
    return {
      sessionId: payload.sid, accountId: payload.acct, options: payload.opts, expiresAt: payload.exp, issuedAt: payload.iat,
      ...(recording ? { recording } : {}),
    };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

function invalidStreamToken(): ApiError {
  return errors.invalidToken('The stream URL carries no valid session token; create a session with POST /v1/realtime/sessions.');
}

/**
 * The signing key: `REALTIME_SECRET` when set; else derived (HKDF-SHA256, its own label) from `SERVER_SECRET`, so
 * one secret configures a fleet without one key serving two purposes; else a random key made once and kept in
 * `DATA_DIR/realtime-signing-secret`, so restarts and every process sharing that folder accept the same tokens
 * (gateways on other machines need one of the two secrets).
 */
export function realtimeSigningKey(options: { realtimeSecret: string | null; serverSecret: string | null; dataDir: string }): {
  key: Buffer; source: 'REALTIME_SECRET' | 'SERVER_SECRET' | 'DATA_DIR';
} {
  if (options.realtimeSecret) return { key: Buffer.from(options.realtimeSecret, 'utf8'), source: 'REALTIME_SECRET' };
  if (options.serverSecret) {
    const derived = hkdfSync(
      'sha256', Buffer.from(options.serverSecret, 'utf8'), Buffer.alloc(0), 'speechgate realtime session token v1', 32,
    );
    return { key: Buffer.from(derived), source: 'SERVER_SECRET' };
  }
  const file = join(options.dataDir, 'realtime-signing-secret');
  if (!existsSync(file)) {
    mkdirSync(options.dataDir, { recursive: true });
    try {
      // `wx`: when two processes start together, the first file written wins and both read it back.
      writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { key: Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8'), source: 'DATA_DIR' };
}
