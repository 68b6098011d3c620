import { defineConfig } from 'vitest/config';

// Unit and server-integration tests live beside the code (x.test.ts / x.test.tsx).
// Server tests share one PGlite per file (see src/server/db/testing.ts).
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three processes run the files on 2 cores: many server files wait on real time (SMTP
    // retries, idle timeouts, lock expiry, child servers) with the core idle, and a third
    // process fills that time (4.3 min against 5.6 min with two, fresh clone).
    maxWorkers: 3,
    // One migrated PGlite dumped once; each file's in-memory database starts from it.
    globalSetup: ['src/server/testing/pgliteTemplate.ts'],
    // Projects of one run, sharing its processes (a project's include and exclude are its own).
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
          // scripts/start.test.ts is the project `start`, run beside the journeys (scripts/test.mjs).
          exclude: ['src/web/**', 'scripts/start.test.ts'],
          // Each process keeps its imported modules from one file to the next instead of
          // importing the server anew for every file (about 2.7 s a file here). Tests therefore
          // never rely on a module's state being fresh: each file builds its own app, database
          // and fakes in its hooks.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['src/web/**/*.test.ts', 'src/web/**/*.test.tsx'],
          // Isolated: component tests replace modules with vi.mock, which cannot reach a module
          // a process already imported for an earlier file (AccountMenu.test.tsx failed so when
          // it ran after a file that had imported the real AuthProvider).
          isolate: true,
        },
      },
      {
        extends: true,
        test: { name: 'start', include: ['scripts/start.test.ts'] },
      },
    ],
  },
});
