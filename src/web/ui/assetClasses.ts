// How the dashboard names the symbol table's asset classes (issue 15): one label for a single
// market (a row of the alert log, a type-ahead suggestion) and one for a group of them (the
// alert log's market filter, the Prompt Catalog's symbol groups).
import { ASSET_CLASSES, type AssetClass } from '../../shared/symbols.ts';

export { ASSET_CLASSES, type AssetClass };

/** One market of the class: 'Stock', 'Micro future'. */
export const ASSET_CLASS_LABELS: Record<AssetClass, string> = {
  crypto: 'Crypto',
  stock: 'Stock',
  etf: 'ETF',
  index: 'Index',
  future: 'Future',
  'micro-future': 'Micro future',
};

/** The markets of the class together: 'Stocks', 'Micro futures'. */
export const ASSET_CLASS_GROUP_LABELS: Record<AssetClass, string> = {
  crypto: 'Crypto',
  stock: 'Stocks',
  etf: 'ETFs',
  index: 'Indices',
  future: 'Futures',
  'micro-future': 'Micro futures',
};

/** True for one of ASSET_CLASSES (a value read back from a select or a URL). */
export function isAssetClass(value: string): value is AssetClass {
  return (ASSET_CLASSES as readonly string[]).includes(value);
}
