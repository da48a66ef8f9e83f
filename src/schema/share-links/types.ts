import { builder } from '../builder.js';
import type { ShareLinkView } from '../../services/share-links.js';

export const ShareLinkType = builder.objectRef<ShareLinkView>('ShareLink').implement({
  description: 'A link that lets anyone holding its `code` (passed as `shareCode`) read one transcription with these permissions.',
  fields: (t) => ({
    id: t.exposeID('id'),
    code: t.exposeString('code', { description: 'The secret readers pass as `shareCode`.' }),
    label: t.exposeString('label', { description: 'Who the link is for.' }),
    transcriptionId: t.exposeID('transcriptionId', { nullable: true }),
    allowDownload: t.exposeBoolean('allowDownload'),
    allowExport: t.exposeBoolean('allowExport'),
    allowTranslate: t.exposeBoolean('allowTranslate'),
    isDefault: t.exposeBoolean('isDefault', { description: 'Made with the transcription (unless `shareLink: false`).' }),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
  }),
});
