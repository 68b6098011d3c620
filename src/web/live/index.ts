// The live connection's public surface (issue 34): the provider the dashboard mounts once, and
// the hooks its features read ticks, states, alerts and rule firings with.
export { LiveProvider } from './LiveProvider.tsx';
export {
  useLiveAlerts,
  useLiveRuleFirings,
  useLiveState,
  useLiveStatus,
  useLiveTick,
  useLiveTickListener,
  useLiveTicks,
} from './hooks.ts';
export type { LiveStatus, TickEntry } from './liveConnection.ts';
export { LiveStateLabel } from './LiveStateLabel.tsx';
export { FLASH_MS, useFlash } from './useFlash.ts';
