// The symbols feature: type-ahead and lookup over the shared symbol table
// (src/shared/symbols.ts). No database: the table ships with the code.
import { notFound } from '../errors/domain.ts';
import type { MarketSymbolView } from '../../shared/schemas/symbols.ts';
import {
  resolveSymbol,
  searchSymbols,
  toTradingView,
  unknownSymbolMessage,
  type MarketSymbol,
} from '../../shared/symbols.ts';

function view(symbol: MarketSymbol): MarketSymbolView {
  return { ...symbol, tradingView: toTradingView(symbol) };
}

/** The markets matching a type-ahead query, best first, at most `limit`. */
export function searchMarketSymbols(query: string, limit: number): MarketSymbolView[] {
  return searchSymbols(query, limit).map(view);
}

/** The market a typed symbol names; a not-found DomainError saying what to try otherwise. */
export function resolveMarketSymbol(input: string): MarketSymbolView {
  const symbol = resolveSymbol(input);
  if (!symbol) throw notFound(unknownSymbolMessage(input));
  return view(symbol);
}
