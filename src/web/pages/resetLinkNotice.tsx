// What a trader sees after opening a password reset link that no longer works (it expired or
// was already used): the reason and a link to request a new one. /reset-password shows it to a
// signed-in user, and sends anyone else to / with RESET_LINK_INVALID so the login form says it.
import { Link } from '../ui/navigation.tsx';

/** Navigation state from /reset-password: the e-mailed token was refused. */
export const RESET_LINK_INVALID = { resetLinkInvalid: true } as const;

export function ResetLinkInvalidNotice() {
  return (
    <p role="alert" className="rounded border border-amber-700 bg-amber-950/60 p-3 text-sm text-amber-200">
      This password reset link has expired or was already used.{' '}
      <Link to="/forgot-password" className="font-semibold text-indigo-300 underline hover:text-indigo-200">
        Request a new link
      </Link>
    </p>
  );
}
