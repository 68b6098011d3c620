// Per-symbol character of the demo feed (issue 15, item 4): the level each symbol starts from
// (near its real late-2025 range), its yearly volatility, how strongly it is pulled back to that
// level, its daily volume and its quoted spread. Rows it does not know (a benchmark's synthetic
// universe) get a level and volatility typical of their asset class, derived from their id so
// they too are the same on every instance. Price paths themselves live in demoSeries.ts.
import type { AssetClass, MarketSymbol } from '../../shared/symbolTable.ts';
import type { SessionCalendarId } from '../../shared/sessions.ts';

export interface DemoProfile {
  id: string;
  assetClass: AssetClass;
  calendar: SessionCalendarId;
  /** Seeds the path: a micro future shares its full-size contract's key, so MES1! moves with ES1!. */
  pathKey: string;
  /** Mean level the walk starts from and is weakly pulled back to. */
  level: number;
  /** Yearly volatility (log returns) in the normal regime. */
  annualVolatility: number;
  /** Half-life, in sessions, of a distance from `level`. */
  halfLifeSessions: number;
  /** Typical volume of a whole session, in shares, contracts or coins. */
  dailyVolume: number;
  /** Price grid of every price; 0 leaves prices unrounded (crypto: no grid in the symbol table). */
  tickSize: number;
  /** Quoted spread in ticks (ticked rows); 0 for indices, which have no bid or ask. */
  spreadTicks: number;
  /** Crypto: half the spread as a fraction of the price. */
  halfSpread: number;
}

/** Late-2025 levels of every non-crypto row of the symbol table. */
const LEVELS: Record<string, number> = {
  // Indices.
  SPX: 6750,
  NDX: 24500,
  DJI: 46500,
  RUT: 2400,
  VIX: 17,
  // Futures: index futures trade a little above their index (carry).
  'ES1!': 6790,
  'NQ1!': 24650,
  'YM1!': 46700,
  'RTY1!': 2410,
  'GC1!': 3900,
  'SI1!': 46,
  'CL1!': 64,
  'NG1!': 3.9,
  // ETFs.
  SPY: 670,
  QQQ: 595,
  IWM: 240,
  DIA: 465,
  VOO: 615,
  VTI: 330,
  GLD: 360,
  SLV: 42,
  GDX: 75,
  USO: 74,
  TLT: 89,
  HYG: 80.5,
  EEM: 53,
  XLF: 53,
  XLE: 89,
  XLK: 285,
  XLV: 145,
  XLI: 152,
  XLY: 235,
  XLP: 79,
  XLU: 86,
  XLB: 88,
  SMH: 330,
  TQQQ: 100,
  SQQQ: 16,
  IBIT: 58,
  // Stocks listed on Nasdaq.
  AAPL: 255,
  MSFT: 480,
  NVDA: 180,
  AMZN: 225,
  GOOGL: 260,
  GOOG: 261,
  META: 680,
  TSLA: 400,
  AVGO: 340,
  COST: 920,
  NFLX: 110,
  AMD: 210,
  PEP: 148,
  ADBE: 340,
  CSCO: 72,
  TMUS: 215,
  INTC: 37,
  QCOM: 168,
  INTU: 650,
  TXN: 170,
  AMGN: 300,
  ISRG: 520,
  BKNG: 5100,
  HON: 205,
  AMAT: 215,
  CMCSA: 28,
  SBUX: 85,
  GILD: 118,
  ADP: 270,
  VRTX: 440,
  MU: 200,
  LRCX: 145,
  ADI: 240,
  MDLZ: 58,
  REGN: 620,
  PANW: 200,
  KLAC: 1100,
  SNPS: 430,
  CDNS: 330,
  MELI: 2100,
  CRWD: 500,
  MAR: 275,
  ORLY: 95,
  CTAS: 195,
  ASML: 1000,
  PYPL: 66,
  ABNB: 125,
  FTNT: 85,
  CSX: 35,
  ADSK: 310,
  MRVL: 80,
  PDD: 125,
  NXPI: 205,
  MNST: 68,
  CHTR: 250,
  PCAR: 98,
  KDP: 27,
  AEP: 118,
  PAYX: 125,
  CPRT: 45,
  ODFL: 145,
  ROST: 160,
  FAST: 42,
  KHC: 25,
  EA: 200,
  BKR: 47,
  DDOG: 155,
  EXC: 45,
  CTSH: 70,
  XEL: 78,
  IDXX: 680,
  VRSK: 240,
  TTWO: 240,
  ZS: 290,
  DXCM: 68,
  BIIB: 150,
  WBD: 22,
  LULU: 175,
  DASH: 240,
  PLTR: 175,
  MSTR: 250,
  APP: 580,
  AXON: 600,
  ARM: 150,
  GEHC: 75,
  CEG: 340,
  ROP: 480,
  WDAY: 235,
  TEAM: 160,
  MDB: 340,
  COIN: 300,
  HOOD: 125,
  SMCI: 42,
  WMT: 105,
  // Stocks listed on the NYSE.
  JPM: 305,
  V: 340,
  MA: 565,
  UNH: 330,
  HD: 365,
  PG: 150,
  JNJ: 195,
  KO: 69,
  MRK: 90,
  CVX: 152,
  XOM: 115,
  BA: 210,
  CAT: 520,
  CRM: 245,
  DIS: 112,
  GS: 780,
  IBM: 290,
  MCD: 300,
  MMM: 160,
  NKE: 66,
  SHW: 340,
  TRV: 275,
  VZ: 41,
  AXP: 355,
  BAC: 52,
  WFC: 85,
  C: 100,
  MS: 160,
  'BRK.B': 495,
  LLY: 900,
  ORCL: 240,
  ABBV: 225,
  PFE: 25,
  T: 26,
  UBER: 92,
  GE: 300,
  F: 13,
  GM: 70,
  NOW: 850,
  TSM: 295,
  BABA: 165,
};

