import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CRYPTO_SYMBOLS, DEFAULT_ALERTS_WATCHLIST, DEFAULT_CHART_WATCHLIST } from './constants.ts';
import { alertSymbol, chartSymbol } from './schemas/watchlists.ts';
import { NAME_ALIASES } from './symbolTable.ts';
import {
  ASSET_CLASSES,
  EXCHANGES,
  SESSION_CALENDAR_IDS,
  SYMBOL_TABLE,
  lookupKeys,
  resolveSymbol,
  searchSymbols,
  tickValue,
  toTradingView,
  unknownSymbolMessage,
} from './symbols.ts';

const idOf = (input: string) => resolveSymbol(input)?.id ?? null;

describe('resolveSymbol: the examples of issue 15', () => {
  it.each([
    ['NASDAQ:AAPL', 'AAPL', 'stock'],
    ['NYSE:JPM', 'JPM', 'stock'],
    ['AMEX:SPY', 'SPY', 'etf'],
    ['CME_MINI:ES1!', 'ES1!', 'future'],
    ['CME_MINI:MES1!', 'MES1!', 'micro-future'],
    ['CME_MINI:MNQ1!', 'MNQ1!', 'micro-future'],
    ['CBOT_MINI:MYM1!', 'MYM1!', 'micro-future'],
    ['CME_MINI:M2K1!', 'M2K1!', 'micro-future'],
    ['COMEX:MGC1!', 'MGC1!', 'micro-future'],
    ['NYMEX:MCL1!', 'MCL1!', 'micro-future'],
    ['BINANCE:BTCUSDT', 'BTC-USD', 'crypto'],
    ['BINANCE:ETHUSDT', 'ETH-USD', 'crypto'],
    ['COINBASE:BTCUSD', 'BTC-USD', 'crypto'],
    ['BITSTAMP:ETHUSD', 'ETH-USD', 'crypto'],
  ])('%s is %s (%s)', (input, id, assetClass) => {
    const symbol = resolveSymbol(input);
    expect(symbol?.id).toBe(id);
    expect(symbol?.assetClass).toBe(assetClass);
  });

  it('maps to the provider symbols: Yahoo for the rest, Coinbase for crypto', () => {
    expect(resolveSymbol('NASDAQ:AAPL')?.providerSymbol).toBe('AAPL');
    expect(resolveSymbol('AMEX:SPY')?.providerSymbol).toBe('SPY');
    expect(resolveSymbol('SP:SPX')?.providerSymbol).toBe('^GSPC');
    expect(resolveSymbol('CME_MINI:ES1!')?.providerSymbol).toBe('ES=F');
    expect(resolveSymbol('CME_MINI:MES1!')?.providerSymbol).toBe('MES=F');
    expect(resolveSymbol('CME_MINI:MNQ1!')?.providerSymbol).toBe('MNQ=F');
    expect(resolveSymbol('CBOT_MINI:MYM1!')?.providerSymbol).toBe('MYM=F');
    expect(resolveSymbol('CME_MINI:M2K1!')?.providerSymbol).toBe('M2K=F');
    expect(resolveSymbol('COMEX:MGC1!')?.providerSymbol).toBe('MGC=F');
    expect(resolveSymbol('NYMEX:MCL1!')?.providerSymbol).toBe('MCL=F');
    expect(resolveSymbol('BINANCE:BTCUSDT')?.providerSymbol).toBe('BTC-USD');
    expect(resolveSymbol('NYSE:BRK.B')?.providerSymbol).toBe('BRK-B');
  });

  it('resolves every entry of both default watchlists', () => {
    for (const entry of [...DEFAULT_CHART_WATCHLIST, ...DEFAULT_ALERTS_WATCHLIST])
      expect(resolveSymbol(entry), entry).not.toBeNull();
  });

  it.each([
    ['AAPL', 'AAPL'],
    ['aapl', 'AAPL'],
    [' TSLA ', 'TSLA'],
    ['BTC', 'BTC-USD'],
    ['eth', 'ETH-USD'],
    ['MES', 'MES1!'],
    ['ES', 'ES1!'],
    ['MES1!', 'MES1!'],
    ['SPX', 'SPX'],
    ['VIX', 'VIX'],
    ['BRK.B', 'BRK.B'],
  ])('plain symbol %s is %s', (input, id) => {
    expect(idOf(input)).toBe(id);
  });

  it.each([
    ['BTC-USD', 'BTC-USD'],
    ['MES=F', 'MES1!'],
    ['es=f', 'ES1!'],
    ['^GSPC', 'SPX'],
    ['^NDX', 'NDX'],
    ['^VIX', 'VIX'],
    ['BRK-B', 'BRK.B'],
    ['BTCUSD', 'BTC-USD'],
    ['BTCUSDT', 'BTC-USD'],
    ['btc/usdc', 'BTC-USD'],
    ['ETH-USDT', 'ETH-USD'],
    ['USDT', 'USDT-USD'],
    ['USDTUSD', 'USDT-USD'],
    ['DAIUSDT', 'DAI-USD'],
  ])('provider symbol or pair %s is %s', (input, id) => {
    expect(idOf(input)).toBe(id);
  });

  it.each([
    ['Bitcoin', 'BTC-USD'],
    ['bitcoin', 'BTC-USD'],
    ['Bitcoin Cash', 'BCH-USD'],
    ['ETHEREUM', 'ETH-USD'],
    ['ether', 'ETH-USD'],
    ['Apple', 'AAPL'],
    ['apple', 'AAPL'],
    ['Google', 'GOOGL'],
    ['S&P 500', 'SPX'],
    ['micro e-mini  s&p 500', 'MES1!'],
    ['Micro Gold', 'MGC1!'],
    ['Crude oil', 'CL1!'],
  ])('name %s is %s', (input, id) => {
    expect(idOf(input)).toBe(id);
  });

  it('takes any exchange of the right family, and refuses another family or an unknown exchange', () => {
    expect(idOf('NYSE:AAPL')).toBe('AAPL');
    expect(idOf('NASDAQ:JPM')).toBe('JPM');
    expect(idOf('NYSEARCA:SPY')).toBe('SPY');
    expect(idOf('ARCA:GLD')).toBe('GLD');
    expect(idOf('NASDAQ:WMT')).toBe('WMT');
    expect(idOf('NYSE:WMT')).toBe('WMT');
    expect(idOf('CME:ES1!')).toBe('ES1!');
    expect(idOf('CME_MINI:MES')).toBe('MES1!');
    expect(idOf('TVC:SPX')).toBe('SPX');
    expect(idOf('KRAKEN:SOLUSD')).toBe('SOL-USD');
    expect(idOf('BINANCE:AAPL')).toBeNull();
    expect(idOf('NASDAQ:ES1!')).toBeNull();
    expect(idOf('CME_MINI:BTC')).toBeNull();
    expect(idOf('NASDAQ:BTCUSD')).toBeNull();
    expect(idOf('LSE:AAPL')).toBeNull();
    expect(idOf('NYSE:SPX')).toBeNull();
  });

  it('refuses what we have no data for, and is safe with odd input', () => {
    for (const input of [
      '',
      '   ',
      'XYZ',
      'NASDAQ:XYZ',
      'ES2!',
      'AAPLUSD',
      ':',
      'NASDAQ:',
      '__proto__',
      'constructor',
      'toString',
      'A'.repeat(200),
    ])
      expect(resolveSymbol(input), input).toBeNull();
  });

  it('never throws and returns a table row or null for any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (input) => {
        const symbol = resolveSymbol(input);
        expect(symbol === null || SYMBOL_TABLE.includes(symbol)).toBe(true);
      }),
    );
  });

  it('ignores case and surrounding spaces of every form', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SYMBOL_TABLE),
        fc.constantFrom('id', 'ticker', 'providerSymbol', 'name', 'tradingView'),
        fc.boolean(),
        fc.nat(3),
        (symbol, form, lower, pad) => {
          const text = form === 'tradingView' ? toTradingView(symbol) : symbol[form];
          const typed = `${' '.repeat(pad)}${lower ? text.toLowerCase() : text.toUpperCase()}${' '.repeat(pad)}`;
          expect(resolveSymbol(typed)).toBe(symbol);
        },
      ),
    );
  });
});

