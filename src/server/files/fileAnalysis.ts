// File analysis for the assistant (both providers): the tables of a CSV or Excel file
// (read by files/tableReader.ts) described column by column (type and statistics), and, when
// a table is an option chain (strike, call/put, open interest, volume, IV under their usual
// names, in long or wide layout), the put/call ratios by open interest and by volume, max
// pain and the implied-volatility smile by strike, per expiry when the chain has several.
// Pure functions over strings: every figure is computed from the file's own cells.
import type { Table } from './sheetParsing.ts';

type ColumnType = 'number' | 'date' | 'boolean' | 'text' | 'empty';

export interface ColumnProfile {
  name: string;
  type: ColumnType;
  /** Non-empty cells. */
  count: number;
  missing: number;
  numeric?: { min: number; max: number; mean: number; median: number; std: number; sum: number };
  dates?: { earliest: string; latest: string };
  text?: { distinct: number; top: Array<{ value: string; count: number }> };
}

interface SmilePoint {
  strike: number;
  callIv: number | null;
  putIv: number | null;
}

export interface ChainAnalysis {
  /** The expiry this applies to; null when the chain has a single (or no) expiry column. */
  expiry: string | null;
  strikes: number;
  callOpenInterest: number;
  putOpenInterest: number;
  callVolume: number;
  putVolume: number;
  /** Put open interest / call open interest; null without call open interest. */
  putCallOpenInterest: number | null;
  putCallVolume: number | null;
  /** The strike where option holders would collect least at expiry; null without open interest. */
  maxPain: { strike: number; payout: number } | null;
  /** Implied volatility in percent by strike (ascending); empty without an IV column. */
  smile: SmilePoint[];
  smileShape: string | null;
}

interface OptionChain {
  layout: 'long' | 'wide';
  columns: Record<string, string>;
  underlying: number | null;
  expiries: ChainAnalysis[];
}

export interface TableAnalysis {
  sheet: string | null;
  rows: number;
  columns: ColumnProfile[];
  optionChain: OptionChain | null;
  /** Why a table that looks like a chain could not be analysed as one. */
  chainProblem: string | null;
}

export interface FileAnalysis {
  name: string;
  tables: TableAnalysis[];
}

/** Parses a number as spreadsheets write it: 1,234.5  $12  45%  (3.2)  -0.5. NaN otherwise. */
export function parseNumber(cell: string): number {
  let text = cell.trim();
  if (text === '') return NaN;
  let negative = false;
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1).trim();
  }
  text = text
    .replace(/^[$€£]\s*/, '')
    .replace(/^-\s*[$€£]\s*/, '-')
    .replace(/\s*%$/, '');
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(text)) text = text.replaceAll(',', '');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return NaN;
  const value = Number(text);
  return negative ? -value : value;
}

const DATE_LIKE =
  /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$|^\d{1,2}\/\d{1,2}\/\d{2,4}$/;

function parseDate(cell: string): number {
  const text = cell.trim();
  if (!DATE_LIKE.test(text)) return NaN;
  return Date.parse(text.includes('/') ? text : text.replace(' ', 'T'));
}

const BOOLEAN = /^(true|false|yes|no)$/i;

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A column's type (90% of its non-empty cells must agree) and its statistics. */
export function profileColumn(name: string, cells: string[]): ColumnProfile {
  const present = cells.map((cell) => cell.trim()).filter((cell) => cell !== '');
  const base = { name, count: present.length, missing: cells.length - present.length };
  if (present.length === 0) return { ...base, type: 'empty' };
  const share = (test: (cell: string) => boolean) => present.filter(test).length / present.length;

  const numbers = present.map(parseNumber).filter(Number.isFinite);
  if (numbers.length / present.length >= 0.9) {
    const sorted = [...numbers].sort((a, b) => a - b);
    const sum = numbers.reduce((total, value) => total + value, 0);
    const mean = sum / numbers.length;
    const variance =
      numbers.length > 1 ? numbers.reduce((total, value) => total + (value - mean) ** 2, 0) / (numbers.length - 1) : 0;
    return {
      ...base,
      type: 'number',
      numeric: { min: sorted[0]!, max: sorted.at(-1)!, mean, median: median(sorted), std: Math.sqrt(variance), sum },
    };
  }
  if (share((cell) => Number.isFinite(parseDate(cell))) >= 0.9) {
    const times = present
      .map(parseDate)
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    const iso = (time: number) => new Date(time).toISOString().replace('T00:00:00.000Z', '').replace('.000Z', 'Z');
    return { ...base, type: 'date', dates: { earliest: iso(times[0]!), latest: iso(times.at(-1)!) } };
  }
  if (share((cell) => BOOLEAN.test(cell)) >= 0.9) {
    return { ...base, type: 'boolean', text: topValues(present.map((cell) => cell.toLowerCase())) };
  }
  return { ...base, type: 'text', text: topValues(present) };
}

