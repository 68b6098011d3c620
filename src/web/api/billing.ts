// Billing in the browser: the plan list, and starting a checkout (Stripe's hosted checkout
// through Stripe.js, or the built-in TEST MODE checkout page).
import { useQuery } from '@tanstack/react-query';
import type { PlanView } from '../../shared/schemas/billing.ts';
import { ApiError, requestJson } from './http.ts';

export function usePlans() {
  return useQuery({
    queryKey: ['plans'],
    queryFn: async () => (await requestJson<{ plans: PlanView[] }>('/api/plans')).plans,
    staleTime: 5 * 60_000,
  });
}

interface CheckoutResponse {
  success: boolean;
  error?: string | null;
  sessionId?: string;
  url?: string;
  provider?: 'stripe' | 'test';
  publishableKey?: string | null;
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
  let response: CheckoutResponse;
  try {
    response = await requestJson<CheckoutResponse>('/api/subscriptions/create-checkout', {
      method: 'POST',
      body: JSON.stringify({ priceId: plan.priceId, userId: user.id, email: user.email }),
    });
  } catch (error) {
    const detail = error instanceof ApiError ? error.message : 'Network error';
    throw new Error(`Failed to start subscription process: ${detail}`, { cause: error });
  }
  if (!response.success || !response.sessionId) {
    throw new Error(
      response.error ? `Failed to start subscription process: ${response.error}` : 'Failed to create checkout session',
    );
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
  if (!response.url) throw new Error('Failed to create checkout session');
  window.location.assign(response.url);
}