/** Levels of the Coinbase products (same order of magnitude as the real market). */
const CRYPTO_LEVELS: Record<string, number> = {
  'AAVE-USD': 280,
  'ADA-USD': 0.9,
  'APT-USD': 9,
  'AVAX-USD': 36,
  'BCH-USD': 450,
  'BTC-USD': 94000,
  'CRO-USD': 0.15,
  'DAI-USD': 1,
  'DOGE-USD': 0.32,
  'DOT-USD': 6.8,
  'ETC-USD': 26,
  'ETH-USD': 3300,
  'HBAR-USD': 0.27,
  'ICP-USD': 10,
  'LINK-USD': 21,
  'LTC-USD': 105,
  'NEAR-USD': 5,
  'ONDO-USD': 1.3,
  'PEPE-USD': 0.000017,
  'SHIB-USD': 0.000021,
  'SOL-USD': 190,
  'SUI-USD': 4.1,
  'TAO-USD': 450,
  'TRUMP-USD': 12,
  'UNI-USD': 13,
  'USDT-USD': 1,
  'XLM-USD': 0.34,
  'XRP-USD': 2.2,
};

/** Micro futures follow their full-size contract tick for tick; only their volume differs. */
const MICRO_OF: Record<string, string> = {
  'MES1!': 'ES1!',
  'MNQ1!': 'NQ1!',
  'MYM1!': 'YM1!',
  'M2K1!': 'RTY1!',
  'MGC1!': 'GC1!',
  'SIL1!': 'SI1!',
  'MCL1!': 'CL1!',
};

/** Yearly volatility where a row differs from its class (high-beta names, defensives, commodities). */
const VOLATILITY: Record<string, number> = {
  TSLA: 0.55,
  NVDA: 0.45,
  AMD: 0.5,
  MU: 0.5,
  MRVL: 0.5,
  INTC: 0.45,
  SMCI: 0.75,
  MSTR: 0.8,
  PLTR: 0.6,
  COIN: 0.65,
  HOOD: 0.65,
  APP: 0.65,
  ARM: 0.55,
  MDB: 0.5,
  DDOG: 0.45,
  ZS: 0.45,
  TEAM: 0.45,
  CRWD: 0.42,
  PDD: 0.42,
  BABA: 0.42,
  KO: 0.2,
  PG: 0.2,
  PEP: 0.2,
  JNJ: 0.2,
  MCD: 0.2,
  WMT: 0.22,
  VZ: 0.22,
  T: 0.22,
  KDP: 0.22,
  XEL: 0.22,
  AEP: 0.22,
  EXC: 0.22,
  'BRK.B': 0.2,
  TQQQ: 0.6,
  SQQQ: 0.6,
  IBIT: 0.5,
  SMH: 0.35,
  GDX: 0.35,
  SLV: 0.3,
  USO: 0.35,
  TLT: 0.14,
  HYG: 0.06,
  XLP: 0.13,
  XLU: 0.16,
  EEM: 0.18,
  NDX: 0.2,
  RUT: 0.22,
  DJI: 0.15,
  VIX: 1.0,
  'NQ1!': 0.2,
  'YM1!': 0.15,
  'RTY1!': 0.22,
  'GC1!': 0.18,
  'SI1!': 0.32,
  'CL1!': 0.35,
  'NG1!': 0.6,
};