describe('toTradingView', () => {
  it('gives the chart watchlist form', () => {
    const tv = (input: string) => toTradingView(resolveSymbol(input)!);
    expect(tv('AAPL')).toBe('NASDAQ:AAPL');
    expect(tv('JPM')).toBe('NYSE:JPM');
    expect(tv('NYSE:AAPL')).toBe('NASDAQ:AAPL');
    expect(tv('SPY')).toBe('AMEX:SPY');
    expect(tv('QQQ')).toBe('NASDAQ:QQQ');
    expect(tv('SPX')).toBe('SP:SPX');
    expect(tv('MES')).toBe('CME_MINI:MES1!');
    expect(tv('MYM')).toBe('CBOT_MINI:MYM1!');
    expect(tv('MGC')).toBe('COMEX:MGC1!');
    expect(tv('MCL')).toBe('NYMEX:MCL1!');
    expect(tv('BINANCE:BTCUSDT')).toBe('COINBASE:BTCUSD');
  });

  it('round-trips every row of the table', () => {
    for (const symbol of SYMBOL_TABLE) expect(resolveSymbol(toTradingView(symbol)), symbol.id).toBe(symbol);
  });

  it('fits the watchlists: the chart form in the chart watchlist, the ticker in the alerts panel', () => {
    for (const symbol of SYMBOL_TABLE) {
      expect(chartSymbol.safeParse(toTradingView(symbol)).success, toTradingView(symbol)).toBe(true);
      expect(alertSymbol.safeParse(symbol.ticker).success, symbol.ticker).toBe(true);
    }
  });

  it('round-trips every canonical id, ticker, provider symbol and name', () => {
    for (const symbol of SYMBOL_TABLE) {
      for (const form of [symbol.id, symbol.ticker, symbol.providerSymbol, symbol.name])
        expect(resolveSymbol(form), `${symbol.id} as ${form}`).toBe(symbol);
    }
  });
});

