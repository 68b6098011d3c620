// Copy of the three marketing pages, one audience each. Claims stay within what the product
// does: no invented performance figures.
import type { MarketingContent } from './MarketingPage.tsx';

export const aiTradingIntelligence: MarketingContent = {
  eyebrow: 'AI Trading Intelligence',
  title: 'Know the odds before you place the trade',
  lead: 'WATOS ("What Are The Odds?") measures how often a setup like today\'s has actually ended higher, shows the sample size behind every number, and lets an AI assistant explain it in plain words, next to your charts and your alerts.',
  sections: [
    {
      heading: 'Odds you can check',
      body: 'Six signals are computed from real candles: volume surge, price momentum, the 50/200 moving-average cross, RSI divergence, support tests and volatility expansion.',
      points: [
        'Each probability is measured over every past bar where the same signal held',
        'Sample size and a 95% confidence interval shown with every figure',
        'Too little history? It says so instead of guessing',
      ],
    },
    {
      heading: 'An assistant that cites its numbers',
      body: "Ask about a ticker, request a probability forecast or a summary of today's alerts. Answers are built from live quotes, candles and the alert log, never from made-up prices.",
      points: [
        'WATOS grids for any symbol',
        'A catalogue of ready-made prompts by timeframe and symbol',
        'Attach an option chain or trade log (CSV or Excel) for analysis',
      ],
    },
    {
      heading: 'Alerts that explain themselves',
      body: 'Four alert generators watch the market around the clock: volatility spikes, momentum shifts, breakouts and trend changes.',
      points: [
        'Colour-coded bullish, bearish and caution alerts',
        'Filter the market-wide log by type, symbol and time window',
        'Your own watchlist with its alerts beside the chart',
      ],
    },
    {
      heading: 'Charts from the sources you already use',
      body: 'Switch between a professional charting widget, an exchange market-data view, a Barchart widget with your own credentials, and your spreadsheet and demo-trading pages, without losing your place.',
      points: [
        'Watchlist-driven advanced chart',
        'Live exchange prices and spreads',
        'Every panel stays loaded while you switch',
      ],
    },
  ],
  steps: [
    'Create an account and confirm your e-mail address.',
    'Choose a plan: a one-day live test, three days of access, or monthly.',
    'Open the dashboard, add your symbols, and ask "What are the odds?"',
  ],
  callToAction: 'Get started',
};

export const cryptoAnalyticsAi: MarketingContent = {
  eyebrow: 'Crypto Analytics AI',
  title: 'Crypto markets never sleep. Neither do your alerts.',
  lead: 'Live prices, buy and sell quotes and spreads for 28 major crypto assets, an alert engine that runs 24/7, and an AI assistant that turns the noise into odds you can weigh.',
  sections: [
    {
      heading: 'Exchange prices and spreads',
      body: 'Spot, buy and sell prices with the spread for BTC, ETH, SOL, XRP and 24 more assets, refreshed every 30 seconds while you watch.',
      points: [
        'Market summary: assets tracked, successful and failed fetches',
        'Candlestick history per asset',
        'A clear label whenever data is demo data rather than live',
      ],
    },
    {
      heading: 'Round-the-clock alert engine',
      body: 'Volatility spikes, momentum shifts and slowdowns, breakouts through support and resistance, and bullish or bearish trend changes, logged with timestamps.',
      points: [
        'Filter by alert type, symbol, count and time range',
        'Bullish, bearish and caution at a glance',
        'New alerts arrive in your browser as they fire',
      ],
    },
    {
      heading: 'WATOS for every coin',
      body: 'Ask the assistant about any ticker and get a WATOS grid: which signals are active now and how often the price rose afterwards in the past.',
      points: [
        'Strength of each signal computed from the data',
        'Probability, sample size and confidence interval',
        'Compared with the base rate, so an edge is visible',
      ],
    },
    {
      heading: 'Your data, your analysis',
      body: 'Upload CSV or Excel exports from your exchange or portfolio tracker and ask the assistant about them.',
      points: [
        'Private files stay private to your account',
        'Public reference files shared by the team',
        'Sheet names from a linked Google spreadsheet',
      ],
    },
  ],
  steps: [
    'Sign up and verify your e-mail.',
    'Pick the plan that fits: try it for a day, for three days, or monthly.',
    'Open the exchange view, build a watchlist, and let the alerts come to you.',
  ],
  callToAction: 'Start with crypto',
};

export const futuresMicroFuturesAi: MarketingContent = {
  eyebrow: 'Futures & Micro-Futures AI',
  title: 'Sharper decisions for futures and micro-futures traders',
  lead: 'Micro contracts put futures within reach of smaller accounts, and make risk management matter even more. Combine professional charts, options analysis and measured odds in one workspace.',
  sections: [
    {
      heading: 'Professional charting',
      body: 'An advanced chart driven by your watchlist in EXCHANGE:SYMBOL form, with indicators, drawing tools, timeframes and symbol search.',
      points: [
        'Daily chart with a moving average out of the box',
        'Add and remove symbols; the chart follows',
        'Barchart widget with your own data-provider credentials',
      ],
    },
    {
      heading: 'Options and derivatives analysis',
      body: 'Attach an option chain export and ask the assistant to summarise open interest, implied volatility and the strikes that matter.',
      points: [
        'Ready-made prompts for options and derivatives',
        'CSV and Excel option chains',
        'Answers that show the figures they used',
      ],
    },
    {
      heading: 'Timeframes from 1 minute to 12 months',
      body: 'Scalp the open or plan the quarter: prompts and analysis work across 1m, 5m, 15m, 1h, 4h, 8h, 12h, daily, 3-day, weekly, monthly and yearly views.',
      points: [
        'Consistent signals across timeframes',
        'Volatility regimes made visible',
        'Support and resistance levels from swing points',
      ],
    },
    {
      heading: 'Risk first',
      body: 'Every probability comes with its sample size and a confidence interval, so you can size positions on evidence rather than hope.',
      points: [
        '"Not enough history" instead of a guess',
        'Calibration checked on held-out data',
        'No hidden assumptions, no invented numbers',
      ],
    },
  ],
  steps: [
    'Create your account and confirm your e-mail.',
    'Choose a plan; the monthly plan includes priority support and advanced analytics.',
    'Load your contracts into the watchlist and start asking for the odds.',
  ],
  callToAction: 'Trade futures with AI',
};
