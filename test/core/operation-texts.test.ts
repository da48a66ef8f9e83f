/** The REST operations' prose kept in rest/operations/*.md (rest/operation-texts.ts). */
import { describe, expect, it } from 'vitest';
import { parseOperationTexts, withOperationTexts } from '../../rest/operation-texts.js';
import { routeTable } from '../../rest/route-table.js';
import type { RouteEntry } from '../../rest/types.js';

const route = (operationId: string, texts: { summary?: string; description?: string } = {}) =>
  ({ method: 'get', path: `/v1/${operationId}`, operationId, tags: ['t'], auth: { mode: 'public', scopes: [] }, ...texts }) as unknown as RouteEntry;

describe('operation texts', () => {
  it('reads a summary (the first paragraph) and a description (the rest), each paragraph\'s lines joined', () => {
    const texts = parseOperationTexts('# m\n\nIntro is ignored.\n\n## getThing\n\nOne thing,\nby id.\n\nFirst part\nwrapped.\n\nSecond '
      + 'part.\n\n## listThings\n\nAll things.\n', 'm.md');
    expect(texts.get('getThing')).toEqual({ summary: 'One thing, by id.', description: 'First part wrapped.\n\nSecond part.' });
    expect(texts.get('listThings')).toEqual({ summary: 'All things.' });
  });

  it('refuses an entry twice, an empty entry, a text no route has, texts in both places, and a route with none', () => {
    expect(() => parseOperationTexts('## a\n\nx\n\n## a\n\ny\n', 'm.md')).toThrow('## a is there twice');
    expect(() => parseOperationTexts('## a\n\n## b\n\ny\n', 'm.md')).toThrow('## a has no summary');
    const texts = new Map([['getThing', { summary: 'One thing.' }]]);
    expect(() => withOperationTexts([route('other', { summary: 'x' })], texts)).toThrow('getThing is not the operationId of a route');
    expect(() => withOperationTexts([route('getThing', { summary: 'x' })], texts)).toThrow('texts both in its route entry');
    expect(() => withOperationTexts([route('getThing'), route('bare')], texts)).toThrow('bare: no summary');
    expect(withOperationTexts([route('getThing')], texts)[0]).toMatchObject({ summary: 'One thing.' });
  });

  it('gives every route of the table a summary', () => {
    expect(routeTable.filter((entry) => !entry.summary?.trim()).map((entry) => entry.operationId)).toEqual([]);
  });
});
