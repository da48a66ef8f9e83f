import { builder } from '../builder.js';
import { ShareLinkType } from './types.js';

builder.queryFields((t) => ({
  shareLinks: t.field({
    type: [ShareLinkType],
    description: 'Active share links of a transcription, oldest first.',
    authScopes: { read: true },
    args: { transcriptionId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.list(ctx.identity!.account.id, String(args.transcriptionId)),
  }),
}));
