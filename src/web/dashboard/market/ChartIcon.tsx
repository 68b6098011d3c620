// The "open a chart" icon: candlesticks (wick and body) rising, not a video camera.
export function ChartIcon({ className = 'h-4 w-4' }: { className?: string }) {
  return (
    <svg
      aria-hidden
      data-icon="chart"
      viewBox="0 0 24 24"
      className={className}
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
    >
      <path d="M5 4v16M12 2v18M19 6v14" />
      <rect x="3" y="11" width="4" height="6" rx="0.5" fill="currentColor" />
      <rect x="10" y="6" width="4" height="8" rx="0.5" />
      <rect x="17" y="8" width="4" height="5" rx="0.5" fill="currentColor" />
    </svg>
  );
}
