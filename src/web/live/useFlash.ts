// The brief flash of a price that a tick moved: 'up' or 'down' for FLASH_MS after the tick, then
// null (the class that shows it is in styles.css). A tick at the same price does not flash.
import { useEffect, useState } from 'react';
import type { TickEntry } from './liveConnection.ts';

export const FLASH_MS = 600;

export function useFlash(entry: TickEntry | undefined): 'up' | 'down' | null {
  const [seen, setSeen] = useState(entry);
  const [flash, setFlash] = useState<{ direction: 'up' | 'down'; entry: TickEntry } | null>(null);
  // A new tick: adjusted while rendering (not in an effect), so the flash shows with the price.
  if (entry !== seen) {
    setSeen(entry);
    const previous = entry?.previousPrice ?? null;
    if (entry && previous !== null && entry.tick.price !== previous)
      setFlash({ direction: entry.tick.price > previous ? 'up' : 'down', entry });
  }
  useEffect(() => {
    if (!flash) return;
    const timer = setTimeout(() => setFlash(null), FLASH_MS);
    return () => clearTimeout(timer);
  }, [flash]);
  return flash?.direction ?? null;
}
