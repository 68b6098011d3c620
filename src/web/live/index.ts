// The live connection's public surface (issue 34): the provider the dashboard mounts once, and
// the hooks its features read ticks, states, alerts and rule firings with.
export { LiveProvider } from './LiveProvider.tsx';
export {
  useLiveAlerts,
  useLiveRuleFirings,
  useLiveState,
  useLiveTick,
  useLiveTickListener,
  useLiveTicks,
} from './hooks.ts';
export { LiveStateLabel } from './LiveStateLabel.tsx';
export { useFlash } from './useFlash.ts';
