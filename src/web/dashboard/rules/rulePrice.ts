// A price picked on a chart, rounded as a trader would type it: shared by the rule form and the
// candle chart's "Alert at ...", which is on the dashboard's first paint and so must not bring
// the rule form's schemas (zod) with it.

/** Rounds a price picked on a chart to what a trader would type. */
export function roundPrice(price: number): number {
  if (!Number.isFinite(price) || price <= 0) return price;
  return price >= 1 ? Math.round(price * 100) / 100 : Number(price.toPrecision(4));
}
