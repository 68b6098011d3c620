// The dashboard's page-wide keys: `/` and `?` (see shortcuts.ts for when a key press counts).
// The key press is taken (preventDefault), so the `/` that moved focus into the symbol search
// is not also typed into it.
import { useEffect, useRef } from 'react';
import { pageShortcut } from './shortcuts.ts';

export function useDashboardShortcuts(handlers: { onSearch: () => void; onHelp: () => void }) {
  // The newest handlers, without re-subscribing on every render.
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const shortcut = pageShortcut(event);
      if (!shortcut) return;
      event.preventDefault();
      if (shortcut === 'search') latest.current.onSearch();
      else latest.current.onHelp();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}