describe('the table', () => {
  it('holds the 28 Coinbase cryptos, and the indices, ETFs, futures and micro-futures', () => {
    const crypto = SYMBOL_TABLE.filter((symbol) => symbol.assetClass === 'crypto').map((symbol) => symbol.id);
    expect(crypto).toEqual([...CRYPTO_SYMBOLS]);
    const ids = (assetClass: string) =>
      SYMBOL_TABLE.filter((symbol) => symbol.assetClass === assetClass).map((symbol) => symbol.id);
    expect(ids('index')).toEqual(['SPX', 'NDX', 'DJI', 'RUT', 'VIX']);
    expect(ids('micro-future')).toEqual(['MES1!', 'MNQ1!', 'MYM1!', 'M2K1!', 'MGC1!', 'SIL1!', 'MCL1!']);
    expect(ids('future')).toEqual(['ES1!', 'NQ1!', 'YM1!', 'RTY1!', 'GC1!', 'SI1!', 'CL1!', 'NG1!']);
    expect(ids('etf')).toEqual(
      expect.arrayContaining(['SPY', 'QQQ', 'IWM', 'DIA', 'GLD', 'SLV', 'TLT', 'XLF', 'XLE', 'XLK']),
    );
    expect(ids('stock').length).toBeGreaterThanOrEqual(100);
  });

  it('has unique ids, TradingView forms, lookup keys and names', () => {
    const unique = (values: string[]) => expect(new Set(values).size).toBe(values.length);
    unique(SYMBOL_TABLE.map((symbol) => symbol.id));
    unique(SYMBOL_TABLE.map(toTradingView));
    unique(SYMBOL_TABLE.flatMap(lookupKeys));
    unique(SYMBOL_TABLE.map((symbol) => symbol.name.toLowerCase()));
  });

  it('has no name or alias that is another row’s ticker', () => {
    const owner = new Map(SYMBOL_TABLE.flatMap((symbol) => lookupKeys(symbol).map((key) => [key, symbol] as const)));
    for (const symbol of SYMBOL_TABLE) {
      const other = owner.get(symbol.name.toUpperCase());
      expect(other === undefined || other === symbol, symbol.name).toBe(true);
    }
    for (const [alias, id] of Object.entries(NAME_ALIASES)) {
      expect(
        SYMBOL_TABLE.some((symbol) => symbol.id === id),
        alias,
      ).toBe(true);
      const other = owner.get(alias.toUpperCase());
      expect(other === undefined || other.id === id, alias).toBe(true);
      expect(alias, 'aliases are lower case').toBe(alias.toLowerCase());
    }
  });

  it('has valid classes, exchanges, calendars, tick sizes and point values', () => {
    for (const symbol of SYMBOL_TABLE) {
      expect(ASSET_CLASSES).toContain(symbol.assetClass);
      expect(EXCHANGES).toContain(symbol.exchange);
      expect(SESSION_CALENDAR_IDS).toContain(symbol.calendar);
      expect(symbol.tickSize, symbol.id).toBeGreaterThan(0);
      expect(symbol.currency).toBe('USD');
      const isFuture = symbol.assetClass === 'future' || symbol.assetClass === 'micro-future';
      expect(symbol.pointValue !== undefined, symbol.id).toBe(isFuture);
      if (isFuture) {
        expect(symbol.calendar).toBe('cme-globex');
        expect(symbol.id).toBe(`${symbol.ticker}1!`);
        expect(symbol.providerSymbol).toBe(`${symbol.ticker}=F`);
        expect(['CME', 'CBOT', 'COMEX', 'NYMEX']).toContain(symbol.exchange);
      } else if (symbol.assetClass === 'crypto') {
        expect(symbol.calendar).toBe('crypto-24x7');
        expect(symbol.exchange).toBe('COINBASE');
      } else {
        expect(symbol.calendar).toBe('us-equities');
      }
    }
  });

  it.each([
    ['ES', 'CME', 0.25, 50, 12.5],
    ['MES', 'CME', 0.25, 5, 1.25],
    ['NQ', 'CME', 0.25, 20, 5],
    ['MNQ', 'CME', 0.25, 2, 0.5],
    ['YM', 'CBOT', 1, 5, 5],
    ['MYM', 'CBOT', 1, 0.5, 0.5],
    ['RTY', 'CME', 0.1, 50, 5],
    ['M2K', 'CME', 0.1, 5, 0.5],
    ['GC', 'COMEX', 0.1, 100, 10],
    ['MGC', 'COMEX', 0.1, 10, 1],
    ['SI', 'COMEX', 0.005, 5000, 25],
    ['SIL', 'COMEX', 0.005, 1000, 5],
    ['CL', 'NYMEX', 0.01, 1000, 10],
    ['MCL', 'NYMEX', 0.01, 100, 1],
    ['NG', 'NYMEX', 0.001, 10000, 10],
  ])('%s: %s, tick %d, $%d a point, $%d a tick', (root, exchange, tick, point, perTick) => {
    const symbol = resolveSymbol(root)!;
    expect(symbol.exchange).toBe(exchange);
    expect(symbol.tickSize).toBe(tick);
    expect(symbol.pointValue).toBe(point);
    expect(tickValue(symbol)).toBeCloseTo(perTick, 10);
  });
});

