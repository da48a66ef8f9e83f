/**
 * Accounts and their principals: creating accounts and API keys (admin command, bootstrap, tests), the
 * bootstrap account, and the principals an identity may act for (`/v1/me`).
 */
import { describeGivenKey, generateApiKey, type NewApiKey } from '../core/identity/api-keys.js';
import type { Identity } from '../core/identity/identity.js';
import { grants, isScope } from '../core/identity/scopes.js';
import { errors } from '../core/errors.js';
import { bodyWithFields } from '../core/validate.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { ServiceDeps } from '../core/services.js';
import { newId } from '../core/ids.js';

declare module '../core/services.js' {
  interface Services {
    accounts: AccountsService;
  }
}

/** The client or a transaction of it. */
type Db = Pick<PrismaClient, 'account' | 'principal'>;

/** Longest label of an API key (what listings show); the REST route declares it as the name's `maxLength`. */
export const MAX_KEY_NAME = 200;

/** Advisory lock id serialising bootstrap between processes (any constant; "sgboot" in ASCII). */
const BOOTSTRAP_LOCK = 0x7367626f6f74n;

/**
 * The CreateApiKey body's shape (unknown fields, types), checked before GraphQL coerces it so the 422 names the field;
 * scopes, the name's length and the expiry are the service's (400 `invalid_options`).
 */
export interface ApiKeyFields { name?: string | null; scopes?: string[] | null; expiresAt?: string | null }

/** A body that is not a JSON object never gets here: the router refuses it first (400 `invalid_options` naming `body`). */
export function createApiKeyFields(body: unknown): ApiKeyFields {
  if (body === undefined || body === null) return {};
  const { name, scopes, expiresAt } = bodyWithFields(body, ['name', 'scopes', 'expiresAt'], 'a JSON object');
  if (name != null && typeof name !== 'string') throw errors.invalidBody('name must be a string.', { field: 'name' });
  if (scopes != null && (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string'))) {
    throw errors.invalidBody('scopes must be an array of strings.', { field: 'scopes' });
  }
  if (expiresAt != null && (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt)))) {
    throw errors.invalidBody('expiresAt must be an RFC 3339 timestamp.', { field: 'expiresAt' });
  }
  return { name, scopes, expiresAt } as ApiKeyFields;
}

export interface CreateKeyOptions {
  scopes?: string[];
  displayName?: string;
  expiresAt?: Date | null;
  createdById?: string | null;
  /** Use this exact key (BOOTSTRAP_API_KEY) instead of generating one. */
  givenKey?: string;
}

export class AccountsService {
  constructor(private readonly deps: ServiceDeps) {}

  async createAccount(name: string, options: { bootstrap?: boolean } = {}, db: Db = this.deps.prisma) {
    return db.account.create({ data: { id: newId('acct'), name, bootstrap: options.bootstrap ?? false } });
  }

