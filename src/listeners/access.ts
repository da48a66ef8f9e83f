/**
 * Who may follow a recording as a broadcast listener (spec, Authentication rule 9: "any listener who can reach its
 * broadcast"): anyone, with no credential, when one of the active public broadcasts its transcription feeds reaches
 * it; a private broadcast's listener with a listener token, proof of its password given once.
 *
 * A listener token is `lt_<payload>.<signature>` (base64url): the broadcast id, a fingerprint of its access (the
 * password hash, or "public"), and an expiry, HMAC-signed with a key of its own. Changing the password or the
 * access kills every token issued before at once; archiving the broadcast makes it answer 404 (links dead). The token
 * is not a bearer credential for anything else: it reads the broadcast's recordings as a listener and no more.
 */
import crypto from 'node:crypto';
import { errors } from '../core/errors.js';
import type { ServiceDeps } from '../core/services.js';
import { purposeKey } from '../core/signing-secret.js';

/** A listener token lasts a day: long enough for an event, short enough that a leaked one dies by itself. */
export const LISTENER_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

interface TokenPayload {
  /** Broadcast id. */
  b: string;
  /** Fingerprint of the broadcast's access when the token was issued. */
  a: string;
  /** Expiry, ms since the epoch. */
  e: number;
}

/** What a broadcast's access is now, reduced to a short fingerprint a token carries. */
export function accessFingerprint(broadcast: { id: string; access: string; passwordHash: string | null }): string {
  const basis = broadcast.access === 'private' ? `private:${broadcast.passwordHash ?? ''}` : `public:${broadcast.id}`;
  return crypto.createHash('sha256').update(basis).digest('base64url').slice(0, 12);
}

/** A listener that reached a recording: through which broadcasts (ids), and whether a token was shown. */
export interface ListenerReach {
  broadcastIds: string[];
}

export class ListenerAccess {
  constructor(private readonly deps: Pick<ServiceDeps, 'prisma' | 'config'>) {}

  private key(): Promise<Buffer> {
    return purposeKey(this.deps.config, 'listener-token');
  }

  async issue(
    broadcast: { id: string; access: string; passwordHash: string | null },
  ): Promise<{ listenerToken: string; expiresAt: string }> {
    const payload: TokenPayload = { b: broadcast.id, a: accessFingerprint(broadcast), e: Date.now() + LISTENER_TOKEN_TTL_MS };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const signature = crypto.createHmac('sha256', await this.key()).update(body).digest('base64url');
    return { listenerToken: `lt_${body}.${signature}`, expiresAt: new Date(payload.e).toISOString() };
  }

  /**
   * The broadcast a listener token opens, or a refusal: 401 `invalid_token` for a token that is not ours, expired,
   * or issued before the broadcast's password or access changed; 404 when the broadcast is archived or gone.
   */
  async verify(token: string): Promise<{ id: string; access: string; passwordHash: string | null }> {
    const match = /^lt_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
    const refused = (why: string) => errors.invalidToken(`listenerToken: ${why}; ask POST /v1/listen/{code}/token for a new one.`);
    if (!match) throw refused('not a listener token');
    const expected = crypto.createHmac('sha256', await this.key()).update(match[1]!).digest();
    const given = Buffer.from(match[2]!, 'base64url');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw refused('not a listener token of this server');
    const payload = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8')) as TokenPayload;
    if (!(payload.e > Date.now())) throw refused('expired');
    const broadcast = await this.deps.prisma.broadcast.findUnique({
      where: { id: payload.b }, select: { id: true, access: true, passwordHash: true, lifecycle: true },
    });
    if (!broadcast || broadcast.lifecycle !== 'active') throw errors.notFound('The broadcast');
    if (accessFingerprint(broadcast) !== payload.a) throw refused('the broadcast\'s password or access changed since it was issued');
    return broadcast;
  }

  /**
   * Which of `broadcastIds` (the broadcasts a recording's transcription feeds) this listener reaches: with a token,
   * the token's broadcast when it is one of them; without, the active public ones. Null when none.
   */
  async reach(broadcastIds: string[], listenerToken: string | null): Promise<ListenerReach | null> {
    if (listenerToken) {
      const broadcast = await this.verify(listenerToken);
      return broadcastIds.includes(broadcast.id) ? { broadcastIds: [broadcast.id] } : null;
    }
    if (broadcastIds.length === 0) return null;
    const open = await this.deps.prisma.broadcast.findMany({
      where: { id: { in: broadcastIds }, access: 'public', lifecycle: 'active' }, select: { id: true },
    });
    return open.length ? { broadcastIds: open.map((b) => b.id) } : null;
  }
}
