/**
 * REST schemas derived from the GraphQL types (rest/shapes.ts): a fragment's selection, with the SDL's nullability
 * and descriptions, the `…At` instants and the rules GraphQL cannot say; and a request body from an input type.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AudioSourceCheckFieldsFragmentDoc, BillingUsageChargesDocument, BroadcastFieldsFragmentDoc, JobFieldsFragmentDoc, LanguagesDocument,
  RecordingMediaTokenDocument, ShareLinkFieldsFragmentDoc, TranscriptionFieldsFragmentDoc,
} from '../../src/generated/graphql.js';
import { cursorPageSchema, fragmentSchema, inputSchema, listSchema, resultSchema } from '../../rest/shapes.js';

describe('fragmentSchema', () => {
  it('describes what a fragment selects: every field required, nullable ones nullable, instants as date-time', () => {
    const link = fragmentSchema(ShareLinkFieldsFragmentDoc);
    expect(link.required).toEqual([
      'id', 'code', 'label', 'transcriptionId', 'broadcastId', 'allowDownload', 'allowExport', 'allowTranslate', 'isDefault', 'createdAt',
      'updatedAt',
    ]);
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
    expect(properties.queue).toMatchObject({
      type: 'object', nullable: true, required: ['position'], properties: { position: { type: 'integer', minimum: 1 } },
    });
    expect(properties.preview).toMatchObject({
      nullable: true, properties: { peaks: { type: 'array', nullable: true, items: { type: 'number' } } },
    });
    expect(properties.progress).toMatchObject({
      type: 'object', properties: { pct: { type: 'number', minimum: 0, maximum: 100 }, phase: { nullable: true } },
    });
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
      expect.objectContaining({
        required: ['kind', 'url'], properties: expect.objectContaining({ kind: expect.objectContaining({ enum: ['stream'] }) }),
      }),
      { type: 'object', nullable: true, enum: [null] },
    ]);
    const broadcast = fragmentSchema(BroadcastFieldsFragmentDoc);
    expect((broadcast.properties as Record<string, { oneOf: unknown[] }>).source.oneOf).toHaveLength(2);
    expect(() => fragmentSchema(parse('fragment F on Broadcast { source { ... on MicSource { kind } } }'))).toThrow(
      'leaves out the union member StreamSource',
    );
  });

  it('describes what an operation answers under its root field, without the operation\'s own description', () => {
    const token = resultSchema(RecordingMediaTokenDocument);
    expect(token).toMatchObject({
      type: 'object', required: ['token', 'expiresAt'], properties: { expiresAt: { type: 'string', format: 'date-time' } },
    });
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

describe('inputSchema', () => {
  type Schema = Record<string, unknown> & { properties: Record<string, Schema>; items: Schema; required?: string[] };

  it('takes no unknown keys, requires the non-null fields, makes the others nullable and carries the descriptions', () => {
    const live = inputSchema('CreateLiveTranscriptionInput') as Schema;
    expect(live).toMatchObject({ type: 'object', additionalProperties: false, required: ['name'] });
    expect(live.description).toMatch(/^CreateLiveTranscription:/);
    expect(live.properties.name).not.toHaveProperty('nullable');
    expect(live.properties.source).toMatchObject({ nullable: true, description: expect.stringContaining('Default: mic') });
  });

  it('recurses into nested input types, lists enums (with null when nullable) and makes lists arrays', () => {
    const { properties } = inputSchema('CreateLiveTranscriptionInput') as Schema;
    expect(properties.settings).toMatchObject({ type: 'object', nullable: true, additionalProperties: false });
    expect(properties.settings!.description).toMatch(/^SettingsPatch:/);
    const { speakerLabels } = properties.settings!.properties;
    expect(speakerLabels).toMatchObject({ type: 'string', nullable: true, enum: ['auto', 'off', 'on', null] });
    expect(properties.source).toMatchObject({ required: ['kind'], properties: { kind: { type: 'string', enum: ['mic', 'stream'] } } });
    expect(properties.broadcasts).toMatchObject({ type: 'array', nullable: true, items: { type: 'string' } });
    const seqs = { type: 'array', items: { type: 'integer', format: 'int32' } };
    expect(inputSchema('RetranscribeInput')).toMatchObject({ required: ['seqs'], properties: { seqs } });
  });

  it('applies the input rules: bounds, patterns, defaults, a null refused, a key dropped', () => {
    const { properties } = inputSchema('CreateTranscriptionInput') as Schema;
    expect(properties.name).toMatchObject({ type: 'string', nullable: true, minLength: 1, maxLength: 300, pattern: '\\S' });
    expect(properties.crop).toMatchObject({ type: 'boolean', nullable: true, default: false });
    const policy = properties.settings!.properties.confidencePolicy!.properties;
    expect(policy.hideBelow).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(policy.hideBelow).not.toHaveProperty('nullable');
    expect(policy.suppressCount).toEqual(expect.objectContaining({ type: 'integer', maximum: 4294967295 }));
    expect(policy.suppressCount).not.toHaveProperty('format');
    const patch = inputSchema('UpdateVoiceInput') as Schema;
    expect(patch.properties.consent).toMatchObject({ type: 'boolean', enum: [true] });
    expect(patch.properties.consent).not.toHaveProperty('nullable');
  });

  it('takes per-route overrides: a field REST requires, one it leaves out, a patch of a field and of the body', () => {
    const overrides = { required: ['url'], omit: ['shareLink'], properties: { url: { minLength: 1 } } };
    const link = inputSchema('CreateTranscriptionInput', overrides) as Schema;
    expect(link.required).toEqual(['url']);
    expect(link.properties.url).toMatchObject({ type: 'string', minLength: 1 });
    expect(link.properties.url).not.toHaveProperty('nullable');
    expect(link.properties).not.toHaveProperty('shareLink');
    expect(inputSchema('StartRecordingInput', { schema: { nullable: true } })).toMatchObject({ type: 'object', nullable: true });
  });

  it('refuses what it cannot derive: an output type, an unknown type or field', () => {
    expect(() => inputSchema('ShareLink')).toThrow('ShareLink is not an input type');
    expect(() => inputSchema('NoSuchInput')).toThrow('NoSuchInput is not an input type');
    expect(() => inputSchema('StartRecordingInput', { required: ['nope'] })).toThrow('StartRecordingInput has no field nope');
    expect(() => inputSchema('StartRecordingInput', { properties: { nope: {} } })).toThrow('StartRecordingInput has no field nope');
  });
});
