// A dashboard panel whose code is fetched when it is first shown (a tab opened on a phone; at
// once on a wide screen), so the dashboard's first paint does not wait for the code of panels
// that are not on screen. The code must arrive within docs/SPEC.md's chunk load timeout
// (loadWithin); one that does not becomes a ChunkLoadError, shown by the route's ErrorPage with
// a retry. While it loads, the panel's place shows 'Loading...' in a box of the panel's size,
// so nothing below it moves when it arrives.
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { loadWithin } from '../../chunkLoad.ts';

export function lazyPanel<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  return lazy(() => loadWithin(load).then((component) => ({ default: component })));
}

export function PanelSuspense({ className, children }: { className: string; children: ReactNode }) {
  return (
    <Suspense
      fallback={
        <div
          className={`flex items-center justify-center rounded-lg bg-gray-900 text-sm text-gray-300 ${className}`}
          data-testid="panel-loading"
        >
          Loading...
        </div>
      }
    >
      {children}
    </Suspense>
  );
}
