// What an open dashboard costs the trader's machine while prices tick (issue 34's "tick to
// screen", from the browser's side): a subscriber's /dashboard, served by the built app as
// `npm start` serves it (src/server/main.ts, fresh DATA_DIR, demo market data), open in Debian's
// Chromium (headless, no GPU: compositing and raster are the CPU's) and left alone. The figure
// is the CPU time of every Chromium process (browser, GPU, renderers) over DASHBOARD_CPU_MS
// (20 s) after DASHBOARD_SETTLE_MS (8 s), as a share of one core, at 1440x900 and at 390x844.
// The price flashes the page drew in that window are counted (a MutationObserver on the flash
// classes), so a figure from a window with no ticks shows as such. Peer, same run and browser:
// the landing page '/' left open as long (what an open page costs when nothing moves).
// Target: at most 15% of a core at each size. A fading flash, repainted every frame, kept the
// 1440x900 dashboard at 20% of a core here (85% under the journeys' trace recording, which
// captures every frame); the steady wash is two paints a tick: 5-6%.
// TradingView and Barchart cannot load here: their requests are answered with an empty script.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from '@playwright/test';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../src/server/testing/chromium.ts';
import { startServerProcess, subscribeOverHttp, type ServerProcess } from '../src/server/testing/serverProcess.ts';
import { ensureWebBuild, stopAfter } from './benchProcess.ts';
import { readProcStat } from './procStatus.ts';
import { report } from './report.ts';

const SETTLE_MS = Number(process.env.DASHBOARD_SETTLE_MS ?? 8_000);
const WINDOW_MS = Number(process.env.DASHBOARD_CPU_MS ?? 20_000);
const TARGET_SHARE = 0.15;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;
/** Run in the page (as text: this bench has no DOM types): counts the price flashes it draws from now on. */
const COUNT_FLASHES = `window.flashes = 0;
new MutationObserver((records) => {
  for (const record of records)
    if (record.target instanceof Element && /live-flash-/.test(record.target.className)) window.flashes += 1;
}).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] });`;
/** Clock ticks a second of /proc/PID/stat's utime and stime (Linux's USER_HZ). */
const CLOCK_TICKS = 100;

let server: ServerProcess | null = null;
let browser: Browser | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'watos-dashboard-cpu-'));

function cleanUp() {
  if (server && server.child.exitCode === null) server.child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}

stopAfter('dashboardCpu', 600_000, cleanUp);

/** Parent and CPU seconds of every process now running. */
function processTable(): Map<number, { parent: number; seconds: number }> {
  const table = new Map<number, { parent: number; seconds: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    // Null when the process ended between the listing and the read.
    const stat = readProcStat(`/proc/${name}/stat`);
    if (stat) table.set(Number(name), { parent: stat.parent, seconds: stat.cpuTicks / CLOCK_TICKS });
  }
  return table;
}

/** CPU seconds of each process below `root` (its whole tree, `root` itself left out), by pid. */
function treeSeconds(root: number, except: number): Map<number, number> {
  const table = processTable();
  const result = new Map<number, number>();
  const within = (pid: number): boolean => {
    for (let at = pid, depth = 0; at > 1 && depth < 64; depth += 1) {
      if (at === except) return false;
      const parent = table.get(at)?.parent;
      if (parent === root) return true;
      if (parent === undefined) return false;
      at = parent;
    }
    return false;
  };
  for (const [pid, entry] of table) if (pid !== root && within(pid)) result.set(pid, entry.seconds);
  return result;
}

/** The share of a core Chromium used while `page` sat open for WINDOW_MS, and the flashes it drew. */
async function measure(context: BrowserContext, path: string, size: { width: number; height: number }) {
  const page = await context.newPage();
  await page.setViewportSize(size);
  await page.route(/^https:\/\/([a-z0-9-]+\.)*(tradingview|barchart)\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '/* blocked in the bench */' }),
  );
  await page.goto(`${server!.origin}${path}`);
  if (path === '/dashboard') await page.getByTestId('subscription-status').waitFor({ state: 'attached' });
  await page.waitForTimeout(SETTLE_MS);
  await page.evaluate(COUNT_FLASHES);
  const before = treeSeconds(process.pid, server!.child.pid!);
  const started = performance.now();
  await page.waitForTimeout(WINDOW_MS);
  const after = treeSeconds(process.pid, server!.child.pid!);
  const elapsed = (performance.now() - started) / 1000;
  let seconds = 0;
  // A process that started within the window counts from zero; one that ended is not seen (none should).
  for (const [pid, total] of after) seconds += total - (before.get(pid) ?? 0);
  const flashes = Number(await page.evaluate('window.flashes'));
  await page.close();
  return { share: seconds / elapsed, flashes };
}

ensureWebBuild();

try {
  server = await startServerProcess({
    dataDir,
    env: { NODE_ENV: 'production', TEST_HOOKS: 'true' },
    startTimeoutMs: 90_000,
  });
  const subscriber = await subscribeOverHttp(server.origin, `dashboard-cpu-${Date.now()}@example.com`);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  const context = await browser.newContext();
  await context.addCookies(
    subscriber.session.cookieHeader.split('; ').map((pair) => {
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: server!.origin };
    }),
  );
  console.log(
    `Server: src/server/main.ts on ${server.origin} (demo data, fresh DATA_DIR). Browser: ${CHROMIUM_PATH}, headless, no GPU.`,
  );
  console.log(`Each page: ${SETTLE_MS / 1000} s to settle, then Chromium's CPU over ${WINDOW_MS / 1000} s.\n`);
  for (const size of SIZES) {
    const landing = await measure(context, '/', size);
    const dashboard = await measure(context, '/dashboard', size);
    const percent = (share: number) => `${(share * 100).toFixed(1)}% of a core`;
    console.log(
      `${size.width}x${size.height}: /dashboard ${percent(dashboard.share)} (${dashboard.flashes} price flashes), / ${percent(landing.share)}`,
    );
    report({
      figure: `Open /dashboard at ${size.width}x${size.height}, prices ticking: Chromium CPU (no GPU)`,
      target: `<= ${TARGET_SHARE * 100}% of a core`,
      measured: `${percent(dashboard.share)}, ${dashboard.flashes} flashes in ${WINDOW_MS / 1000} s`,
      peer: `/ left open ${percent(landing.share)}`,
      ratio: landing.share > 0 ? dashboard.share / landing.share : null,
      pass: dashboard.flashes > 0 && dashboard.share <= TARGET_SHARE,
    });
  }
} finally {
  await browser?.close();
  if (server) await server.stop();
  cleanUp();
}
