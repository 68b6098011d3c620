// Builds the C peers of bench/indicators.bench.ts at bench time, in a temporary directory:
// Tulip Indicators (the amalgamation in the npm package tulind) and TA-Lib (the C library in
// the npm package talib), fetched with `npm pack` from the npm registry (or npm's cache) at
// pinned versions, each compiled with gcc -O2 into its own executable with harness.h. Neither
// is a dependency of the product: only the bench needs npm, tar and a C compiler.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The packages the C sources come from, at the versions the bench was checked with. */
export const TULIP_PACKAGE = 'tulind@0.8.20';
export const TALIB_PACKAGE = 'talib@1.1.6';

/** TA-Lib sources the six kernels need (TA_MA reaches every moving-average kind). */
const TALIB_FILES = [
  'ta_func/ta_SMA.c',
  'ta_func/ta_EMA.c',
  'ta_func/ta_RSI.c',
  'ta_func/ta_ROC.c',
  'ta_func/ta_ATR.c',
  'ta_func/ta_BBANDS.c',
  'ta_func/ta_MA.c',
  'ta_func/ta_STDDEV.c',
  'ta_func/ta_VAR.c',
  'ta_func/ta_TRANGE.c',
  'ta_func/ta_DEMA.c',
  'ta_func/ta_KAMA.c',
  'ta_func/ta_MAMA.c',
  'ta_func/ta_T3.c',
  'ta_func/ta_TEMA.c',
  'ta_func/ta_TRIMA.c',
  'ta_func/ta_WMA.c',
  'ta_common/ta_global.c',
  'ta_common/ta_retcode.c',
  'ta_common/ta_version.c',
];

export interface CPeer {
  name: string;
  /** Runs every kernel (after untimed warm-up calls) `repeats` times over the bars file; per kernel the best ns/bar and last value. */
  run(repeats: number): Map<string, { nsPerBar: number; last: number }>;
}

export interface CPeers {
  peers: CPeer[];
  /** Our kernels over the same file in the same harness shape, in a Node process of their own (ours.ts). */
  ours: CPeer;
  /** Why a peer could not be built (no network and no npm cache, no compiler...). */
  failures: string[];
  compiler: string;
  cleanup(): void;
}

function fetchPackage(spec: string, into: string): string {
  const output = execFileSync('npm', ['pack', spec, '--pack-destination', into, '--silent'], {
    cwd: into,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  const tarball = join(into, output.trim().split('\n').pop() ?? '');
  const folder = join(into, spec.replace(/[@/]/g, '-'));
  mkdirSync(folder);
  execFileSync('tar', ['xzf', tarball, '-C', folder, '--strip-components=1']);
  return folder;
}

function gcc(args: string[]): void {
  // Warnings from the peers' own sources are theirs; errors still fail the build.
  execFileSync('gcc', ['-O2', '-w', ...args, '-lm'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
}

function peer(name: string, command: string[], barsFile: string): CPeer {
  return {
    name,
    run(repeats) {
      const [executable, ...args] = command;
      if (executable === undefined) throw new Error(`${name}: no command`);
      const result = spawnSync(executable, [...args, barsFile, String(repeats)], {
        encoding: 'utf8',
        timeout: 300_000,
      });
      if (result.status !== 0)
        throw new Error(`${name} exited with ${result.status ?? result.signal}: ${result.stderr}`);
      const kernels = new Map<string, { nsPerBar: number; last: number }>();
      for (const line of result.stdout.trim().split('\n')) {
        const [kernel, nsPerBar, last] = line.split(' ');
        kernels.set(kernel!, { nsPerBar: Number(nsPerBar), last: Number(last) });
      }
      return kernels;
    },
  };
}

/**
 * Writes close, high and low as three runs of doubles (the harness's input), builds both C
 * peers, and gives the runner of our own kernels over the same file.
 */
export function buildCPeers(close: Float64Array, high: Float64Array, low: Float64Array): CPeers {
  const dir = mkdtempSync(join(tmpdir(), 'watos-c-peers-'));
  const barsFile = join(dir, 'bars.f64');
  const bytes = (values: Float64Array) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  writeFileSync(barsFile, Buffer.concat([bytes(close), bytes(high), bytes(low)]));
  const peers: CPeer[] = [];
  const failures: string[] = [];
  let compiler = 'gcc (not found)';
  try {
    compiler = execFileSync('gcc', ['--version'], { encoding: 'utf8' }).split('\n')[0]!;
  } catch (error) {
    failures.push(`no C compiler: ${(error as Error).message}`);
  }
  try {
    const tulip = fetchPackage(TULIP_PACKAGE, dir);
    const executable = join(dir, 'tulip');
    gcc(['-I', here, '-I', join(tulip, 'external'), join(here, 'tulip.c'), '-o', executable]);
    peers.push(peer(`Tulip Indicators (${TULIP_PACKAGE})`, [executable], barsFile));
  } catch (error) {
    failures.push(`Tulip Indicators: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    const lib = join(fetchPackage(TALIB_PACKAGE, dir), 'src', 'lib');
    const executable = join(dir, 'talib');
    const includes = ['include', 'src/ta_common', 'src/ta_func'].flatMap((folder) => ['-I', join(lib, folder)]);
    const sources = TALIB_FILES.map((file) => join(lib, 'src', file));
    gcc(['-I', here, ...includes, join(here, 'talib.c'), ...sources, '-o', executable]);
    peers.push(peer(`TA-Lib (${TALIB_PACKAGE})`, [executable], barsFile));
  } catch (error) {
    failures.push(`TA-Lib: ${(error as Error).message.split('\n')[0]}`);
  }
  const ours = peer('ours', [process.execPath, '--import', 'tsx', join(here, 'ours.ts')], barsFile);
  return { peers, ours, failures, compiler, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
