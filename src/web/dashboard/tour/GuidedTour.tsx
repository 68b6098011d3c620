// The guided tour of the dashboard (react-joyride 3), started by the window event
// `startTour` (the top bar's 'Take Tour'). Continuous with progress and a skip button, no
// close button, scrolls to the first step; a step whose target is missing or hidden is
// skipped in the direction of travel; finishing or skipping resets to the first step. Tall
// panels are pointed at by their heading so the tooltip always has room beside it. docs/SPEC.md's
// eight steps come first; the alert rules panel (issue 16) is the ninth.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ACTIONS, EVENTS, Joyride, STATUS, type EventData, type Step } from 'react-joyride';
import { TOUR } from '../../../shared/constants.ts';

export const TOUR_STEPS: Step[] = [
  {
    target: '[data-tour="chart-area"]',
    title: 'Chart Analysis Hub',
    content:
      'Your charts live here. Switch between the professional chart, the Barchart widget, live exchange prices and your spreadsheet or demo-trading pages without losing your place.',
    skipBeacon: true,
    // The chart area is taller than most screens: a centred tooltip always fits.
    placement: 'center',
  },
  {
    target: '[data-tour="chart-switcher"]',
    title: 'Platform Switcher',
    content: 'Choose the chart source here. Every panel stays loaded, so switching back is instant.',
  },
  {
    target: '[data-tour="tradingview"]',
    title: 'Professional Charting',
    content: 'A full TradingView chart: real-time data, indicators, drawing tools, timeframes and symbol search.',
    placement: 'center',
  },
  {
    target: '[data-tour="watchlist"]',
    title: 'Watchlist Management',
    content:
      'Add symbols as EXCHANGE:SYMBOL, e.g. NASDAQ:AAPL, and remove them with the × button. The chart updates automatically, and the list is saved to your account.',
  },
  {
    target: '[data-tour="watchlist-alerts"] h2',
    title: 'Watchlist Alerts',
    content:
      'Alerts for your symbols: green is bullish, red bearish, yellow caution. Turn on audio to hear new alerts, or open a symbol’s chart with the video button.',
    placement: 'auto',
  },
  {
    target: '[data-tour="alert-log"] h2',
    title: 'Market Alert Log',
    content:
      'Every alert across the market with its timestamp, filterable by signal type, symbol, count and time window. New alerts arrive live.',
    placement: 'auto',
  },
  {
    target: '[data-tour="chat"] h2',
    title: 'AI Assistant',
    content:
      'Ask about market conditions, get an analysis per symbol, probability forecasts (What Are The Odds?) and summaries of the day’s alerts.',
    placement: 'auto',
  },
  {
    target: '[data-tour="prompt-catalog"] h2',
    title: 'Prompt Catalog & File Management',
    content:
      'Ready-made analysis prompts by category, timeframe and symbol. Below, My Stuff holds your CSV and spreadsheet files for AI analysis and your linked spreadsheet.',
    placement: 'auto',
  },
  // Issue 16 adds this step after docs/SPEC.md's eight, which keep their order and texts.
  {
    target: '[data-tour="alert-rules"] h2',
    title: 'Alert Rules',
    content:
      'Your own alerts on any symbol: price levels, percentage moves, indicators, built-in alerts or WATOS odds, delivered in the app, by e-mail, as push notifications or to your webhook. Create one here, with the bell on a watchlist symbol, or from a candle chart. Triggered alerts and every delivery are listed here too.',
    placement: 'auto',
  },
];

/** docs/SPEC.md: steps must be an array of objects each with a target. */
export function stepsAreValid(steps: unknown): steps is Step[] {
  return (
    Array.isArray(steps) &&
    steps.length > 0 &&
    steps.every(
      (step) => typeof step === 'object' && step !== null && 'target' in step && Boolean((step as Step).target),
    )
  );
}

function isMounted(selector: Step['target']): boolean {
  return typeof selector === 'string' ? document.querySelector(selector) !== null : selector !== null;
}

function isVisible(selector: Step['target']): boolean {
  const element = typeof selector === 'string' ? document.querySelector(selector) : null;
  if (!element) return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

export function GuidedTour({ steps = TOUR_STEPS }: { steps?: Step[] }) {
  const [run, setRun] = useState(false);
  const [stepIndex, setStepIndex] = useState(0);
  // The step being shown, readable inside event callbacks without waiting for a render.
  const shown = useRef(0);
  // We bring each target into view ourselves (joyride's animated scroll could leave a step
  // waiting for a scroll that never ended), with the offset docs/SPEC.md sets.
  const show = useCallback(
    (index: number) => {
      shown.current = index;
      const target = steps[index]?.target;
      const element = typeof target === 'string' ? document.querySelector(target) : null;
      if (element) {
        const top = element.getBoundingClientRect().top + window.scrollY - TOUR.scrollOffset;
        window.scrollTo({ top: Math.max(0, top), behavior: 'instant' });
      }
      setStepIndex(index);
    },
    [steps],
  );

  /** The next visible step from `from` going `direction`, or -1 when none is left. */
  const visibleFrom = useCallback(
    (from: number, direction: 1 | -1) => {
      for (let index = from; index >= 0 && index < steps.length; index += direction) {
        if (isVisible(steps[index].target)) return index;
        console.warn(isMounted(steps[index].target) ? 'Target not visible' : 'Target not mounted', steps[index].target);
      }
      return -1;
    },
    [steps],
  );

  useEffect(() => {
    const start = () => {
      if (!stepsAreValid(steps)) {
        console.warn('Steps are not valid');
        return;
      }
      const first = visibleFrom(0, 1);
      if (first === -1) return;
      show(first);
      setRun(true);
    };
    window.addEventListener('startTour', start);
    return () => window.removeEventListener('startTour', start);
  }, [steps, visibleFrom, show]);

  const onEvent = (data: EventData) => {
    const { action, index, status, type } = data;
    if (
      type === EVENTS.TOUR_END ||
      status === STATUS.FINISHED ||
      status === STATUS.SKIPPED ||
      action === ACTIONS.SKIP
    ) {
      setRun(false);
      show(0);
      return;
    }
    // Joyride can report the end of a step more than once; only the shown step moves on.
    if ((type === EVENTS.STEP_AFTER || type === EVENTS.TARGET_NOT_FOUND) && index === shown.current) {
      const direction = action === ACTIONS.PREV ? -1 : 1;
      const next = visibleFrom(index + direction, direction);
      if (next === -1) {
        if (direction === 1) {
          setRun(false);
          show(0);
        }
        return;
      }
      show(next);
    }
  };

  return (
    <Joyride
      steps={steps}
      run={run}
      stepIndex={stepIndex}
      continuous
      onEvent={onEvent}
      locale={{ back: 'Back', last: 'Finish', next: 'Next', skip: 'Skip tour' }}
      options={{
        buttons: ['back', 'primary', 'skip'],
        showProgress: true,
        zIndex: TOUR.zIndex,
        scrollOffset: TOUR.scrollOffset,
        primaryColor: TOUR.primaryColor,
        backgroundColor: TOUR.tooltipBackground,
        textColor: '#f9fafb',
        arrowColor: TOUR.tooltipBackground,
        dismissKeyAction: 'close',
        overlayClickAction: 'close',
        skipScroll: true,
      }}
    />
  );
}
