// Calibration of the WATOS odds, walk-forward: at every STRIDE-th hourly bar t of each asset's
// history, the odds are stated exactly as the product states them (watosOdds over the 60 days of
// hourly bars up to and including t, the window the assistant and the grid load for 1h), and
// scored against what happened next (the close of bar t + 24 against the close of t). Nothing
// after t reaches the statement, so every scored forecast is out of sample.
// Prints the reliability table by decile of the stated probability, the Brier score and Brier
// skill (against the base rate stated at the same bar) per signal, and the same table for the
// raw measured frequencies for contrast.
// Targets (issue 20): every decile with at least 100 forecasts within 5 points of its observed
// rate; no signal's Brier skill negative. A miss is reported as FAIL and `npm run bench` exits
// non-zero.
// The history is the demo feed's synthetic data (there is no network here): read it as a
// check that the machinery is honest, not as evidence of an edge in real markets. The
// estimator's two prior strengths were chosen on twelve other crypto assets of the demo feed
// (ICP-USD to UNI-USD); the twelve assets scored here were not used to choose them.
import { aggregate, DemoAsset } from '../src/server/market/demoFeed.ts';
import { CRYPTO_SYMBOLS } from '../src/shared/constants.ts';
import { candleSeries } from '../src/signals/candles.ts';
import { watosOdds } from '../src/signals/watosOdds.ts';
import { report } from './report.ts';

const HORIZON = 24;
const DAYS = 240;
/** 60 days of hourly bars: what market analysis (src/server/analysis/service.ts) loads for the 1h odds. */
const WINDOW = 60 * 24;
/** Every 4th bar: about 13,000 statements (each one a full watosOdds call) in about a minute. */
const STRIDE = 4;
const MIN_DECILE = 100;
const TOLERANCE = 0.05;
const assets = CRYPTO_SYMBOLS.filter((id) => id !== 'USDT-USD' && id !== 'DAI-USD').slice(0, 12);

interface Forecast {
  signal: string;
  stated: number;
  raw: number;
  base: number;
  outcome: number;
  noEdge: boolean;
}

const forecasts: Forecast[] = [];
let statements = 0;
const started = performance.now();
for (const productId of assets) {
  const asset = new DemoAsset(productId);
  const rows = aggregate(
    Array.from({ length: DAYS * 1440 }, () => asset.next()),
    3600,
  );
  for (let bar = WINDOW - 1; bar + HORIZON < rows.length; bar += STRIDE) {
    const stated = watosOdds(candleSeries(rows.slice(bar + 1 - WINDOW, bar + 1)), HORIZON);
    statements += 1;
    const base = stated.baseRate.probability;
    if (base === null) continue;
    const outcome = rows[bar + HORIZON]!.close > rows[bar]!.close ? 1 : 0;
    for (const signal of stated.signals) {
      const odds = signal.odds;
      if (!odds || odds.probability === null || odds.raw === null) continue;
      forecasts.push({
        signal: signal.id,
        stated: odds.probability,
        raw: odds.raw,
        base,
        outcome,
        noEdge: !!odds.noEdge,
      });
    }
  }
}
const seconds = (performance.now() - started) / 1000;

const brier = (items: Forecast[], pick: (item: Forecast) => number) =>
  items.reduce((sum, item) => sum + (pick(item) - item.outcome) ** 2, 0) / items.length;
const skill = (items: Forecast[], pick: (item: Forecast) => number) =>
  1 - brier(items, pick) / brier(items, (item) => item.base);
const pct = (share: number, digits = 1) => `${(share * 100).toFixed(digits)}%`;

console.log('WATOS odds calibration, walk-forward: each bar stated from the 60 days before it, scored 24 bars later.');
console.log(
  `Synthetic demo history: ${assets.length} assets x ${DAYS} days of hourly bars, every ${STRIDE}th bar from day 60.`,
);
console.log(`${statements} statements in ${seconds.toFixed(1)} s, ${forecasts.length} scored forecasts.\n`);

