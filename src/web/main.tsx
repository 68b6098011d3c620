// Browser entry, kept tiny. A first visit to '/' is served with the landing page prerendered
// (landing.html, vite.config.ts): it is painted first, then its code loads and hydrates it
// (landingStart.tsx), so the largest paint never waits for a script. Every other page loads the
// app with React Router's data router (app.tsx). Both keep the landing route's scripts small
// (scripts/bundleBudget.mjs).
import { loadWithin } from './chunkLoad.ts';
import './styles.css';

document.documentElement.classList.add('dark');
const container = document.getElementById('root')!;

/** The page's code did not arrive: the route tree's 'Page failed to load', with a retry. */
function showLoadFailure(error: unknown) {
  const element = (tag: string, className: string, text = '') => {
    const created = document.createElement(tag);
    created.className = className;
    created.textContent = text;
    return created;
  };
  const main = element('main', 'mx-auto max-w-2xl px-6 py-20 text-center');
  const message = element('p', 'mt-4 text-gray-300', error instanceof Error ? error.message : String(error));
  message.setAttribute('role', 'alert');
  const actions = element('div', 'mt-8 flex justify-center gap-4');
  const retry = element('button', 'rounded bg-indigo-600 px-4 py-2 text-white hover:bg-indigo-500', 'Try again');
  retry.setAttribute('type', 'button');
  retry.addEventListener('click', () => window.location.reload());
  const home = element('a', 'rounded border border-gray-600 px-4 py-2 text-gray-200 hover:bg-gray-800', 'Back to Home');
  home.setAttribute('href', '/');
  actions.append(retry, home);
  main.append(element('h1', 'text-3xl font-bold text-red-400', 'Page failed to load'), message, actions);
  container.replaceChildren(main);
}

if (window.location.pathname === '/') {
  const start = () =>
    loadWithin(() => import('./landingStart.tsx')).then(({ startLanding }) => startLanding(container), showLoadFailure);
  // After the next frame, which paints the prerendered landing: its code is not evaluated first.
  // A hidden tab paints no frames: it starts at once.
  if (document.visibilityState === 'visible') requestAnimationFrame(() => setTimeout(() => void start(), 0));
  else void start();
} else {
  loadWithin(() => import('./app.tsx')).then(({ showApp }) => showApp(container), showLoadFailure);
}
