// The boot script (the one inline script of landing.html and the dashboard's HTML,
// src/shared/bootScript.ts): it
// asks for the entry and its chunks only once the first paint is on screen (at once in a hidden
// tab), from its own data attributes.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BOOT_SCRIPT, bootScriptTag, withBootScript } from '../../shared/bootScript.ts';

interface FakeElement {
  tag: string;
  [property: string]: unknown;
}
type PaintCallback = (list: { getEntriesByName(name: string): unknown[] }, observer: { disconnect(): void }) => void;

function run(options: { hidden?: boolean; paintTiming?: boolean; preload?: string }) {
  const appended: FakeElement[] = [];
  const frames: Array<() => void> = [];
  const timers: Array<{ callback: () => void; delay: number }> = [];
  const observers: Array<{ callback: PaintCallback; type?: string; disconnected: boolean }> = [];
  const attributes: Record<string, string> = {
    'data-entry': '/assets/index-a.js',
    'data-preload': options.preload ?? '/assets/runtime-b.js /assets/landing-c.js',
  };
  class FakeObserver {
    static supportedEntryTypes = ['paint', 'largest-contentful-paint'];
    record: (typeof observers)[number];
    constructor(callback: PaintCallback) {
      this.record = { callback, disconnected: false };
      observers.push(this.record);
    }
    observe({ type }: { type: string }) {
      this.record.type = type;
    }
    disconnect() {
      this.record.disconnected = true;
    }
  }
  type Listener = (event: { preventDefault(): void; target: unknown }) => void;
  const submitListeners: Array<{ listener: Listener; capture: boolean }> = [];
  const clickListeners: Array<{ listener: Listener; capture: boolean }> = [];
  const buttons = ['tab', 'plan'].map((name) => new FakeButton(name));
  const htmlAttributes = new Set<string>();
  // The script reads only these globals.
  runInNewContext(BOOT_SCRIPT, {
    window: options.paintTiming ? { PerformanceObserver: FakeObserver } : {},
    document: {
      visibilityState: options.hidden ? 'hidden' : 'visible',
      currentScript: { getAttribute: (name: string) => attributes[name] ?? null },
      head: { appendChild: (element: FakeElement) => appended.push(element) },
      createElement: (tag: string): FakeElement => ({ tag }),
      documentElement: { hasAttribute: (name: string) => htmlAttributes.has(name) },
      addEventListener: (
        type: string,
        listener: (event: { preventDefault(): void; target: unknown }) => void,
        capture: boolean,
      ) => {
        if (type === 'submit') submitListeners.push({ listener, capture });
        if (type === 'click') clickListeners.push({ listener, capture });
      },
      querySelector: (selector: string) =>
        selector === '[data-early-click]'
          ? (buttons.find((button) => button.attributes.has('data-early-click')) ?? null)
          : null,
    },
    requestAnimationFrame: (callback: () => void) => frames.push(callback),
    setTimeout: (callback: () => void, delay: number) => timers.push({ callback, delay }),
  });
  const paint = (names: string[]) => {
    const observer = observers[0]!;
    observer.callback(
      { getEntriesByName: (name) => names.filter((entry) => entry === name) },
      { disconnect: () => (observer.disconnected = true) },
    );
  };
  const loads = () =>
    appended.map((element) => [element.tag, element.rel ?? element.type, element.href ?? element.src]);
  /** Dispatches a submit event through the script's listeners; true when one prevented it. */
  const submit = () => {
    let prevented = false;
    for (const { listener } of submitListeners) listener({ preventDefault: () => (prevented = true), target: null });
    return prevented;
  };
  /** Clicks `target` (a button, or something outside any button) through the script's listeners. */
  const click = (target: unknown) => {
    for (const { listener } of clickListeners) listener({ preventDefault: () => undefined, target });
  };
  /** The buttons marked as clicked before hydration. */
  const marked = () => buttons.filter((button) => button.attributes.has('data-early-click')).map(({ name }) => name);
  return {
    appended,
    frames,
    timers,
    observers,
    paint,
    loads,
    submitListeners,
    clickListeners,
    htmlAttributes,
    submit,
    buttons,
    click,
    marked,
  };
}

/** A button in the page, with the attributes the script sets. */
class FakeButton {
  attributes = new Set<string>();
  constructor(readonly name: string) {}
  closest(selector: string) {
    return selector === 'button' ? this : null;
  }
  setAttribute(name: string) {
    this.attributes.add(name);
  }
  removeAttribute(name: string) {
    this.attributes.delete(name);
  }
}

const ALL_MODULES = [
  ['link', 'modulepreload', '/assets/runtime-b.js'],
  ['link', 'modulepreload', '/assets/landing-c.js'],
  ['script', 'module', '/assets/index-a.js'],
];

