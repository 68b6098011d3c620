import { describe, expect, it } from 'vitest';
import { coalesced } from './coalesce.ts';

/** A pass that waits until the test lets it finish, counting starts and overlaps. */
function gatedPass() {
  const state = { starts: 0, running: 0, maxRunning: 0, release: [] as (() => void)[] };
  const pass = async () => {
    state.starts += 1;
    state.running += 1;
    state.maxRunning = Math.max(state.maxRunning, state.running);
    await new Promise<void>((resolve) => state.release.push(resolve));
    state.running -= 1;
  };
  const releaseNext = async () => {
    while (state.release.length === 0) await new Promise((resolve) => setImmediate(resolve));
    state.release.shift()!();
  };
  return { state, pass, releaseNext };
}

describe('coalesced', () => {
  it('runs one pass at a time and one more for any number of calls made during a pass', async () => {
    const { state, pass, releaseNext } = gatedPass();
    const run = coalesced(pass);
    const first = run();
    const second = run();
    const third = run();
    expect(second).toBe(first);
    expect(third).toBe(first);
    await releaseNext();
    await releaseNext();
    await first;
    expect(state.starts).toBe(2);
    expect(state.maxRunning).toBe(1);
  });

  it('settles only after the pass a late caller asked for, and starts afresh afterwards', async () => {
    const { state, pass, releaseNext } = gatedPass();
    const run = coalesced(pass);
    let settled = false;
    const first = run().then(() => {
      settled = true;
    });
    void run();
    await releaseNext();
    // The first pass is done, but a caller asked during it: the promise waits for the second.
    while (state.starts < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await releaseNext();
    await first;
    expect(settled).toBe(true);
    const later = run();
    expect(later).not.toBe(first);
    await releaseNext();
    await later;
    expect(state.starts).toBe(3);
    expect(state.maxRunning).toBe(1);
  });

  it('starts nothing once stopped and ends the loop after the current pass', async () => {
    const { state, pass, releaseNext } = gatedPass();
    let stopped = false;
    const run = coalesced(pass, () => stopped);
    const first = run();
    void run();
    stopped = true;
    await releaseNext();
    await first;
    expect(state.starts).toBe(1);
    await run();
    expect(state.starts).toBe(1);
  });

  it('rejects when a pass throws, and the next call runs again', async () => {
    let calls = 0;
    const run = coalesced(async () => {
      calls += 1;
      if (calls === 1) throw new Error('boom');
    });
    await expect(run()).rejects.toThrow('boom');
    await expect(run()).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
