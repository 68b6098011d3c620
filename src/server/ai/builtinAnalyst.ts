// The built-in analyst: the default assistant, no network and no model. It reads the
// trader's message for the common requests (WATOS / odds for a ticker, price and trend,
// compare symbols, today's alerts, the watchlist, the attached file), answers in Markdown
// built only from the tools' real numbers, and says plainly what it cannot do. Each section's
// heading streams at once and its body as soon as its tools answer, in small pieces, as an
// AI SDK UI message stream like the LLM's.
import { randomUUID } from 'node:crypto';
import type { UIMessageChunk } from 'ai';
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import { formatPrice } from '../../shared/format.ts';
import type { WatosCard } from '../../shared/schemas/chat.ts';
import type { Assistant, AssistantRequest } from './assistant.ts';
import { streamPieces } from './assistant.ts';
import type { ChainAnalysis, ColumnProfile, FileAnalysis, TableAnalysis } from '../files/service.ts';
import { mentionedSymbols, mentionedTimeframe } from './symbols.ts';
import { alertTypeFromText, isToolError, type AlertsFact, type AssistantTools } from './tools.ts';
import { describeScan, scanFromText, SCAN_WORDS } from './scanTool.ts';
import { asAnalysisTimeframe, noMarketData, type AnalysisTimeframe, type CandleSummary } from '../analysis/service.ts';
import { SYMBOL_TABLE } from '../../shared/symbols.ts';
import { symbolById, tickerOf } from '../../shared/tickers.ts';
import type { MarketSource } from '../market/service.ts';
import type { TrackRecordCitation } from '../forecasts/service.ts';
import { describeStudy, parseStudyQuestion } from './studyTool.ts';

const DISCLAIMER = '_Historical measurements on this data, not a forecast. Nothing here is financial advice._';
const DEMO_NOTE =
  '> **Demo data:** these figures come from the built-in demo feed (a simulated market), not from a live exchange.';
const DELAYED_NOTE =
  '> **Delayed:** stock, ETF, index and futures figures come from Yahoo Finance, delayed where the exchange delays them (CME futures by 10 minutes).';

/** The labels a set of figures needs: demo data and delayed data are always said so. */
function sourceNotes(sources: readonly MarketSource[]): string[] {
  const notes: string[] = [];
  if (sources.includes('demo')) notes.push(DEMO_NOTE, '');
  if (sources.includes('yahoo')) notes.push(DELAYED_NOTE, '');
  return notes;
}

interface Section {
  heading: string;
  body: () => Promise<string>;
}

// ---- number formats: every figure printed comes from a tool --------------------------------

const usd = (value: number) => `$${formatPrice(value)}`;
/**
 * A price in its own unit: dollars for crypto, stocks and ETFs; points for indices and futures
 * (MES 6,012.25 is index points, not dollars).
 */
function priceOf(productId: string): (value: number) => string {
  const assetClass = symbolById(productId)?.assetClass ?? 'crypto';
  return assetClass === 'crypto' || assetClass === 'stock' || assetClass === 'etf'
    ? usd
    : (value) => formatPrice(value);
}
const signed = (value: number, digits = 2) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}%`;
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const count = (value: number) => value.toLocaleString('en-US');
const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const number = (value: number) =>
  Math.abs(value) >= 1000
    ? value.toLocaleString('en-US', { maximumFractionDigits: 2 })
    : Number(value.toPrecision(6)).toString();
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function interval(range: [number, number] | null): string {
  return range ? `95% CI ${(range[0] * 100).toFixed(1)}–${(range[1] * 100).toFixed(1)}%` : '';
}

function failure(error: unknown): string {
  if (isToolError(error)) return `> ${error.message}`;
  throw error;
}

// ---- sections --------------------------------------------------------------------------------

function oddsSection(
  tools: AssistantTools,
  productId: string,
  timeframe: AnalysisTimeframe,
  note: string | null,
): Section {
  return {
    heading: `## ${productId}: What Are The Odds? (WATOS, ${timeframe})\n\n`,
    body: async () => {
      try {
        const card = await tools.watos(productId, timeframe, 'answer');
        return describeOdds(card, note) + describeTrackRecord(await tools.trackRecord(card));
      } catch (error) {
        return failure(error);
      }
    },
  };
}

/** The track record of the stated signals (issue 20), one line each, after the odds. */
function describeTrackRecord(citations: readonly TrackRecordCitation[]): string {
  if (citations.length === 0) return '';
  return ['**Track record:**', ...citations.map((entry) => `- ${entry.text}.`), ''].join('\n') + '\n';
}

