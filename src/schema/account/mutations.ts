import { builder } from '../builder.js';
import { NewApiKeyType } from './types.js';

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: false, description: 'Label shown in listings (defaults to the key prefix).' }),
    scopes: t.stringList({ required: false, description: 'read, write, recordings:publish or * (default: the caller\'s own).' }),
    expiresAt: t.field({ type: 'DateTime', required: false }),
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
