import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Integration suites start real servers, a real PostgreSQL database per file and real Whisper models:
// generous timeouts, and few files at once on a 2-core machine.
export default defineConfig({
  // graphql 16 ships CJS (main) and ESM (module) builds; Node loads the CJS one for Pothos/yoga, so our sources must
  // too, or schema objects from the two copies clash ("Cannot use GraphQLObjectType from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
