/**
 * The paging cursor of newest-first listings: the last item's (createdAt, id), opaque to clients (never an offset),
 * so items created, changed or archived while paging are neither repeated nor skipped.
 */
import { errors } from './errors.js';

export interface Cursor {
  createdAt: string;
  id: string;
}

export const encodeCursor = (item: { createdAt: Date; id: string }): string => Buffer.from(`${item.createdAt.toISOString()}|${item.id}`).toString('base64url');

/** Throws 400 `invalid_options` naming `cursor` for anything this service did not hand out. */
export function decodeCursor(raw: string): Cursor {
  const [createdAt, id] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) throw errors.invalidOptions('cursor is not one this endpoint returned.', { field: 'cursor' });
  return { createdAt, id };
}

/** Prisma's condition for the items after the cursor, newest first. */
export function afterCursor(raw: string): Array<{ createdAt: { lt: Date } } | { createdAt: Date; id: { lt: string } }> {
  const cursor = decodeCursor(raw);
  const at = new Date(cursor.createdAt);
  return [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: cursor.id } }];
}
