// The symbol table (issue 15): every market we know, one row each. The model, the one mapping
// between the forms traders type and these rows, and the search live in ./symbols.ts.
//
// Canonical ids (MarketSymbol.id):
//   crypto          the Coinbase product id:                      BTC-USD, ETH-USD
//   stock, ETF      the exchange ticker, share class after a dot: AAPL, SPY, BRK.B
//   index           the TradingView index ticker:                 SPX, NDX, DJI, RUT, VIX
//   future, micro   the continuous front-month contract, '1!':    ES1!, MES1!, MGC1!
// So for everything but crypto the id is the TradingView symbol without its exchange prefix.
//
// Only facts we are sure of: futures tick sizes and point values are CME Group's contract
// specifications; the listing exchanges are those of the ticker's primary listing. Crypto tick
// sizes are not in this table: Coinbase publishes each product's quote_increment, so crypto
// rows carry 1e-8 (Coinbase's finest increment), a lower bound rather than the product's grid.
import { CRYPTO_SYMBOLS, type CryptoSymbol } from './constants.ts';
import type { SessionCalendarId } from './sessions.ts';

export const ASSET_CLASSES = ['crypto', 'stock', 'etf', 'index', 'future', 'micro-future'] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

/** Trading-session calendars: the rules live in sessions.ts. */
export { SESSION_CALENDAR_IDS, type SessionCalendarId } from './sessions.ts';

/** Where a symbol is listed (for an index: who publishes it). */
export const EXCHANGES = [
  'NASDAQ',
  'NYSE',
  'NYSE Arca',
  'CBOE',
  'S&P DJI',
  'FTSE Russell',
  'CME',
  'CBOT',
  'COMEX',
  'NYMEX',
  'COINBASE',
] as const;
type Exchange = (typeof EXCHANGES)[number];

export interface MarketSymbol {
  assetClass: AssetClass;
  /** Canonical id (see the top of this file): BTC-USD, AAPL, SPX, MES1!. */
  id: string;
  /** The plain symbol of the alerts panel: BTC, AAPL, SPX, MES. */
  ticker: string;
  /** Display name: Bitcoin, Apple, S&P 500, Micro E-mini S&P 500. */
  name: string;
  exchange: Exchange;
  /** The exchange prefix of the chart watchlist's TradingView form: NASDAQ, AMEX, CME_MINI... */
  tradingViewExchange: string;
  currency: 'USD';
  /** Smallest price step, in price units (index points for index futures, USD otherwise). */
  tickSize: number;
  calendar: SessionCalendarId;
  /** The data provider's symbol: Yahoo Finance for non-crypto (AAPL, ^GSPC, MES=F), the Coinbase product id for crypto. */
  providerSymbol: string;
  /** Futures only: USD per one point of price (the contract multiplier); a tick is worth tickSize * pointValue. */
  pointValue?: number;
  /** Stablecoins: held at a peg (1 USD), so trend and momentum alerts are meaningless for them. */
  pegged?: true;
}

/** The cryptos pegged to the dollar. */
const PEGGED: ReadonlySet<string> = new Set(['USDT-USD', 'DAI-USD']);

const CRYPTO_NAMES: Record<CryptoSymbol, string> = {
  'AAVE-USD': 'Aave',
  'ADA-USD': 'Cardano',
  'APT-USD': 'Aptos',
  'AVAX-USD': 'Avalanche',
  'BCH-USD': 'Bitcoin Cash',
  'BTC-USD': 'Bitcoin',
  'CRO-USD': 'Cronos',
  'DAI-USD': 'Dai',
  'DOGE-USD': 'Dogecoin',
  'DOT-USD': 'Polkadot',
  'ETC-USD': 'Ethereum Classic',
  'ETH-USD': 'Ethereum',
  'HBAR-USD': 'Hedera',
  'ICP-USD': 'Internet Computer',
  'LINK-USD': 'Chainlink',
  'LTC-USD': 'Litecoin',
  'NEAR-USD': 'NEAR Protocol',
  'ONDO-USD': 'Ondo',
  'PEPE-USD': 'Pepe',
  'SHIB-USD': 'Shiba Inu',
  'SOL-USD': 'Solana',
  'SUI-USD': 'Sui',
  'TAO-USD': 'Bittensor',
  'TRUMP-USD': 'Official Trump',
  'UNI-USD': 'Uniswap',
  'USDT-USD': 'Tether',
  'XLM-USD': 'Stellar',
  'XRP-USD': 'XRP',
};

