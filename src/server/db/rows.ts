// The row a statement answers by its nature: an aggregate without GROUP BY (count, max), an
// INSERT ... RETURNING of one row, an UPDATE ... RETURNING of a row the same transaction has
// just read under a lock. Reading it with `onlyRow` says so, and fails loudly (a fault, 500)
// rather than carrying `undefined` on when the database answers otherwise.

export function onlyRow<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('The database answered no row where the statement always returns one');
  return row;
}

/** The rows of a raw statement's answer (`db.execute`: node-postgres's result, on either database). */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