function describeOdds(card: Extract<WatosCard, { available: true }>, note: string | null = null): string {
  const lines: string[] = [...sourceNotes([card.source])];
  const usd = priceOf(card.productId);
  if (note) lines.push(`> ${note}`, '');
  const horizon = `${card.horizonBars} bar${card.horizonBars === 1 ? '' : 's'}`;
  lines.push(
    `Last close **${usd(card.lastClose)}** (${card.timeframe} bar opening ${utc(card.lastBarTime)}), measured over **${count(card.bars)}** ${card.timeframe} bars.`,
    '',
  );
  const base = card.baseRate;
  lines.push(
    base.probability === null || base.raw === null
      ? `**Base rate:** not enough history (${count(base.samples)} bars).`
      : `**Base rate:** the close was higher ${horizon} later on **${percent(base.raw)}** of ${count(base.samples)} bars ` +
          `(about ${count(Math.round(base.effectiveSamples))} independent outcomes, as the horizons overlap); ` +
          `calibrated **${percent(base.probability)}** (${interval(base.interval)}).`,
    '',
    `| Signal | State | Odds of a higher close ${horizon} later |`,
    '|---|---|---|',
  );
  for (const signal of card.signals) {
    const odds = !signal.odds
      ? '–'
      : signal.odds.probability === null || signal.odds.raw === null
        ? `not enough history (${count(signal.odds.samples)} bars)`
        : `**${percent(signal.odds.probability)}**, measured ${percent(signal.odds.raw)} of ${count(signal.odds.samples)} bars (${interval(signal.odds.interval)})` +
          (signal.odds.noEdge ? ', no measurable edge' : '');
    lines.push(
      `| ${signal.name} | ${signal.active ? `**${signal.direction}**, ${signal.strength}` : 'inactive'} | ${odds} |`,
    );
  }
  lines.push('');
  const active = card.signals.filter((signal) => signal.active);
  if (active.length === 0) {
    lines.push(
      `**Reading:** no WATOS signal is active on the latest bar; the base rate is the only measured reference.`,
    );
  } else {
    lines.push(`**Reading:** ${active.length} of 6 signals active.`);
    for (const signal of active) {
      const odds = signal.odds;
      lines.push(`- **${signal.name}** (${signal.direction}, ${signal.strength}): ${signal.description}.`);
      if (!odds || odds.probability === null || odds.raw === null || base.probability === null) {
        lines.push(
          `  Not enough history (${count(odds?.samples ?? 0)} past bars in this state, fewer than 30), so no number is given.`,
        );
      } else if (!odds.noEdge) {
        const above = odds.probability > base.probability;
        // A bullish signal is borne out by more higher closes than usual, a bearish one by fewer.
        const agrees = above === (signal.direction === 'bullish');
        lines.push(
          `  ${percent(odds.probability)} (measured ${percent(odds.raw)} of ${count(odds.samples)} bars) against a ${percent(base.probability)} base rate, ${above ? 'above' : 'below'} it beyond the 95% interval: ` +
            (agrees
              ? 'a measurable edge in the signal’s direction on this history.'
              : 'on this history the signal was followed by the opposite of what it suggests.'),
        );
      } else {
        lines.push(
          `  Measured ${percent(odds.raw)} of ${count(odds.samples)} bars, but the 95% interval (${percent(odds.interval![0])}–${percent(odds.interval![1])}) includes the ${percent(base.probability)} base rate: ` +
            `no measurable edge, so the odds stated are the base rate, ${percent(odds.probability)} (n=${count(odds.samples)}).`,
        );
      }
    }
  }
  lines.push('', DISCLAIMER, '');
  return lines.join('\n');
}

function rsiWord(value: number): string {
  return value >= 70 ? 'overbought (≥ 70)' : value <= 30 ? 'oversold (≤ 30)' : 'neutral (30–70)';
}

function trendText(summary: CandleSummary): string {
  const usd = priceOf(summary.productId);
  const { sma50, sma200 } = summary.sma;
  if (summary.trend === null || sma50 === null || sma200 === null) {
    return summary.sma.sma20 !== null
      ? `not enough bars for SMA 50/200; close ${signed((summary.lastClose / summary.sma.sma20 - 1) * 100)} from SMA 20 (${usd(summary.sma.sma20)})`
      : 'not enough bars to measure';
  }
  const against = (value: number) => `${signed((summary.lastClose / value - 1) * 100)} from`;
  return `**${summary.trend}**: close ${against(sma50)} SMA 50 (${usd(sma50)}), SMA 50 ${sma50 > sma200 ? 'above' : 'below'} SMA 200 (${usd(sma200)})`;
}

