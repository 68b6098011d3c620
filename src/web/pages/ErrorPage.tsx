// Shown for render errors anywhere in the route tree (docs/SPEC.md: 'Unexpected Application Error!'),
// and for a page whose code did not load in time or at all (ChunkLoadError), with a retry.
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { ChunkLoadError } from '../chunkLoad.ts';

export function ErrorPage() {
  const error = useRouteError();
  if (error instanceof ChunkLoadError) {
    return (
      <main className="mx-auto max-w-2xl px-6 py-20 text-center">
        <h1 className="text-3xl font-bold text-red-400">Page failed to load</h1>
        <p role="alert" className="mt-4 text-gray-300">
          {error.message}
        </p>
        <div className="mt-8 flex justify-center gap-4">
          <button
            type="button"
            className="rounded bg-indigo-600 px-4 py-2 text-white hover:bg-indigo-500"
            onClick={() => window.location.reload()}
          >
            Try again
          </button>
          <Link to="/" className="rounded border border-gray-600 px-4 py-2 text-gray-200 hover:bg-gray-800">
            Back to Home
          </Link>
        </div>
      </main>
    );
  }
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
