// A small "?" help bubble with its explanation on hover or focus; placement top (default),
// bottom, left or right; icon size 16 by default. Escape hides it while the pointer or focus
// stays (WCAG 1.4.13: dismissable without moving); leaving it and coming back shows it again.
import { useEffect, useId, useState, type ReactNode } from 'react';

const PLACEMENT = {
  top: 'bottom-full left-1/2 mb-2 -translate-x-1/2',
  bottom: 'top-full left-1/2 mt-2 -translate-x-1/2',
  left: 'right-full top-1/2 mr-2 -translate-y-1/2',
  right: 'left-full top-1/2 ml-2 -translate-y-1/2',
} as const;

export function HelpTooltip({
  children,
  placement = 'top',
  size = 16,
}: {
  children: ReactNode;
  placement?: keyof typeof PLACEMENT;
  size?: number;
}) {
  const id = useId();
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const shown = (hovered || focused) && !dismissed;

  // Only a shown bubble listens, so an Escape elsewhere is not taken from anyone.
  useEffect(() => {
    if (!shown) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setDismissed(true);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [shown]);

  const leave = (still: boolean) => {
    if (!still) setDismissed(false);
  };

  return (
    <span
      className="group relative inline-flex"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => {
        setHovered(false);
        leave(focused);
      }}
      onFocus={() => setFocused(true)}
      onBlur={() => {
        setFocused(false);
        leave(hovered);
      }}
    >
      <button
        type="button"
        aria-describedby={id}
        aria-label="Help"
        style={{ width: size, height: size, fontSize: size * 0.7 }}
        className="inline-flex items-center justify-center rounded-full border border-gray-500 font-bold text-gray-300 hover:border-indigo-400 hover:text-white"
      >
        ?
      </button>
      <span
        role="tooltip"
        id={id}
        data-placement={placement}
        className={`invisible absolute z-50 w-64 rounded bg-gray-800 p-2 text-xs text-gray-200 shadow-lg ${dismissed ? '' : 'group-focus-within:visible group-hover:visible'} ${PLACEMENT[placement]}`}
      >
        {children}
      </span>
    </span>
  );
}