const oddsBrier = brier(forecasts, (item) => item.stated);
const baseBrier = brier(forecasts, (item) => item.base);
console.log(`Brier score of the stated odds:      ${oddsBrier.toFixed(4)}`);
console.log(`Brier score of the stated base rate: ${baseBrier.toFixed(4)}`);
console.log(`Brier score of the raw frequencies:  ${brier(forecasts, (item) => item.raw).toFixed(4)}`);
console.log(
  `Skill vs base rate: ${pct(
    skill(forecasts, (item) => item.stated),
    3,
  )} (positive: the odds beat it)`,
);
console.log(
  `Forecasts with no measurable edge: ${pct(forecasts.filter((item) => item.noEdge).length / forecasts.length)}\n`,
);
report({
  figure: 'WATOS odds Brier, walk-forward (synthetic)',
  target: '- (lower is better)',
  measured: oddsBrier.toFixed(4),
  peer: `base rate ${baseBrier.toFixed(4)}`,
  ratio: oddsBrier / baseBrier,
  pass: null,
});

function reliability(title: string, pick: (item: Forecast) => number): { checked: number; within: number } {
  console.log(`\nReliability by decile of the ${title}`);
  console.log('decile     forecasts  stated mean  observed    gap  within 5 points');
  let checked = 0;
  let within = 0;
  for (let decile = 0; decile < 10; decile += 1) {
    const items = forecasts.filter((item) => Math.min(9, Math.floor(pick(item) * 10)) === decile);
    if (items.length === 0) continue;
    const stated = items.reduce((sum, item) => sum + pick(item), 0) / items.length;
    const observed = items.reduce((sum, item) => sum + item.outcome, 0) / items.length;
    const ok = Math.abs(stated - observed) <= TOLERANCE;
    if (items.length >= MIN_DECILE) {
      checked += 1;
      if (ok) within += 1;
    }
    const verdict =
      items.length < MIN_DECILE ? `${ok ? 'yes' : 'no'} (under ${MIN_DECILE}: not checked)` : ok ? 'yes' : 'NO';
    console.log(
      `${(decile / 10).toFixed(1)}-${((decile + 1) / 10).toFixed(1)} ${String(items.length).padStart(12)} ${pct(stated).padStart(12)} ${pct(observed).padStart(9)} ${((stated - observed) * 100).toFixed(1).padStart(6)}  ${verdict}`,
    );
  }
  return { checked, within };
}

const calibrated = reliability('stated probability', (item) => item.stated);
report({
  figure: `WATOS deciles (>= ${MIN_DECILE} forecasts) within 5 pts`,
  target: 'all',
  measured: `${calibrated.within} of ${calibrated.checked}`,
  peer: '-',
  ratio: null,
  pass: calibrated.checked > 0 && calibrated.within === calibrated.checked,
});
const raw = reliability(
  'raw measured frequency (for contrast: what was stated before calibration)',
  (item) => item.raw,
);
console.log(`Raw frequencies: ${raw.within} of ${raw.checked} deciles within 5 points.`);

console.log('\nPer signal   forecasts  no edge  Brier(odds)  Brier(base)  skill    raw skill');
const ids = [...new Set(forecasts.map((item) => item.signal))].sort();
for (const id of ids) {
  const items = forecasts.filter((item) => item.signal === id);
  const signalSkill = skill(items, (item) => item.stated);
  console.log(
    `${id.padEnd(12)} ${String(items.length).padStart(9)} ${pct(items.filter((item) => item.noEdge).length / items.length).padStart(8)} ${brier(
      items,
      (item) => item.stated,
    )
      .toFixed(4)
      .padStart(12)} ${brier(items, (item) => item.base)
      .toFixed(4)
      .padStart(12)}  ${pct(signalSkill, 3).padStart(7)}  ${pct(
      skill(items, (item) => item.raw),
      2,
    ).padStart(8)}`,
  );
}
console.log('');
for (const id of ids) {
  const items = forecasts.filter((item) => item.signal === id);
  const signalSkill = skill(items, (item) => item.stated);
  report({
    figure: `${id} Brier skill vs base rate (${items.length} forecasts)`,
    target: '>= 0',
    measured: pct(signalSkill, 3),
    peer: `raw frequency ${pct(
      skill(items, (item) => item.raw),
      2,
    )}`,
    ratio: null,
    pass: signalSkill >= 0,
  });
}
