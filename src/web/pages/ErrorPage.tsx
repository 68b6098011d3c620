// Shown for render errors anywhere in the route tree (docs/SPEC.md: 'Unexpected Application Error!').
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';

export function ErrorPage() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error);
  return (
    <main className="mx-auto max-w-2xl px-6 py-20 text-center">
      <h1 className="text-3xl font-bold text-red-400">Unexpected Application Error!</h1>
      <p className="mt-4 break-words text-gray-400">{detail}</p>
      <div className="mt-8 flex justify-center gap-4">
        <button
          type="button"
          className="rounded bg-indigo-600 px-4 py-2 text-white hover:bg-indigo-500"
          onClick={() => window.location.reload()}
        >
          Reload
        </button>
        <Link to="/" className="rounded border border-gray-600 px-4 py-2 text-gray-200 hover:bg-gray-800">
          Back to Home
        </Link>
      </div>
    </main>
  );
}
