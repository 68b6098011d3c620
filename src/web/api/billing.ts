// Billing in the browser: the plan list, starting a checkout (Stripe's hosted checkout
// through Stripe.js, or the built-in TEST MODE checkout page), the /success re-check and
// cancelling a renewal, parsed with the shared schemas. The schemas load on first use: the
// landing route must not load zod before it renders (scripts/bundleBudget.mjs).
import { useQuery } from '@tanstack/react-query';
import type { CreateCheckoutResponse, PlanView } from '../../shared/schemas/billing.ts';
import { ApiError, apiFetch, apiSend } from './http.ts';
import { queryKeys } from './queryKeys.ts';

const billingSchemas = () => import('../../shared/schemas/billing.ts');
const schema = <K extends keyof Awaited<ReturnType<typeof billingSchemas>>>(name: K) =>
  billingSchemas().then((module) => module[name]);

export const billingApi = {
  plans: async () => (await apiFetch('/api/plans', schema('plansResponse'))).plans,
  createCheckout: (plan: PlanView, user: { id: string; email: string }) =>
    apiSend('POST', '/api/subscriptions/create-checkout', schema('createCheckoutResponse'), {
      priceId: plan.priceId,
      userId: user.id,
      email: user.email,
    }),
  /** Re-checks a checkout session (fulfilling it if the provider's webhook is late). */
  confirmCheckout: (sessionId: string) =>
    apiFetch(
      `/api/subscriptions/confirm?session_id=${encodeURIComponent(sessionId)}`,
      schema('confirmCheckoutResponse'),
    ),
  /** docs/SPEC.md's GET /api/subscriptions/validate/{id}: the subscription with its access rules applied. */
  validateSubscription: (id: string) =>
    apiFetch(`/api/subscriptions/validate/${encodeURIComponent(id)}`, schema('subscriptionResponse')),
  /** Stops a Monthly plan renewing; access stays until the period ends. */
  cancelSubscription: (id: string) =>
    apiSend('POST', `/api/subscriptions/${encodeURIComponent(id)}/cancel`, schema('subscriptionResponse'), {}),
};

/** The plans; `enabled` false leaves the request until something shows them. */
export function usePlans(enabled = true) {
  return useQuery({
    queryKey: queryKeys.plans,
    queryFn: billingApi.plans,
    staleTime: 5 * 60_000,
    enabled,
  });
}

interface StripeJs {
  redirectToCheckout?: (options: { sessionId: string }) => Promise<{ error?: { message?: string } }>;
}

declare global {
  interface Window {
    Stripe?: (publishableKey: string) => StripeJs;
  }
}

const STRIPE_JS_URL = 'https://js.stripe.com/v3/';

function loadStripeJs(): Promise<NonNullable<Window['Stripe']>> {
  if (window.Stripe) return Promise.resolve(window.Stripe);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = STRIPE_JS_URL;
    script.async = true;
    script.onload = () => (window.Stripe ? resolve(window.Stripe) : reject(new Error('Stripe failed to load')));
    script.onerror = () => reject(new Error('Stripe failed to load'));
    document.head.appendChild(script);
  });
}

/** Starts the checkout for a plan; resolves once the browser is on its way to pay. */
export async function startCheckout(plan: PlanView, user: { id: string; email: string }): Promise<void> {
  let response: CreateCheckoutResponse;
  try {
    // A refusal answers { success: false, error }: apiSend throws it as an ApiError.
    response = await billingApi.createCheckout(plan, user);
  } catch (error) {
    const detail = error instanceof ApiError ? error.message : 'Network error';
    throw new Error(`Failed to start subscription process: ${detail}`, { cause: error });
  }
  if (response.provider === 'stripe' && response.publishableKey) {
    const stripe = (await loadStripeJs())(response.publishableKey);
    if (stripe.redirectToCheckout) {
      const result = await stripe.redirectToCheckout({ sessionId: response.sessionId });
      if (result.error)
        throw new Error(`Failed to start subscription process: ${result.error.message ?? 'unknown error'}`);
      return;
    }
  }
  window.location.assign(response.url);
}
