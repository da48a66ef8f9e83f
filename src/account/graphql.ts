import { builder } from '../core/builder.js';
import { MAX_KEY_NAME } from './service.js';

export const AccountType = builder.prismaObject('Account', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    suspended: t.boolean({ resolve: (account) => account.suspendedAt !== null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const PrincipalType = builder.prismaObject('Principal', {
  description: 'Who acts: a signed-in person (`user`) or an API key (`api_key`).',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind'),
    displayName: t.exposeString('displayName'),
    email: t.exposeString('email', { nullable: true }),
    keyPrefix: t.exposeString('keyPrefix', { nullable: true, description: 'Public part of an API key, for listings.' }),
    scopes: t.exposeStringList('scopes'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

// Batched per request by the dataloader plugin: listing N keys loads their creators in one query, not N.
builder.prismaObjectField(PrincipalType, 'createdBy', (t) => t.loadable({
  type: PrincipalType,
  nullable: true,
  description: 'Who made this key; null for keys made by the admin command or on bootstrap.',
  load: (ids: string[], ctx) => ctx.prisma.principal.findMany({ where: { id: { in: ids } } }),
  sort: (principal) => principal.id,
  resolve: (principal) => principal.createdById,
}));

export interface MeShape {
  accountId: string;
  principalId: string;
  kind: 'user' | 'api_key';
  scopes: string[];
}

export const MeType = builder.objectRef<MeShape>('Me').implement({
  description: 'The caller: the acting principal, the account, the principals it may act for and a key\'s scopes.',
  fields: (t) => ({
    account: t.prismaField({
      type: 'Account',
      resolve: (query, me, _args, ctx) => ctx.prisma.account.findUniqueOrThrow({ ...query, where: { id: me.accountId } }),
    }),
    principal: t.prismaField({
      type: 'Principal',
      resolve: (query, me, _args, ctx) => ctx.prisma.principal.findUniqueOrThrow({ ...query, where: { id: me.principalId } }),
    }),
    userId: t.id({ nullable: true, resolve: (me) => (me.kind === 'user' ? me.principalId : null) }),
    apiKeyId: t.id({ nullable: true, resolve: (me) => (me.kind === 'api_key' ? me.principalId : null) }),
    scopes: t.stringList({ resolve: (me) => me.scopes }),
    principals: t.field({
      type: [PrincipalType],
      description: 'Principals this caller may act for: a person, every principal of the account; a key, itself.',
      resolve: (me, _args, ctx) => ctx.services.accounts.principalsFor({
        principal: { id: me.principalId, kind: me.kind }, account: { id: me.accountId },
      }),
    }),
  }),
});

export const NewApiKeyType = builder.objectRef<{ key: string; principalId: string }>('NewApiKey').implement({
  description: 'A key just made: `key` is shown this once and never again.',
  fields: (t) => ({
    key: t.exposeString('key'),
    apiKey: t.prismaField({
      type: 'Principal',
      resolve: (query, created, _args, ctx) => ctx.prisma.principal.findUniqueOrThrow({ ...query, where: { id: created.principalId } }),
    }),
  }),
});

export const AccountEventType = builder.objectRef<{
  type: string; apiKeyId?: string | null; keyPrefix?: string | null;
}>('AccountEvent').implement({
  description: 'Something that happened to the account (`api_key.created`, `api_key.revoked`).',
  fields: (t) => ({
    type: t.exposeString('type'),
    apiKeyId: t.exposeID('apiKeyId', { nullable: true }),
    keyPrefix: t.exposeString('keyPrefix', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    type: MeType,
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => {
      const { principal, account } = ctx.identity!;
      return { accountId: account.id, principalId: principal.id, kind: principal.kind, scopes: principal.scopes };
    },
  }),
  apiKeys: t.field({
    type: [PrincipalType],
    description: 'API keys of the caller\'s account, newest first, revoked ones included.',
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => ctx.services.accounts.listApiKeys(ctx.identity!.account.id),
  }),
}));

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({
      required: false, description: `Label shown in listings (defaults to the key prefix). Not blank; at most ${MAX_KEY_NAME} characters.`,
    }),
    scopes: t.stringList({ required: false, description: 'read, write, recordings:publish or * (default: the caller\'s own; never more: '
      + '403).' }),
    expiresAt: t.field({ type: 'DateTime', required: false, description: 'RFC 3339, in the future; absent or null: never expires.' }),
  }),
});

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: NewApiKeyType,
    authScopes: { write: true },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.services.accounts.createApiKeyFor(ctx.identity!, {
      displayName: input.name ?? undefined,
      scopes: input.scopes ?? undefined,
      expiresAt: input.expiresAt ?? null,
    }),
  }),
  revokeApiKey: t.prismaField({
    type: 'Principal',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => ctx.services.accounts.revokeApiKeyFor(ctx.identity!, String(id), query),
  }),
}));

builder.subscriptionFields((t) => ({
  accountEvents: t.field({
    type: AccountEventType,
    description: 'Events of the caller\'s account, from every gateway process (Redis pub/sub).',
    authScopes: { read: true },
    subscribe: (_root, _args, ctx) => ctx.pubsub.subscribe(`gateway:account:${ctx.identity!.account.id}`),
    resolve: (frame) => frame as { type: string; apiKeyId?: string; keyPrefix?: string },
  }),
}));
