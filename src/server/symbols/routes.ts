// GET /api/symbols/search?q=&limit= (the watchlists' type-ahead) and
// GET /api/symbols/resolve?symbol= (one typed symbol: 200 with the market, 404 saying what to try).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  symbolResolveQuery,
  symbolResolveResponse,
  symbolSearchQuery,
  symbolSearchResponse,
} from '../../shared/schemas/symbols.ts';
import { resolveMarketSymbol, searchMarketSymbols } from './service.ts';

export type SymbolRouteOptions = Record<string, never>;

export async function symbolRoutes(app: FastifyInstance, _options: SymbolRouteOptions): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/api/symbols/search',
    { schema: { querystring: symbolSearchQuery, response: { 200: symbolSearchResponse } } },
    async (request) => ({ symbols: searchMarketSymbols(request.query.q, request.query.limit) }),
  );
  routes.get(
    '/api/symbols/resolve',
    { schema: { querystring: symbolResolveQuery, response: { 200: symbolResolveResponse } } },
    async (request) => ({ symbol: resolveMarketSymbol(request.query.symbol) }),
  );
}