describe('unknownSymbolMessage', () => {
  it('names the input and says what to try', () => {
    const message = unknownSymbolMessage('XYZ');
    expect(message).toMatch(/^No market data for XYZ: it is not a market we cover\./);
    expect(message).toContain('Try a ticker (AAPL, SPY, MES, BTC)');
  });

  it('suggests near matches', () => {
    expect(unknownSymbolMessage('APPL')).toContain('No market data for APPL');
    expect(unknownSymbolMessage('MICRO')).toContain('Did you mean MES (Micro E-mini S&P 500)');
  });

  it('explains a known ticker on the wrong exchange', () => {
    expect(unknownSymbolMessage('BINANCE:AAPL')).toBe(
      'No market data for BINANCE:AAPL: AAPL (Apple) is not traded on BINANCE; Apple is NASDAQ:AAPL.',
    );
    expect(unknownSymbolMessage('LSE:AAPL')).toBe(
      'No market data for LSE:AAPL: we do not know the exchange LSE; Apple is NASDAQ:AAPL.',
    );
  });

  it('points a specific or other futures contract to the front month', () => {
    expect(unknownSymbolMessage('ES2!')).toBe(
      'No market data for ES2!: we carry the continuous front-month contract only; use CME_MINI:ES1! (E-mini S&P 500).',
    );
    expect(unknownSymbolMessage('CME_MINI:MESZ2026')).toContain('use CME_MINI:MES1! (Micro E-mini S&P 500)');
    expect(unknownSymbolMessage('MCLF27')).toContain('use NYMEX:MCL1!');
    expect(resolveSymbol('MESZ2026')).toBeNull();
  });

  it('handles empty and very long input', () => {
    expect(unknownSymbolMessage('  ')).toMatch(/^No symbol given/);
    expect(unknownSymbolMessage('Q'.repeat(100)).length).toBeLessThan(300);
  });
});