function describeSummary(
  summary: CandleSummary,
  quote: { spot: number; buy: number; sell: number; spreadPercent: number; at: string } | null,
  withRisk: boolean,
): string {
  const lines: string[] = [...sourceNotes([summary.source])];
  const usd = priceOf(summary.productId);
  lines.push('| Measure | Value |', '|---|---|');
  if (quote) {
    lines.push(
      `| Price | **${usd(quote.spot)}** spot · buy ${usd(quote.buy)} · sell ${usd(quote.sell)} · spread ${quote.spreadPercent.toFixed(4)}% (${utc(quote.at)}) |`,
    );
  }
  lines.push(`| Last close | ${usd(summary.lastClose)} (${summary.timeframe} bar closing ${utc(summary.to)}) |`);
  if (summary.changes.length)
    lines.push(
      `| Change | ${summary.changes.map((change) => `${change.period} ${signed(change.percent)}`).join(' · ')} |`,
    );
  if (summary.range24h) lines.push(`| 24h range | ${usd(summary.range24h.low)} – ${usd(summary.range24h.high)} |`);
  lines.push(
    `| Range of the ${count(summary.bars)} bars loaded | ${usd(summary.rangeAll.low)} – ${usd(summary.rangeAll.high)} (since ${utc(summary.from)}) |`,
  );
  lines.push(`| Trend | ${trendText(summary)} |`);
  if (summary.rsi14 !== null)
    lines.push(`| Momentum | RSI(14) ${summary.rsi14.toFixed(1)}, ${rsiWord(summary.rsi14)} |`);
  if (summary.atr14 !== null && summary.atrPercent !== null) {
    const regime =
      summary.atrRatio === null
        ? ''
        : `, ${summary.atrRatio.toFixed(2)}x its 50-bar average (${summary.atrRatio >= 1.3 ? 'expanding' : summary.atrRatio <= 0.8 ? 'contracting' : 'normal'})`;
    lines.push(`| Volatility | ATR(14) ${usd(summary.atr14)} = ${summary.atrPercent.toFixed(2)}% of price${regime} |`);
  }
  if (summary.volumeZ !== null)
    lines.push(`| Volume | last bar ${summary.volumeZ.toFixed(1)}σ from its 20-bar average |`);
  const level = (entry: { price: number; touches: number } | null, word: string) =>
    entry
      ? `| ${word} | ${usd(entry.price)} (${entry.touches} swing touch${entry.touches === 1 ? '' : 'es'}, ${signed((entry.price / summary.lastClose - 1) * 100)} from the close) |`
      : `| ${word} | none in the last 200 bars |`;
  lines.push(level(summary.support, 'Nearest support'), level(summary.resistance, 'Nearest resistance'));
  lines.push('');
  if (withRisk && summary.atr14 !== null) {
    const stop = summary.atr14 * 1.5;
    const pointValue = symbolById(summary.productId)?.pointValue;
    lines.push(
      `**Stop distance at 1.5 × ATR(14):** ${usd(stop)} (${((stop / summary.lastClose) * 100).toFixed(2)}% of price): a long stop near ${usd(summary.lastClose - stop)}, a short stop near ${usd(summary.lastClose + stop)}. ` +
        (pointValue === undefined
          ? `Risking 2% of an account of size A on that stop means a position of 0.02 × A ÷ ${usd(stop)} units.`
          : `At $${formatPrice(pointValue)} a point, one contract risks **$${formatPrice(stop * pointValue)}** on that stop; risking 2% of an account of size A means 0.02 × A ÷ $${formatPrice(stop * pointValue)} contracts.`),
    );
    if (summary.resistance) {
      lines.push(
        `Reward-to-risk to the nearest resistance: ${((summary.resistance.price - summary.lastClose) / stop).toFixed(2)} (distance to resistance ÷ stop distance).`,
      );
    }
    lines.push('');
  }
  lines.push(
    `Ask “What are the odds for ${tickerOf(summary.productId)}?” for the measured signal odds.`,
    '',
    DISCLAIMER,
    '',
  );
  return lines.join('\n');
}

function summarySection(
  tools: AssistantTools,
  productId: string,
  timeframe: AnalysisTimeframe,
  note: string | null,
  withRisk: boolean,
): Section {
  return {
    heading: `## ${productId}: price and trend (${timeframe})\n\n`,
    body: async () => {
      try {
        const [summary, quote] = await Promise.all([
          tools.candleSummary(productId, timeframe),
          tools.quote(productId).catch(() => null),
        ]);
        return `${note ? `> ${note}\n\n` : ''}${describeSummary(summary, quote, withRisk)}`;
      } catch (error) {
        return failure(error);
      }
    },
  };
}

async function summaries(tools: AssistantTools, products: readonly string[], timeframe: AnalysisTimeframe) {
  const results: Array<{ productId: string; summary: CandleSummary | null; error: string | null }> = [];
  // Four at a time: enough to be quick, gentle on the upstream API.
  for (let index = 0; index < products.length; index += 4) {
    const batch = products.slice(index, index + 4);
    results.push(
      ...(await Promise.all(
        batch.map(async (productId) => {
          try {
            return { productId, summary: await tools.candleSummary(productId, timeframe), error: null };
          } catch (error) {
            if (isToolError(error)) return { productId, summary: null, error: error.message };
            throw error;
          }
        }),
      )),
    );
  }
  return results;
}

