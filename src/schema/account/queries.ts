import { builder } from '../builder.js';
import { MeType, PrincipalType } from './types.js';

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
