// The "Keyboard shortcuts" dialog (`?`, or the Account menu's "Keyboard shortcuts" on the
// dashboard), and the component that mounts the dashboard's shortcuts. A modal: focus moves to
// its close button, Tab stays inside, Escape, the close button or a click beside it closes
// it, and focus goes back to where it was. A press beside it is kept from the page, so the top
// bar's menu it may have been opened from stays open behind it and gets its focus back.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { OPEN_SHORTCUTS_EVENT } from './openShortcutsEvent.ts';
import { SHORTCUT_GROUPS } from './shortcuts.ts';
import { useDashboardShortcuts } from './useDashboardShortcuts.ts';

const FOCUSABLE = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeButton.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === 'Escape') {
      // Handled: the top bar's menu behind the dialog stays open.
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !dialog.current) return;
    const focusable = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (element) => !element.hasAttribute('disabled'),
    );
    const [head, tail] = [focusable[0], focusable.at(-1)];
    const outside = !dialog.current.contains(document.activeElement) || document.activeElement === dialog.current;
    if (event.shiftKey && (document.activeElement === head || outside)) {
      event.preventDefault();
      tail?.focus();
    } else if (!event.shiftKey && (document.activeElement === tail || outside)) {
      event.preventDefault();
      head?.focus();
    }
  }

  return (
    <div
      className="fixed inset-0 z-50 flex items-center justify-center bg-black/70 p-4"
      onPointerDown={(event) => event.stopPropagation()}
      onClick={onClose}
    >
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        // A click on its text keeps focus in the dialog, so Escape and Tab still reach it.
        tabIndex={-1}
        onKeyDown={onKeyDown}
        onClick={(event) => event.stopPropagation()}
        className="max-h-[85vh] w-full max-w-lg overflow-y-auto rounded-lg border border-gray-700 bg-gray-900 p-4 text-sm shadow-2xl outline-none"
        data-testid="shortcuts-dialog"
      >
        <div className="flex items-center gap-3">
          <h2 id={titleId} className="flex-1 text-base font-semibold text-white">
            Keyboard shortcuts
          </h2>
          <button
            ref={closeButton}
            type="button"
            aria-label="Close keyboard shortcuts"
            className="rounded px-2 text-xl leading-none text-gray-300 hover:text-white"
            onClick={onClose}
          >
            ×
          </button>
        </div>
        <p className="mt-1 text-xs text-gray-300">
          The dashboard-wide keys work whenever you are not typing in a field.
        </p>
        {SHORTCUT_GROUPS.map((group) => (
          <section key={group.title} className="mt-4">
            <h3 className="text-xs font-semibold tracking-wide text-gray-300 uppercase">{group.title}</h3>
            <dl className="mt-1 divide-y divide-gray-800">
              {group.shortcuts.map((shortcut) => (
                <div key={`${group.title}-${shortcut.label}`} className="flex items-baseline gap-3 py-1.5">
                  <dt className="w-28 shrink-0">
                    <span className="sr-only">{shortcut.label}</span>
                    <span aria-hidden="true" className="flex flex-wrap gap-1">
                      {shortcut.keys.map((key) => (
                        <kbd
                          key={key}
                          className="rounded border border-gray-600 bg-gray-800 px-1.5 py-0.5 font-mono text-xs text-white"
                        >
                          {key}
                        </kbd>
                      ))}
                    </span>
                  </dt>
                  <dd className="min-w-0 flex-1 text-gray-200">{shortcut.action}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </div>
  );
}

/**
 * The dashboard's shortcuts: `/` runs `onSearch` (the page brings the chart's symbol search
 * into view and focuses it), `?` or the window event OPEN_SHORTCUTS_EVENT opens the dialog.
 */
export function DashboardShortcuts({ onSearch }: { onSearch: () => void }) {
  const [open, setOpen] = useState(false);
  useDashboardShortcuts({ onSearch, onHelp: () => setOpen(true) });

  useEffect(() => {
    const show = () => setOpen(true);
    window.addEventListener(OPEN_SHORTCUTS_EVENT, show);
    return () => window.removeEventListener(OPEN_SHORTCUTS_EVENT, show);
  }, []);

  return open ? <ShortcutsDialog onClose={() => setOpen(false)} /> : null;
}