/** Session volume of the futures rows, contracts (order of CME's daily volumes). */
const FUTURES_VOLUME: Record<string, number> = {
  'ES1!': 1_400_000,
  'NQ1!': 600_000,
  'YM1!': 150_000,
  'RTY1!': 150_000,
  'MES1!': 1_000_000,
  'MNQ1!': 1_200_000,
  'MYM1!': 200_000,
  'M2K1!': 150_000,
  'GC1!': 250_000,
  'MGC1!': 150_000,
  'SI1!': 80_000,
  'SIL1!': 10_000,
  'CL1!': 350_000,
  'MCL1!': 100_000,
  'NG1!': 300_000,
};

const CLASS_VOLATILITY: Record<AssetClass, number> = {
  crypto: 0.75,
  stock: 0.3,
  etf: 0.18,
  index: 0.16,
  future: 0.16,
  'micro-future': 0.16,
};

/** A uniform in [0, 1) from a text (FNV-1a, then a finaliser), for rows without a table entry. */
function uniformOf(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  hash = Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d);
  hash = Math.imul(hash ^ (hash >>> 12), 0x297a2d39);
  return ((hash ^ (hash >>> 15)) >>> 0) / 4294967296;
}

/** A level for a row the tables do not know: log-uniform over a range typical of its class. */
function syntheticLevel(symbol: MarketSymbol): number {
  const [low, high] =
    symbol.assetClass === 'crypto'
      ? [0.1, 1000]
      : symbol.assetClass === 'index'
        ? [500, 30_000]
        : symbol.assetClass === 'future' || symbol.assetClass === 'micro-future'
          ? [20, 5000]
          : [10, 600];
  return low * Math.pow(high / low, uniformOf(symbol.id));
}

/** The demo character of one symbol-table row (or a synthetic row with a class and calendar). */
export function demoProfile(symbol: MarketSymbol): DemoProfile {
  const pathKey = MICRO_OF[symbol.id] ?? symbol.id;
  const isCrypto = symbol.assetClass === 'crypto';
  const level = (isCrypto ? CRYPTO_LEVELS[pathKey] : LEVELS[pathKey]) ?? syntheticLevel(symbol);
  const tickSize = isCrypto ? 0 : symbol.tickSize;

  if (isCrypto) {
    const stable = symbol.pegged === true;
    const major = symbol.id === 'BTC-USD' || symbol.id === 'ETH-USD';
    return {
      id: symbol.id,
      assetClass: symbol.assetClass,
      calendar: symbol.calendar,
      pathKey,
      level,
      // Stablecoins only wobble around their peg and are pulled back to it within a day.
      annualVolatility: stable ? 0.02 : major ? 0.45 : 0.75,
      halfLifeSessions: stable ? 0.5 : 90,
      dailyVolume: (stable ? 7.2e8 : 1.44e9) / level,
      tickSize,
      spreadTicks: 0,
      halfSpread: stable ? 0.00005 : major ? 0.0005 : 0.0025,
    };
  }

  const annualVolatility = VOLATILITY[pathKey] ?? CLASS_VOLATILITY[symbol.assetClass];
  const isFuture = symbol.assetClass === 'future' || symbol.assetClass === 'micro-future';
  // A session's dollar volume of a few billion for stocks and ETFs (more for the index ETFs).
  const dollarVolume = symbol.id === 'SPY' || symbol.id === 'QQQ' ? 3e10 : symbol.assetClass === 'etf' ? 2e9 : 5e9;
  const dailyVolume = isFuture
    ? (FUTURES_VOLUME[symbol.id] ?? 100_000)
    : symbol.assetClass === 'index'
      ? // Indices report the volume of their constituents; an order of magnitude is enough.
        2e9 / Math.sqrt(level)
      : dollarVolume / level;
  // One tick for liquid rows; a few for high-priced stocks and thin contracts, where the book is wider.
  const spreadTicks =
    symbol.assetClass === 'index'
      ? 0
      : isFuture
        ? dailyVolume < 100_000
          ? 2
          : 1
        : level > 1000
          ? 5
          : level > 400
            ? 2
            : 1;
  return {
    id: symbol.id,
    assetClass: symbol.assetClass,
    calendar: symbol.calendar,
    pathKey,
    level,
    annualVolatility,
    // VIX is strongly mean-reverting (days); everything else drifts for months, so a year of
    // replay stays in a familiar range (a stationary spread of about a third of the yearly
    // volatility around `level`).
    halfLifeSessions: symbol.id === 'VIX' ? 8 : 30,
    dailyVolume,
    tickSize,
    spreadTicks,
    halfSpread: 0,
  };
}
