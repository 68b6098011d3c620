// The one message an account form shows (ui/forms.tsx's ErrorMessage): the first field error of
// react-hook-form's resolver, else the server's refusal kept under `root.server`.
import type { FieldErrors } from 'react-hook-form';

export function firstFormError(errors: FieldErrors): string | null {
  for (const [key, error] of Object.entries(errors)) {
    if (key !== 'root' && typeof error?.message === 'string') return error.message;
  }
  return errors.root?.server?.message ?? null;
}

/** A failure's text for the form, as the pages showed it before. */
export function failureText(error: unknown): string {
  return error instanceof Error && error.message ? error.message : 'An unexpected error occurred';
}
