import { defineConfig } from 'vitest/config';

// Integration suites start real servers, a real PostgreSQL database per file and real Whisper models:
// generous timeouts, and few files at once on a 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
