/** Prints the SDL to schema/schema.graphql (checked in; test/core/schema.test.ts fails when it is stale). */
import fs from 'node:fs/promises';
import path from 'node:path';
import { printSchema } from 'graphql';
import { REPO_ROOT } from '../core/db/migrate.js';
import { schema } from '../graphql-schema.js';

export const SDL_PATH = path.join(REPO_ROOT, 'schema/schema.graphql');

await fs.writeFile(SDL_PATH, `${printSchema(schema)}\n`);
console.log(`wrote ${path.relative(process.cwd(), SDL_PATH)}`);
