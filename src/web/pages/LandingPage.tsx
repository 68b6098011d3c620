// / : landing and authentication (docs/SPEC.md section 2). Views: auth (login / create account
// with the plans shown read-only), verification ('Check Your Email'), and subscription (the
// plans with working purchase buttons). Subscribers go straight to /dashboard. Messages do not
// outlive what they were about: the plan message and the note about a used reset link clear on
// the next login, sign-up or mode switch.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { PlanView } from '../../shared/schemas/billing.ts';
import { accountApi } from '../api/account.ts';
import { startCheckout, usePlans } from '../api/billing.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { ErrorMessage, PrimaryButton, TextField } from '../ui/forms.tsx';
import { Link, Navigate, useNavigation } from '../ui/navigation.tsx';
import { PlanCards } from '../ui/PlanCards.tsx';
import { TopNav } from '../ui/TopNav.tsx';
import { ResetLinkInvalidNotice, RESET_LINK_INVALID } from './resetLinkNotice.tsx';

type Mode = 'login' | 'signup';

const BULLETS = ['Real-time market alerts', 'AI-powered trading assistant', 'Advanced chart analysis'];

/**
 * The shared account rules load when the form is first used, not with the page: they bring
 * zod, about a sixth of the landing route's JS (budget: scripts/bundleBudget.mjs).
 */
const loadAuthRules = () => import('../../shared/schemas/auth.ts');
/** Fetches the rules while the user types; a failure here is retried (and shown) on submit. */
const warmAuthRules = () => {
  loadAuthRules().catch(() => undefined);
};

function errorText(error: unknown): string {
  return error instanceof Error && error.message ? error.message : 'An unexpected error occurred';
}

function firstIssue(result: { success: boolean; error?: { issues: Array<{ message: string }> } }): string | null {
  return result.success ? null : (result.error?.issues[0]?.message ?? 'Please check the form');
}

/**
 * What a visitor typed into the prerendered form (landing.html) before the page's script ran:
 * the hydrating render starts from it, so hydration does not wipe a field the visitor sees
 * filled in ('Email is required' under a typed address). Empty when the page was not
 * prerendered (a navigation inside the app) and when rendering without a document.
 */
function typedBeforeHydration(id: string): string {
  if (typeof document === 'undefined') return '';
  const field = document.getElementById(id);
  return field instanceof HTMLInputElement ? field.value : '';
}

/** The button the boot script marked as clicked before hydration, clicked again once. */
function replayEarlyClick() {
  const early = document.querySelector('[data-early-click]');
  early?.removeAttribute('data-early-click');
  if (early instanceof HTMLButtonElement && early.isConnected && !early.disabled) early.click();
}

