// The landing's boot script (landing.html's one inline script): it asks for the entry and its
// chunks only after the first frame (at once in a hidden tab), from its own data attributes.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { LANDING_BOOT_SCRIPT, landingBootTag } from '../../shared/landingBoot.ts';

interface FakeElement {
  tag: string;
  attributes: Record<string, string>;
  [property: string]: unknown;
}

function run(visibilityState: 'visible' | 'hidden', attributes: Record<string, string>) {
  const appended: FakeElement[] = [];
  const frames: Array<() => void> = [];
  const timers: Array<() => void> = [];
  const current = { getAttribute: (name: string) => attributes[name] ?? null };
  const document = {
    visibilityState,
    currentScript: current,
    head: { appendChild: (element: FakeElement) => appended.push(element) },
    createElement: (tag: string): FakeElement => ({ tag, attributes: {} }),
  };
  // The script reads only these globals.
  runInNewContext(LANDING_BOOT_SCRIPT, {
    document,
    requestAnimationFrame: (callback: () => void) => frames.push(callback),
    setTimeout: (callback: () => void) => timers.push(callback),
  });
  return { appended, frames, timers };
}

const ATTRIBUTES = { 'data-entry': '/assets/index-a.js', 'data-preload': '/assets/runtime-b.js /assets/landing-c.js' };

describe('the landing boot script', () => {
  it('asks for the modules only after the next frame has been painted', () => {
    const { appended, frames, timers } = run('visible', ATTRIBUTES);
    expect(appended).toEqual([]);
    expect(frames).toHaveLength(1);
    frames[0]();
    // Still nothing: the frame's callbacks run before its paint, the timer after it.
    expect(appended).toEqual([]);
    expect(timers).toHaveLength(1);
    timers[0]();
    expect(appended.map((element) => [element.tag, element.rel ?? element.type, element.href ?? element.src])).toEqual([
      ['link', 'modulepreload', '/assets/runtime-b.js'],
      ['link', 'modulepreload', '/assets/landing-c.js'],
      ['script', 'module', '/assets/index-a.js'],
    ]);
    expect(appended.every((element) => element.crossOrigin === '')).toBe(true);
  });

  it('asks at once in a hidden tab (no frames there), and with no chunks to preload', () => {
    const { appended, frames } = run('hidden', { 'data-entry': '/assets/index-a.js', 'data-preload': '' });
    expect(frames).toEqual([]);
    expect(appended.map((element) => [element.tag, element.src])).toEqual([['script', '/assets/index-a.js']]);
  });

  it('is one tag with the addresses as attributes and the same text in every build', () => {
    const tag = landingBootTag('/assets/index-a.js', ['/assets/runtime-b.js', '/assets/landing-c.js']);
    expect(tag).toBe(
      `<script data-entry="/assets/index-a.js" data-preload="/assets/runtime-b.js /assets/landing-c.js">${LANDING_BOOT_SCRIPT}</script>`,
    );
    expect(LANDING_BOOT_SCRIPT).not.toContain('</');
  });
});
