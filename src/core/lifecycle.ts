/**
 * What every resource with a lifecycle (transcriptions, broadcasts) shows of it: when it was made and changed, and
 * when it was archived and will be purged. One shape for the views, one GraphQL interface for the types.
 */
import { builder } from './builder.js';

export interface LifecycleTimes {
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  purgeAfter: string | null;
}

export function lifecycleTimes(
  row: { createdAt: Date; updatedAt: Date; archivedAt: Date | null; purgeAfter: Date | null },
): LifecycleTimes {
  return {
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    archivedAt: row.archivedAt?.toISOString() ?? null,
    purgeAfter: row.purgeAfter?.toISOString() ?? null,
  };
}

export const LifecycleTimesRef = builder.interfaceRef<LifecycleTimes>('LifecycleTimes').implement({
  description: 'When a resource with a lifecycle was made and changed, archived, and will be purged.',
  fields: (t) => ({
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    archivedAt: t.exposeString('archivedAt', { nullable: true }),
    purgeAfter: t.exposeString('purgeAfter', { nullable: true }),
  }),
});

/** What a purge answers: the resource is gone for good. */
export interface Purged {
  id: string;
  purged: true;
}

export const PurgedType = builder.objectRef<Purged>('Purged').implement({
  description: 'A purged resource: deleted for good, its id free of every record.',
  fields: (t) => ({
    id: t.exposeID('id'),
    purged: t.boolean({ description: 'Always true.', resolve: () => true }),
  }),
});