describe('the landing boot script', () => {
  it('asks for the modules once the first contentful paint is reported, once', () => {
    const boot = run({ paintTiming: true });
    expect(boot.observers.map((observer) => observer.type)).toEqual(['paint']);
    boot.paint(['first-paint']);
    expect(boot.appended).toEqual([]);
    boot.paint(['first-paint', 'first-contentful-paint']);
    expect(boot.loads()).toEqual(ALL_MODULES);
    expect(boot.appended.every((element) => element.crossOrigin === '')).toBe(true);
    expect(boot.observers[0]!.disconnected).toBe(true);
    // The fallback, a second after the first frame, does not ask again.
    boot.frames[0]!();
    boot.timers[0]!.callback();
    expect(boot.timers[1]!.delay).toBe(1000);
    boot.timers[1]!.callback();
    expect(boot.appended).toHaveLength(3);
  });

  it('asks a second after the first frame at the latest when no paint is reported', () => {
    const boot = run({ paintTiming: true });
    boot.frames[0]!();
    boot.timers[0]!.callback();
    expect(boot.appended).toEqual([]);
    boot.timers[1]!.callback();
    expect(boot.loads()).toEqual(ALL_MODULES);
  });

  it('without paint timing, asks after the next frame has been painted', () => {
    const boot = run({});
    expect(boot.appended).toEqual([]);
    expect(boot.frames).toHaveLength(1);
    boot.frames[0]!();
    // Still nothing: the frame's callbacks run before its paint, the timer after it.
    expect(boot.appended).toEqual([]);
    boot.timers[0]!.callback();
    expect(boot.loads()).toEqual(ALL_MODULES);
  });

  it('asks at once in a hidden tab (no frames there), and with no chunks to preload', () => {
    const boot = run({ hidden: true, paintTiming: true, preload: '' });
    expect(boot.frames).toEqual([]);
    expect(boot.observers).toEqual([]);
    expect(boot.loads()).toEqual([['script', 'module', '/assets/index-a.js']]);
  });

  it('holds back form submissions, in the capture phase, until the page says it is hydrated', () => {
    const boot = run({ paintTiming: true });
    expect(boot.submitListeners).toHaveLength(1);
    expect(boot.submitListeners[0]!.capture).toBe(true);
    expect(boot.submit()).toBe(true);
    boot.htmlAttributes.add('data-hydrated');
    expect(boot.submit()).toBe(false);
  });

  it('marks the last button clicked before hydration (in the capture phase), and none after', () => {
    const boot = run({ paintTiming: true });
    expect(boot.clickListeners.map(({ capture }) => capture)).toEqual([true]);
    const [tab, plan] = boot.buttons;
    boot.click({ closest: () => null });
    boot.click(null);
    expect(boot.marked()).toEqual([]);
    boot.click(tab);
    expect(boot.marked()).toEqual(['tab']);
    // Only the last click counts.
    boot.click(plan);
    expect(boot.marked()).toEqual(['plan']);
    boot.htmlAttributes.add('data-hydrated');
    boot.click(tab);
    expect(boot.marked()).toEqual(['plan']);
  });

  it('is one tag with the addresses as attributes and the same text in every build', () => {
    const tag = bootScriptTag('/assets/index-a.js', ['/assets/runtime-b.js', '/assets/landing-c.js']);
    expect(tag).toBe(
      `<script data-entry="/assets/index-a.js" data-preload="/assets/runtime-b.js /assets/landing-c.js">${BOOT_SCRIPT}</script>`,
    );
    expect(BOOT_SCRIPT).not.toContain('</');
  });

  it("replaces a page's module script and modulepreload links with itself, keeping their order", () => {
    const html = [
      '<head>',
      '    <script type="module" crossorigin src="/assets/index-a.js"></script>',
      '    <link rel="modulepreload" crossorigin href="/assets/runtime-b.js">',
      '    <link rel="stylesheet" crossorigin href="/assets/index-d.css">',
      '    <link rel="modulepreload" crossorigin href="/assets/landing-c.js">',
      '</head>',
    ].join('\n');
    expect(withBootScript(html)).toBe(
      [
        '<head>',
        `    ${bootScriptTag('/assets/index-a.js', ['/assets/runtime-b.js', '/assets/landing-c.js'])}`,
        '    <link rel="stylesheet" crossorigin href="/assets/index-d.css">',
        '</head>',
      ].join('\n'),
    );
    expect(() => withBootScript('<head></head>')).toThrow("expected one module script in the page's HTML, found 0");
    const twice =
      '<script type="module" crossorigin src="/a.js"></script><script type="module" crossorigin src="/b.js"></script>';
    expect(() => withBootScript(twice)).toThrow('found 2');
  });
});
