// Symbol and timeframe reading: what traders type in a question maps to the symbol table's
// markets (crypto, stocks, ETFs, indices, futures), and ticker-like words we have no data for
// are reported, never mapped to something else.
import { describe, expect, it } from 'vitest';
import { mentionedSymbols, mentionedTimeframe, plainTicker, resolveProduct } from './symbols.ts';

describe('resolveProduct', () => {
  it('accepts the usual spellings of every market', () => {
    for (const input of ['BTC', 'btc', 'BTC-USD', 'BTCUSD', 'BTC/USD', 'BTCUSDT', 'BINANCE:BTCUSDT', 'Bitcoin'])
      expect(resolveProduct(input)?.id).toBe('BTC-USD');
    expect(resolveProduct('USDT')?.id).toBe('USDT-USD');
    for (const input of ['AAPL', 'aapl', 'NASDAQ:AAPL', 'Apple']) expect(resolveProduct(input)?.id).toBe('AAPL');
    for (const input of ['MES', 'MES1!', 'CME_MINI:MES1!', 'MES=F']) expect(resolveProduct(input)?.id).toBe('MES1!');
  });

  it('refuses what we have no data for', () => {
    for (const input of ['LSE:VOD', 'XYZW', 'USD', 'BT', '', 'BINANCE:AAPL']) expect(resolveProduct(input)).toBeNull();
    expect(plainTicker('NASDAQ:aapl')).toBe('AAPL');
    expect(plainTicker('BINANCE:ETHUSDT')).toBe('ETH');
    expect(plainTicker('CME_MINI:MES1!')).toBe('MES');
    expect(plainTicker('lse:vod')).toBe('VOD');
  });

  it('treats the names of Object.prototype members as unknown symbols (fuzzing found a 500)', () => {
    for (const input of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(resolveProduct(input)).toBeNull();
      expect(plainTicker(input)).toBe(input.toUpperCase());
    }
  });
});

describe('mentionedSymbols', () => {
  it('finds markets of every class in order of mention', () => {
    expect(mentionedSymbols('Compare ETH with bitcoin and SOL-USD')).toEqual({
      products: ['ETH-USD', 'BTC-USD', 'SOL-USD'],
      unknown: [],
    });
    expect(mentionedSymbols('What are the odds for AAPL and TSLA?')).toEqual({
      products: ['AAPL', 'TSLA'],
      unknown: [],
    });
    expect(mentionedSymbols('odds for CME_MINI:MES1! vs NASDAQ:AAPL and $nvda').products).toEqual([
      'MES1!',
      'AAPL',
      'NVDA',
    ]);
    expect(mentionedSymbols('How is Micro Gold doing against the s&p 500 and Apple?').products).toEqual([
      'MGC1!',
      'SPX',
      'AAPL',
    ]);
    expect(mentionedSymbols('what are the odds for eth?').products).toEqual(['ETH-USD']);
  });

  it('reports ticker-like words and exchange symbols we have no data for', () => {
    expect(mentionedSymbols('What are the odds for XYZW and LSE:VOD?')).toEqual({
      products: [],
      unknown: ['XYZW', 'LSE:VOD'],
    });
  });

  it('ignores jargon in capitals and everyday words that are also tickers or names', () => {
    expect(mentionedSymbols('Show the RSI and ATR of BTC on the 1h chart, WATOS too').unknown).toEqual([]);
    expect(mentionedSymbols('the support is near and I will link it').products).toEqual([]);
    expect(mentionedSymbols('is NEAR or LINK stronger?').products).toEqual(['NEAR-USD', 'LINK-USD']);
    // Lower-case stock tickers and names are words (now, cost, ma, apple); capitals are tickers.
    expect(mentionedSymbols('what is the trend now, at what cost, above the ma? an apple a day').products).toEqual([]);
    expect(mentionedSymbols('ODDS FOR NVDA NOW').products).toEqual(['NVDA']);
    expect(mentionedSymbols('Strategy for BTC: where is the ETF flow?').products).toEqual(['BTC-USD']);
    expect(mentionedSymbols('NYSE:NOW and a V-shaped recovery').products).toEqual(['NOW']);
  });
});

describe('mentionedTimeframe', () => {
  it('reads docs/SPEC.md timeframes case-sensitively', () => {
    expect(mentionedTimeframe('on the 4h chart')).toBe('4h');
    expect(mentionedTimeframe('BTC (15m)')).toBe('15m');
    expect(mentionedTimeframe('the 12M view')).toBe('12M');
    expect(mentionedTimeframe('the 1m chart')).toBe('1m');
    expect(mentionedTimeframe('on the D chart')).toBe('D');
    expect(mentionedTimeframe('BTC-USD (W)')).toBe('W');
    expect(mentionedTimeframe('the daily trend')).toBe('D');
    expect(mentionedTimeframe('What are the odds for ETH?')).toBeNull();
    expect(mentionedTimeframe('I want a Dog')).toBeNull();
  });
});
