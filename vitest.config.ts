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
    // Two processes (one a core) run the files; each keeps its imported modules from one file to
    // the next instead of importing the server anew for every file (about 2.7 s a file here).
    // Tests therefore never rely on a module's state being fresh: each file builds its own app,
    // database and fakes in its hooks.
    maxWorkers: 2,
    isolate: false,
    // One migrated PGlite dumped once; each file's in-memory database starts from it.
    globalSetup: ['src/server/testing/pgliteTemplate.ts'],
  },
});
