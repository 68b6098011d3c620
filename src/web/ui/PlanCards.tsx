// The three plan cards of docs/SPEC.md section 9, used on the landing page's auth view (clicking
// asks the visitor to log in) and subscription view (clicking starts the checkout).
import type { PlanView } from '../../shared/schemas/billing.ts';

function price(cents: number): string {
  return `$${(cents / 100).toFixed(2).replace(/\.00$/, '')}`;
}

export function PlanCards({
  plans,
  onChoose,
  busyPriceId,
  actionLabel,
}: {
  plans: PlanView[];
  onChoose: (plan: PlanView) => void;
  busyPriceId?: string | null;
  actionLabel: string;
}) {
  return (
    <div className="grid gap-4 md:grid-cols-3">
      {plans.map((plan) => (
        <article
          key={plan.priceId}
          data-testid={`plan-${plan.priceId}`}
          className={`relative flex flex-col rounded-xl border p-5 ${plan.popular ? 'border-indigo-500 bg-indigo-950/40' : 'border-gray-800 bg-gray-900'}`}
        >
          {plan.popular && (
            <span className="absolute -top-3 right-4 rounded-full bg-indigo-500 px-3 py-0.5 text-xs font-bold tracking-wide text-white">
              POPULAR
            </span>
          )}
          <h3 className="text-lg font-semibold text-white">{plan.name}</h3>
          <p className="mt-2 text-3xl font-bold text-white">
            {price(plan.unitAmount)}
            <span className="ml-1 text-sm font-normal text-gray-400">
              {plan.interval === 'month' ? '/month' : 'one-time'}
            </span>
          </p>
          <p className="mt-2 text-sm text-gray-400">{plan.description}</p>
          <ul className="mt-3 flex-1 space-y-1 text-sm text-gray-300">
            {plan.features.map((feature) => (
              <li key={feature}>✓ {feature}</li>
            ))}
          </ul>
          <button
            type="button"
            onClick={() => onChoose(plan)}
            disabled={busyPriceId !== undefined && busyPriceId !== null}
            className="mt-4 rounded-lg bg-indigo-600 px-4 py-2 font-semibold text-white hover:bg-indigo-500 disabled:opacity-60"
          >
            {busyPriceId === plan.priceId ? 'Redirecting...' : actionLabel}
          </button>
        </article>
      ))}
    </div>
  );
}
