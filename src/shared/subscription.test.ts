import { describe, expect, it } from 'vitest';
import { subscriptionState } from './subscription.ts';

const now = new Date('2026-06-01T12:00:00Z');

describe('subscriptionState', () => {
  it('is active only with status active and a future period end', () => {
    expect(subscriptionState({ status: 'active', current_period_end: '2026-06-02T00:00:00Z' }, now)).toEqual({
      hasActiveSubscription: true,
      isSubscriptionExpired: false,
    });
  });

  it('treats a passed period end as expired even when the status still says active', () => {
    expect(subscriptionState({ status: 'active', current_period_end: '2026-06-01T11:59:59Z' }, now)).toEqual({
      hasActiveSubscription: false,
      isSubscriptionExpired: true,
    });
  });

  it.each(['canceled', 'past_due', 'unpaid'])('treats %s as expired', (status) => {
    const state = subscriptionState({ status, current_period_end: '2027-01-01T00:00:00Z' }, now);
    expect(state).toEqual({ hasActiveSubscription: false, isSubscriptionExpired: true });
  });

  it('has no subscription and no expiry without a row', () => {
    expect(subscriptionState(null, now)).toEqual({ hasActiveSubscription: false, isSubscriptionExpired: false });
  });

  it('is not active without a period end', () => {
    expect(subscriptionState({ status: 'active', current_period_end: null }, now).hasActiveSubscription).toBe(false);
  });
});