function topValues(values: string[]): { distinct: number; top: Array<{ value: string; count: number }> } {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  const top = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([value, count]) => ({ value, count }));
  return { distinct: counts.size, top };
}

/** Header names compared without case, spaces or punctuation: 'Open Interest' is 'openinterest'. */
const normalise = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

const NAMES = {
  strike: ['strike', 'strikes', 'strikeprice', 'k'],
  type: [
    'type',
    'optiontype',
    'callput',
    'putcall',
    'cp',
    'pc',
    'right',
    'side',
    'kind',
    'callorput',
    'putorcall',
    'contracttype',
    'option',
  ],
  openInterest: ['openinterest', 'oi', 'openint', 'opint', 'oiqty'],
  volume: ['volume', 'vol', 'tradevolume', 'contractvolume', 'volumetraded'],
  iv: [
    'iv',
    'impliedvolatility',
    'impliedvol',
    'impvol',
    'implvol',
    'ivol',
    'ivpct',
    'ivpercent',
    'volatility',
    'markiv',
    'midiv',
  ],
  expiry: ['expiry', 'expiration', 'expirationdate', 'expirydate', 'exp', 'expdate', 'maturity', 'expires'],
  underlying: ['underlying', 'underlyingprice', 'underlyinglast', 'spot', 'spotprice', 'indexprice', 'underlyingclose'],
} as const;

type Field = keyof typeof NAMES;
type WideField = 'openInterest' | 'volume' | 'iv';

function findColumn(columns: string[], field: Field): number {
  const wanted: readonly string[] = NAMES[field];
  return columns.findIndex((column) => wanted.includes(normalise(column)));
}

/** Wide layout: 'Call OI', 'OI Put', 'calls_volume', 'Put IV'... */
function findSideColumn(columns: string[], side: 'call' | 'put', field: WideField): number {
  return columns.findIndex((column) => {
    const name = normalise(column);
    return NAMES[field].some(
      (key) =>
        name === `${side}${key}` || name === `${side}s${key}` || name === `${key}${side}` || name === `${key}${side}s`,
    );
  });
}

function optionSide(cell: string): 'call' | 'put' | null {
  const text = cell.trim().toLowerCase();
  if (/^c(all)?s?$/.test(text)) return 'call';
  if (/^p(ut)?s?$/.test(text)) return 'put';
  return null;
}

interface StrikeRow {
  callOi: number;
  putOi: number;
  callVolume: number;
  putVolume: number;
  callIv: number[];
  putIv: number[];
}

const finiteOrZero = (value: number) => (Number.isFinite(value) ? value : 0);

/** Max pain: the listed strike minimising what holders collect (intrinsic value x open interest). */
export function maxPain(
  strikes: Array<{ strike: number; callOi: number; putOi: number }>,
): { strike: number; payout: number } | null {
  if (!strikes.some((row) => row.callOi > 0 || row.putOi > 0)) return null;
  let best: { strike: number; payout: number } | null = null;
  for (const { strike: settle } of strikes) {
    let payout = 0;
    for (const row of strikes) {
      payout += row.callOi * Math.max(0, settle - row.strike) + row.putOi * Math.max(0, row.strike - settle);
    }
    if (!best || payout < best.payout) best = { strike: settle, payout };
  }
  return best;
}