const crypto = (productId: CryptoSymbol): MarketSymbol => ({
  assetClass: 'crypto',
  id: productId,
  ticker: productId.replace(/-USD$/, ''),
  name: CRYPTO_NAMES[productId],
  exchange: 'COINBASE',
  tradingViewExchange: 'COINBASE',
  currency: 'USD',
  tickSize: 1e-8,
  calendar: 'crypto-24x7',
  providerSymbol: productId,
  ...(PEGGED.has(productId) ? { pegged: true as const } : {}),
});

const equity =
  (assetClass: 'stock' | 'etf', exchange: 'NASDAQ' | 'NYSE' | 'NYSE Arca') =>
  (id: string, name: string): MarketSymbol => ({
    assetClass,
    id,
    ticker: id,
    name,
    exchange,
    // TradingView lists NYSE Arca under AMEX (AMEX:SPY).
    tradingViewExchange: exchange === 'NYSE Arca' ? 'AMEX' : exchange,
    currency: 'USD',
    tickSize: 0.01,
    calendar: 'us-equities',
    // Yahoo writes share classes with a dash: BRK.B is BRK-B.
    providerSymbol: id.replace('.', '-'),
  });

const nasdaqStock = equity('stock', 'NASDAQ');
const nyseStock = equity('stock', 'NYSE');
const nasdaqEtf = equity('etf', 'NASDAQ');
const arcaEtf = equity('etf', 'NYSE Arca');

const index = (
  id: string,
  name: string,
  exchange: Exchange,
  tradingViewExchange: string,
  providerSymbol: string,
): MarketSymbol => ({
  assetClass: 'index',
  id,
  ticker: id,
  name,
  exchange,
  tradingViewExchange,
  currency: 'USD',
  tickSize: 0.01,
  calendar: 'us-equities',
  providerSymbol,
});

const future = (
  assetClass: 'future' | 'micro-future',
  root: string,
  name: string,
  exchange: 'CME' | 'CBOT' | 'COMEX' | 'NYMEX',
  tickSize: number,
  pointValue: number,
): MarketSymbol => ({
  assetClass,
  id: `${root}1!`,
  ticker: root,
  name,
  exchange,
  // TradingView's prefixes: the E-mini and Micro E-mini index futures sit under CME_MINI
  // (CBOT_MINI for the Dow), metals under COMEX, energy under NYMEX.
  tradingViewExchange: exchange === 'CME' ? 'CME_MINI' : exchange === 'CBOT' ? 'CBOT_MINI' : exchange,
  currency: 'USD',
  tickSize,
  calendar: 'cme-globex',
  providerSymbol: `${root}=F`,
  pointValue,
});

