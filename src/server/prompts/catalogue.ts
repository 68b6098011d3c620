// The seeded prompt catalogue: ready-made analysis requests by category. {symbol} and
// {timeframe} are filled from the Prompt Catalog's selections; the options prompts work on
// the attached option chain instead.
import { OPTIONS_CATEGORY } from '../../shared/schemas/chat.ts';

export { OPTIONS_CATEGORY };

export interface CataloguePrompt {
  id: string;
  category: string;
  prompt: string;
  usesMarketContext: boolean;
}

const catalogue: Record<string, string[]> = {
  'Market Overview': [
    'Summarize the current market conditions for {symbol} on the {timeframe} chart: trend, momentum and volatility.',
    'What are the odds that {symbol} closes higher over the next bars on the {timeframe} timeframe? Show the WATOS signals behind the estimate.',
    'Compare {symbol} with BTC-USD and ETH-USD on the {timeframe} timeframe: which is showing relative strength right now?',
    "Summarize today's alerts for {symbol} and explain what they mean for a trader on the {timeframe} chart.",
    'Is {symbol} in a trending or a ranging regime on the {timeframe} timeframe? Explain how you measured it.',
    'Give me a pre-market briefing for {symbol}: key levels, recent alerts and the signals to watch on the {timeframe} chart.',
  ],
  'Technical Analysis': [
    'Identify the nearest support and resistance levels for {symbol} on the {timeframe} chart and how often price has respected them.',
    'Analyze the RSI of {symbol} on the {timeframe} timeframe: is there a bullish or bearish divergence with price?',
    'Where is {symbol} relative to its 50 and 200 period moving averages on the {timeframe} chart, and when did they last cross?',
    'Evaluate the Bollinger Bands of {symbol} on the {timeframe} chart: is volatility contracting ahead of a breakout?',
    'Has {symbol} had a volume surge on the {timeframe} timeframe recently? What happened to price after similar surges?',
    'Measure the momentum of {symbol} on the {timeframe} chart with rate of change and tell me whether it is accelerating or slowing down.',
    'Describe the swing highs and lows of {symbol} on the {timeframe} timeframe and what structure they form.',
  ],
  'Probability & Odds': [
    'What are the odds for {symbol}? Give the WATOS grid on the {timeframe} timeframe with sample sizes and confidence intervals.',
    'When the MA Crossover signal was active on {symbol} ({timeframe}), how often was price higher afterwards compared with the base rate?',
    'How reliable has the Support Test signal been for {symbol} on the {timeframe} chart? Include the number of past occurrences.',
    'Which WATOS signal currently has the strongest measured edge on {symbol} ({timeframe}), and how large is the sample behind it?',
    'After a Volatility Expansion on {symbol} ({timeframe}), how did the next bars behave historically?',
    'Estimate the probability of a breakout above the nearest resistance for {symbol} on the {timeframe} chart, and say how you estimated it.',
  ],
  'Risk Management': [
    'Suggest a stop-loss distance for {symbol} on the {timeframe} chart based on its average true range.',
    'How volatile is {symbol} on the {timeframe} timeframe compared with its own history? Should position size be reduced?',
    'What would a 2% account risk position look like for {symbol} with a stop at the nearest support on the {timeframe} chart?',
    'List the main risks for a long position in {symbol} right now on the {timeframe} timeframe, with the data behind each.',
    'Where would a long trade on {symbol} ({timeframe}) be invalidated, and what is the reward-to-risk to the nearest resistance?',
    'Is the spread on {symbol} wide enough right now to matter for a short-term trade?',
  ],
  'Crypto Analysis': [
    'Compare the spreads and prices of the major crypto assets right now and point out anything unusual, starting with {symbol}.',
    'Which crypto assets fired breakout alerts in the last hour, and how does {symbol} compare?',
    'Analyze the {timeframe} trend of {symbol} against the rest of the crypto market.',
    'Has {symbol} shown a volatility spike recently? How did the market behave after the last few spikes?',
    'Rank the crypto assets I can track by momentum on the {timeframe} timeframe and place {symbol} in that ranking.',
    'Give me a weekend risk check for {symbol}: volatility regime, nearby levels and recent alerts.',
  ],
  'Trade Planning': [
    'Build a trade plan for {symbol} on the {timeframe} chart: entry zone, stop, targets and what would change the plan.',
    'What conditions should I wait for before entering {symbol} on the {timeframe} timeframe, based on the current signals?',
    'Write a checklist for trading {symbol} today on the {timeframe} chart using the active WATOS signals.',
    'Review my idea to buy {symbol} on a pullback to support on the {timeframe} timeframe: what do the odds say?',
    'Plan an exit strategy for an open long position in {symbol} on the {timeframe} chart.',
  ],
  [OPTIONS_CATEGORY]: [
    'Analyze the attached option chain: put/call ratio by open interest and by volume, and what it says about positioning.',
    'Calculate the max pain strike from the attached option chain and explain how close the underlying is to it.',
    'Describe the implied volatility smile in the attached option chain: where is IV highest and what does the skew suggest?',
    'Which strikes in the attached option chain hold the most open interest, and could they act as support or resistance?',
    'Summarize unusual volume in the attached option chain compared with open interest, strike by strike.',
    'From the attached option chain, compare call and put open interest above and below the current price.',
  ],
};

export const PROMPT_CATALOGUE: CataloguePrompt[] = Object.entries(catalogue).flatMap(
  ([category, texts], categoryIndex) =>
    texts.map((prompt, index) => ({
      id: `p${categoryIndex + 1}-${String(index + 1).padStart(2, '0')}`,
      category,
      prompt,
      usesMarketContext: category !== OPTIONS_CATEGORY,
    })),
);
