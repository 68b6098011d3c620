// Small form building blocks shared by the account pages: labelled fields, the primary
// button, and inline error / success messages. A field passes everything else (react-hook-form's
// `register`: name, ref and handlers) on to its input.
import type { InputHTMLAttributes, ReactNode, Ref } from 'react';

export function TextField({
  label,
  id,
  ...input
}: {
  label: string;
  id: string;
  /** The input itself (react-hook-form's `register` passes one). */
  ref?: Ref<HTMLInputElement>;
} & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-gray-300">
        {label}
      </label>
      <input
        id={id}
        name={id}
        className="w-full rounded-lg border border-gray-700 bg-gray-800 px-3 py-2 text-white placeholder-gray-500 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/40"
        {...input}
      />
    </div>
  );
}

export function PrimaryButton({
  children,
  busy,
  ...rest
}: { children: ReactNode; busy?: boolean } & React.ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button
      type="submit"
      disabled={busy || rest.disabled}
      className="w-full rounded-lg bg-indigo-600 px-4 py-2.5 font-semibold text-white transition-colors hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
      {...rest}
    >
      {children}
    </button>
  );
}

export function ErrorMessage({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="alert" className="rounded-lg border border-red-800 bg-red-950/60 px-3 py-2 text-sm text-red-300">
      {children}
    </p>
  );
}

export function SuccessMessage({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="status" className="rounded-lg border border-green-800 bg-green-950/60 px-3 py-2 text-sm text-green-300">
      {children}
    </p>
  );
}
