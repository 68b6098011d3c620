import { defineConfig } from 'vitest/config';

// Unit and server-integration tests live beside the code (x.test.ts / x.test.tsx).
// Server tests share one PGlite per file (see src/server/db/testing.ts).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One migrated PGlite dumped once; each file's in-memory database starts from it.
    globalSetup: ['src/server/testing/pgliteTemplate.ts'],
  },
});
