// The two third-party pages of the chart area (the spreadsheet platform and the demo trading
// platform): sandboxed iframes whose URLs the operator configures; a message for the trader
// (what to ask for, not which setting) when none is set, or when the page refuses to load in a
// frame. Their addresses are asked for the first time one of the two is opened (useEmbeds).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiFetch, schemaOnDemand } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/** The answer's schema, imported with the answer (the chart area is on the dashboard's first paint). */
const embedsResponse = schemaOnDemand(async () => (await import('../../../shared/schemas/embeds.ts')).embedsResponse);

/** The configured addresses; `enabled` false leaves the request for later (no panel needs them yet). */
export function useEmbeds(enabled = true) {
  return useQuery({
    queryKey: queryKeys.embeds,
    queryFn: () => apiFetch('/api/embeds', embedsResponse),
    staleTime: Infinity,
    enabled,
  });
}

export function EmbedPanel({
  title,
  url,
  missing,
  active,
  loading = false,
}: {
  title: string;
  url: string | null | undefined;
  /** The addresses are still being asked for: a loading box of the panel's size. */
  loading?: boolean;
  /** Shown when no address is configured: what the trader can do about it. */
  missing: string;
  active: boolean;
}) {
  const [loaded, setLoaded] = useState(false);
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (!active || !url || loaded) return;
    // A page that refuses framing never fires load: say so instead of showing a blank box.
    const timer = setTimeout(() => setSlow(true), 8000);
    return () => clearTimeout(timer);
  }, [active, url, loaded]);

  if (loading) {
    return (
      <div className="flex h-[650px] items-center justify-center rounded border border-dashed border-gray-700 p-6 text-center text-gray-400">
        <p>Loading...</p>
      </div>
    );
  }
  if (!url) {
    return (
      <div className="flex h-[650px] items-center justify-center rounded border border-dashed border-gray-700 p-6 text-center text-gray-400">
        <p>{missing}</p>
      </div>
    );
  }
  return (
    <div className="relative h-[650px]">
      {active && (
        <iframe
          title={title}
          src={url}
          className="h-full w-full rounded border-0 bg-white"
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
          referrerPolicy="no-referrer"
          onLoad={() => setLoaded(true)}
        />
      )}
      {slow && !loaded && (
        <p role="status" className="absolute inset-x-0 top-0 m-4 rounded bg-gray-900 p-3 text-sm text-amber-200">
          {title} has not loaded. The page may refuse to be shown inside another site;{' '}
          <a className="underline" href={url} target="_blank" rel="noreferrer">
            open it in a new tab
          </a>
          .
        </p>
      )}
    </div>
  );
}
