// Calibration of the WATOS odds, walk-forward: for each asset, the odds of each signal state
// are measured on the first 70% of the history and scored on the remaining 30% they never
// saw. Prints the Brier score of the odds against the Brier score of the base rate (lower is
// better) and a reliability table by decile of predicted probability.
// The history is the demo feed's synthetic data (there is no network here): read it as a
// check that the machinery is honest, not as evidence of an edge in real markets.
import { aggregate, DemoAsset } from '../src/server/market/demoFeed.ts';
import { CRYPTO_SYMBOLS } from '../src/shared/constants.ts';
import { candleSeries } from '../src/signals/candles.ts';
import { watosHistory, type WatosId } from '../src/signals/watos.ts';
import { conditionalRise } from '../src/signals/watosOdds.ts';
import { report } from './report.ts';

const HORIZON = 24;
const DAYS = 240;
const assets = CRYPTO_SYMBOLS.filter((id) => id !== 'USDT-USD' && id !== 'DAI-USD').slice(0, 12);

interface Forecast {
  predicted: number;
  base: number;
  outcome: number;
}

const forecasts: Forecast[] = [];
const perSignal = new Map<WatosId, Forecast[]>();

for (const productId of assets) {
  const asset = new DemoAsset(productId);
  const minutes = Array.from({ length: DAYS * 1440 }, () => asset.next());
  const series = candleSeries(aggregate(minutes, 3600));
  const history = watosHistory(series);
  const split = Math.floor(series.length * 0.7);
  const base = conditionalRise(series.close, null, 0, HORIZON, split).probability ?? 0.5;
  for (const [id, states] of Object.entries(history.states) as Array<[WatosId, Int8Array]>) {
    const trained = {
      1: conditionalRise(series.close, states, 1, HORIZON, split),
      [-1]: conditionalRise(series.close, states, -1, HORIZON, split),
    };
    for (let index = split; index < series.length - HORIZON; index += 1) {
      const state = states[index];
      if (state === 0) continue;
      const predicted = trained[state as 1 | -1].probability;
      if (predicted === null) continue;
      const forecast = { predicted, base, outcome: series.close[index + HORIZON] > series.close[index] ? 1 : 0 };
      forecasts.push(forecast);
      perSignal.set(id, [...(perSignal.get(id) ?? []), forecast]);
    }
  }
}

const brier = (items: Forecast[], pick: (item: Forecast) => number) =>
  items.reduce((sum, item) => sum + (pick(item) - item.outcome) ** 2, 0) / items.length;

console.log(`WATOS odds calibration, walk-forward (train on the first 70%, score the last 30%).`);
console.log(
  `Synthetic demo history: ${assets.length} assets x ${DAYS} days of hourly bars, horizon ${HORIZON} bars.\n`,
);
console.log(`Scored forecasts: ${forecasts.length}`);
const oddsBrier = brier(forecasts, (item) => item.predicted);
const baseBrier = brier(forecasts, (item) => item.base);
console.log(`Brier score of the odds:      ${oddsBrier.toFixed(4)}`);
console.log(`Brier score of the base rate: ${baseBrier.toFixed(4)}`);
console.log(
  `Skill vs base rate: ${(((baseBrier - oddsBrier) / baseBrier) * 100).toFixed(2)}% (positive means the odds beat the base rate)\n`,
);
// No target: on synthetic history the honest outcome is "about as good as the base rate".
report({
  figure: 'WATOS odds Brier, held-out (synthetic)',
  target: '- (lower is better)',
  measured: oddsBrier.toFixed(4),
  peer: `base rate ${baseBrier.toFixed(4)}`,
  ratio: oddsBrier / baseBrier,
  pass: null,
});

console.log('Per signal            forecasts  Brier(odds)  Brier(base)');
for (const [id, items] of perSignal) {
  console.log(
    `${id.padEnd(20)} ${String(items.length).padStart(10)} ${brier(items, (item) => item.predicted)
      .toFixed(4)
      .padStart(12)} ${brier(items, (item) => item.base)
      .toFixed(4)
      .padStart(12)}`,
  );
}

console.log('\nReliability by decile of predicted probability');
console.log('decile        forecasts  mean predicted  observed rise rate');
for (let decile = 0; decile < 10; decile += 1) {
  const items = forecasts.filter((item) => Math.min(9, Math.floor(item.predicted * 10)) === decile);
  if (items.length === 0) continue;
  const predicted = items.reduce((sum, item) => sum + item.predicted, 0) / items.length;
  const observed = items.reduce((sum, item) => sum + item.outcome, 0) / items.length;
  console.log(
    `${(decile / 10).toFixed(1)}-${((decile + 1) / 10).toFixed(1)}  ${String(items.length).padStart(13)} ${predicted.toFixed(3).padStart(15)} ${observed.toFixed(3).padStart(19)}`,
  );
}
