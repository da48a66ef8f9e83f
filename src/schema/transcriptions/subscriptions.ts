import { builder } from '../builder.js';
import { JobEventType, type JobEventFrame } from './types.js';

builder.subscriptionFields((t) => ({
  transcriptionEvents: t.field({
    type: JobEventType,
    description: 'The events socket\'s frames as a subscription: `job.state` on every state change and `job.progress` per step.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    subscribe: async (_root, args, ctx) => {
      // Ownership is checked before listening: another account's id is 404, not a silent empty stream.
      await ctx.services.transcriptions.get(ctx.identity!.account.id, String(args.id));
      return ctx.pubsub.subscribe(`transcription:${String(args.id)}`);
    },
    resolve: (frame) => frame as JobEventFrame,
  }),
}));
