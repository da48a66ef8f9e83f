import { builder } from '../core/builder.js';

/** Typed inputs of share links (CreateShareLink, and its PATCH where every field is optional). */

export const CreateShareLinkInput = builder.inputType('CreateShareLinkInput', {
  description: 'CreateShareLink: who the link is for; permissions default to on.',
  fields: (t) => ({
    label: t.string({ required: true, description: 'Who the link is for. Not blank; at most 200 characters; trimmed.' }),
    allowDownload: t.boolean({ description: 'Default true.' }),
    allowExport: t.boolean({ description: 'Default true.' }),
    allowTranslate: t.boolean({ description: 'Default true.' }),
  }),
});

export const UpdateShareLinkInput = builder.inputType('UpdateShareLinkInput', {
  description: 'Any of label, allowDownload, allowExport, allowTranslate; fields left out stay.',
  fields: (t) => ({
    label: t.string({ description: 'Who the link is for. Not blank; at most 200 characters; trimmed.' }),
    allowDownload: t.boolean(),
    allowExport: t.boolean(),
    allowTranslate: t.boolean(),
  }),
});

/** The row as it is stored, less what readers must not see (the account, `revokedAt`: a revoked link is not served). */
export const ShareLinkType = builder.prismaObject('ShareLink', {
  description: 'A link that lets anyone holding its `code` (passed as `shareCode`) read one transcription with these permissions.',
  fields: (t) => ({
    id: t.exposeID('id'),
    code: t.exposeString('code', { description: 'The secret readers pass as `shareCode`.' }),
    label: t.exposeString('label', { description: 'Who the link is for.' }),
    transcriptionId: t.exposeID('transcriptionId', { nullable: true }),
    broadcastId: t.exposeID('broadcastId', { nullable: true, description: 'A broadcast\'s link (then `transcriptionId` is null).' }),
    allowDownload: t.exposeBoolean('allowDownload'),
    allowExport: t.exposeBoolean('allowExport'),
    allowTranslate: t.exposeBoolean('allowTranslate'),
    isDefault: t.exposeBoolean('isDefault', { description: 'Made with the transcription (unless `shareLink: false`).' }),
    createdAt: t.string({ resolve: (link) => link.createdAt.toISOString() }),
    updatedAt: t.string({ resolve: (link) => link.updatedAt.toISOString() }),
  }),
});

builder.queryFields((t) => ({
  shareLinks: t.field({
    type: [ShareLinkType],
    description: 'Active share links of a transcription, oldest first.',
    authScopes: { read: true },
    args: { transcriptionId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.list(
      ctx.identity!.account.id, { transcriptionId: String(args.transcriptionId) },
    ),
  }),
}));

builder.mutationFields((t) => ({
  createShareLink: t.field({
    type: ShareLinkType,
    description: 'Share a transcription: body CreateShareLink (`label`; `allowDownload`, `allowExport`, `allowTranslate` default true).',
    authScopes: { write: true },
    args: { transcriptionId: t.arg.id({ required: true }), input: t.arg({ type: CreateShareLinkInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.create(
      ctx.identity!.account.id, { transcriptionId: String(args.transcriptionId) }, args.input,
    ),
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

// Share links have no events of their own: a revoked link simply stops answering.

builder.queryFields((t) => ({
  broadcastShareLinks: t.field({
    type: [ShareLinkType],
    description: 'Active share links of a broadcast, oldest first.',
    authScopes: { read: true },
    args: { broadcastId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.list(ctx.identity!.account.id, { broadcastId: String(args.broadcastId) }),
  }),
}));

builder.mutationFields((t) => ({
  createBroadcastShareLink: t.field({
    type: ShareLinkType,
    description: 'Share a broadcast: body CreateShareLink (`label`; `allowDownload`, `allowExport`, `allowTranslate` default true).',
    authScopes: { write: true },
    args: { broadcastId: t.arg.id({ required: true }), input: t.arg({ type: CreateShareLinkInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.shareLinks.create(
      ctx.identity!.account.id, { broadcastId: String(args.broadcastId) }, args.input,
    ),
  }),
}));
