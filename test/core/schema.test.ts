/** The checked-in SDL is what the code builds; the REST operations are valid against it. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { buildSchema, parse, printSchema, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';
import { schema } from '../../src/graphql-schema.js';

describe('GraphQL SDL', () => {
  it('schema/schema.graphql is up to date (run `npm run generate` and commit it)', async () => {
    const checkedIn = await fs.readFile(path.join(REPO_ROOT, 'schema/schema.graphql'), 'utf8');
    expect(checkedIn).toBe(`${printSchema(schema)}\n`);
  });

  it('every operation under schema/operations validates against the checked-in SDL', async () => {
    const sdl = buildSchema(await fs.readFile(path.join(REPO_ROOT, 'schema/schema.graphql'), 'utf8'));
    const dir = path.join(REPO_ROOT, 'schema/operations');
    const files = (await fs.readdir(dir)).filter((file) => file.endsWith('.graphql'));
    expect(files.length).toBeGreaterThan(0);
    // Fragments may be shared across files, so the operations are validated as one document.
    const all = (await Promise.all(files.map((file) => fs.readFile(path.join(dir, file), 'utf8')))).join('\n');
    expect(validate(sdl, parse(all)).map((error) => error.message)).toEqual([]);
  });

  it('declares authorization on every root field but health', () => {
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
    for (const root of roots) {
      for (const field of Object.values(root!.getFields())) {
        const scopes = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes;
        expect(scopes, `${root!.name}.${field.name} has no authScopes`).toBeDefined();
      }
    }
  });
});
