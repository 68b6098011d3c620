// Test market data: flat minute bars stored as the engine would read them, so a rule's next
// evaluation sees a known last close.
import type { Database } from '../db/client.ts';
import { storeCandleBatch } from '../market/service.ts';

/** Stores `count` demo minute bars of `productId` at `price`, the newest one a minute ago. */
export async function storeFlatMinutes(db: Database, productId: string, price: number, count = 2): Promise<void> {
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  await storeCandleBatch(db, [
    {
      productId,
      granularity: 60,
      source: 'demo',
      rows: Array.from({ length: count }, (_, index) => ({
        time: minute - (count - index) * 60_000,
        open: price,
        high: price,
        low: price,
        close: price,
        volume: 10,
      })),
    },
  ]);
}
