// For component tests of the live screen: jsdom has no EventSource, so FakeEventSource stands in
// for the browser's (one instance a connection opened, events sent with `emit` as the server's
// `event:` / `data:` frames), and withLive wraps a tree in the dashboard's LiveProvider.
import type { ReactNode } from 'react';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { LiveProvider } from './LiveProvider.tsx';

export class FakeEventSource extends EventTarget {
  /** Every stream opened since the last `reset()`, oldest first. */
  static opened: FakeEventSource[] = [];
  readyState = 0;
  closed = false;

  constructor(readonly url: string) {
    super();
    FakeEventSource.opened.push(this);
  }

  static reset() {
    FakeEventSource.opened = [];
  }

  /** The stream opened most recently (throws when none is). */
  static latest(): FakeEventSource {
    const latest = FakeEventSource.opened.at(-1);
    if (!latest) throw new Error('No live connection was opened');
    return latest;
  }

  /** The server sends one event (`data` as JSON). */
  emit(name: string, data: unknown) {
    if (name === 'hello') this.readyState = 1;
    this.dispatchEvent(new MessageEvent(name, { data: JSON.stringify(data) }));
  }

  close() {
    this.closed = true;
    this.readyState = 2;
  }
}

/** The symbols of a stream's URL (`/api/live?symbols=a,b`). */
export function urlSymbols(stream: FakeEventSource): string[] {
  const value = new URL(stream.url, 'http://localhost').searchParams.get('symbols');
  return value ? value.split(',') : [];
}

/** A tick as the server sends it (real time from Coinbase unless said otherwise). */
export function tickOf(symbol: string, price: number, extra: Partial<LiveTick> = {}): LiveTick {
  return { symbol, price, time: Date.now(), source: 'coinbase', delayMinutes: 0, bar: null, ...extra };
}

export function withLive(children: ReactNode) {
  return <LiveProvider>{children}</LiveProvider>;
}
