// The Prisma CLI is used only for `prisma generate`: its schema-engine binary cannot be downloaded here, and
// `/bin/false` (never `/bin/true`, which makes `migrate deploy` report success while applying nothing) makes
// any accidental CLI migrate command fail loudly. Migrations go through src/core/db/migrate.ts (the wasm engine).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/false';

import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
