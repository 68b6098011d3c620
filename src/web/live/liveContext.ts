// The dashboard's live connection, for the hooks (null outside the dashboard: components then
// show their polled figures only).
import { createContext } from 'react';
import type { LiveConnection } from './liveConnection.ts';

export const LiveContext = createContext<LiveConnection | null>(null);