function compareSection(
  tools: AssistantTools,
  products: readonly string[],
  timeframe: AnalysisTimeframe,
  ranking: boolean,
  focus: readonly string[] = [],
): Section {
  return {
    heading: ranking
      ? `## Ranking of the ${products.length} tracked crypto products by 7-day change (${timeframe})\n\n`
      : `## Comparison: ${products.join(', ')} (${timeframe})\n\n`,
    body: async () => {
      const results = await summaries(tools, products, timeframe);
      const change = (summary: CandleSummary, period: string) =>
        summary.changes.find((entry) => entry.period === period)?.percent ?? null;
      const ok = results.filter(
        (result): result is { productId: string; summary: CandleSummary; error: null } => result.summary !== null,
      );
      if (ranking) ok.sort((a, b) => (change(b.summary, '7d') ?? -Infinity) - (change(a.summary, '7d') ?? -Infinity));
      const lines: string[] = [];
      lines.push(...sourceNotes(ok.map((result) => result.summary.source)));
      lines.push('| Symbol | Last close | 24h | 7d | RSI(14) | Trend | ATR % |', '|---|---|---|---|---|---|---|');
      for (const { productId, summary } of ok) {
        const c24 = change(summary, '24h');
        const c7 = change(summary, '7d');
        lines.push(
          `| ${productId} | ${priceOf(productId)(summary.lastClose)} | ${c24 === null ? '–' : signed(c24)} | ${c7 === null ? '–' : signed(c7)} | ${summary.rsi14 === null ? '–' : summary.rsi14.toFixed(1)} | ${summary.trend ?? '–'} | ${summary.atrPercent === null ? '–' : `${summary.atrPercent.toFixed(2)}%`} |`,
        );
      }
      lines.push('');
      for (const result of results.filter((entry) => entry.error))
        lines.push(`> ${result.productId}: ${result.error}`, '');
      for (const productId of focus) {
        const place = ok.findIndex((result) => result.productId === productId);
        if (ranking && place >= 0)
          lines.push(`**${productId}** ranks **#${place + 1} of ${ok.length}** by 7-day change.`, '');
      }
      const byWeek = ok.filter((result) => change(result.summary, '7d') !== null);
      if (byWeek.length >= 2) {
        const sorted = [...byWeek].sort((a, b) => change(b.summary, '7d')! - change(a.summary, '7d')!);
        const best = sorted[0]!;
        const worst = sorted.at(-1)!;
        lines.push(
          `Strongest over 7 days: **${best.productId}** (${signed(change(best.summary, '7d')!)}); weakest: **${worst.productId}** (${signed(change(worst.summary, '7d')!)}). Trend compares the close with SMA 50 and SMA 200.`,
          '',
        );
      }
      lines.push(DISCLAIMER, '');
      return lines.join('\n');
    },
  };
}

interface AlertWindow {
  since: Date;
  label: string;
}

