// The symbol calls of the watchlists: the type-ahead (GET /api/symbols/search) and the lookup of
// one typed symbol (GET /api/symbols/resolve: 404 carries the server's unknown-symbol message).
import type { MarketSymbolView } from '../../shared/schemas/symbols.ts';
import { apiFetch, schemaOnDemand } from './http.ts';

// The answers' schemas, imported with the first answer (the symbol search is on the first paint).
const symbolSchemas = () => import('../../shared/schemas/symbols.ts');
const symbolSearchResponse = schemaOnDemand(async () => (await symbolSchemas()).symbolSearchResponse);
const symbolResolveResponse = schemaOnDemand(async () => (await symbolSchemas()).symbolResolveResponse);

const SYMBOL_SEARCH_LIMIT = 8;

export async function searchSymbols(q: string, signal?: AbortSignal): Promise<MarketSymbolView[]> {
  const query = new URLSearchParams({ q, limit: String(SYMBOL_SEARCH_LIMIT) }).toString();
  const { symbols } = await apiFetch(`/api/symbols/search?${query}`, symbolSearchResponse, { signal });
  return symbols;
}

/** The market a typed symbol means; throws ApiError 404 with the server's message when unknown. */
export async function resolveSymbol(symbol: string): Promise<MarketSymbolView> {
  const query = new URLSearchParams({ symbol }).toString();
  const body = await apiFetch(`/api/symbols/resolve?${query}`, symbolResolveResponse);
  return body.symbol;
}
