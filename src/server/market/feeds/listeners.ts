// What the streaming feeds (issue 34) share: their logger's shape, a listener set whose failing
// listener can never stop a feed, and the timer a feed schedules its work with (injectable, so
// tests drive it without sleeping).
export interface FeedLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export const SILENT_FEED_LOG: FeedLog = { info: () => undefined, warn: () => undefined };

/** Listeners of one kind of event: add returns its own removal; emit never throws. */
export function listenerSet<T>(log: FeedLog, what: string) {
  const listeners = new Set<(value: T) => void>();
  return {
    add: (listener: (value: T) => void): (() => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit: (value: T): void => {
      for (const listener of listeners) {
        try {
          listener(value);
        } catch (error) {
          // One consumer's bug must not stop the ticks every other consumer waits for.
          log.warn({ err: error }, `a ${what} listener threw`);
        }
      }
    },
    clear: (): void => {
      listeners.clear();
    },
  };
}

/** Runs `callback` every `everyMs` until the returned function is called. */
export type Scheduler = (callback: () => void, everyMs: number) => () => void;

/** setInterval, unref'd: a feed's timer alone never keeps the process alive. */
export const intervalScheduler: Scheduler = (callback, everyMs) => {
  const timer = setInterval(callback, everyMs);
  timer.unref();
  return () => clearInterval(timer);
};

/** A `ws` message's text (ws hands a Buffer, an ArrayBuffer or fragments). */
export function messageText(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
