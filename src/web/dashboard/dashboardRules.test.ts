// Pure rules of the dashboard shell: watchlist input, the TradingView and Barchart widget
// settings of docs/SPEC.md, and the tour's step validation.
import { describe, expect, it } from 'vitest';
import { barchartWidgetOptions } from './chart/BarchartPanel.tsx';
import { tradingViewConfig } from './chart/TradingViewChart.tsx';
import { stepsAreValid, TOUR_STEPS } from './tour/GuidedTour.tsx';
import { checkChartSymbol } from './watchlist/useChartWatchlist.ts';

describe('checkChartSymbol', () => {
  const current = ['NASDAQ:AAPL'];
  it('trims and upper-cases', () => {
    expect(checkChartSymbol('  binance:solusdt ', current)).toEqual({ symbol: 'BINANCE:SOLUSDT' });
  });
  it('silently ignores empty input and duplicates', () => {
    expect(checkChartSymbol('   ', current)).toEqual({ ignored: true });
    expect(checkChartSymbol('nasdaq:aapl', current)).toEqual({ ignored: true });
  });
  it('asks for EXCHANGE:SYMBOL with the exact docs/SPEC.md text', () => {
    expect(checkChartSymbol('TSLA', current)).toEqual({
      alert: 'Please use format EXCHANGE:SYMBOL (e.g., NASDAQ:AAPL)',
    });
  });
});

describe('widget settings', () => {
  it('builds the advanced chart from the watchlist with docs/SPEC.md settings', () => {
    const config = tradingViewConfig(['NASDAQ:MSFT', 'BINANCE:BTCUSDT']);
    expect(config).toMatchObject({
      symbol: 'NASDAQ:MSFT',
      watchlist: ['BINANCE:BTCUSDT'],
      interval: 'D',
      timezone: 'Etc/UTC',
      theme: 'dark',
      height: 650,
      studies: ['STD;SMA'],
      details: true,
      hotlist: true,
      calendar: false,
      allow_symbol_change: true,
    });
  });

  it('creates the Barchart widget for MSFT with docs/SPEC.md settings, credentials optional', () => {
    expect(barchartWidgetOptions({ apiKey: 'k', username: '', password: '' })).toEqual({
      apiKey: 'k',
      username: undefined,
      password: undefined,
      symbol: 'MSFT',
      aggregation: 8,
      theme: 'dark',
      style: 8,
      mainToolbar: true,
      sideToolbar: false,
      footToolbar: false,
      studies: [],
    });
  });
});

describe('tour steps', () => {
  it("has docs/SPEC.md's eight steps in order, then the alert rules step (issue 16); the first without a beacon", () => {
    expect(TOUR_STEPS.map((step) => step.title)).toEqual([
      'Chart Analysis Hub',
      'Platform Switcher',
      'Professional Charting',
      'Watchlist Management',
      'Watchlist Alerts',
      'Market Alert Log',
      'AI Assistant',
      'Prompt Catalog & File Management',
      'Alert Rules',
    ]);
    expect(TOUR_STEPS[8]!.target).toBe('[data-tour="alert-rules"] h2');
    expect(stepsAreValid(TOUR_STEPS)).toBe(true);
    expect(TOUR_STEPS[0]!.skipBeacon).toBe(true);
  });
  it('refuses steps that are not an array of objects with a target', () => {
    expect(stepsAreValid('steps')).toBe(false);
    expect(stepsAreValid([])).toBe(false);
    expect(stepsAreValid([{ content: 'no target' }])).toBe(false);
    expect(stepsAreValid([null])).toBe(false);
  });
});
