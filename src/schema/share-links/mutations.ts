import { builder } from '../builder.js';
import { ShareLinkType } from './types.js';
import { CreateShareLinkInput, UpdateShareLinkInput } from './inputs.js';

builder.mutationFields((t) => ({
  createShareLink: t.field({
    type: ShareLinkType,
    description: 'Share a transcription: body CreateShareLink (`label`; `allowDownload`, `allowExport`, `allowTranslate` default true).',
    authScopes: { write: true },
    args: { transcriptionId: t.arg.id({ required: true }), input: t.arg({ type: CreateShareLinkInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.create(ctx.identity!.account.id, String(args.transcriptionId), args.input),
  }),
  updateShareLink: t.field({
    type: ShareLinkType,
    description: 'Change any of label, allowDownload, allowExport, allowTranslate; omitted fields stay; applies from the next request.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateShareLinkInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.update(ctx.identity!.account.id, String(args.id), args.input),
  }),
  revokeShareLink: t.field({
    type: ShareLinkType,
    description: 'Revoke: every read with its code answers 404 from now on.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.revoke(ctx.identity!.account.id, String(args.id)),
  }),
}));
