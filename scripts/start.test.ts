// `npm start` from a fresh clone: no node_modules, no build, no data. It must install, build,
// migrate and serve /healthz ok; Ctrl-C must shut down cleanly so a second start reopens the
// same PGlite directory without repair.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/server/testing/ports.ts';

const root = join(import.meta.dirname, '..');

async function waitForHealth(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  output: () => string,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited early with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return response.json();
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no healthy answer from ${url} within ${timeoutMs} ms`);
}

function startClone(dir: string, port: number, dataDir: string): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn('npm', ['start'], {
    cwd: dir,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      MARKET_DATA: 'demo',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/**
 * Ctrl-C in a terminal signals the whole process group. Resolves with npm's exit once its
 * output is closed: npm dies of the signal at once, while the server it started (which writes
 * to the same pipes) may still be stopping and has yet to print how it stopped.
 */
function pressCtrlC(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
    process.kill(-child.pid!, 'SIGINT');
  });
}

describe('npm start on a fresh clone', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'watos-clone-'));
  // The clone holds a whole node_modules: removing it takes minutes on a busy disk.
  afterAll(() => rmSync(workdir, { recursive: true, force: true }), 300_000);

  it(
    'installs, builds, migrates, serves /healthz, and restarts cleanly after Ctrl-C',
    { timeout: 600_000 },
    async () => {
      const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
        cwd: root,
        encoding: 'utf8',
      })
        .split('\0')
        .filter((file) => file && existsSync(join(root, file)));
      for (const file of files) {
        mkdirSync(dirname(join(workdir, file)), { recursive: true });
        cpSync(join(root, file), join(workdir, file));
      }
      expect(existsSync(join(workdir, 'node_modules'))).toBe(false);
      expect(existsSync(join(workdir, 'dist'))).toBe(false);

      const port = await freePort();
      const dataDir = join(workdir, 'data');
      const first = startClone(workdir, port, dataDir);
      const health = await waitForHealth(`http://127.0.0.1:${port}/healthz`, first.child, 540_000, first.output);
      expect(health).toEqual({ status: 'ok' });
      expect(first.output()).toContain(`http://127.0.0.1:${port}`);
      expect(first.output()).toContain('Embedded defaults in use');

      const page = await fetch(`http://127.0.0.1:${port}/futures-micro-futures-ai`);
      expect(page.status).toBe(200);
      // The built SPA shell: the root the app mounts in, painting "Loading..." before the scripts run.
      expect(await page.text()).toMatch(/<div id="root"><div [^>]*>Loading\.\.\.<\/div><\/div>/);
      expect(existsSync(join(workdir, 'dist', 'web', 'index.html'))).toBe(true);

      // npm itself dies of the SIGINT like any terminal program; the server must stop cleanly.
      const firstExit = await pressCtrlC(first.child);
      expect(firstExit.code === 0 || firstExit.signal === 'SIGINT').toBe(true);
      expect(first.output()).toContain('Stopped cleanly.');

      const second = startClone(workdir, port, dataDir);
      expect(await waitForHealth(`http://127.0.0.1:${port}/healthz`, second.child, 120_000, second.output)).toEqual({
        status: 'ok',
      });
      expect(second.output()).not.toContain('Installing dependencies');
      expect(second.output()).not.toContain('Building the web app');
      await pressCtrlC(second.child);
      expect(second.output()).toContain('Stopped cleanly.');
    },
  );
});