  /** Returns the key in clear: the only moment it exists outside the caller's hands. */
  async createApiKey(accountId: string, options: CreateKeyOptions = {}, db: Db = this.deps.prisma): Promise<NewApiKey & {
    principalId: string;
  }> {
    const scopes = options.scopes ?? ['*'];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length || scopes.length === 0) {
      throw errors.invalidOptions(
        `scopes: each must be read, write, recordings:publish or *; got ${JSON.stringify(scopes)}`, { field: 'scopes' },
      );
    }
    const key = options.givenKey ? describeGivenKey(options.givenKey) : generateApiKey();
    const principal = await db.principal.create({
      data: {
        id: newId('key'),
        accountId,
        kind: 'api_key',
        displayName: options.displayName ?? key.keyPrefix,
        keyPrefix: key.keyPrefix,
        keyHash: key.keyHash,
        scopes,
        expiresAt: options.expiresAt ?? null,
        createdById: options.createdById ?? null,
      },
    });
    return { ...key, principalId: principal.id };
  }

  /**
   * First start makes the bootstrap account and prints one key for it; with BOOTSTRAP_API_KEY that exact key
   * exists (scope `*`) on every start. Returns the key to print when one was made now, else null.
   */
  async ensureBootstrap(givenKey: string | null): Promise<{ accountId: string; printKey: string | null }> {
    // Several gateways starting at once on one database: the lock makes exactly one of them create the account.
    return this.deps.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`;
      let account = await tx.account.findFirst({ where: { bootstrap: true }, orderBy: { createdAt: 'asc' } });
      let printKey: string | null = null;
      if (!account) {
        account = await this.createAccount('Bootstrap account', { bootstrap: true }, tx);
        if (!givenKey) printKey = (await this.createApiKey(account.id, { displayName: 'bootstrap key' }, tx)).key;
      }
      if (givenKey) {
        const described = describeGivenKey(givenKey);
        const existing = await tx.principal.findUnique({ where: { keyHash: described.keyHash } });
        if (!existing) await this.createApiKey(account.id, { givenKey, displayName: 'BOOTSTRAP_API_KEY' }, tx);
        else if (existing.revokedAt || existing.expiresAt || existing.accountId !== account.id || !existing.scopes.includes('*')) {
          // "That exact key exists, scope *, for the bootstrap account": configuration wins over earlier edits.
          await tx.principal.update({
            where: { id: existing.id },
            data: { revokedAt: null, expiresAt: null, accountId: account.id, scopes: ['*'] },
          });
        }
      }
      return { accountId: account.id, printKey };
    });
  }

  async listApiKeys(accountId: string) {
    return this.deps.prisma.principal.findMany({
      where: { accountId, kind: 'api_key' },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
  }

  /** A caller making a key for its own account: the new key cannot hold a scope the caller lacks. */
  async createApiKeyFor(identity: Identity, options: Omit<CreateKeyOptions, 'createdById' | 'givenKey'>) {
    const scopes = options.scopes ?? identity.principal.scopes;
    const beyond = scopes.filter((scope) => isScope(scope) && !grants(identity.principal.scopes, scope));
    if (beyond.length) throw errors.forbidden(`A key cannot grant scopes its creator lacks: ${beyond.join(', ')}.`, { scopes: beyond });
    if (options.expiresAt && options.expiresAt.getTime() <= Date.now()) {
      throw errors.invalidOptions('expiresAt must be in the future.', { field: 'expiresAt' });
    }
    if (options.displayName !== undefined && (!options.displayName.trim() || options.displayName.length > MAX_KEY_NAME)) {
      throw errors.invalidOptions(`name must be a non-empty string of at most ${MAX_KEY_NAME} characters.`, { field: 'name' });
    }
    const created = await this.createApiKey(identity.account.id, { ...options, scopes, createdById: identity.principal.id });
    this.deps.pubsub.publish(`gateway:account:${identity.account.id}`, {
      type: 'api_key.created', apiKeyId: created.principalId, keyPrefix: created.keyPrefix,
    });
    return created;
  }

  /** A caller revoking a key of its own account: only a key whose every scope the caller holds (no lockout by a lesser key). */
  async revokeApiKeyFor<Q extends object>(identity: Identity, apiKeyId: string, query: Q) {
    const target = await this.deps.prisma.principal.findFirst({
      where: { id: apiKeyId, accountId: identity.account.id, kind: 'api_key' }, select: { scopes: true },
    });
    if (!target) throw errors.notFound('API key');
    const beyond = target.scopes.filter((scope) => isScope(scope) && !grants(identity.principal.scopes, scope));
    if (beyond.length) {
      throw errors.forbidden(
        `A key can revoke only keys whose scopes it holds; this one also holds ${beyond.join(', ')}.`, { scopes: beyond },
      );
    }
    const { count } = await this.deps.prisma.principal.updateMany({
      where: { id: apiKeyId, accountId: identity.account.id, kind: 'api_key', revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const key = await this.deps.prisma.principal.findFirst({
      ...query, where: { id: apiKeyId, accountId: identity.account.id, kind: 'api_key' },
    });
    if (!key) throw errors.notFound('API key');
    if (count) {
      this.deps.pubsub.publish(`gateway:account:${identity.account.id}`, { type: 'api_key.revoked', apiKeyId, keyPrefix: key.keyPrefix });
    }
    return key;
  }

  async revokeKey(principalId: string) {
    await this.deps.prisma.principal.update({ where: { id: principalId }, data: { revokedAt: new Date() } });
  }

  async setSuspended(accountId: string, suspended: boolean) {
    await this.deps.prisma.account.update({ where: { id: accountId }, data: { suspendedAt: suspended ? new Date() : null } });
  }

  /** A person of the built-in issuer (admin command, tests); their tokens carry `sub` = the principal id. */
  async createLocalUser(accountId: string, input: { email: string; displayName?: string }, issuer: string) {
    const id = newId('usr');
    return this.deps.prisma.principal.create({
      data: {
        id, accountId, kind: 'user', displayName: input.displayName ?? input.email, email: input.email, issuer, subject: id, scopes: ['*'],
      },
    });
  }

  /** Principals the caller may act for: a person, every principal of the account; a key, itself. */
  async principalsFor(identity: { principal: { id: string; kind: string }; account: { id: string } }) {
    const where = identity.principal.kind === 'user'
      ? { accountId: identity.account.id, revokedAt: null }
      : { id: identity.principal.id };
    return this.deps.prisma.principal.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }
}
