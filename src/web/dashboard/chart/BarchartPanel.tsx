// The market-data charting widget (Barchart). It needs the trader's own data-provider
// credentials: a setup form (API Key required; Username and Password optional, masked), then
// the widget container replaces the form. The widget script loads only after the enabling
// flag is set, and is destroyed and removed when the flag or a credential changes or the
// panel closes. Credentials live in this browser session only, never on our server. A script
// that cannot load (error event, or no load within SCRIPT_TIMEOUT_MS) or a widget that fails to
// start is said in the panel, with a Retry that adds the script again.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { watchScript } from './scriptWatch.ts';

export const BARCHART_SCRIPT_URL = 'https://www.barchart.com/widget.js';
const BARCHART_SIGNUP_URL = 'https://www.barchart.com/ondemand/free-market-data-api';
const STORAGE_KEY = 'watos.barchart.credentials';

export interface BarchartCredentials {
  apiKey: string;
  username: string;
  password: string;
}

export function barchartWidgetOptions(credentials: BarchartCredentials) {
  return {
    apiKey: credentials.apiKey,
    username: credentials.username || undefined,
    password: credentials.password || undefined,
    symbol: 'MSFT',
    aggregation: 8,
    theme: 'dark',
    style: 8,
    mainToolbar: true,
    sideToolbar: false,
    footToolbar: false,
    studies: [] as string[],
  };
}

function readSaved(): BarchartCredentials {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as BarchartCredentials | null;
    if (saved && typeof saved.apiKey === 'string') return saved;
  } catch {
    // A damaged entry is simply ignored.
  }
  return { apiKey: '', username: '', password: '' };
}

interface BarchartGlobal {
  createWidget?: (
    element: HTMLElement,
    options: ReturnType<typeof barchartWidgetOptions>,
  ) => { destroy?: () => void } | void;
}

declare global {
  interface Window {
    Barchart?: BarchartGlobal;
  }
}

function BarchartWidget({ credentials, enabled }: { credentials: BarchartCredentials; enabled: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const [attempt, setAttempt] = useState(0);
  // The credentials and try whose script failed; new credentials or a Retry start afresh.
  const [failure, setFailure] = useState<{ credentials: BarchartCredentials; attempt: number } | null>(null);
  const failed = enabled && failure?.credentials === credentials && failure.attempt === attempt;

  useEffect(() => {
    const element = host.current;
    if (!enabled || !element) return;
    let widget: { destroy?: () => void } | void;
    const fail = () => setFailure({ credentials, attempt });
    const script = document.createElement('script');
    script.src = BARCHART_SCRIPT_URL;
    script.async = true;
    script.dataset.barchartWidget = 'true';
    const stop = watchScript(script, {
      onLoad: () => {
        setFailure(null);
        try {
          widget = window.Barchart?.createWidget?.(element, barchartWidgetOptions(credentials));
        } catch (error) {
          console.error('Barchart widget failed to start', error);
          fail();
        }
      },
      onFail: (reason) => {
        console.error(`Barchart widget script failed to load (${reason})`);
        fail();
      },
    });
    document.body.appendChild(script);
    return () => {
      stop();
      widget?.destroy?.();
      script.remove();
      element.replaceChildren();
    };
  }, [credentials, enabled, attempt]);

  return (
    <>
      {failed && (
        <div
          role="status"
          className="flex flex-wrap items-center gap-3 rounded border border-amber-700 bg-amber-950/50 px-3 py-2 text-sm text-amber-200"
          data-testid="barchart-fallback"
        >
          <span>The Barchart widget could not load (blocked or offline).</span>
          <button
            type="button"
            className="rounded bg-indigo-600 px-3 py-0.5 font-semibold text-white hover:bg-indigo-500"
            onClick={() => setAttempt((value) => value + 1)}
          >
            Retry
          </button>
        </div>
      )}
      <div ref={host} hidden={failed} className="h-[650px] w-full rounded bg-gray-950" data-testid="barchart-widget" />
    </>
  );
}

export function BarchartPanel({ open }: { open: boolean }) {
  const [form, setForm] = useState<BarchartCredentials>(readSaved);
  const [loaded, setLoaded] = useState<BarchartCredentials | null>(null);
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!form.apiKey.trim()) {
      setError('API Key is required');
      return;
    }
    setError(null);
    const credentials = { apiKey: form.apiKey.trim(), username: form.username.trim(), password: form.password };
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
    setLoaded(credentials);
  }

  if (loaded) {
    return (
      <div className="flex h-full flex-col gap-2">
        <div className="flex items-center gap-3 text-xs text-gray-400">
          <span>Barchart widget for MSFT</span>
          <button
            type="button"
            className="rounded border border-gray-600 px-2 py-0.5 text-gray-200 hover:bg-gray-800"
            onClick={() => setLoaded(null)}
          >
            Change credentials
          </button>
        </div>
        <BarchartWidget credentials={loaded} enabled={open} />
      </div>
    );
  }

  const field = 'w-full rounded border border-gray-700 bg-gray-800 px-3 py-2 text-sm text-white';
  return (
    <form
      onSubmit={submit}
      noValidate
      className="mx-auto mt-6 max-w-md space-y-4 rounded-lg border border-gray-800 bg-gray-900 p-5"
      aria-label="Barchart widget setup"
    >
      <p role="note" className="rounded border border-amber-700 bg-amber-950/50 p-3 text-sm text-amber-200">
        This widget needs your own Barchart API credentials.{' '}
        <a href={BARCHART_SIGNUP_URL} target="_blank" rel="noreferrer" className="underline">
          Sign up for a Barchart API key
        </a>
        . They stay in this browser session and are never sent to our server.
      </p>
      <label className="block text-sm text-gray-300">
        API Key
        <input
          className={field}
          value={form.apiKey}
          onChange={(event) => setForm({ ...form, apiKey: event.target.value })}
          required
          autoComplete="off"
        />
      </label>
      <label className="block text-sm text-gray-300">
        Username (optional)
        <input
          className={field}
          value={form.username}
          onChange={(event) => setForm({ ...form, username: event.target.value })}
          autoComplete="off"
        />
      </label>
      <label className="block text-sm text-gray-300">
        Password (optional)
        <input
          className={field}
          type="password"
          value={form.password}
          onChange={(event) => setForm({ ...form, password: event.target.value })}
          autoComplete="off"
        />
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      <button type="submit" className="w-full rounded bg-indigo-600 py-2 font-semibold text-white hover:bg-indigo-500">
        Load Barchart Widget
      </button>
    </form>
  );
}