describe('searchSymbols', () => {
  const tickers = (query: string, limit = 10) => searchSymbols(query, limit).map((symbol) => symbol.ticker);

  it("'mes' finds MES first", () => {
    expect(tickers('mes')[0]).toBe('MES');
  });

  it("'micro' finds the micro futures by name, before other names with the word", () => {
    expect(tickers('micro', 7).sort()).toEqual(['M2K', 'MCL', 'MES', 'MGC', 'MNQ', 'MYM', 'SIL']);
    const all = tickers('micro', 50);
    expect(all.indexOf('SMCI')).toBeGreaterThan(6);
    expect(all).toContain('MU');
    expect(all).toContain('MSFT');
  });

  it("'apple' finds AAPL; a ticker prefix ranks shorter tickers first", () => {
    expect(tickers('apple')[0]).toBe('AAPL');
    expect(tickers('AA').slice(0, 2)).toEqual(['AAVE', 'AAPL']);
    expect(tickers('goo')).toEqual(['GOOG', 'GOOGL']);
  });

  it('puts the exact resolution first, whatever form was typed', () => {
    expect(tickers('BINANCE:BTCUSDT')[0]).toBe('BTC');
    expect(tickers('CME_MINI:MES1!')[0]).toBe('MES');
    expect(tickers('bitcoin')[0]).toBe('BTC');
    expect(tickers('bitcoin')).toContain('BCH');
    expect(tickers('gold')[0]).toBe('GC');
    expect(tickers('gold')).toEqual(expect.arrayContaining(['MGC', 'GLD', 'GDX']));
  });

  it('finds by substring last', () => {
    expect(tickers('crosoft')).toEqual(['MSFT']);
    expect(tickers('=F', 50)).toHaveLength(15);
  });

  it('answers at most limit rows, nothing for empty or nonsense input', () => {
    expect(searchSymbols('a', 5)).toHaveLength(5);
    expect(searchSymbols('a', 0)).toEqual([]);
    expect(searchSymbols('', 10)).toEqual([]);
    expect(searchSymbols('   ', 10)).toEqual([]);
    expect(searchSymbols('zzzzqqq', 10)).toEqual([]);
  });

  it('is stable and bounded for any query', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 60 }), (query, limit) => {
        const first = searchSymbols(query, limit);
        expect(first.length).toBeLessThanOrEqual(limit);
        expect(new Set(first).size).toBe(first.length);
        expect(searchSymbols(query, limit)).toEqual(first);
        // A smaller limit is a prefix of the larger answer.
        expect(searchSymbols(query, Math.min(limit, 3))).toEqual(first.slice(0, Math.min(limit, 3)));
      }),
    );
  });
});
