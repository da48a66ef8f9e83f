/** Typed inputs of share links (CreateShareLink, and its PATCH where every field is optional). */
import { builder } from '../builder.js';

export const CreateShareLinkInput = builder.inputType('CreateShareLinkInput', {
  description: 'CreateShareLink: who the link is for; permissions default to on.',
  fields: (t) => ({
    label: t.string({ required: true, description: 'Who the link is for.' }),
    allowDownload: t.boolean({ description: 'Default true.' }),
    allowExport: t.boolean({ description: 'Default true.' }),
    allowTranslate: t.boolean({ description: 'Default true.' }),
  }),
});

export const UpdateShareLinkInput = builder.inputType('UpdateShareLinkInput', {
  description: 'Any of label, allowDownload, allowExport, allowTranslate; fields left out stay.',
  fields: (t) => ({
    label: t.string(),
    allowDownload: t.boolean(),
    allowExport: t.boolean(),
    allowTranslate: t.boolean(),
  }),
});
