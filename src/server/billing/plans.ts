// The three plans of SPEC.md section 9 as rows of `products` and `prices`, seeded (and kept
// in step with the constants) at start-up, and listed for the plan cards.
import { asc, eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { prices, products } from '../db/schema.ts';
import { PLANS, type PlanId } from '../../shared/constants.ts';
import type { PlanView } from '../../shared/schemas/billing.ts';

export function stripePriceIds(config: Config): Record<PlanId, string | undefined> {
  return {
    'live-test': config.STRIPE_PRICE_LIVE_TEST,
    'three-day': config.STRIPE_PRICE_THREE_DAY,
    monthly: config.STRIPE_PRICE_MONTHLY,
  };
}

export async function seedPlans(db: Database, config: Config): Promise<void> {
  const providerIds = stripePriceIds(config);
  for (const plan of PLANS) {
    const product = {
      id: `prod-${plan.id}`,
      name: plan.name,
      description: plan.description,
      features: plan.features,
      popular: plan.popular,
      active: true,
    };
    await db.insert(products).values(product).onConflictDoUpdate({ target: products.id, set: product });
    const price = {
      id: plan.id,
      productId: product.id,
      active: true,
      unitAmount: plan.unitAmount,
      currency: 'usd',
      interval: plan.interval,
      accessDays: plan.accessDays,
      providerPriceId: providerIds[plan.id] ?? null,
    };
    await db.insert(prices).values(price).onConflictDoUpdate({ target: prices.id, set: price });
  }
}

export async function listPlans(db: Database): Promise<PlanView[]> {
  const rows = await db
    .select({ price: prices, product: products })
    .from(prices)
    .innerJoin(products, eq(prices.productId, products.id))
    .where(eq(prices.active, true))
    .orderBy(asc(prices.unitAmount));
  return rows.map(({ price, product }) => ({
    priceId: price.id,
    productId: product.id,
    name: product.name,
    description: product.description,
    features: product.features,
    popular: product.popular,
    unitAmount: price.unitAmount,
    currency: price.currency,
    interval: price.interval === 'month' ? 'month' : 'one_time',
    accessDays: price.accessDays,
  }));
}

export async function findActivePrice(db: Database, priceId: string) {
  const [row] = await db.select().from(prices).where(eq(prices.id, priceId));
  return row && row.active ? row : null;
}
