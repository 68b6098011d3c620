// A route's query validation that remembers its results by the query itself. Nearly every
// GET /external-api/alert is the dashboard's default query, whose text changes once a second
// (its end time): under load, thousands of requests a second carry the same few texts, and each
// paid zod's parse of the same filters and timestamps again, with what it allocates (remembered,
// the route answers about a third more requests a second: docs/performance.md). Validation is a
// function of the query alone, so a result made once is the result for every request with the
// same query. Only successes are kept, frozen (a route reads its query, never writes it), at most
// `size` of them, all dropped together when full; a query longer than any real one (unknown
// parameters pass validation and are dropped by it) is validated but not kept, so the memory
// stays a few hundred short texts.
import type { FastifySchemaCompiler } from 'fastify';

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;

/** The longest query text kept: the dashboard's queries are under 200 characters. */
const MAX_KEY_LENGTH = 1_000;

/** The cache key of a parsed query (its keys and values in order, as one text), or null: not kept. */
function keyOf(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null;
  const key = JSON.stringify(data);
  return key.length <= MAX_KEY_LENGTH ? key : null;
}

export function rememberingValidator(validate: Validate, size = 256): Validate {
  const known = new Map<string, { value: unknown }>();
  return (data: unknown) => {
    const key = keyOf(data);
    if (key === null) return validate(data);
    const hit = known.get(key);
    if (hit) return hit;
    const result = validate(data);
    if (typeof result === 'object' && result !== null && !('error' in result && result.error) && 'value' in result) {
      if (known.size >= size) known.clear();
      const value: unknown = result.value;
      const kept = { value: typeof value === 'object' && value !== null ? Object.freeze(value) : value };
      known.set(key, kept);
      return kept;
    }
    return result;
  };
}

/**
 * `compiler` (fastify-type-provider-zod's) with its querystring validators remembering their
 * results (rememberingValidator), for a route's own `validatorCompiler`.
 */
export function rememberingQueryCompiler<S>(compiler: FastifySchemaCompiler<S>): FastifySchemaCompiler<unknown> {
  return (route) => {
    // Fastify hands a route's compiler each part's schema: the type provider's own schemas here.
    const validate = compiler(route as Parameters<FastifySchemaCompiler<S>>[0]);
    return route.httpPart === 'querystring' ? rememberingValidator(validate) : validate;
  };
}
