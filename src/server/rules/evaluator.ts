// The incremental alert-rule evaluator (issue 16): holds the active rules indexed per symbol,
// a window of one-minute and hourly bars per ruled symbol, and turns each symbol's update into
// firing drafts. The maths is in src/signals/ruleConditions.ts; this module shares it across
// rules (price levels by binary search, one indicator computation per parameter group and
// minute, one WATOS report per timeframe) and must agree with its reference `ruleFiresAt`.
//
// Semantics:
// - Ticks (issue 34): the price conditions (price_cross, channel, percent_move) whose trigger is
//   not once_per_bar_close are tick rules, evaluated by evaluateTick on each tick: the previous
//   price (the previous tick's; before any, the last closed bar's close held) against the new
//   one, with the same predicates as below; percent_move's reference is the close of the last
//   bar held at or before windowMinutes before the tick's minute. A closed minute bar whose
//   minute no tick reached moves the tick rules to its close (no feed, or a gap filled from
//   bars); a minute some tick reached is left to the ticks. tickReference.ts is the reference
//   that checks every rule on every tick; the two must agree.
// - Other rules see price updates as the closes of one-minute bars. Each new minute bar of an update (in order)
//   is evaluated for every rule of that symbol; a rule fires when its condition becomes true
//   (false at the previous minute bar, true now). The previous minute is the previous bar held
//   (from history for the first minute of an update); without one nothing fires.
// - Timeframe bars are UTC epoch multiples of RULE_TIMEFRAME_MS (1D = UTC day): 1m-15m from
//   minute bars, 1h-1D from closed hourly bars (those before the current hour) plus the
//   minutes of the forming hour. Indicators at a minute see the closed T-bars plus the forming
//   one (TradingView's realtime bar), over a window fixed by their parameters (see
//   ruleConditions.ts): RSI/EMA 3x period + 50 T-bars, Bollinger/volume the period; the source
//   history is capped at 4 days of minutes and 60 days of hours, so longer warm-ups read NaN.
// - price_cross above L: prevClose < L <= close; below: prevClose > L >= close. channel: the
//   close moves from outside [lower, upper] to inside (enters) or back (exits). percent_move:
//   close against the last minute bar at or before W minutes earlier reaches p% (no reference:
//   false). rsi / ema_cross: the value (EMA fast - slow) crosses the level (0) from at-or-below
//   to above (or the mirror); NaN is false. bollinger: close above the upper (below the lower)
//   band; volume_z: the forming T-bar's volume z-score above the threshold.
// - builtin: one firing per alert of its type in update.alerts, at the alert's time, priced at
//   that minute's close when held, else the last close held (0 when no bar is held at all).
// - watos_odds: evaluated when a T-bar closes (on the minute completing it; when a market
//   closed before the bucket's end, on the first minute of a later bucket) with
//   watosOdds(closed T-bars, 24); true when an active signal's stated (calibrated) probability of a rise
//   (fall: 1 - p) reaches threshold %. It fires when true and the previous evaluation held in
//   the bars was false.
// - Triggers: 'once' fires at most once (triggerKey 0) and then stays silent until retire();
//   'once_per_bar' (on ticks for tick rules) and 'once_per_bar_close' (closed bars only) at
//   most once per T-bucket (triggerKey = bucket open time; the last bucket fired is kept in
//   memory, the database's unique (ruleId, triggerKey) backs it after a restart); 'every_time'
//   each time (triggerKey = the minute bar's time; on ticks at most once a minute).
// - No firing for a bar at or after the rule's expiresAt.
// - message: the rule's template filled (time = the bar's close, 'YYYY-MM-DD HH:MM UTC'; for a
//   builtin, the alert's time), or `<condition in words> (<timeframe>): <ticker> at <price>`.
// - History is read through options.history once per (symbol, granularity) when a rule first
//   needs it (again only if a new rule needs more), then extended with the updates' bars and
//   trimmed. Values depend only on the bars, so an evaluator created after a restart gives the
//   same firings as a long-running one (once_per_bar repeats are left to the database).
import { formatPrice } from '../../shared/format.ts';
import {
  describeCondition,
  fillTemplate,
  isPriceCondition,
  RULE_TIMEFRAME_MS,
  type RuleCondition,
  type RuleTimeframe,
} from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { candleSeries, seriesFrom, writeBar, type CandleInput, type CandleSeries } from '../../signals/candles.ts';
import {
  aggregate,
  bollingerNext,
  bucketStart,
  emaNext,
  emaSeed,
  formingVolume,
  fromHours,
  HOUR_HISTORY_MAX,
  levelsCrossedDown,
  levelsCrossedUp,
  lowerBound,
  MINUTE_HISTORY_MAX,
  MINUTE_MS,
  percentMoveMet,
  previousWatosEvaluation,
  referenceIndex,
  rsiNext,
  rsiSeed,
  sourceWindow,
  channelCrossed,
  watosEvaluatedAt,
  watosOddsMet,
  watosProbabilitiesAt,
  windowBars,
  windowStart,
  WATOS_WINDOW,
  volumeZNext,
  type EmaSeed,
  frameScratch,
  indicatorFires as referenceIndicatorFires,
  type FrameBars,
  type FrameScratch,
  type IndicatorCondition,
  type RsiSeed,
  type RuleBars,
} from '../../signals/ruleConditions.ts';
import type { ActiveRule, FiringDraft, SymbolUpdate } from './types.ts';

export interface RuleEvaluatorOptions {
  /** Stored bars before the update, oldest first, at most `limit` (the candle store). */
  history(productId: string, granularity: 60 | 3600, limit: number): Promise<CandleInput[]>;
}

