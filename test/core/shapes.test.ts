/**
 * REST response schemas derived from the GraphQL types (rest/shapes.ts): a fragment's selection, with the SDL's
 * nullability and descriptions, the `…At` instants and the rules GraphQL cannot say.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AudioSourceCheckFieldsFragmentDoc, BillingUsageChargesDocument, BroadcastFieldsFragmentDoc, JobFieldsFragmentDoc, LanguagesDocument,
  RecordingMediaTokenDocument, ShareLinkFieldsFragmentDoc, TranscriptionFieldsFragmentDoc,
} from '../../src/generated/graphql.js';
import { cursorPageSchema, fragmentSchema, listSchema, resultSchema } from '../../rest/shapes.js';

describe('fragmentSchema', () => {
  it('describes what a fragment selects: every field required, nullable ones nullable, instants as date-time', () => {
    const link = fragmentSchema(ShareLinkFieldsFragmentDoc);
    expect(link.required).toEqual(['id', 'code', 'label', 'transcriptionId', 'broadcastId', 'allowDownload', 'allowExport', 'allowTranslate', 'isDefault', 'createdAt', 'updatedAt']);
    expect(link.properties).toMatchObject({
      id: { type: 'string' },
      code: { type: 'string', description: 'The secret readers pass as `shareCode`.' },
      broadcastId: { type: 'string', nullable: true },
      allowDownload: { type: 'boolean' },
      createdAt: { type: 'string', format: 'date-time' },
    });
    expect((link.properties as Record<string, unknown>).id).not.toHaveProperty('nullable');
  });

  it('follows nested objects and lists, adds the field rules, and takes a patch', () => {
    const job = fragmentSchema(JobFieldsFragmentDoc, { attempts: { type: 'integer', minimum: 0 } });
    const properties = job.properties as Record<string, Record<string, unknown>>;
    expect(properties.state).toMatchObject({ type: 'string', enum: ['cropping', 'queued', 'fetching', 'transcribing', 'done', 'failed'] });
    expect(properties.queue).toMatchObject({ type: 'object', nullable: true, required: ['position'], properties: { position: { type: 'integer', minimum: 1 } } });
    expect(properties.preview).toMatchObject({ nullable: true, properties: { peaks: { type: 'array', nullable: true, items: { type: 'number' } } } });
    expect(properties.progress).toMatchObject({ type: 'object', properties: { pct: { type: 'number', minimum: 0, maximum: 100 }, phase: { nullable: true } } });
    expect(properties.attempts).toEqual({ type: 'integer', minimum: 0 });
  });

  it('lists null among a nullable enum\'s values (a validator checks `enum` apart from `nullable`)', () => {
    const check = fragmentSchema(AudioSourceCheckFieldsFragmentDoc);
    const problem = (check.properties as Record<string, { enum: unknown[]; nullable?: boolean }>).problem;
    expect(problem.nullable).toBe(true);
    expect(problem.enum.at(-1)).toBeNull();
    expect((check.properties as Record<string, { enum: unknown[] }>).state.enum).not.toContain(null);
  });

  it('makes a union selected on each member a oneOf, with a null-only member when the field is nullable', () => {
    const transcription = fragmentSchema(TranscriptionFieldsFragmentDoc);
    const source = (transcription.properties as Record<string, { oneOf: Array<Record<string, unknown>> }>).source;
    expect(source.oneOf).toEqual([
      expect.objectContaining({ required: ['kind'], properties: { kind: expect.objectContaining({ enum: ['mic'] }) } }),
      expect.objectContaining({ required: ['kind', 'url'], properties: expect.objectContaining({ kind: expect.objectContaining({ enum: ['stream'] }) }) }),
      { type: 'object', nullable: true, enum: [null] },
    ]);
    const broadcast = fragmentSchema(BroadcastFieldsFragmentDoc);
    expect((broadcast.properties as Record<string, { oneOf: unknown[] }>).source.oneOf).toHaveLength(2);
    expect(() => fragmentSchema(parse('fragment F on Broadcast { source { ... on MicSource { kind } } }'))).toThrow('leaves out the union member StreamSource');
  });

  it('describes what an operation answers under its root field, without the operation\'s own description', () => {
    const token = resultSchema(RecordingMediaTokenDocument);
    expect(token).toMatchObject({ type: 'object', required: ['token', 'expiresAt'], properties: { expiresAt: { type: 'string', format: 'date-time' } } });
    expect(token).not.toHaveProperty('description');
    expect(() => resultSchema(parse('query Q { health { status } me { scopes } }'))).toThrow('one root field');
  });

  it('makes a field selected through one fragment `refs` names that component\'s $ref, with nothing beside it', () => {
    const lists = resultSchema(LanguagesDocument, { LanguageFields: { $ref: '#/components/schemas/Language' } });
    const properties = lists.properties as Record<string, Record<string, unknown>>;
    expect(properties.voice).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Language' }, description: expect.any(String) });
    const nullable = parse('query Q { billing { plan { ...P } } } fragment P on PlanRef { id }');
    expect(() => resultSchema(nullable, { P: { $ref: '#/components/schemas/PlanRef' } })).toThrow('plan is nullable');
  });

  it('describes a page as withoutLastCursor answers it: nextCursor a string, and only when there is a next page', () => {
    const page = cursorPageSchema(BillingUsageChargesDocument);
    const properties = page.properties as Record<string, Record<string, unknown>>;
    expect(page.required).toEqual(['startDate', 'endDate', 'tz', 'currency', 'count', 'total', 'seconds', 'charges']);
    expect(properties.nextCursor).toMatchObject({ type: 'string' });
    expect(properties.nextCursor).not.toHaveProperty('nullable');
    expect(properties.startDate).toMatchObject({ type: 'string', format: 'date' });
    expect(() => cursorPageSchema(RecordingMediaTokenDocument)).toThrow('answers no nextCursor');
    expect(listSchema('shareLinks', { type: 'object' })).toEqual({
      type: 'object', required: ['shareLinks'], properties: { shareLinks: { type: 'array', items: { type: 'object' } } },
    });
  });

  it('refuses what it cannot derive: no fragment, an unknown field, an object with no selection', () => {
    expect(() => fragmentSchema(parse('query Q { me { id } }'))).toThrow('holds no fragment');
    expect(() => fragmentSchema(parse('fragment F on ShareLink { nope }'))).toThrow('ShareLink has no field nope');
    expect(() => fragmentSchema(parse('fragment F on Transcription { job }'))).toThrow('job selects no fields of TranscriptionJob');
  });
});