function describeSmile(points: SmilePoint[]): string | null {
  const iv = points
    .map((point) => {
      const values = [point.callIv, point.putIv].filter((value): value is number => value !== null);
      return values.length ? { strike: point.strike, iv: values.reduce((a, b) => a + b, 0) / values.length } : null;
    })
    .filter((point): point is { strike: number; iv: number } => point !== null);
  if (iv.length < 3) return null;
  const lowest = iv.reduce((min, point) => (point.iv < min.iv ? point : min));
  const left = iv[0]!;
  const right = iv.at(-1)!;
  const fmt = (value: number) => `${value.toFixed(1)}%`;
  const facts = `lowest ${fmt(lowest.iv)} at strike ${lowest.strike}; ${fmt(left.iv)} at the lowest strike (${left.strike}), ${fmt(right.iv)} at the highest (${right.strike})`;
  // Two IV points is the smallest difference we call a shape; below that the curve is flat.
  const leftUp = left.iv - lowest.iv >= 2;
  const rightUp = right.iv - lowest.iv >= 2;
  if (leftUp && rightUp) return `smile: both wings above the minimum (${facts})`;
  if (left.iv - right.iv >= 2) return `downside skew: lower strikes carry higher IV (${facts})`;
  if (right.iv - left.iv >= 2) return `upside skew: higher strikes carry higher IV (${facts})`;
  return `flat: IV varies by less than 2 points across strikes (${facts})`;
}

function analyseStrikes(expiry: string | null, byStrike: Map<number, StrikeRow>, ivScale: number): ChainAnalysis {
  const rows = [...byStrike].sort((a, b) => a[0] - b[0]);
  const total = (pick: (row: StrikeRow) => number) => rows.reduce((sum, [, row]) => sum + pick(row), 0);
  const callOpenInterest = total((row) => row.callOi);
  const putOpenInterest = total((row) => row.putOi);
  const callVolume = total((row) => row.callVolume);
  const putVolume = total((row) => row.putVolume);
  const average = (values: number[]) =>
    values.length ? (values.reduce((a, b) => a + b, 0) / values.length) * ivScale : null;
  const smile = rows
    .map(([strike, row]) => ({ strike, callIv: average(row.callIv), putIv: average(row.putIv) }))
    .filter((point) => point.callIv !== null || point.putIv !== null);
  return {
    expiry,
    strikes: rows.length,
    callOpenInterest,
    putOpenInterest,
    callVolume,
    putVolume,
    putCallOpenInterest: callOpenInterest > 0 ? putOpenInterest / callOpenInterest : null,
    putCallVolume: callVolume > 0 ? putVolume / callVolume : null,
    maxPain: maxPain(rows.map(([strike, row]) => ({ strike, callOi: row.callOi, putOi: row.putOi }))),
    smile,
    smileShape: describeSmile(smile),
  };
}

