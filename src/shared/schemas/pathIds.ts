// Ids in a URL path (`/api/alert-rules/:id`, `/files/:id`, `/api/subscriptions/:id/cancel`):
// a path names a row or it does not. An id no row can have (past its column's range, negative,
// not a whole number, holding a NUL character) is a row that is not there, not a malformed
// request: these schemas turn it into an id that matches nothing, so the route's own lookup
// answers its normal 404, and the database never sees a value it would refuse (a refusal the
// error handler can only answer with a 400 "cannot be stored").
import { z } from 'zod';

/** The largest value of a PostgreSQL `integer` column. */
const INT32_MAX = 2_147_483_647;
/** Matches no row of an identity column (they start at 1). */
const NO_SUCH_ROW = 0;
/** Matches no row of a text-keyed table (every stored id is generated, never empty). */
const NO_SUCH_TEXT_ROW = '';

/** A path id for an `integer` identity column: a whole number from 1 to INT32_MAX, anything else NO_SUCH_ROW. */
export const int32PathId = z
  .string()
  .transform((text) => (/^[1-9][0-9]{0,9}$/.test(text) && Number(text) <= INT32_MAX ? Number(text) : NO_SUCH_ROW));

/**
 * A path id for a text key: NO_SUCH_TEXT_ROW when it holds a NUL character (no text column
 * takes one). Its length needs no bound here: the router answers 414 past 100 characters.
 */
export const textPathId = z.string().transform((text) => (text.includes('\0') ? NO_SUCH_TEXT_ROW : text));
