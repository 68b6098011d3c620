// docs/SPEC.md section 4 subscription rules, one function for server and client:
// active  = status 'active' and current_period_end in the future;
// expired = status canceled, past_due or unpaid, or current_period_end in the past.

export interface SubscriptionLike {
  status: string;
  /** ISO-8601 string or Date; null when the provider has not told us yet. */
  current_period_end: string | Date | null;
}

export interface SubscriptionState {
  hasActiveSubscription: boolean;
  isSubscriptionExpired: boolean;
}

export function subscriptionState(
  subscription: SubscriptionLike | null | undefined,
  now: Date = new Date(),
): SubscriptionState {
  if (!subscription) return { hasActiveSubscription: false, isSubscriptionExpired: false };
  const end = subscription.current_period_end === null ? null : new Date(subscription.current_period_end);
  const endValid = end !== null && !Number.isNaN(end.getTime());
  const periodPassed = endValid && end.getTime() <= now.getTime();
  const lapsedStatus =
    subscription.status === 'canceled' || subscription.status === 'past_due' || subscription.status === 'unpaid';
  return {
    hasActiveSubscription: subscription.status === 'active' && endValid && !periodPassed,
    isSubscriptionExpired: lapsedStatus || periodPassed,
  };
}
