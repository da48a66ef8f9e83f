import { builder } from '../builder.js';
import { AccountEventType } from './types.js';

builder.subscriptionFields((t) => ({
  accountEvents: t.field({
    type: AccountEventType,
    description: 'Events of the caller\'s account, from every gateway process (Redis pub/sub).',
    authScopes: { read: true },
    subscribe: (_root, _args, ctx) => ctx.pubsub.subscribe(`gateway:account:${ctx.identity!.account.id}`),
    resolve: (frame) => frame as { type: string; apiKeyId?: string; keyPrefix?: string },
  }),
}));
