/**
 * The paging cursor of newest-first listings: the last item's (createdAt, id), opaque to clients (never an offset),
 * so items created, changed or archived while paging are neither repeated nor skipped.
 */
import { errors } from './errors.js';

export interface Cursor {
  createdAt: string;
  id: string;
}

export const encodeCursor = (item: { createdAt: Date; id: string }): string => Buffer.from(
  `${item.createdAt.toISOString()}|${item.id}`,
).toString('base64url');

/** Throws 400 `invalid_options` naming `cursor` for anything this service did not hand out. */
export function decodeCursor(raw: string): Cursor {
  const [createdAt, id] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) {
    throw errors.invalidOptions('cursor is not one this endpoint returned.', { field: 'cursor' });
  }
  return { createdAt, id };
}

/** Prisma's condition for the items after the cursor, newest first. */
export function afterCursor(raw: string): Array<{ createdAt: { lt: Date } } | { createdAt: Date; id: { lt: string } }> {
  const cursor = decodeCursor(raw);
  const at = new Date(cursor.createdAt);
  return [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: cursor.id } }];
}

export type LifecycleFilter = 'active' | 'archived' | 'all';
const LIST_MAX = 500;
const LIST_DEFAULT = 50;

/**
 * One page of a newest-first listing filtered by lifecycle (transcriptions, broadcasts). `limit` counts per
 * lifecycle: with `lifecycle=all` a page holds up to `limit` active and up to `limit` archived items (the spec's
 * "up to 500 of each"), merged newest first and cut where the first lifecycle that has more ends, so the next page
 * (from that item) skips nothing of either. `fetch` reads one lifecycle's rows matching `where`, `take` at most.
 */
export async function pageByLifecycle<T extends { createdAt: Date; id: string }>(
  query: { cursor?: string | null; lifecycle?: string | null; limit?: number | null },
  fetch: (where: { lifecycle: 'active' | 'archived'; OR?: ReturnType<typeof afterCursor> }, take: number) => Promise<T[]>,
): Promise<{ rows: T[]; nextCursor: string | null }> {
  const lifecycle = (query.lifecycle ?? 'active') as LifecycleFilter;
  if (!['active', 'archived', 'all'].includes(lifecycle)) {
    throw errors.invalidOptions('lifecycle must be active, archived or all.', { field: 'lifecycle' });
  }
  const limit = query.limit ?? LIST_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) {
    throw errors.invalidOptions(`limit must be an integer from 1 to ${LIST_MAX}.`, { field: 'limit' });
  }
  const after = query.cursor ? { OR: afterCursor(query.cursor) } : {};
  const lifecycles: Array<'active' | 'archived'> = lifecycle === 'all' ? ['active', 'archived'] : [lifecycle];
  const streams = await Promise.all(lifecycles.map((each) => fetch({ ...after, lifecycle: each }, limit + 1)));
  const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
    b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  // Where a lifecycle has more than `limit`, its last kept item bounds the page; the newest such bound wins.
  const bound = streams.filter((rows) => rows.length > limit).map((rows) => rows[limit - 1]!).sort(newestFirst)[0];
  const rows = streams.flatMap((each) => each.slice(0, limit)).sort(newestFirst).filter((row) => !bound || newestFirst(row, bound) <= 0);
  return { rows, nextCursor: bound ? encodeCursor(bound) : null };
}

/**
 * One page of a plain newest-first listing: checks `limit` (1..LIST_MAX, default LIST_DEFAULT) and `cursor`, reads
 * `limit + 1` rows after the cursor (ordered newest first by `fetch`) to know whether a next page follows.
 */
export async function pageNewestFirst<T extends { createdAt: Date; id: string }>(
  query: { cursor?: string | null; limit?: number | null },
  fetch: (after: { OR?: ReturnType<typeof afterCursor> }, take: number) => Promise<T[]>,
): Promise<{ rows: T[]; nextCursor: string | null }> {
  const limit = query.limit ?? LIST_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) {
    throw errors.invalidOptions(`limit must be an integer from 1 to ${LIST_MAX}.`, { field: 'limit' });
  }
  const rows = await fetch(query.cursor ? { OR: afterCursor(query.cursor) } : {}, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}