export function LandingPage() {
  const { user, hasActiveSubscription, refresh } = useAuth();
  const plans = usePlans();
  const [mode, setMode] = useState<Mode>('login');
  const [verificationEmail, setVerificationEmail] = useState<string | null>(null);
  // Hydrated: the landing's boot script (shared/bootScript.ts) stops holding form submissions,
  // and the button a visitor clicked before (it did nothing then) is clicked again now.
  useEffect(() => {
    document.documentElement.setAttribute('data-hydrated', '');
    replayEarlyClick();
  }, []);
  const [email, setEmail] = useState(() => typedBeforeHydration('email'));
  const [password, setPassword] = useState(() => typedBeforeHydration('password'));
  const [username, setUsername] = useState(() => typedBeforeHydration('username'));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const [planMessage, setPlanMessage] = useState<string | null>(null);
  const [checkoutPriceId, setCheckoutPriceId] = useState<string | null>(null);
  const navigation = useNavigation();
  const [resetLinkInvalid, setResetLinkInvalid] = useState(
    () => (navigation.state as typeof RESET_LINK_INVALID | null)?.resetLinkInvalid === true,
  );

  // While GET /api/me is on its way (no user yet) the page is the visitor's: the markup '/' is
  // served with (landingShell.tsx), so nothing moves when the script takes over. A subscriber
  // then goes on to the dashboard, a signed-in user without a plan sees the subscription view.
  if (user && hasActiveSubscription) return <Navigate to="/dashboard" replace />;

  const view = user ? 'subscription' : verificationEmail ? 'verification' : 'auth';

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (inFlight.current) return;
    inFlight.current = true;
    setPlanMessage(null);
    setResetLinkInvalid(false);
    try {
      const { loginRequest, registerRequest } = await loadAuthRules();
      const problem =
        mode === 'login'
          ? firstIssue(loginRequest.safeParse({ email, password }))
          : firstIssue(registerRequest.safeParse({ email, password, username }));
      if (problem) {
        setError(problem);
        return;
      }
      setBusy(true);
      setError(null);
      if (mode === 'login') {
        await accountApi.signIn(email.trim(), password);
        await refresh();
      } else {
        // A refusal ({ success: false, error }) arrives as an ApiError with the server's text.
        // E-mail verification is required, so sign-up never opens a session by itself.
        await accountApi.register(email.trim(), password, username.trim());
        setVerificationEmail(email.trim());
      }
      setPassword('');
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }

  async function choosePlan(plan: PlanView) {
    if (!user) {
      setPlanMessage('Please log in first to subscribe');
      return;
    }
    setPlanMessage(null);
    setCheckoutPriceId(plan.priceId);
    try {
      await startCheckout(plan, user);
    } catch (caught) {
      setPlanMessage(errorText(caught));
      setCheckoutPriceId(null);
    }
  }

  const planSection = (
    <section aria-labelledby="plans-heading" className="mt-12">
      <h2 id="plans-heading" className="text-2xl font-semibold text-white">
        {view === 'subscription' ? 'Choose your plan' : 'Plans'}
      </h2>
      {view !== 'subscription' && <p className="mt-1 text-gray-400">You should login first to subscribe</p>}
      {view === 'subscription' && <p className="mt-1 text-gray-400">Pick a plan to unlock the dashboard.</p>}
      <div className="mt-3">
        <ErrorMessage>{planMessage}</ErrorMessage>
      </div>
      <div className="mt-6">
        {plans.isPending && <p className="text-gray-400">Loading...</p>}
        {plans.isError && <ErrorMessage>Plans could not be loaded. Please reload the page.</ErrorMessage>}
        {plans.data && (
          <PlanCards
            plans={plans.data}
            onChoose={(plan) => void choosePlan(plan)}
            busyPriceId={checkoutPriceId}
            actionLabel={view === 'subscription' ? 'Subscribe' : 'Choose plan'}
          />
        )}
      </div>
    </section>
  );

  return (
    <div className="min-h-screen">
      <TopNav />
      <main className="mx-auto max-w-6xl px-6 py-10">
        <div className="grid items-start gap-10 md:grid-cols-2">
          <section>
            <h1 className="text-4xl font-bold leading-tight text-white">
              What Are The Odds? Trade with measured edges.
            </h1>
            <p className="mt-4 text-lg text-gray-300">
              AI trading intelligence for crypto, stocks, futures and micro-futures.
            </p>
            <ul className="mt-6 space-y-3">
              {BULLETS.map((bullet) => (
                <li key={bullet} className="flex items-center gap-3 text-gray-200">
                  <span
                    aria-hidden
                    className="flex h-6 w-6 items-center justify-center rounded-full bg-indigo-600 text-sm"
                  >
                    ✓
                  </span>
                  {bullet}
                </li>
              ))}
            </ul>
          </section>

          {view === 'auth' && (
            <section
              className="rounded-2xl border border-gray-800 bg-gray-900 p-6 shadow-xl"
              aria-label="Authentication"
            >
              <div role="tablist" className="mb-6 grid grid-cols-2 rounded-lg bg-gray-800 p-1">
                {(['login', 'signup'] as const).map((option) => (
                  <button
                    key={option}
                    type="button"
                    role="tab"
                    aria-selected={mode === option}
                    onClick={() => {
                      setMode(option);
                      setError(null);
                      setPlanMessage(null);
                      setResetLinkInvalid(false);
                    }}
                    className={`rounded-md py-2 text-sm font-semibold ${mode === option ? 'bg-indigo-600 text-white' : 'text-gray-300 hover:text-white'}`}
                  >
                    {option === 'login' ? 'Login' : 'Create Account'}
                  </button>
                ))}
              </div>
              {resetLinkInvalid && mode === 'login' && (
                <div className="mb-4">
                  <ResetLinkInvalidNotice />
                </div>
              )}
              {/* method="post": a click before the page is hydrated submits natively, and must not
                  put the password in the address bar and history as a GET would. */}
              <form
                method="post"
                onSubmit={(event) => void submit(event)}
                onFocus={warmAuthRules}
                noValidate
                className="space-y-4"
              >
                {mode === 'signup' && (
                  <TextField
                    id="username"
                    label="Username"
                    autoComplete="username"
                    value={username}
                    onChange={(e) => setUsername(e.target.value)}
                    required
                  />
                )}
                <TextField
                  id="email"
                  label="Email"
                  type="email"
                  autoComplete="email"
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                  required
                />
                <TextField
                  id="password"
                  label="Password"
                  type="password"
                  autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  required
                />
                <ErrorMessage>{error}</ErrorMessage>
                <PrimaryButton busy={busy}>
                  {busy ? 'Please wait...' : mode === 'login' ? 'Login' : 'Create Account'}
                </PrimaryButton>
                {mode === 'login' && (
                  <p className="text-center text-sm">
                    <Link to="/forgot-password" className="text-indigo-400 hover:text-indigo-300">
                      Forgot password?
                    </Link>
                  </p>
                )}
              </form>
            </section>
          )}

          {view === 'verification' && (
            <section className="rounded-2xl border border-gray-800 bg-gray-900 p-6 text-center shadow-xl">
              <h2 className="text-2xl font-bold text-white">Check Your Email</h2>
              <p className="mt-3 text-gray-300">
                We sent a verification link to <strong className="text-white">{verificationEmail}</strong>. Open it to
                activate your account.
              </p>
              <p className="mt-3 text-sm text-gray-400">Can&apos;t find it? Check your spam folder.</p>
              <button
                type="button"
                onClick={() => {
                  setVerificationEmail(null);
                  setMode('login');
                  setPlanMessage(null);
                }}
                className="mt-6 rounded-lg border border-gray-600 px-4 py-2 text-gray-200 hover:bg-gray-800"
              >
                Back to Login
              </button>
            </section>
          )}

          {view === 'subscription' && user && (
            <section className="rounded-2xl border border-gray-800 bg-gray-900 p-6 shadow-xl">
              <h2 className="text-2xl font-bold text-white">Welcome, {user.username || user.email}</h2>
              <p className="mt-3 text-gray-300">Your account is ready. Choose a plan below to open the dashboard.</p>
            </section>
          )}
        </div>
        {planSection}
      </main>
    </div>
  );
}
