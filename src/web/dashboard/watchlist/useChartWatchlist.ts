// The chart watchlist (EXCHANGE:SYMBOL) with docs/SPEC.md's input rules, saved per user.
import { DEFAULT_CHART_WATCHLIST } from '../../../shared/constants.ts';
import { WATCHLIST_FORMAT_ALERT } from '../../../shared/schemas/watchlistRules.ts';
import { useSavedWatchlist } from './useSavedWatchlist.ts';

export type AddResult = { added: true } | { added: false; alert?: string };

/** docs/SPEC.md rules: trimmed and upper-cased; empty or duplicate ignored; needs EXCHANGE:SYMBOL. */
export function checkChartSymbol(
  input: string,
  current: readonly string[],
): { symbol: string } | { ignored: true } | { alert: string } {
  const symbol = input.trim().toUpperCase();
  if (!symbol || current.includes(symbol)) return { ignored: true };
  if (!symbol.includes(':')) return { alert: WATCHLIST_FORMAT_ALERT };
  return { symbol };
}

export function useChartWatchlist(onError: (message: string) => void) {
  const { symbols, save } = useSavedWatchlist('chart', DEFAULT_CHART_WATCHLIST, onError);
  return {
    symbols,
    add: (input: string): AddResult => {
      const checked = checkChartSymbol(input, symbols);
      if ('ignored' in checked) return { added: false };
      if ('alert' in checked) return { added: false, alert: checked.alert };
      save([...symbols, checked.symbol]);
      return { added: true };
    },
    remove: (symbol: string) => {
      save(symbols.filter((entry) => entry !== symbol));
    },
  };
}
