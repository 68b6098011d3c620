// The same migrations and queries on both drivers: PGlite always, PostgreSQL when
// TEST_DATABASE_URL is set (CI sets it; each run gets its own fresh database).
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prices, products, profiles, subscriptions, user } from './schema.ts';
import { openTestDatabase, type TestDatabase } from './testing.ts';

const drivers: Array<'pglite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

describe.each(drivers)('database on %s', (driver) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase(driver);
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await database.truncateAll();
  });

  it('reports the driver it opened', () => {
    expect(database.driver).toBe(driver);
  });

  it('applies every migration and is idempotent on a second run', async () => {
    await database.migrate();
    const result = await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const { n } = (result as { rows: Array<{ n: number }> }).rows[0]!;
    expect(n).toBeGreaterThanOrEqual(1);
  });

  it('stores a user with a profile and reads prices joined to products in amount order', async () => {
    const { db } = database;
    await db.insert(user).values({ id: 'u1', name: 'trader', email: 'trader@example.com', username: 'trader' });
    await db.insert(profiles).values({ id: 'u1', username: 'trader' });
    await db.insert(products).values([
      {
        id: 'p-month',
        name: 'Monthly Subscription',
        description: 'Full access',
        features: ['Priority support'],
        popular: true,
      },
      { id: 'p-test', name: 'Live Test', description: '1 day' },
    ]);
    await db.insert(prices).values([
      { id: 'monthly', productId: 'p-month', unitAmount: 2999, interval: 'month' },
      { id: 'live-test', productId: 'p-test', unitAmount: 50, interval: 'one_time', accessDays: 1 },
      { id: 'retired', productId: 'p-test', unitAmount: 10, interval: 'one_time', active: false },
    ]);

    const rows = await db
      .select({ id: prices.id, amount: prices.unitAmount, product: products.name, features: products.features })
      .from(prices)
      .innerJoin(products, eq(prices.productId, products.id))
      .where(eq(prices.active, true))
      .orderBy(asc(prices.unitAmount));
    expect(rows).toEqual([
      { id: 'live-test', amount: 50, product: 'Live Test', features: [] },
      { id: 'monthly', amount: 2999, product: 'Monthly Subscription', features: ['Priority support'] },
    ]);

    const [profile] = await db.select().from(profiles).where(eq(profiles.id, 'u1'));
    expect(profile!.username).toBe('trader');
  });

  it('enforces unique e-mails and cascades a user deletion to profile and subscriptions', async () => {
    const { db } = database;
    await db.insert(user).values({ id: 'u2', name: 'a', email: 'same@example.com' });
    await expect(db.insert(user).values({ id: 'u3', name: 'b', email: 'same@example.com' })).rejects.toThrow();

    await db.insert(profiles).values({ id: 'u2', username: 'a' });
    const periodEnd = new Date('2030-01-01T00:00:00Z');
    await db
      .insert(subscriptions)
      .values({ id: 's1', userId: 'u2', status: 'active', currentPeriodEnd: periodEnd, provider: 'test' });
    const [stored] = await db.select().from(subscriptions).where(eq(subscriptions.userId, 'u2'));
    expect(stored!.currentPeriodEnd?.toISOString()).toBe('2030-01-01T00:00:00.000Z');

    await db.delete(user).where(eq(user.id, 'u2'));
    expect(await db.select().from(profiles)).toEqual([]);
    expect(await db.select().from(subscriptions)).toEqual([]);
  });
});
