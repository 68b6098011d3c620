// Mounts the tab's one live connection (liveConnection.ts) for the dashboard: opened once the
// components inside have registered their symbols (children's effects run first, so the first
// URL already names them), closed when the dashboard unmounts. An access that ended (sign-out
// elsewhere, the plan's end) re-reads the auth state, whose guard then shows login or plans.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { queryKeys } from '../api/queryKeys.ts';
import { LiveContext } from './liveContext.ts';
import { LiveConnection, type LiveSchemas } from './liveConnection.ts';

export function LiveProvider({
  children,
  schemas,
}: {
  children: ReactNode;
  /** Tests pass the schemas; the dashboard imports them on demand. */
  schemas?: () => Promise<LiveSchemas>;
}) {
  const queryClient = useQueryClient();
  const [connection] = useState(
    () =>
      new LiveConnection({
        schemas,
        onAccessEnded: () => void queryClient.invalidateQueries({ queryKey: queryKeys.me }),
      }),
  );
  useEffect(() => {
    void connection.start();
    return () => connection.stop();
  }, [connection]);
  return <LiveContext.Provider value={connection}>{children}</LiveContext.Provider>;
}
