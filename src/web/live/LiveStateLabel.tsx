// The small label a watchlist row, the own chart and a WATOS card carry for their live price:
// Live, Delayed N min, Demo or Stale (src/shared/live.ts decides which).
import { liveStateLabel } from '../../shared/live.ts';
import type { LiveState } from '../../shared/schemas/live.ts';

const STYLES: Record<LiveState['kind'], string> = {
  live: 'bg-green-500/20 text-green-300',
  delayed: 'bg-sky-500/20 text-sky-300',
  demo: 'bg-amber-500/20 text-amber-300',
  stale: 'bg-gray-600/40 text-gray-300',
};

function title(state: LiveState): string {
  switch (state.kind) {
    case 'live':
      return 'Real-time price, updating with each trade';
    case 'delayed':
      return `Updating live, ${state.minutes} minutes behind the exchange`;
    case 'demo':
      return 'Simulated prices from the demo feed';
    case 'stale':
      return `No new price since ${new Date(state.since).toLocaleTimeString()} although the market is open`;
  }
}

export function LiveStateLabel({ state, className = '' }: { state: LiveState; className?: string }) {
  return (
    <span
      className={`rounded px-1 text-[10px] leading-3.5 font-semibold whitespace-nowrap ${STYLES[state.kind]} ${className}`}
      title={title(state)}
      data-testid="live-state"
      data-live-state={state.kind}
    >
      {liveStateLabel(state)}
    </span>
  );
}
