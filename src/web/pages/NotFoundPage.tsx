// Unknown routes: a proper not-found page with the way back.
import { Link, useLocation } from 'react-router';
import { TopNav } from '../ui/TopNav.tsx';

export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <div className="min-h-screen">
      <TopNav />
      <main className="mx-auto max-w-2xl px-6 py-20 text-center">
        <p className="text-6xl font-bold text-indigo-400">404</p>
        <h1 className="mt-4 text-3xl font-bold text-white">Page not found</h1>
        <p className="mt-3 text-gray-400">
          There is no page at <code className="rounded bg-gray-800 px-1">{pathname}</code>.
        </p>
        <Link
          to="/"
          className="mt-8 inline-block rounded bg-indigo-600 px-5 py-2 font-medium text-white hover:bg-indigo-500"
        >
          Go to the home page
        </Link>
      </main>
    </div>
  );
}
