// One pass at a time, and none lost: the shape shared by work that many triggers ask for
// (a notice, a timer, a caller waiting for its own write) but that must never run twice at
// once, such as reading the newest alerts or re-checking every open stream's access.

/**
 * Wraps `pass` so that at most one runs at a time. A call while a pass runs does not start a
 * second one: it asks for one more pass after the current one (which may have started too
 * early to see what the caller waits for) and returns the running promise, which settles
 * when no further pass is asked for. Calls after `stopped()` turns true start nothing, and a
 * stop ends the loop after the current pass. A pass that throws ends the loop and rejects
 * the promise; the next call starts afresh.
 */
export function coalesced(pass: () => Promise<void>, stopped: () => boolean = () => false): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (stopped()) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !stopped());
    })().finally(() => {
      running = null;
    });
    return running;
  };
}