/** The time window an alert question names; the last 24 hours by default. */
function alertWindow(text: string, now: number): AlertWindow {
  const lower = text.toLowerCase();
  const midnight = Math.floor(now / 86_400_000) * 86_400_000;
  const hours = /\b(?:last|past)\s+(\d{1,3})\s+hours?\b/.exec(lower);
  const days = /\b(?:last|past)\s+(\d{1,2})\s+days?\b/.exec(lower);
  if (hours)
    return { since: new Date(now - Math.min(720, Number(hours[1])) * 3_600_000), label: `the last ${hours[1]} hours` };
  if (days)
    return { since: new Date(now - Math.min(30, Number(days[1])) * 86_400_000), label: `the last ${days[1]} days` };
  if (/\b(?:last|past|this)\s+hour\b/.test(lower)) return { since: new Date(now - 3_600_000), label: 'the last hour' };
  if (/\b(?:this|last|past)\s+week\b/.test(lower))
    return { since: new Date(now - 7 * 86_400_000), label: 'the last 7 days' };
  if (/\byesterday\b/.test(lower))
    return { since: new Date(midnight - 86_400_000), label: 'yesterday and today (UTC)' };
  if (/\b(today|today's|todays|daily)\b/.test(lower))
    return { since: new Date(midnight), label: 'today (since 00:00 UTC)' };
  return { since: new Date(now - 86_400_000), label: 'the last 24 hours' };
}

function describeAlerts(fact: AlertsFact, window: AlertWindow, focus: readonly string[]): string {
  const lines: string[] = [];
  const scope = [
    fact.symbol ? `for ${fact.symbol}` : null,
    fact.alertType ? `of type ${fact.alertType.replace(/AlertGenerator$/, '')}` : null,
  ]
    .filter(Boolean)
    .join(' ');
  if (fact.total === 0) {
    lines.push(
      `No alerts ${scope ? `${scope} ` : ''}between ${utc(fact.from)} and ${utc(fact.to)}.`,
      '',
      'The alert engine stores alerts as bars close; right after the server starts it may still be backfilling.',
      '',
    );
    return lines.join('\n');
  }
  if (fact.demo > 0)
    lines.push(
      `> **Demo data:** ${count(fact.demo)} of these alerts come from the demo feed (a simulated market).`,
      '',
    );
  lines.push(
    `**${count(fact.total)} alert${fact.total === 1 ? '' : 's'}**${scope ? ` ${scope}` : ''} from ${utc(fact.from)} to ${utc(fact.to)}${fact.capped ? ' (counts cover the newest ones only)' : ''}.`,
    '',
  );
  lines.push(
    `- By signal: bullish ${count(fact.byDisplay.bullish)} · bearish ${count(fact.byDisplay.bearish)} · caution ${count(fact.byDisplay.caution)}`,
  );
  lines.push(
    `- By generator: ${fact.byType.map((entry) => `${entry.alertType.replace(/AlertGenerator$/, '')} ${count(entry.count)}`).join(' · ')}`,
  );
  if (!fact.symbol)
    lines.push(
      `- Most active: ${fact.byTicker
        .slice(0, 6)
        .map((entry) => `${entry.ticker} ${count(entry.count)}`)
        .join(' · ')}`,
    );
  for (const ticker of focus) {
    if (fact.symbol) continue;
    const entry = fact.byTicker.find((item) => item.ticker === ticker);
    lines.push(`- ${ticker}: ${entry ? `${count(entry.count)} of these alerts` : 'none of these alerts'}`);
  }
  lines.push('', `Latest ${fact.latest.length}:`, '', '| Time (UTC) | Symbol | Type | Message |', '|---|---|---|---|');
  for (const alert of fact.latest)
    lines.push(
      `| ${alert.timestamp} | ${alert.ticker} | ${alert.alert_type.replace(/AlertGenerator$/, '')} | ${cell(alert.message)} |`,
    );
  lines.push('', `Window: ${window.label}. Bullish/bearish/caution follow the alert log's colours.`, '');
  return lines.join('\n');
}

function alertsSection(tools: AssistantTools, text: string, products: readonly string[], now: number): Section {
  const window = alertWindow(text, now);
  const marketWide = /\b(which|all|across|every|market|most)\b/i.test(text);
  const symbol = products.length === 1 && !marketWide ? products[0] : undefined;
  const alertType = alertTypeFromText(text);
  return {
    heading: `## Alerts: ${symbol ?? 'all symbols'}, ${window.label}\n\n`,
    body: async () => {
      const fact = await tools.alerts({ symbol, alertType, since: window.since, latest: 10 });
      return describeAlerts(fact, window, symbol ? [] : products.map((product) => tickerOf(product)));
    },
  };
}

function watchlistSection(tools: AssistantTools, userId: string): Section {
  return {
    heading: '## Your watchlists\n\n',
    body: async () => {
      const list = await tools.watchlist(userId);
      const results = await summaries(
        tools,
        list.tracked.map((entry) => entry.productId),
        '1h',
      );
      const lines = [
        `Alerts panel: ${list.alerts.join(', ') || '(empty)'}. Chart: ${list.chart.join(', ') || '(empty)'}.`,
        '',
      ];
      const ok = results.filter((result) => result.summary !== null);
      lines.push(...sourceNotes(ok.map((result) => result.summary!.source)));
      if (ok.length) {
        lines.push('| Symbol | Last close | 24h | Trend | RSI(14) |', '|---|---|---|---|---|');
        for (const { productId, summary } of ok) {
          const day = summary!.changes.find((entry) => entry.period === '24h');
          lines.push(
            `| ${productId} | ${priceOf(productId)(summary!.lastClose)} | ${day ? signed(day.percent) : '–'} | ${summary!.trend ?? '–'} | ${summary!.rsi14?.toFixed(1) ?? '–'} |`,
          );
        }
        lines.push('');
      }
      for (const result of results.filter((entry) => entry.error))
        lines.push(`> ${result.productId}: ${result.error}`, '');
      for (const symbol of list.untracked) lines.push(`> ${noMarketData(symbol)}`, '');
      lines.push(DISCLAIMER, '');
      return lines.join('\n');
    },
  };
}

function columnStats(column: ColumnProfile): string {
  if (column.numeric) {
    const { min, max, mean, median, std } = column.numeric;
    return `min ${number(min)} · max ${number(max)} · mean ${number(mean)} · median ${number(median)} · std ${number(std)}`;
  }
  if (column.dates) return `${column.dates.earliest} → ${column.dates.latest}`;
  if (column.text)
    return `${count(column.text.distinct)} distinct: ${column.text.top.map((entry) => `${cell(entry.value.slice(0, 30))} (${count(entry.count)})`).join(', ')}`;
  return '–';
}

function describeChain(chain: ChainAnalysis, underlying: number | null): string[] {
  const lines: string[] = [];
  if (chain.expiry) lines.push(`**Expiry ${chain.expiry}**`, '');
  const ratio = (value: number | null, puts: number, calls: number, what: string) =>
    value === null
      ? `- Put/call ratio by ${what}: no call ${what} in the file`
      : `- Put/call ratio by ${what}: **${value.toFixed(2)}** (${count(puts)} puts / ${count(calls)} calls)`;
  lines.push(
    ratio(chain.putCallOpenInterest, chain.putOpenInterest, chain.callOpenInterest, 'open interest'),
    ratio(chain.putCallVolume, chain.putVolume, chain.callVolume, 'volume'),
  );
  lines.push(
    chain.maxPain
      ? `- Max pain: **strike ${number(chain.maxPain.strike)}**, where holders would collect least at expiry (${number(chain.maxPain.payout)} = intrinsic value × open interest, before any contract multiplier)${underlying !== null ? `; underlying ${number(underlying)} (${signed((chain.maxPain.strike / underlying - 1) * 100)} away)` : ''}`
      : '- Max pain: needs open interest, which the file does not have',
  );
  lines.push(`- Strikes: ${count(chain.strikes)}`);
  if (chain.smile.length) {
    lines.push(`- IV smile: ${chain.smileShape ?? 'fewer than three strikes with IV'}`, '');
    const limit = 30;
    let points = chain.smile;
    let trimmed = '';
    if (points.length > limit) {
      // Around the money: the strikes nearest the underlying, or max pain without one.
      const centre = underlying ?? chain.maxPain?.strike ?? points[Math.floor(points.length / 2)]!.strike;
      points = [...points]
        .sort((a, b) => Math.abs(a.strike - centre) - Math.abs(b.strike - centre))
        .slice(0, limit)
        .sort((a, b) => a.strike - b.strike);
      trimmed = ` (the ${limit} strikes nearest ${number(centre)} of ${count(chain.smile.length)})`;
    }
    lines.push(`IV by strike, in percent${trimmed}:`, '', '| Strike | Call IV | Put IV |', '|---|---|---|');
    for (const point of points)
      lines.push(
        `| ${number(point.strike)} | ${point.callIv === null ? '–' : point.callIv.toFixed(1)} | ${point.putIv === null ? '–' : point.putIv.toFixed(1)} |`,
      );
  } else {
    lines.push('- IV smile: the file has no implied-volatility column');
  }
  lines.push('');
  return lines;
}

const COLUMN_ROLES: Record<string, string> = {
  strike: 'strike',
  type: 'call/put',
  openInterest: 'open interest',
  volume: 'volume',
  iv: 'IV',
  expiry: 'expiry',
  underlying: 'underlying',
  callOi: 'call open interest',
  putOi: 'put open interest',
  callVolume: 'call volume',
  putVolume: 'put volume',
  callIv: 'call IV',
  putIv: 'put IV',
};

function describeTable(table: TableAnalysis, many: boolean): string[] {
  const lines: string[] = [];
  if (many || table.sheet) lines.push(`### ${table.sheet ? `Sheet “${table.sheet}”` : 'Table'}`, '');
  lines.push(`${count(table.rows)} rows, ${table.columns.length} columns.`, '');
  // The chain's analytics first: they are what a trader attaching a chain asks about.
  if (table.optionChain) {
    const chain = table.optionChain;
    const used = Object.entries(chain.columns)
      .map(([role, column]) => `${COLUMN_ROLES[role] ?? role} ‘${cell(column)}’`)
      .join(', ');
    lines.push('#### Option chain', '', `Read as an option chain (${chain.layout} layout; ${used}).`, '');
    for (const expiry of chain.expiries) lines.push(...describeChain(expiry, chain.underlying));
    if (chain.expiries.length > 1)
      lines.push(
        `${chain.expiries.length} expiries: each is analysed on its own, since max pain and put/call belong to one expiry.`,
        '',
      );
  } else if (table.chainProblem) {
    lines.push(`> ${table.chainProblem}`, '');
  }
  lines.push('#### Columns', '', '| Column | Type | Filled | Statistics |', '|---|---|---|---|');
  for (const column of table.columns.slice(0, 40)) {
    lines.push(
      `| ${cell(column.name)} | ${column.type} | ${count(column.count)}/${count(column.count + column.missing)} | ${columnStats(column)} |`,
    );
  }
  if (table.columns.length > 40) lines.push(`| … | | | ${table.columns.length - 40} more columns |`);
  lines.push('');
  return lines;
}

function describeFile(file: FileAnalysis): string {
  const lines: string[] = [];
  for (const table of file.tables) lines.push(...describeTable(table, file.tables.length > 1));
  if (!file.tables.some((table) => table.optionChain)) {
    lines.push(
      'No option chain found. For put/call ratios, max pain and the IV smile the file needs a strike column plus call/put open interest or volume (and IV for the smile).',
      '',
    );
  }
  lines.push('_Computed from the file’s own cells. Nothing here is financial advice._', '');
  return lines.join('\n');
}

function fileSection(file: FileAnalysis): Section {
  return { heading: `## File analysis: ${file.name}\n\n`, body: async () => describeFile(file) };
}

function storedFileSection(tools: AssistantTools, userId: string, name: string): Section {
  return {
    heading: `## File analysis: ${name}\n\n`,
    body: async () => {
      try {
        return describeFile(await tools.storedFile(userId, name));
      } catch (error) {
        return failure(error);
      }
    },
  };
}

function unknownSymbolSection(symbol: string, asOdds: boolean): Section {
  return {
    heading: asOdds ? `## ${symbol}: What Are The Odds? (WATOS)\n\n` : `## ${symbol}\n\n`,
    body: async () => `${noMarketData(symbol)}\n\n`,
  };
}

const HELP = [
  "I'm the built-in analyst. I answer from this app's own market data, signals engine, alert log and your files, and I say when I can't:",
  '',
  '- **“What are the odds for AAPL?”** (or ETH, MES, CME_MINI:MES1!, Micro Gold): the six WATOS signals with calibrated odds, the measured share of higher closes, sample sizes and confidence intervals',
  '- **“How is SOL trending on the 4h chart?”**: price, change, trend against SMA 50/200, RSI, ATR, support and resistance',
  '- **“Compare NVDA, SPY and BTC”**, **“Rank the crypto assets by momentum”**',
  "- **“Summarize today's alerts”**, **“Breakout alerts in the last hour”**",
  '- **“Show my watchlist”**',
  '- **Attach an option chain (CSV or Excel)** and ask for put/call ratios, max pain or the IV smile',
  '',
  `Markets: the ${SYMBOL_TABLE.length} symbols of this app's table: crypto (Coinbase, real time), US stocks, ETFs, indices and CME futures and micro futures (Yahoo Finance, delayed where the exchange delays).`,
  '',
  'What I cannot do: news, fundamentals, markets outside that table, placing orders, or predictions beyond measured historical frequencies. Free-form questions need an LLM connected by the operator (LLM_BASE_URL).',
  '',
].join('\n');

const helpSection = (lead: string | null): Section => ({ heading: lead ? `${lead}\n\n` : '', body: async () => HELP });

// ---- reading the request -----------------------------------------------------------------------

const ODDS =
  /\bodds\b|watos|probabilit|likel(?:y|ihood)|\bchances?\b|\bsignals?\b|\bedge\b|forecast|how often|reliab|historically/i;
const PRICE =
  /price|quote|trading at|worth|how much|trend|doing|momentum|volatil|condition|analy[sz]|overview|summar|support|resistance|levels?\b|\brsi\b|moving average|bollinger|\batr\b|regime|breakout|swing|briefing|setup|plan|entry|exit|stop|risk|position|invalidat|outlook|spread/i;
const RISK = /stop|risk|position size|invalidat|\batr\b|reward/i;
const COMPARE =
  /compar|\bvs\.?\b|versus|relative strength|\brank|outperform|stronger|weaker|against (?:the )?(?:rest|market)/i;
const ALERTS = /\balerts?\b/i;
const WATCHLIST = /watch\s?-?list/i;
const FILE_WORDS =
  /\bfiles?\b|attach|option chain|options chain|put.?call|max pain|\bsmile\b|\biv\b|implied vol|open interest|spreadsheet|\bcsv\b|excel|\bstrikes?\b/i;
const FILE_NAME = /[\w.-]+\.(?:csv|xlsx|xls)\b/i;

function lastUserText(messages: AssistantRequest['messages']): string {
  return messages.at(-1)?.content ?? '';
}

/** Symbols of the latest earlier user message that named some: "and its odds?" follows the thread. */
function threadProducts(messages: AssistantRequest['messages']): string[] {
  for (let index = messages.length - 2; index >= 0; index -= 1) {
    if (messages[index]!.role !== 'user') continue;
    const { products } = mentionedSymbols(messages[index]!.content);
    if (products.length) return products;
  }
  return [];
}

interface AnalystPlan {
  sections: Section[];
}

function planAnswer(
  request: Pick<AssistantRequest, 'messages' | 'file' | 'userId'>,
  tools: AssistantTools,
  now: number,
): AnalystPlan {
  // The bracketed file name the chat appends is not part of the question.
  const text = lastUserText(request.messages).replace(/\s*\[[^\]]*\.(?:csv|xlsx|xls)\]\s*$/i, '');
  const mentioned = mentionedSymbols(text);
  let products = mentioned.products;
  const { unknown } = mentioned;
  const sections: Section[] = [];

  let timeframe: AnalysisTimeframe = '1h';
  let note: string | null = null;
  const named = mentionedTimeframe(text);
  if (named) {
    try {
      timeframe = asAnalysisTimeframe(named);
    } catch (error) {
      if (!isToolError(error)) throw error;
      timeframe = 'D';
      note = `${error.message} Showing the daily (D) timeframe instead.`;
    }
  }

  // "How did MES do after RSI fell below 30 on 15m?": a setup study answers it, on its own.
  const studyQuestion = request.file ? null : parseStudyQuestion(text);
  if (studyQuestion) {
    const heading = '## Setup study\n\n';
    if ('problem' in studyQuestion)
      return { sections: [{ heading, body: async () => `> ${studyQuestion.problem}\n` }] };
    return {
      sections: [
        {
          heading,
          body: async () => {
            try {
              return describeStudy(await tools.study(studyQuestion.request));
            } catch (error) {
              return failure(error);
            }
          },
        },
      ],
    };
  }

  const wantsFile = request.file !== null || FILE_WORDS.test(text);
  const wantsAlerts = ALERTS.test(text);
  const wantsWatchlist = WATCHLIST.test(text);
  const wantsOdds = ODDS.test(text);
  const wantsCompare = COMPARE.test(text);
  const wantsPrice = PRICE.test(text);

  if (request.file) sections.push(fileSection(request.file));
  else if (wantsFile && FILE_NAME.test(text))
    sections.push(storedFileSection(tools, request.userId, FILE_NAME.exec(text)![0]));
  else if (wantsFile && products.length === 0 && unknown.length === 0 && !wantsAlerts && !wantsWatchlist) {
    sections.push({
      heading: '## File analysis\n\n',
      body: async () =>
        'No file is attached. Use the paperclip button to attach a CSV or Excel file (for example an option chain with strike, call/put, open interest, volume and IV columns), then ask again.\n',
    });
  }
  if (wantsWatchlist) sections.push(watchlistSection(tools, request.userId));
  const scan = tools.runScan && SCAN_WORDS.test(text) && products.length === 0 ? scanFromText(text) : null;
  if (scan && tools.runScan) {
    const run = tools.runScan;
    sections.push({
      heading: '## Scan\n\n',
      body: async () => describeScan(scan.words, scan.request, await run(scan.request)),
    });
  }
  if (wantsAlerts) sections.push(alertsSection(tools, text, products.length ? products : unknown, now));

  // A follow-up without a symbol ("and the odds?") continues with the thread's symbols.
  if (
    !scan &&
    products.length === 0 &&
    unknown.length === 0 &&
    !request.file &&
    !wantsAlerts &&
    !wantsWatchlist &&
    (wantsOdds || wantsPrice || wantsCompare)
  ) {
    products = threadProducts(request.messages);
  }
  const ranking =
    !wantsAlerts &&
    wantsCompare &&
    products.length <= 1 &&
    /\brank|crypto (?:assets|market)|all (?:the )?(?:crypto|assets|symbols)/i.test(text);
  // Alert and watchlist questions get product sections only when they also ask about price or odds.
  const perProduct = (!wantsAlerts && !wantsWatchlist) || wantsOdds || wantsPrice;
  if (ranking) {
    sections.push(compareSection(tools, CRYPTO_SYMBOLS, timeframe, true, products));
  } else if (wantsCompare && products.length >= 2) {
    sections.push(compareSection(tools, products.slice(0, 8), timeframe, false));
  } else if (perProduct) {
    for (const productId of products.slice(0, 3)) {
      if (wantsOdds) sections.push(oddsSection(tools, productId, timeframe, note));
      if (wantsPrice || !wantsOdds)
        sections.push(summarySection(tools, productId, timeframe, wantsOdds ? null : note, RISK.test(text)));
    }
  }
  if (!wantsWatchlist) for (const symbol of unknown.slice(0, 3)) sections.push(unknownSymbolSection(symbol, wantsOdds));
  if (sections.length === 0) {
    const lead = /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i.test(text)
      ? 'Hello!'
      : /\b(help|what can you|capabilit|how do i|who are you)\b/i.test(text)
        ? null
        : "I couldn't match that to something I can measure.";
    sections.push(helpSection(lead));
  }
  return { sections };
}

// ---- the assistant ---------------------------------------------------------------------------

/** Lets what was written leave the socket before the thread computes again, without a timed delay. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createBuiltinAnalyst(options: { tools: AssistantTools; now?: () => number }): Assistant {
  const now = options.now ?? Date.now;
  return {
    kind: 'builtin',
    description: 'built-in analyst (signals engine, alert log and files; no network)',
    async *respond(request): AsyncGenerator<UIMessageChunk> {
      const id = randomUUID();
      yield { type: 'start', messageId: id };
      yield { type: 'text-start', id };
      try {
        const plan = planAnswer(request, options.tools, now());
        for (const section of plan.sections) {
          if (request.signal.aborted) break;
          // The heading goes out before the section's tools run: the trader sees the answer start at once.
          if (section.heading) {
            yield { type: 'text-delta', id, delta: section.heading };
            // Let the heading leave the socket before tools that may compute synchronously run.
            await nextTurn();
          }
          const body = await section.body();
          // The section's pieces, already computed, follow one another without a turn between
          // them: the socket then sends them in one write, not one system call (and TCP
          // segment) each, which made the chat the costliest answer the server gave.
          for (const piece of streamPieces(body)) {
            if (request.signal.aborted) break;
            yield { type: 'text-delta', id, delta: piece };
          }
          await nextTurn();
        }
      } catch (error) {
        yield { type: 'text-end', id };
        yield {
          type: 'error',
          errorText: `The built-in analyst failed: ${error instanceof Error ? error.message : String(error)}`,
        };
        return;
      }
      yield { type: 'text-end', id };
      yield request.signal.aborted
        ? { type: 'abort', reason: 'client closed the request' }
        : { type: 'finish', finishReason: 'stop' };
    },
  };
}
