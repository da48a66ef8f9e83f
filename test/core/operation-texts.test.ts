/** The REST operations' prose kept in rest/operations/*.md (rest/operation-texts.ts). */
import { describe, expect, it } from 'vitest';
import { parseOperationTexts, withOperationTexts } from '../../rest/operation-texts.js';
import { routeTable } from '../../rest/route-table.js';
import type { RouteEntry } from '../../rest/types.js';

type RouteTexts = Partial<Pick<RouteEntry, 'summary' | 'description' | 'errors' | 'parameters' | 'textValues'>>;

const route = (operationId: string, texts: RouteTexts = {}) =>
  ({
    method: 'get', path: `/v1/${operationId}`, operationId, tags: ['t'], auth: { mode: 'public', scopes: [] }, ...texts,
  }) as unknown as RouteEntry;

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

  it('reads the errors and parameters sections, each item with its indented lines joined', () => {
    const texts = parseOperationTexts('## getThing\n\nOne thing.\n\nMore.\n\n### Errors\n\n- 404 not_found: No such\n  thing.\n'
      + '- 409 invalid_state: Archived.\n\n### Parameters\n\n- lang: In this\n  language.\n', 'm.md');
    expect(texts.get('getThing')).toEqual({
      summary: 'One thing.', description: 'More.',
      errors: new Map([['404 not_found', 'No such thing.'], ['409 invalid_state', 'Archived.']]),
      parameters: new Map([['lang', 'In this language.']]),
    });
    expect(() => parseOperationTexts('## a\n\nx\n\n### Errors\n\n404 not_found: y\n', 'm.md')).toThrow('is not an item');
    expect(() => parseOperationTexts('## a\n\nx\n\n### Errors\n\n- 404 not_found: y\n- 404 not_found: z\n', 'm.md'))
      .toThrow('names 404 not_found twice');
    expect(() => parseOperationTexts('## a\n\nx\n\n### Parameters\n\n- b: y\n\n### Parameters\n\n- c: z\n', 'm.md'))
      .toThrow('### Parameters twice');
  });

  it('fills in error and parameter texts, the parameter\'s before its schema as entries write it', () => {
    const texts = new Map([['getThing', {
      summary: 'One thing.', errors: new Map([['404 not_found', 'No such thing.']]), parameters: new Map([['lang', 'In it.']]),
    }]]);
    const [filled] = withOperationTexts([route('getThing', {
      errors: [{ status: 404, code: 'not_found' }, { status: 400, code: 'invalid_options', description: 'Kept.' }],
      parameters: [{ name: 'lang', in: 'query', schema: { type: 'string' } }, { name: 'limit', in: 'query', schema: { type: 'integer' } }],
    })], texts);
    expect(filled!.errors).toEqual([
      { status: 404, code: 'not_found', description: 'No such thing.' }, { status: 400, code: 'invalid_options', description: 'Kept.' },
    ]);
    expect(Object.keys(filled!.parameters![0]!)).toEqual(['name', 'in', 'description', 'schema']);
    expect(filled!.parameters![1]).toEqual({ name: 'limit', in: 'query', schema: { type: 'integer' } });
  });

  it('fills `${NAME}` from the route\'s textValues, and refuses a name without a value or a value no text names', () => {
    const texts = parseOperationTexts('## getThing\n\nUp to ${MAX} things.\n\n### Errors\n\n- 400 invalid_options: Over ${MAX}.\n', 'm.md');
    const errors = [{ status: 400, code: 'invalid_options' }];
    const [filled] = withOperationTexts([route('getThing', { errors, textValues: { MAX: 50 } })], texts);
    expect(filled).toMatchObject({ summary: 'Up to 50 things.', errors: [{ description: 'Over 50.' }] });
    expect(() => withOperationTexts([route('getThing', { errors })], texts)).toThrow('getThing names ${MAX}, which its route');
    expect(() => withOperationTexts([route('getThing', { errors, textValues: { MAX: 50, MIN: 1 } })], texts))
      .toThrow('textValues MIN named by no text');
  });

  it('takes a heading with only sections for a route whose summary is in its entry', () => {
    const texts = parseOperationTexts('## getThing\n\n### Errors\n\n- 404 not_found: No such thing.\n', 'm.md');
    expect(texts.get('getThing')).toEqual({ errors: new Map([['404 not_found', 'No such thing.']]) });
    const [filled] = withOperationTexts([route('getThing', { summary: 'In code.', errors: [{ status: 404, code: 'not_found' }] })], texts);
    expect(filled).toMatchObject({ summary: 'In code.', errors: [{ status: 404, code: 'not_found', description: 'No such thing.' }] });
    expect(() => withOperationTexts([route('getThing', { errors: [{ status: 404, code: 'not_found' }] })], texts))
      .toThrow('getThing: no summary');
  });

  it('refuses an error or parameter with texts in both places, an error with none, and a text for one the route lacks', () => {
    const texts = (errors: [string, string][], parameters: [string, string][] = []) =>
      new Map([['getThing', { summary: 'One thing.', errors: new Map(errors), parameters: new Map(parameters) }]]);
    const notFound = { status: 404, code: 'not_found' };
    const lang = { name: 'lang', in: 'query' as const, schema: { type: 'string' } };
    const described = { ...notFound, description: 'x' };
    expect(() => withOperationTexts([route('getThing', { errors: [described] })], texts([['404 not_found', 'y']])))
      .toThrow('getThing: error 404 not_found has texts both in its route entry and in rest/operations');
    expect(() => withOperationTexts([route('getThing', { parameters: [{ ...lang, description: 'x' }] })], texts([], [['lang', 'y']])))
      .toThrow('getThing: parameter lang has texts both');
    expect(() => withOperationTexts([route('getThing', { errors: [notFound] })], texts([])))
      .toThrow('getThing: error 404 not_found has no text');
    const extra = texts([['404 not_found', 'y'], ['409 invalid_state', 'z']]);
    expect(() => withOperationTexts([route('getThing', { errors: [notFound] })], extra))
      .toThrow('getThing describes error 409 invalid_state, which the route does not have');
    expect(() => withOperationTexts([route('getThing', { parameters: [lang] })], texts([], [['limit', 'y']])))
      .toThrow('getThing describes parameter limit, which the route does not have');
    expect(() => withOperationTexts([route('getThing', { errors: [notFound, notFound] })], texts([['404 not_found', 'y']])))
      .toThrow('is there twice without a text');
    expect(() => withOperationTexts([route('bare', { summary: 'x', errors: [notFound] })], new Map()))
      .toThrow('bare: error 404 not_found has no text');
  });

  it('fills in a socket\'s frame texts after their types, and refuses one without a text or a text no frame has', () => {
    const texts = parseOperationTexts('## events\n\nA socket.\n\n### Frames\n\n- server ready: First\n  frame.\n- client eof: Flush.\n',
      'm.md');
    const socket = (frames: object) => ({ ...route('events'), method: 'ws', frames }) as unknown as RouteEntry;
    const entry = socket({ server: [{ type: 'ready', schema: { type: 'object' } }], client: [{ type: 'eof' }] });
    const [filled] = withOperationTexts([entry], texts);
    const { server, client } = (filled as unknown as { frames: { server: object[]; client: object[] } }).frames;
    expect(server).toEqual([{ type: 'ready', description: 'First frame.', schema: { type: 'object' } }]);
    expect(Object.keys(server[0]!)).toEqual(['type', 'description', 'schema']);
    expect(client).toEqual([{ type: 'eof', description: 'Flush.' }]);
    expect(() => withOperationTexts([socket({ server: [{ type: 'ready' }, { type: 'done' }], client: [{ type: 'eof' }] })], texts))
      .toThrow('events: frame server done has no text');
    expect(() => withOperationTexts([socket({ server: [{ type: 'ready' }] })], texts))
      .toThrow('events describes frame client eof, which the route does not have');
    expect(() => withOperationTexts([route('events')], texts)).toThrow('events describes frames, but is not a socket');
  });

  it('gives every route of the table a summary', () => {
    expect(routeTable.filter((entry) => !entry.summary?.trim()).map((entry) => entry.operationId)).toEqual([]);
  });

  it('gives every error of the table a text', () => {
    const bare = routeTable.flatMap((entry) => (entry.errors ?? []).filter((error) => !error.description?.trim())
      .map((error) => `${entry.operationId} ${error.status} ${error.code}`));
    expect(bare).toEqual([]);
  });
});