/** The option chain in a table, or why a table with a strike column is not one we can read. */
function detectOptionChain(table: Table): { chain: OptionChain | null; problem: string | null } {
  const { columns, rows } = table;
  const strike = findColumn(columns, 'strike');
  if (strike < 0) return { chain: null, problem: null };
  const type = findColumn(columns, 'type');
  const expiry = findColumn(columns, 'expiry');
  const underlyingColumn = findColumn(columns, 'underlying');
  const used: Record<string, string> = { strike: columns[strike]! };

  const groups = new Map<string, Map<number, StrikeRow>>();
  const rowFor = (expiryKey: string, strikeValue: number) => {
    let group = groups.get(expiryKey);
    if (!group) groups.set(expiryKey, (group = new Map<number, StrikeRow>()));
    let row = group.get(strikeValue);
    if (!row)
      group.set(strikeValue, (row = { callOi: 0, putOi: 0, callVolume: 0, putVolume: 0, callIv: [], putIv: [] }));
    return row;
  };
  const allIv: number[] = [];
  let layout: 'long' | 'wide';

  const oi = findColumn(columns, 'openInterest');
  const volume = findColumn(columns, 'volume');
  const iv = findColumn(columns, 'iv');
  const wide = {
    callOi: findSideColumn(columns, 'call', 'openInterest'),
    putOi: findSideColumn(columns, 'put', 'openInterest'),
    callVolume: findSideColumn(columns, 'call', 'volume'),
    putVolume: findSideColumn(columns, 'put', 'volume'),
    callIv: findSideColumn(columns, 'call', 'iv'),
    putIv: findSideColumn(columns, 'put', 'iv'),
  };

  if (type >= 0 && (oi >= 0 || volume >= 0)) {
    layout = 'long';
    used.type = columns[type]!;
    if (oi >= 0) used.openInterest = columns[oi]!;
    if (volume >= 0) used.volume = columns[volume]!;
    if (iv >= 0) used.iv = columns[iv]!;
    for (const cells of rows) {
      const strikeValue = parseNumber(cells[strike]!);
      const side = optionSide(cells[type]!);
      if (!Number.isFinite(strikeValue) || !side) continue;
      const row = rowFor(expiry >= 0 ? cells[expiry]!.trim() : '', strikeValue);
      const ivValue = iv >= 0 ? parseNumber(cells[iv]!) : NaN;
      if (Number.isFinite(ivValue) && ivValue > 0) allIv.push(ivValue);
      if (side === 'call') {
        row.callOi += oi >= 0 ? finiteOrZero(parseNumber(cells[oi]!)) : 0;
        row.callVolume += volume >= 0 ? finiteOrZero(parseNumber(cells[volume]!)) : 0;
        if (Number.isFinite(ivValue) && ivValue > 0) row.callIv.push(ivValue);
      } else {
        row.putOi += oi >= 0 ? finiteOrZero(parseNumber(cells[oi]!)) : 0;
        row.putVolume += volume >= 0 ? finiteOrZero(parseNumber(cells[volume]!)) : 0;
        if (Number.isFinite(ivValue) && ivValue > 0) row.putIv.push(ivValue);
      }
    }
  } else if ((wide.callOi >= 0 && wide.putOi >= 0) || (wide.callVolume >= 0 && wide.putVolume >= 0)) {
    layout = 'wide';
    for (const [field, index] of Object.entries(wide)) if (index >= 0) used[field] = columns[index]!;
    const cell = (cells: string[], index: number) => (index >= 0 ? parseNumber(cells[index]!) : NaN);
    for (const cells of rows) {
      const strikeValue = parseNumber(cells[strike]!);
      if (!Number.isFinite(strikeValue)) continue;
      const row = rowFor(expiry >= 0 ? cells[expiry]!.trim() : '', strikeValue);
      row.callOi += finiteOrZero(cell(cells, wide.callOi));
      row.putOi += finiteOrZero(cell(cells, wide.putOi));
      row.callVolume += finiteOrZero(cell(cells, wide.callVolume));
      row.putVolume += finiteOrZero(cell(cells, wide.putVolume));
      for (const [side, index] of [
        ['call', wide.callIv],
        ['put', wide.putIv],
      ] as const) {
        const value = cell(cells, index);
        if (Number.isFinite(value) && value > 0) {
          (side === 'call' ? row.callIv : row.putIv).push(value);
          allIv.push(value);
        }
      }
    }
  } else {
    return {
      chain: null,
      problem:
        `The table has a strike column ('${columns[strike]}') but no call/put open interest or volume I recognise. ` +
        "Expected either a call/put column ('Type', 'Call/Put') with 'Open Interest' or 'Volume', or paired columns such as 'Call OI' and 'Put OI'.",
    };
  }
  if (expiry >= 0) used.expiry = columns[expiry]!;
  if (groups.size === 0)
    return {
      chain: null,
      problem: `No row of the chain has a numeric strike and a call/put side I recognise ('call'/'put' or 'C'/'P').`,
    };

  // IV as a fraction (0.45) or in percent (45): a median at or below 3 (300%) means fractions.
  const sortedIv = [...allIv].sort((a, b) => a - b);
  const ivScale = sortedIv.length && median(sortedIv) <= 3 ? 100 : 1;
  const underlyingValues =
    underlyingColumn >= 0 ? rows.map((cells) => parseNumber(cells[underlyingColumn]!)).filter(Number.isFinite) : [];
  if (underlyingColumn >= 0) used.underlying = columns[underlyingColumn]!;
  const expiries = [...groups]
    .sort((a, b) =>
      Number.isFinite(parseDate(a[0])) && Number.isFinite(parseDate(b[0]))
        ? parseDate(a[0]) - parseDate(b[0])
        : a[0].localeCompare(b[0]),
    )
    .map(([key, byStrike]) => analyseStrikes(groups.size > 1 || key !== '' ? key || null : null, byStrike, ivScale));
  return {
    chain: { layout, columns: used, underlying: underlyingValues.length ? underlyingValues.at(-1)! : null, expiries },
    problem: null,
  };
}

function analyseTable(table: Table): TableAnalysis {
  const columns = table.columns.map((name, index) =>
    profileColumn(
      name,
      table.rows.map((row) => row[index] ?? ''),
    ),
  );
  const { chain, problem } = detectOptionChain(table);
  return { sheet: table.sheet, rows: table.totalRows, columns, optionChain: chain, chainProblem: problem };
}

export function analyseFile(name: string, tables: Table[]): FileAnalysis {
  return { name, tables: tables.map(analyseTable) };
}