export interface RuleEvaluator {
  /** Replaces the set of active rules (called when rules change); keeps per-symbol caches of symbols still ruled. */
  setRules(rules: readonly ActiveRule[]): void;
  /** Symbols (canonical ids) that have at least one rule. */
  symbols(): ReadonlySet<string>;
  /** Evaluates one symbol's update; returns the firings in time order. Touches only that symbol's rules. */
  evaluate(update: SymbolUpdate): Promise<FiringDraft[]>;
  /** Forget a rule that fired with trigger 'once' (the caller also marks it in the database). */
  retire(ruleId: number): void;
  /**
   * Evaluates the tick-evaluated rules of the tick's symbol (price conditions whose trigger is
   * not once_per_bar_close) against the move from the previous price to this one; returns the
   * firings ordered by rule id. Synchronous and allocation-free when nothing fires.
   */
  evaluateTick(tick: LiveTick): FiringDraft[];
  /** Symbols with at least one tick-evaluated rule (the same set object until the rules change). */
  tickSymbols(): ReadonlySet<string>;
  /**
   * Reads the minute history of the tick symbols not read yet, so that their first tick has a
   * previous close and percentage moves a reference.
   */
  prepareTicks(): Promise<void>;
}

/** A rule evaluated on ticks: a price condition whose trigger is not once_per_bar_close. */
export function isTickRule(rule: Pick<ActiveRule, 'condition' | 'trigger'>): boolean {
  return isPriceCondition(rule.condition.kind) && rule.trigger !== 'once_per_bar_close';
}

/** Minutes always held: the forming hour of 1h-1D bars and the previous close. */
const MINUTE_BASE = 120;
/** Room beyond an indicator's source window: the forming bucket and a previous one. */
const MINUTE_MARGIN = 200;
const HOUR_MARGIN = 72;
/** Bars beyond the need held before a trim, so trims copy rarely. */
const TRIM_SLACK = 1024;

