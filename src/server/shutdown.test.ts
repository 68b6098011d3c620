// How the real server process ends (src/server/main.ts): besides SIGINT and SIGTERM (the start
// test's Ctrl-C, and every test that stops a server process), a closed terminal's SIGHUP closes
// the server and the embedded database through close-with-grace, so the PGlite directory's lock
// is released and the next start opens it at once, and the process says it stopped cleanly.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from './testing/serverProcess.ts';

describe('the server process ending', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'watos-shutdown-'));
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('closes the server and the database on SIGHUP (a closed terminal), exit code 0', async () => {
    const server = await startServerProcess({ dataDir, startTimeoutMs: 120_000 });
    servers.push(server);
    // proper-lockfile's lock on the PGlite directory, held while the database is open.
    expect(existsSync(join(dataDir, 'db.lock'))).toBe(true);
    server.child.kill('SIGHUP');
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('Stopped cleanly.');
    expect(existsSync(join(dataDir, 'db.lock'))).toBe(false);
  }, 180_000);
});