export const SYMBOL_TABLE: readonly MarketSymbol[] = [
  ...CRYPTO_SYMBOLS.map(crypto),

  // Indices.
  index('SPX', 'S&P 500', 'S&P DJI', 'SP', '^GSPC'),
  index('NDX', 'Nasdaq-100', 'NASDAQ', 'NASDAQ', '^NDX'),
  index('DJI', 'Dow Jones Industrial Average', 'S&P DJI', 'DJ', '^DJI'),
  index('RUT', 'Russell 2000', 'FTSE Russell', 'TVC', '^RUT'),
  index('VIX', 'Cboe Volatility Index', 'CBOE', 'CBOE', '^VIX'),

  // Futures (CME Group specifications): tick size in price units, point value in USD.
  future('future', 'ES', 'E-mini S&P 500', 'CME', 0.25, 50),
  future('future', 'NQ', 'E-mini Nasdaq-100', 'CME', 0.25, 20),
  future('future', 'YM', 'E-mini Dow', 'CBOT', 1, 5),
  future('future', 'RTY', 'E-mini Russell 2000', 'CME', 0.1, 50),
  future('micro-future', 'MES', 'Micro E-mini S&P 500', 'CME', 0.25, 5),
  future('micro-future', 'MNQ', 'Micro E-mini Nasdaq-100', 'CME', 0.25, 2),
  future('micro-future', 'MYM', 'Micro E-mini Dow', 'CBOT', 1, 0.5),
  future('micro-future', 'M2K', 'Micro E-mini Russell 2000', 'CME', 0.1, 5),
  future('future', 'GC', 'Gold', 'COMEX', 0.1, 100),
  future('micro-future', 'MGC', 'Micro Gold', 'COMEX', 0.1, 10),
  future('future', 'SI', 'Silver', 'COMEX', 0.005, 5000),
  future('micro-future', 'SIL', 'Micro Silver', 'COMEX', 0.005, 1000),
  future('future', 'CL', 'Crude Oil WTI', 'NYMEX', 0.01, 1000),
  future('micro-future', 'MCL', 'Micro WTI Crude Oil', 'NYMEX', 0.01, 100),
  future('future', 'NG', 'Henry Hub Natural Gas', 'NYMEX', 0.001, 10000),

  // ETFs.
  arcaEtf('SPY', 'SPDR S&P 500 ETF Trust'),
  nasdaqEtf('QQQ', 'Invesco QQQ Trust'),
  arcaEtf('IWM', 'iShares Russell 2000 ETF'),
  arcaEtf('DIA', 'SPDR Dow Jones Industrial Average ETF'),
  arcaEtf('VOO', 'Vanguard S&P 500 ETF'),
  arcaEtf('VTI', 'Vanguard Total Stock Market ETF'),
  arcaEtf('GLD', 'SPDR Gold Shares'),
  arcaEtf('SLV', 'iShares Silver Trust'),
  arcaEtf('GDX', 'VanEck Gold Miners ETF'),
  arcaEtf('USO', 'United States Oil Fund'),
  nasdaqEtf('TLT', 'iShares 20+ Year Treasury Bond ETF'),
  arcaEtf('HYG', 'iShares iBoxx High Yield Corporate Bond ETF'),
  arcaEtf('EEM', 'iShares MSCI Emerging Markets ETF'),
  arcaEtf('XLF', 'Financial Select Sector SPDR Fund'),
  arcaEtf('XLE', 'Energy Select Sector SPDR Fund'),
  arcaEtf('XLK', 'Technology Select Sector SPDR Fund'),
  arcaEtf('XLV', 'Health Care Select Sector SPDR Fund'),
  arcaEtf('XLI', 'Industrial Select Sector SPDR Fund'),
  arcaEtf('XLY', 'Consumer Discretionary Select Sector SPDR Fund'),
  arcaEtf('XLP', 'Consumer Staples Select Sector SPDR Fund'),
  arcaEtf('XLU', 'Utilities Select Sector SPDR Fund'),
  arcaEtf('XLB', 'Materials Select Sector SPDR Fund'),
  nasdaqEtf('SMH', 'VanEck Semiconductor ETF'),
  nasdaqEtf('TQQQ', 'ProShares UltraPro QQQ'),
  nasdaqEtf('SQQQ', 'ProShares UltraPro Short QQQ'),
  nasdaqEtf('IBIT', 'iShares Bitcoin Trust ETF'),

  // Stocks listed on Nasdaq (large caps of the Nasdaq-100 and the Dow).
  nasdaqStock('AAPL', 'Apple'),
  nasdaqStock('MSFT', 'Microsoft'),
  nasdaqStock('NVDA', 'NVIDIA'),
  nasdaqStock('AMZN', 'Amazon'),
  nasdaqStock('GOOGL', 'Alphabet Class A'),
  nasdaqStock('GOOG', 'Alphabet Class C'),
  nasdaqStock('META', 'Meta Platforms'),
  nasdaqStock('TSLA', 'Tesla'),
  nasdaqStock('AVGO', 'Broadcom'),
  nasdaqStock('COST', 'Costco'),
  nasdaqStock('NFLX', 'Netflix'),
  nasdaqStock('AMD', 'Advanced Micro Devices'),
  nasdaqStock('PEP', 'PepsiCo'),
  nasdaqStock('ADBE', 'Adobe'),
  nasdaqStock('CSCO', 'Cisco Systems'),
  nasdaqStock('TMUS', 'T-Mobile US'),
  nasdaqStock('INTC', 'Intel'),
  nasdaqStock('QCOM', 'Qualcomm'),
  nasdaqStock('INTU', 'Intuit'),
  nasdaqStock('TXN', 'Texas Instruments'),
  nasdaqStock('AMGN', 'Amgen'),
  nasdaqStock('ISRG', 'Intuitive Surgical'),
  nasdaqStock('BKNG', 'Booking Holdings'),
  nasdaqStock('HON', 'Honeywell'),
  nasdaqStock('AMAT', 'Applied Materials'),
  nasdaqStock('CMCSA', 'Comcast'),
  nasdaqStock('SBUX', 'Starbucks'),
  nasdaqStock('GILD', 'Gilead Sciences'),
  nasdaqStock('ADP', 'Automatic Data Processing'),
  nasdaqStock('VRTX', 'Vertex Pharmaceuticals'),
  nasdaqStock('MU', 'Micron Technology'),
  nasdaqStock('LRCX', 'Lam Research'),
  nasdaqStock('ADI', 'Analog Devices'),
  nasdaqStock('MDLZ', 'Mondelez International'),
  nasdaqStock('REGN', 'Regeneron Pharmaceuticals'),
  nasdaqStock('PANW', 'Palo Alto Networks'),
  nasdaqStock('KLAC', 'KLA'),
  nasdaqStock('SNPS', 'Synopsys'),
  nasdaqStock('CDNS', 'Cadence Design Systems'),
  nasdaqStock('MELI', 'MercadoLibre'),
  nasdaqStock('CRWD', 'CrowdStrike'),
  nasdaqStock('MAR', 'Marriott International'),
  nasdaqStock('ORLY', "O'Reilly Automotive"),
  nasdaqStock('CTAS', 'Cintas'),
  nasdaqStock('ASML', 'ASML Holding'),
  nasdaqStock('PYPL', 'PayPal'),
  nasdaqStock('ABNB', 'Airbnb'),
  nasdaqStock('FTNT', 'Fortinet'),
  nasdaqStock('CSX', 'CSX Corporation'),
  nasdaqStock('ADSK', 'Autodesk'),
  nasdaqStock('MRVL', 'Marvell Technology'),
  nasdaqStock('PDD', 'PDD Holdings'),
  nasdaqStock('NXPI', 'NXP Semiconductors'),
  nasdaqStock('MNST', 'Monster Beverage'),
  nasdaqStock('CHTR', 'Charter Communications'),
  nasdaqStock('PCAR', 'PACCAR'),
  nasdaqStock('KDP', 'Keurig Dr Pepper'),
  nasdaqStock('AEP', 'American Electric Power'),
  nasdaqStock('PAYX', 'Paychex'),
  nasdaqStock('CPRT', 'Copart'),
  nasdaqStock('ODFL', 'Old Dominion Freight Line'),
  nasdaqStock('ROST', 'Ross Stores'),
  nasdaqStock('FAST', 'Fastenal'),
  nasdaqStock('KHC', 'Kraft Heinz'),
  nasdaqStock('EA', 'Electronic Arts'),
  nasdaqStock('BKR', 'Baker Hughes'),
  nasdaqStock('DDOG', 'Datadog'),
  nasdaqStock('EXC', 'Exelon'),
  nasdaqStock('CTSH', 'Cognizant Technology Solutions'),
  nasdaqStock('XEL', 'Xcel Energy'),
  nasdaqStock('IDXX', 'IDEXX Laboratories'),
  nasdaqStock('VRSK', 'Verisk Analytics'),
  nasdaqStock('TTWO', 'Take-Two Interactive'),
  nasdaqStock('ZS', 'Zscaler'),
  nasdaqStock('DXCM', 'DexCom'),
  nasdaqStock('BIIB', 'Biogen'),
  nasdaqStock('WBD', 'Warner Bros. Discovery'),
  nasdaqStock('LULU', 'Lululemon Athletica'),
  nasdaqStock('DASH', 'DoorDash'),
  nasdaqStock('PLTR', 'Palantir Technologies'),
  nasdaqStock('MSTR', 'Strategy'),
  nasdaqStock('APP', 'AppLovin'),
  nasdaqStock('AXON', 'Axon Enterprise'),
  nasdaqStock('ARM', 'Arm Holdings'),
  nasdaqStock('GEHC', 'GE HealthCare'),
  nasdaqStock('CEG', 'Constellation Energy'),
  nasdaqStock('ROP', 'Roper Technologies'),
  nasdaqStock('WDAY', 'Workday'),
  nasdaqStock('TEAM', 'Atlassian'),
  nasdaqStock('MDB', 'MongoDB'),
  nasdaqStock('COIN', 'Coinbase Global'),
  nasdaqStock('HOOD', 'Robinhood Markets'),
  nasdaqStock('SMCI', 'Super Micro Computer'),
  // Walmart moved its listing from the NYSE to Nasdaq in December 2025.
  nasdaqStock('WMT', 'Walmart'),

  // Stocks listed on the NYSE (the Dow and other large caps).
  nyseStock('JPM', 'JPMorgan Chase'),
  nyseStock('V', 'Visa'),
  nyseStock('MA', 'Mastercard'),
  nyseStock('UNH', 'UnitedHealth Group'),
  nyseStock('HD', 'Home Depot'),
  nyseStock('PG', 'Procter & Gamble'),
  nyseStock('JNJ', 'Johnson & Johnson'),
  nyseStock('KO', 'Coca-Cola'),
  nyseStock('MRK', 'Merck'),
  nyseStock('CVX', 'Chevron'),
  nyseStock('XOM', 'Exxon Mobil'),
  nyseStock('BA', 'Boeing'),
  nyseStock('CAT', 'Caterpillar'),
  nyseStock('CRM', 'Salesforce'),
  nyseStock('DIS', 'Walt Disney'),
  nyseStock('GS', 'Goldman Sachs'),
  nyseStock('IBM', 'IBM'),
  nyseStock('MCD', "McDonald's"),
  nyseStock('MMM', '3M'),
  nyseStock('NKE', 'Nike'),
  nyseStock('SHW', 'Sherwin-Williams'),
  nyseStock('TRV', 'Travelers'),
  nyseStock('VZ', 'Verizon'),
  nyseStock('AXP', 'American Express'),
  nyseStock('BAC', 'Bank of America'),
  nyseStock('WFC', 'Wells Fargo'),
  nyseStock('C', 'Citigroup'),
  nyseStock('MS', 'Morgan Stanley'),
  nyseStock('BRK.B', 'Berkshire Hathaway Class B'),
  nyseStock('LLY', 'Eli Lilly'),
  nyseStock('ORCL', 'Oracle'),
  nyseStock('ABBV', 'AbbVie'),
  nyseStock('PFE', 'Pfizer'),
  nyseStock('T', 'AT&T'),
  nyseStock('UBER', 'Uber Technologies'),
  nyseStock('GE', 'GE Aerospace'),
  nyseStock('F', 'Ford Motor'),
  nyseStock('GM', 'General Motors'),
  nyseStock('NOW', 'ServiceNow'),
  nyseStock('TSM', 'Taiwan Semiconductor Manufacturing'),
  nyseStock('BABA', 'Alibaba Group'),
];

/** Other names traders use, lower case, to a canonical id. */
export const NAME_ALIASES: Readonly<Record<string, string>> = {
  ether: 'ETH-USD',
  ripple: 'XRP-USD',
  shiba: 'SHIB-USD',
  google: 'GOOGL',
  alphabet: 'GOOGL',
  facebook: 'META',
  microstrategy: 'MSTR',
  'berkshire hathaway': 'BRK.B',
  'jp morgan': 'JPM',
  'sp 500': 'SPX',
  sp500: 'SPX',
  's&p500': 'SPX',
  'nasdaq 100': 'NDX',
  nasdaq100: 'NDX',
  dow: 'DJI',
  'dow jones': 'DJI',
  'e-mini s&p': 'ES1!',
  'micro e-mini s&p': 'MES1!',
  'crude oil': 'CL1!',
  'wti crude oil': 'CL1!',
  'natural gas': 'NG1!',
};