// The time's text changes once a minute; the firings of a minute share it.
let lastMinuteText = NaN;
let minuteText = '';
const DEFAULT_TIME = (time: number) => {
  const minute = Math.floor(time / 60_000);
  if (minute !== lastMinuteText) {
    lastMinuteText = minute;
    minuteText = `${new Date(minute * 60_000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
  return minuteText;
};

// describeCondition and formatPrice format numbers through Intl, which costs microseconds a
// call: a rule's words are kept per rule object, and the last price's text is reused (the
// firings of one minute share its close).
const wordsOf = new WeakMap<ActiveRule, string>();
let lastPrice = NaN;
let lastPriceText = '';

function priceText(price: number): string {
  if (price !== lastPrice) {
    lastPrice = price;
    lastPriceText = formatPrice(price);
  }
  return lastPriceText;
}

/** A rule's message for a firing at `time` (already the bar's close, or the alert's time) and `price`. */
export function firingMessage(rule: ActiveRule, time: number, price: number): string {
  const text = priceText(price);
  let words = wordsOf.get(rule);
  if (words === undefined) {
    words = describeCondition(rule.condition, rule.ticker);
    wordsOf.set(rule, words);
  }
  if (!rule.message) return `${words} (${rule.timeframe}): ${rule.ticker} at ${text}`;
  return fillTemplate(rule.message, {
    ticker: rule.ticker,
    symbol: rule.symbol,
    close: text,
    price: text,
    time: DEFAULT_TIME(time),
    rule: words,
    timeframe: rule.timeframe,
    name: rule.name,
  });
}

/** triggerKey of a firing at bar time `time`. */
export function triggerKey(rule: Pick<ActiveRule, 'trigger' | 'timeframe'>, time: number): number {
  if (rule.trigger === 'once') return 0;
  if (rule.trigger === 'once_per_bar' || rule.trigger === 'once_per_bar_close')
    return bucketStart(time, RULE_TIMEFRAME_MS[rule.timeframe]);
  // every_time: the bar time as given (a tick passes its minute).
  return time;
}

/** A bar candleSeries would keep as it is (ordered after the previous one is checked by the caller). */
function clean(row: CandleInput, index: number, rows: readonly CandleInput[]): boolean {
  return (
    row.close > 0 &&
    row.open > 0 &&
    row.high >= Math.max(row.open, row.close) &&
    row.low > 0 &&
    row.low <= Math.min(row.open, row.close) &&
    row.volume >= 0 &&
    Number.isFinite(row.high + row.volume) &&
    (index === 0 || row.time > rows[index - 1]!.time)
  );
}

/** A growable column store of bars, oldest first, usable wherever a CandleSeries is. */
class BarBuffer implements CandleSeries {
  length = 0;
  time = new Float64Array(0);
  open = new Float64Array(0);
  high = new Float64Array(0);
  low = new Float64Array(0);
  close = new Float64Array(0);
  volume = new Float64Array(0);

  private reserve(size: number): void {
    if (size <= this.time.length) return;
    const capacity = Math.max(size, this.time.length * 2, 64);
    const grow = (values: Float64Array) => {
      const next = new Float64Array(capacity);
      next.set(values.subarray(0, this.length));
      return next;
    };
    this.time = grow(this.time);
    this.open = grow(this.open);
    this.high = grow(this.high);
    this.low = grow(this.low);
    this.close = grow(this.close);
    this.volume = grow(this.volume);
  }

  /** Appends the bars newer than the last one held (cleaned as candleSeries does); returns how many. */
  append(rows: readonly CandleInput[]): number {
    const last = this.length > 0 ? this.time[this.length - 1]! : -Infinity;
    const fresh = rows.filter((row) => row.time > last);
    if (fresh.length === 0) return 0;
    if (fresh.every(clean)) {
      this.reserve(this.length + fresh.length);
      for (const row of fresh) this.put(row);
      return fresh.length;
    }
    // A bar without a usable close repeats the last close held.
    const lead: CandleInput[] = this.length > 0 ? [this.bar(this.length - 1)] : [];
    const series = candleSeries([...lead, ...fresh]);
    const from = lead.length > 0 && series.length > 0 && series.time[0] === last ? 1 : 0;
    this.reserve(this.length + series.length - from);
    let added = 0;
    for (let index = from; index < series.length; index += 1) {
      // Rows out of order (never expected) are skipped rather than breaking the ordering.
      if (this.length > 0 && series.time[index]! <= this.time[this.length - 1]!) continue;
      const at = this.length;
      this.time[at] = series.time[index]!;
      this.open[at] = series.open[index]!;
      this.high[at] = series.high[index]!;
      this.low[at] = series.low[index]!;
      this.close[at] = series.close[index]!;
      this.volume[at] = series.volume[index]!;
      this.length += 1;
      added += 1;
    }
    return added;
  }

  private put(row: CandleInput): void {
    writeBar(this, this.length, row);
    this.length += 1;
  }

  bar(index: number): CandleInput {
    return {
      time: this.time[index]!,
      open: this.open[index]!,
      high: this.high[index]!,
      low: this.low[index]!,
      close: this.close[index]!,
      volume: this.volume[index]!,
    };
  }

  clear(): void {
    this.length = 0;
  }

  /** Keeps the newest `keep` bars. */
  trim(keep: number): void {
    const drop = this.length - keep;
    if (drop <= 0) return;
    for (const column of [this.time, this.open, this.high, this.low, this.close, this.volume])
      column.copyWithin(0, drop, this.length);
    this.length = keep;
  }
}

interface SymbolBars {
  minutes: BarBuffer;
  hours: BarBuffer;
  /** The largest limit read from history so far (0: not read). */
  minuteLimit: number;
  hourLimit: number;
  /** History returned fewer bars than asked: the store holds no older ones. */
  minuteComplete: boolean;
  hourComplete: boolean;
  /** Updates of one symbol run one after another. */
  queue: Promise<unknown>;
}

interface RuleState {
  signature: string;
  lastBucket: number;
  /** every_time on ticks: the minute it last fired in (at most once a one-minute bar). */
  lastMinute: number;
  spent: boolean;
}

interface Slot {
  rule: ActiveRule;
  state: RuleState;
}

/** The T-bars of one timeframe before the forming bucket, shared by the groups of that timeframe. */
interface Frame {
  timeframe: RuleTimeframe;
  /** The largest source window among its groups. */
  limit: number;
  anchor: number;
  end: number;
  lastTime: number;
  version: number;
  bars: FrameBars | null;
  /** Reused columns: a frame is rebuilt at every new bucket. */
  scratch: FrameScratch | null;
}

interface IndicatorGroup {
  condition: IndicatorCondition;
  timeframe: RuleTimeframe;
  window: number;
  frame: Frame;
  slots: Slot[];
  seedVersion: number;
  closed: CandleSeries | null;
  rsi: RsiSeed | null;
  fast: EmaSeed | null;
  slow: EmaSeed | null;
  /** The value at `lastTime` (Bollinger: upper and lower). */
  lastTime: number;
  lastA: number;
  lastB: number;
  a: number;
  b: number;
}

interface WatosGroup {
  timeframe: RuleTimeframe;
  slots: Slot[];
  lastTime: number;
  lastProbabilities: number[];
}

/** The percentage-move rules of one window, sorted by their percentage (rises and falls apart). */
interface PercentGroup {
  windowMinutes: number;
  rises: Float64Array;
  riseSlots: Slot[];
  falls: Float64Array;
  fallSlots: Slot[];
}

/**
 * A symbol's tick-evaluated rules, sorted so that a move from one price to the next finds the
 * rules it can fire by binary search: price levels, channel bounds, and percentages (a
 * percentage move is met when (price / reference - 1) * 100 reaches the percentage, so the met
 * rules of a window are a prefix of its rises and a suffix of its falls).
 */
interface TickRules {
  upLevels: Float64Array;
  up: Slot[];
  downLevels: Float64Array;
  down: Slot[];
  /** Channels by lower bound and by upper bound. */
  lowers: Float64Array;
  byLower: Slot[];
  uppers: Float64Array;
  byUpper: Slot[];
  percent: PercentGroup[];
}

/** The last price a symbol's tick rules saw (a tick's, or a closed bar's when no tick covered its minute). */
interface TickState {
  /** NaN: none yet (the first tick compares with the last closed bar held). */
  price: number;
  /** Open time of the minute of that price (-Infinity: none). */
  minute: number;
  /** Time of the newest tick (older ones are out of order and ignored). */
  time: number;
  /** The tick rules whose percentage groups the arrays below follow (null: none yet). */
  layout: TickRules | null;
  /** Per percentage group: (price / reference - 1) * 100 at that price (NaN: no reference). */
  changes: Float64Array;
  /** Per percentage group: 1 when `changes` holds its value (0: the group is new). */
  seen: Uint8Array;
  /** Per percentage group: its reference close for `referenceMinute` over the bars held then. */
  references: Float64Array;
  referenceMinute: number;
  /** The bars the references were read from: their count and newest time. */
  referenceLength: number;
  referenceLast: number;
}

/** A symbol with tick rules: everything a tick needs, behind one lookup. */
interface Ticker {
  rules: TickRules;
  state: TickState;
  cache: SymbolBars | undefined;
}

/** Lays a tick state's percentage arrays out for `rules`, keeping each window's last change. */
function relayout(state: TickState, rules: TickRules): void {
  const count = rules.percent.length;
  const changes = new Float64Array(count);
  const seen = new Uint8Array(count);
  const old = state.layout?.percent ?? [];
  for (let group = 0; group < count; group += 1) {
    const at = old.findIndex((entry) => entry.windowMinutes === rules.percent[group]!.windowMinutes);
    if (at >= 0 && state.seen[at] === 1) {
      changes[group] = state.changes[at]!;
      seen[group] = 1;
    }
  }
  state.layout = rules;
  state.changes = changes;
  state.seen = seen;
  state.references = new Float64Array(count);
  state.referenceMinute = NaN;
}

interface SymbolRules {
  rules: ActiveRule[];
  /** The rules evaluated on ticks; null when the symbol has none. */
  tick: TickRules | null;
  /** Rules retired since the index was built (still in it, silent). */
  retired: Set<number>;
  minuteNeed: number;
  hourNeed: number;
  upLevels: Float64Array;
  up: Slot[];
  downLevels: Float64Array;
  down: Slot[];
  channels: Slot[];
  percent: Map<number, Slot[]>;
  indicators: IndicatorGroup[];
  watos: WatosGroup[];
  builtin: Map<string, Slot[]>;
}

function groupKey(condition: IndicatorCondition, timeframe: RuleTimeframe): string {
  switch (condition.kind) {
    case 'rsi':
      return `${timeframe}|rsi|${condition.period}`;
    case 'ema_cross':
      return `${timeframe}|ema|${condition.fast}|${condition.slow}`;
    case 'bollinger':
      return `${timeframe}|bollinger|${condition.period}|${condition.deviations}`;
    case 'volume_z':
      return `${timeframe}|volume|${condition.period}`;
  }
}

function sortedLevels(slots: Slot[], level: (slot: Slot) => number): [Float64Array, Slot[]] {
  const sorted = [...slots].sort((a, b) => level(a) - level(b) || a.rule.id - b.rule.id);
  return [Float64Array.from(sorted, level), sorted];
}

function levelOf(slot: Slot): number {
  return (slot.rule.condition as Extract<RuleCondition, { kind: 'price_cross' }>).level;
}

function channelOf(slot: Slot): Extract<RuleCondition, { kind: 'channel' }> {
  return slot.rule.condition as Extract<RuleCondition, { kind: 'channel' }>;
}

function percentOf(slot: Slot): number {
  return (slot.rule.condition as Extract<RuleCondition, { kind: 'percent_move' }>).percent;
}

function indexTickRules(slots: readonly Slot[]): TickRules {
  const up: Slot[] = [];
  const down: Slot[] = [];
  const channels: Slot[] = [];
  const windows = new Map<number, Slot[]>();
  for (const slot of slots) {
    const { condition } = slot.rule;
    if (condition.kind === 'price_cross') (condition.direction === 'above' ? up : down).push(slot);
    else if (condition.kind === 'channel') channels.push(slot);
    else if (condition.kind === 'percent_move') {
      const list = windows.get(condition.windowMinutes) ?? [];
      list.push(slot);
      windows.set(condition.windowMinutes, list);
    }
  }
  const [upLevels, upSorted] = sortedLevels(up, levelOf);
  const [downLevels, downSorted] = sortedLevels(down, levelOf);
  const [lowers, byLower] = sortedLevels(channels, (slot) => channelOf(slot).lower);
  const [uppers, byUpper] = sortedLevels(channels, (slot) => channelOf(slot).upper);
  const percent: PercentGroup[] = [];
  for (const [windowMinutes, list] of windows) {
    const [rises, riseSlots] = sortedLevels(
      list.filter((slot) => percentOf(slot) > 0),
      percentOf,
    );
    const [falls, fallSlots] = sortedLevels(
      list.filter((slot) => percentOf(slot) < 0),
      percentOf,
    );
    percent.push({ windowMinutes, rises, riseSlots, falls, fallSlots });
  }
  return { upLevels, up: upSorted, downLevels, down: downSorted, lowers, byLower, uppers, byUpper, percent };
}

function indexRules(rules: readonly ActiveRule[], stateOf: (rule: ActiveRule) => RuleState): SymbolRules {
  const ticked: Slot[] = [];
  const up: Slot[] = [];
  const down: Slot[] = [];
  const channels: Slot[] = [];
  const percent = new Map<number, Slot[]>();
  const frames = new Map<RuleTimeframe, Frame>();
  const groups = new Map<string, IndicatorGroup>();
  const watos = new Map<RuleTimeframe, WatosGroup>();
  const builtin = new Map<string, Slot[]>();
  let minuteNeed = MINUTE_BASE;
  let hourNeed = 0;
  const needSource = (timeframe: RuleTimeframe, source: number) => {
    if (fromHours(timeframe)) hourNeed = Math.max(hourNeed, source + HOUR_MARGIN);
    else minuteNeed = Math.max(minuteNeed, source + MINUTE_MARGIN);
  };
  for (const rule of rules) {
    const slot: Slot = { rule, state: stateOf(rule) };
    const { condition, timeframe } = rule;
    if (isTickRule(rule)) {
      ticked.push(slot);
      // The bars still give the first tick its previous close and a percentage its reference.
      if (condition.kind === 'percent_move') minuteNeed = Math.max(minuteNeed, condition.windowMinutes + MINUTE_BASE);
      continue;
    }
    switch (condition.kind) {
      case 'price_cross':
        (condition.direction === 'above' ? up : down).push(slot);
        break;
      case 'channel':
        channels.push(slot);
        break;
      case 'percent_move': {
        const list = percent.get(condition.windowMinutes) ?? [];
        list.push(slot);
        percent.set(condition.windowMinutes, list);
        minuteNeed = Math.max(minuteNeed, condition.windowMinutes + MINUTE_BASE);
        break;
      }
      case 'builtin': {
        const list = builtin.get(condition.alertType) ?? [];
        list.push(slot);
        builtin.set(condition.alertType, list);
        break;
      }
      case 'watos_odds': {
        const group = watos.get(timeframe) ?? { timeframe, slots: [], lastTime: NaN, lastProbabilities: [] };
        group.slots.push(slot);
        watos.set(timeframe, group);
        needSource(timeframe, sourceWindow(timeframe, WATOS_WINDOW));
        // The previous evaluation may be a whole T-bar back, with the minutes of its forming hour.
        if (fromHours(timeframe))
          minuteNeed = Math.max(minuteNeed, RULE_TIMEFRAME_MS[timeframe] / MINUTE_MS + MINUTE_MARGIN);
        break;
      }
      default: {
        const key = groupKey(condition, timeframe);
        let group = groups.get(key);
        if (!group) {
          const window = windowBars(condition);
          let frame = frames.get(timeframe);
          if (!frame) {
            frame = {
              timeframe,
              limit: 0,
              anchor: NaN,
              end: -1,
              lastTime: NaN,
              version: 0,
              bars: null,
              scratch: null,
            };
            frames.set(timeframe, frame);
          }
          frame.limit = Math.max(frame.limit, sourceWindow(timeframe, window));
          needSource(timeframe, sourceWindow(timeframe, window));
          group = {
            condition,
            timeframe,
            window,
            frame,
            slots: [],
            seedVersion: -1,
            closed: null,
            rsi: null,
            fast: null,
            slow: null,
            lastTime: NaN,
            lastA: NaN,
            lastB: NaN,
            a: NaN,
            b: NaN,
          };
          groups.set(key, group);
        }
        group.slots.push(slot);
      }
    }
  }
  const [upLevels, upSorted] = sortedLevels(up, levelOf);
  const [downLevels, downSorted] = sortedLevels(down, levelOf);
  return {
    rules: [...rules],
    tick: ticked.length > 0 ? indexTickRules(ticked) : null,
    retired: new Set(),
    minuteNeed: Math.min(MINUTE_HISTORY_MAX, minuteNeed),
    hourNeed: Math.min(HOUR_HISTORY_MAX, hourNeed),
    upLevels,
    up: upSorted,
    downLevels,
    down: downSorted,
    channels,
    percent,
    indicators: [...groups.values()],
    watos: [...watos.values()],
    builtin,
  };
}

/** Brings a frame to the closed T-bars before the bucket of `time`. */
function frameAt(frame: Frame, bars: RuleBars, time: number): FrameBars {
  const frameMs = RULE_TIMEFRAME_MS[frame.timeframe];
  const source = fromHours(frame.timeframe) ? bars.hours : bars.minutes;
  const anchor = bucketStart(time, frameMs);
  const end = lowerBound(source.time, source.length, anchor);
  const lastTime = end > 0 ? source.time[end - 1]! : NaN;
  if (frame.bars && frame.anchor === anchor && frame.end === end && Object.is(frame.lastTime, lastTime))
    return frame.bars;
  frame.anchor = anchor;
  frame.end = end;
  frame.lastTime = lastTime;
  frame.version += 1;
  const from = Math.max(0, end - frame.limit);
  if (!frame.scratch || frame.scratch.time.length < end - from) frame.scratch = frameScratch(frame.limit);
  frame.bars = aggregate(source, from, end, frameMs, frame.scratch);
  return frame.bars;
}

/** Sets group.a (and group.b) to the group's value at minute `index`. */
function computeGroup(group: IndicatorGroup, bars: RuleBars, index: number): void {
  const { condition, frame } = group;
  const frameBars = frameAt(frame, bars, bars.minutes.time[index]!);
  if (group.seedVersion !== frame.version) {
    group.seedVersion = frame.version;
    const start = windowStart(frameBars, frame.end, group.timeframe, group.window);
    const closed = seriesFrom(frameBars, start);
    group.closed = closed;
    if (condition.kind === 'rsi') group.rsi = rsiSeed(closed.close, condition.period);
    else if (condition.kind === 'ema_cross') {
      group.fast = emaSeed(closed.close, condition.fast);
      group.slow = emaSeed(closed.close, condition.slow);
    }
  }
  const close = bars.minutes.close[index]!;
  switch (condition.kind) {
    case 'rsi':
      group.a = rsiNext(group.rsi!, close, condition.period);
      return;
    case 'ema_cross':
      group.a = emaNext(group.fast!, close, condition.fast) - emaNext(group.slow!, close, condition.slow);
      return;
    case 'bollinger': {
      const bands = bollingerNext(group.closed!.close, close, condition.period, condition.deviations);
      group.a = bands.upper;
      group.b = bands.lower;
      return;
    }
    case 'volume_z':
      group.a = volumeZNext(group.closed!.volume, formingVolume(bars, group.timeframe, index), condition.period);
  }
}

export function createRuleEvaluator(options: RuleEvaluatorOptions): RuleEvaluator {
  let index = new Map<string, SymbolRules>();
  const caches = new Map<string, SymbolBars>();
  const states = new Map<number, RuleState>();
  const symbolOf = new Map<number, string>();
  const tickStates = new Map<string, TickState>();
  let tickers = new Map<string, Ticker>();
  let tickSet = new Set<string>();

  function refreshTickSymbols(): void {
    const next = new Map<string, Ticker>();
    for (const [symbol, rules] of index)
      if (rules.tick) next.set(symbol, { rules: rules.tick, state: tickStateOf(symbol), cache: caches.get(symbol) });
    // A symbol that lost its tick rules forgets its last price: should it gain some again, its
    // first tick compares with the bars, not with a price from long ago.
    for (const symbol of tickStates.keys()) if (!next.has(symbol)) tickStates.delete(symbol);
    tickers = next;
    tickSet = new Set(next.keys());
  }

  const signatureOf = (rule: ActiveRule) => JSON.stringify([rule.symbol, rule.timeframe, rule.trigger, rule.condition]);

  function stateOf(rule: ActiveRule): RuleState {
    const signature = signatureOf(rule);
    const known = states.get(rule.id);
    if (known && known.signature === signature) return known;
    const state: RuleState = { signature, lastBucket: NaN, lastMinute: NaN, spent: false };
    states.set(rule.id, state);
    return state;
  }

  function setRules(rules: readonly ActiveRule[]): void {
    const bySymbol = new Map<string, ActiveRule[]>();
    for (const rule of rules) {
      const list = bySymbol.get(rule.symbol) ?? [];
      list.push(rule);
      bySymbol.set(rule.symbol, list);
    }
    const live = new Set(rules.map((rule) => rule.id));
    for (const id of states.keys()) if (!live.has(id)) states.delete(id);
    const next = new Map<string, SymbolRules>();
    for (const [symbol, list] of bySymbol) next.set(symbol, indexRules(list, stateOf));
    symbolOf.clear();
    for (const rule of rules) symbolOf.set(rule.id, rule.symbol);
    for (const symbol of caches.keys()) if (!next.has(symbol)) caches.delete(symbol);
    index = next;
    refreshTickSymbols();
  }

  function retire(ruleId: number): void {
    const state = states.get(ruleId);
    if (state) state.spent = true;
    const symbol = symbolOf.get(ruleId);
    const rules = symbol === undefined ? undefined : index.get(symbol);
    if (symbol === undefined || !rules) return;
    symbolOf.delete(ruleId);
    rules.retired.add(ruleId);
    // A spent rule is skipped where it stands; the index is rebuilt (losing its caches) only
    // once a quarter of the symbol's rules are spent.
    if (rules.retired.size * 4 < rules.rules.length) return;
    const left = rules.rules.filter((rule) => !rules.retired.has(rule.id));
    if (left.length > 0) index.set(symbol, indexRules(left, stateOf));
    else {
      index.delete(symbol);
      caches.delete(symbol);
    }
    refreshTickSymbols();
  }

  async function load(
    symbol: string,
    cache: SymbolBars,
    granularity: 60 | 3600,
    need: number,
    before: number,
  ): Promise<void> {
    const rows = await options.history(symbol, granularity, need);
    const buffer = granularity === 60 ? cache.minutes : cache.hours;
    buffer.clear();
    buffer.append(rows.filter((row) => row.time < before));
    if (granularity === 60) {
      cache.minuteLimit = need;
      cache.minuteComplete = rows.length < need;
    } else {
      cache.hourLimit = need;
      cache.hourComplete = rows.length < need;
    }
  }

  async function run(update: SymbolUpdate, cache: SymbolBars): Promise<FiringDraft[]> {
    const symbol = update.productId;
    let rules = index.get(symbol);
    if (!rules || caches.get(symbol) !== cache) return [];
    const firstMinute = update.minutes.length > 0 ? update.minutes[0]!.time : Infinity;
    const firstHour = update.hours.length > 0 ? update.hours[0]!.time : Infinity;
    if (cache.minuteLimit < rules.minuteNeed && !cache.minuteComplete)
      await load(symbol, cache, 60, rules.minuteNeed, firstMinute);
    if (rules.hourNeed > 0 && cache.hourLimit < rules.hourNeed && !cache.hourComplete)
      await load(symbol, cache, 3600, rules.hourNeed, firstHour);
    // Rules may have changed while history was read.
    rules = index.get(symbol);
    if (!rules || caches.get(symbol) !== cache) return [];

    const { minutes, hours } = cache;
    hours.append(update.hours);
    const firstNew = minutes.length;
    minutes.append(update.minutes);
    const bars: RuleBars = { minutes, hours };
    const out: FiringDraft[] = [];
    for (let at = Math.max(1, firstNew); at < minutes.length; at += 1)
      evaluateMinute(symbol, rules, bars, at, update.source, out);
    for (const alert of update.alerts) evaluateAlert(rules, minutes, alert, update.source, out);
    out.sort((a, b) => a.barTime - b.barTime || a.ruleId - b.ruleId);

    if (minutes.length > rules.minuteNeed + TRIM_SLACK) minutes.trim(rules.minuteNeed);
    if (hours.length > Math.max(rules.hourNeed, 1) + TRIM_SLACK) hours.trim(Math.max(rules.hourNeed, 1));
    return out;
  }

  function fire(slot: Slot, barTime: number, price: number, messageTime: number, source: string, out: FiringDraft[]) {
    const { rule, state } = slot;
    if (state.spent) return;
    if (rule.expiresAt !== null && barTime >= rule.expiresAt) return;
    if (rule.trigger === 'once_per_bar' || rule.trigger === 'once_per_bar_close') {
      const bucket = bucketStart(barTime, RULE_TIMEFRAME_MS[rule.timeframe]);
      if (state.lastBucket === bucket) return;
      state.lastBucket = bucket;
    } else if (rule.trigger === 'once') state.spent = true;
    out.push({
      ruleId: rule.id,
      userId: rule.userId,
      symbol: rule.symbol,
      triggerKey: triggerKey(rule, barTime),
      barTime,
      price,
      message: firingMessage(rule, messageTime, price),
      source,
    });
  }

  function tickStateOf(symbol: string): TickState {
    let state = tickStates.get(symbol);
    if (!state) {
      state = {
        price: NaN,
        minute: -Infinity,
        time: -Infinity,
        layout: null,
        changes: new Float64Array(0),
        seen: new Uint8Array(0),
        references: new Float64Array(0),
        referenceMinute: NaN,
        referenceLength: 0,
        referenceLast: NaN,
      };
      tickStates.set(symbol, state);
    }
    return state;
  }

  /**
   * A tick rule's firing at `time` (a tick's time, or a closed bar's open time) in the minute
   * `minute`: once_per_bar keyed by its bucket, every_time by the minute (at most once a minute),
   * once by 0 and then spent.
   */
  function fireTick(
    slot: Slot,
    time: number,
    minute: number,
    price: number,
    messageTime: number,
    source: string,
    out: FiringDraft[] | null,
  ): FiringDraft[] | null {
    const { rule, state } = slot;
    if (state.spent) return out;
    if (rule.expiresAt !== null && time >= rule.expiresAt) return out;
    if (rule.trigger === 'once_per_bar') {
      const bucket = bucketStart(minute, RULE_TIMEFRAME_MS[rule.timeframe]);
      if (state.lastBucket === bucket) return out;
      state.lastBucket = bucket;
    } else if (rule.trigger === 'every_time') {
      if (state.lastMinute === minute) return out;
      state.lastMinute = minute;
    } else state.spent = true;
    const draft: FiringDraft = {
      ruleId: rule.id,
      userId: rule.userId,
      symbol: rule.symbol,
      triggerKey: triggerKey(rule, minute),
      barTime: minute,
      price,
      message: firingMessage(rule, messageTime, price),
      source,
    };
    if (out) out.push(draft);
    else out = [draft];
    return out;
  }

  /**
   * Moves a symbol's tick rules from the last price they saw to `price` (at `time`, in the minute
   * `minute`) and fires those whose condition becomes true. Before any price, the previous one is
   * the close of the last minute bar held before `minute`; with none, nothing fires.
   */
  function moveTo(
    tick: TickRules,
    state: TickState,
    minutes: CandleSeries | undefined,
    price: number,
    time: number,
    minute: number,
    messageTime: number,
    source: string,
    found: FiringDraft[] | null,
  ): FiringDraft[] | null {
    let out = found;
    let previous = state.price;
    let previousMinute = state.minute;
    if (Number.isNaN(previous) && minutes) {
      const at = lowerBound(minutes.time, minutes.length, minute) - 1;
      if (at >= 0) {
        previous = minutes.close[at]!;
        previousMinute = minutes.time[at]!;
      }
    }
    const known = !Number.isNaN(previous);
    if (known && price !== previous) {
      if (price > previous) {
        // Levels in (previous, price].
        const to = upperBound(tick.upLevels, price);
        for (let at = upperBound(tick.upLevels, previous); at < to; at += 1)
          out = fireTick(tick.up[at]!, time, minute, price, messageTime, source, out);
      } else {
        // Levels in [price, previous).
        const to = lowerBound(tick.downLevels, tick.downLevels.length, previous);
        for (let at = lowerBound(tick.downLevels, tick.downLevels.length, price); at < to; at += 1)
          out = fireTick(tick.down[at]!, time, minute, price, messageTime, source, out);
      }
      if (tick.byLower.length > 0) {
        // A channel changes sides only when a bound lies between the two prices (inclusive).
        const low = Math.min(previous, price);
        const high = Math.max(previous, price);
        const lowerTo = upperBound(tick.lowers, high);
        for (let at = lowerBound(tick.lowers, tick.lowers.length, low); at < lowerTo; at += 1) {
          const slot = tick.byLower[at]!;
          const { direction, lower, upper } = channelOf(slot);
          if (channelCrossed(direction, previous, price, lower, upper))
            out = fireTick(slot, time, minute, price, messageTime, source, out);
        }
        const upperTo = upperBound(tick.uppers, high);
        for (let at = lowerBound(tick.uppers, tick.uppers.length, low); at < upperTo; at += 1) {
          const slot = tick.byUpper[at]!;
          const { direction, lower, upper } = channelOf(slot);
          // Seen above already when its lower bound is in the range too.
          if (lower >= low && lower <= high) continue;
          if (channelCrossed(direction, previous, price, lower, upper))
            out = fireTick(slot, time, minute, price, messageTime, source, out);
        }
      }
    }
    const groups = tick.percent.length;
    if (groups > 0) {
      if (state.layout !== tick) relayout(state, tick);
      const length = minutes ? minutes.length : 0;
      const last = length > 0 ? minutes!.time[length - 1]! : NaN;
      // The references change with the minute and with the bars held, not with each tick.
      if (
        state.referenceMinute !== minute ||
        state.referenceLength !== length ||
        !Object.is(state.referenceLast, last)
      ) {
        for (let group = 0; group < groups; group += 1)
          state.references[group] = closeAtOrBefore(minutes, minute - tick.percent[group]!.windowMinutes * MINUTE_MS);
        state.referenceMinute = minute;
        state.referenceLength = length;
        state.referenceLast = last;
      }
    }
    for (let index = 0; index < groups; index += 1) {
      const group = tick.percent[index]!;
      // The same arithmetic as percentMoveMet, so the sorted percentages split exactly where it does.
      const change = (price / state.references[index]! - 1) * 100;
      if (known) {
        const before =
          state.seen[index] === 1
            ? state.changes[index]!
            : (previous / closeAtOrBefore(minutes, previousMinute - group.windowMinutes * MINUTE_MS) - 1) * 100;
        const { rises, falls } = group;
        // Rises met: the percentages <= change (none when the change is unknown).
        const risesBefore = Number.isNaN(before) ? 0 : upperBound(rises, before);
        const risesNow = Number.isNaN(change) ? 0 : upperBound(rises, change);
        for (let at = risesBefore; at < risesNow; at += 1)
          out = fireTick(group.riseSlots[at]!, time, minute, price, messageTime, source, out);
        // Falls met: the percentages >= change.
        const fallsBefore = Number.isNaN(before) ? falls.length : lowerBound(falls, falls.length, before);
        const fallsNow = Number.isNaN(change) ? falls.length : lowerBound(falls, falls.length, change);
        for (let at = fallsNow; at < fallsBefore; at += 1)
          out = fireTick(group.fallSlots[at]!, time, minute, price, messageTime, source, out);
      }
      state.changes[index] = change;
      state.seen[index] = 1;
    }
    state.price = price;
    state.minute = minute;
    return out;
  }

  function evaluateTick(tick: LiveTick): FiringDraft[] {
    const ticker = tickers.get(tick.symbol);
    if (!ticker) return [];
    const { price, time } = tick;
    if (!(price > 0) || !Number.isFinite(price) || !Number.isFinite(time)) return [];
    const { state } = ticker;
    // Out of order (an older quote arriving late): the newer price already stands.
    if (time < state.time) return [];
    state.time = time;
    const minute = bucketStart(time, MINUTE_MS);
    const out = moveTo(ticker.rules, state, ticker.cache?.minutes, price, time, minute, time, tick.source, null);
    if (!out) return [];
    if (out.length > 1) out.sort((a, b) => a.ruleId - b.ruleId);
    return out;
  }

  function evaluateMinute(
    symbol: string,
    rules: SymbolRules,
    bars: RuleBars,
    at: number,
    source: string,
    out: FiringDraft[],
  ): void {
    const { minutes } = bars;
    const time = minutes.time[at]!;
    const close = minutes.close[at]!;
    const previousClose = minutes.close[at - 1]!;
    const closeTime = time + MINUTE_MS;
    const emit = (slot: Slot) => fire(slot, time, close, closeTime, source, out);

    if (rules.tick) {
      // Tick rules whose minute no tick covered (no feed, or a gap filled from the bars): the
      // close is their next price. A minute some tick reached is left to the ticks.
      const state = tickStateOf(symbol);
      if (state.minute < time) {
        state.time = Math.max(state.time, closeTime);
        moveTo(rules.tick, state, minutes, close, time, time, closeTime, source, out);
      }
    }

    const [upFrom, upTo] = levelsCrossedUp(rules.upLevels, previousClose, close);
    for (let slot = upFrom; slot < upTo; slot += 1) emit(rules.up[slot]!);
    const [downFrom, downTo] = levelsCrossedDown(rules.downLevels, previousClose, close);
    for (let slot = downFrom; slot < downTo; slot += 1) emit(rules.down[slot]!);

    for (const slot of rules.channels) {
      const condition = slot.rule.condition as Extract<RuleCondition, { kind: 'channel' }>;
      if (channelCrossed(condition.direction, previousClose, close, condition.lower, condition.upper)) emit(slot);
    }

    for (const [windowMinutes, slots] of rules.percent) {
      const reference = referenceIndex(minutes, at, windowMinutes);
      if (reference < 0) continue;
      const previousReference = referenceIndex(minutes, at - 1, windowMinutes);
      for (const slot of slots) {
        const { percent } = slot.rule.condition as Extract<RuleCondition, { kind: 'percent_move' }>;
        if (
          percentMoveMet(percent, close, minutes.close[reference]!) &&
          !(previousReference >= 0 && percentMoveMet(percent, previousClose, minutes.close[previousReference]!))
        )
          emit(slot);
      }
    }

    for (const group of rules.indicators) {
      const previousTime = minutes.time[at - 1];
      let previousA: number;
      let previousB: number;
      if (group.lastTime === previousTime) {
        previousA = group.lastA;
        previousB = group.lastB;
      } else {
        computeGroup(group, bars, at - 1);
        previousA = group.a;
        previousB = group.b;
      }
      computeGroup(group, bars, at);
      group.lastTime = time;
      group.lastA = group.a;
      group.lastB = group.b;
      for (const slot of group.slots)
        if (
          indicatorFires(
            slot.rule.condition as IndicatorCondition,
            previousA,
            previousB,
            group.a,
            group.b,
            close,
            previousClose,
          )
        )
          emit(slot);
    }

    for (const group of rules.watos) {
      if (!watosEvaluatedAt(minutes, at, group.timeframe)) {
        // Computed ahead on the group's first minute, so the bar close that compares with it
        // does not pay for two reports.
        if (Number.isNaN(group.lastTime)) {
          const previous = previousWatosEvaluation(minutes, at, group.timeframe);
          group.lastTime = previous >= 0 ? minutes.time[previous]! : -Infinity;
          if (previous >= 0) group.lastProbabilities = watosProbabilitiesAt(bars, group.timeframe, previous);
        }
        continue;
      }
      const probabilities = watosProbabilitiesAt(bars, group.timeframe, at);
      const previous = previousWatosEvaluation(minutes, at, group.timeframe);
      let previousProbabilities: number[] | null = null;
      if (previous >= 0)
        previousProbabilities =
          group.lastTime === minutes.time[previous]
            ? group.lastProbabilities
            : watosProbabilitiesAt(bars, group.timeframe, previous);
      group.lastTime = time;
      group.lastProbabilities = probabilities;
      if (!previousProbabilities) continue;
      for (const slot of group.slots) {
        const { outcome, threshold } = slot.rule.condition as Extract<RuleCondition, { kind: 'watos_odds' }>;
        if (watosOddsMet(probabilities, outcome, threshold) && !watosOddsMet(previousProbabilities, outcome, threshold))
          emit(slot);
      }
    }
  }

  function evaluateAlert(
    rules: SymbolRules,
    minutes: BarBuffer,
    alert: SymbolUpdate['alerts'][number],
    source: string,
    out: FiringDraft[],
  ): void {
    const slots = rules.builtin.get(alert.alertType);
    if (!slots) return;
    const at = lowerBound(minutes.time, minutes.length, alert.time);
    const price =
      at < minutes.length && minutes.time[at] === alert.time
        ? minutes.close[at]!
        : minutes.length > 0
          ? minutes.close[minutes.length - 1]!
          : 0;
    for (const slot of slots) fire(slot, alert.time, price, alert.time, source, out);
  }

  function evaluate(update: SymbolUpdate): Promise<FiringDraft[]> {
    if (!index.has(update.productId)) return Promise.resolve([]);
    let cache = caches.get(update.productId);
    if (!cache) {
      cache = {
        minutes: new BarBuffer(),
        hours: new BarBuffer(),
        minuteLimit: 0,
        hourLimit: 0,
        minuteComplete: false,
        hourComplete: false,
        queue: Promise.resolve(),
      };
      caches.set(update.productId, cache);
      const ticker = tickers.get(update.productId);
      if (ticker) ticker.cache = cache;
    }
    const held = cache;
    const result = cache.queue.then(() => run(update, held));
    cache.queue = result.catch(() => undefined);
    return result;
  }

  async function prepareTicks(): Promise<void> {
    for (const symbol of [...tickSet]) {
      const cache = caches.get(symbol);
      if (cache && cache.minuteLimit > 0) continue;
      // An update without bars reads the history the symbol's rules need and evaluates nothing.
      await evaluate({ productId: symbol, source: 'history', minutes: [], hours: [], alerts: [] });
    }
  }

  return {
    setRules,
    symbols: () => new Set(index.keys()),
    evaluate,
    retire,
    evaluateTick,
    tickSymbols: () => tickSet,
    prepareTicks,
  };
}

/** First index whose value is > target (length when none). */
function upperBound(values: Float64Array, target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! <= target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Close of the last minute bar held at or before `time` (NaN when none). */
function closeAtOrBefore(minutes: CandleSeries | undefined, time: number): number {
  if (!minutes) return NaN;
  let low = 0;
  let high = minutes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (minutes.time[middle]! <= time) low = middle + 1;
    else high = middle;
  }
  return low > 0 ? minutes.close[low - 1]! : NaN;
}

/**
 * Whether an indicator group's rule fires given its group values at the previous and the
 * current minute (A: RSI, EMA fast - slow, the upper band or the volume z-score; B: the lower
 * band): the reference's rule applied to the value the condition looks at.
 */
function indicatorFires(
  condition: IndicatorCondition,
  previousA: number,
  previousB: number,
  currentA: number,
  currentB: number,
  close: number,
  previousClose: number,
): boolean {
  const lower = condition.kind === 'bollinger' && condition.direction === 'below';
  return referenceIndicatorFires(
    condition,
    lower ? previousB : previousA,
    lower ? currentB : currentA,
    close,
    previousClose,
  );
}
