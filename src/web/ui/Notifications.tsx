// One app-wide, accessible notification area (role="alert") for docs/SPEC.md's alert texts, in
// place of window.alert: the text is announced, stays readable, and never blocks the page.
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

interface Notice {
  id: number;
  text: string;
}

const NotifyContext = createContext<((text: string) => void) | null>(null);
let nextId = 1;

export function NotificationsProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const dismiss = useCallback(
    (id: number) => setNotices((current) => current.filter((notice) => notice.id !== id)),
    [],
  );
  const notify = useCallback(
    (text: string) => {
      const id = nextId++;
      setNotices((current) => [...current.filter((notice) => notice.text !== text), { id, text }]);
      setTimeout(() => dismiss(id), 6000);
    },
    [dismiss],
  );
  const value = useMemo(() => notify, [notify]);
  return (
    <NotifyContext.Provider value={value}>
      {children}
      <div className="pointer-events-none fixed right-4 top-16 z-[11000] flex w-80 flex-col gap-2">
        {notices.map((notice) => (
          <div
            key={notice.id}
            role="alert"
            className="pointer-events-auto flex items-start gap-3 rounded-lg border border-amber-600 bg-gray-900 p-3 text-sm text-amber-100 shadow-xl"
          >
            <span className="flex-1">{notice.text}</span>
            <button
              type="button"
              aria-label="Dismiss"
              className="text-gray-400 hover:text-white"
              onClick={() => dismiss(notice.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </NotifyContext.Provider>
  );
}

export function useNotify(): (text: string) => void {
  const notify = useContext(NotifyContext);
  if (!notify) throw new Error('useNotify must be used inside <NotificationsProvider>');
  return notify;
}
