// Symbol and timeframe reading: what traders type maps to our 28 products, and names we have
// no data for are reported, never mapped to something else.
import { describe, expect, it } from 'vitest';
import { mentionedSymbols, mentionedTimeframe, plainTicker, resolveProduct } from './symbols.ts';

describe('resolveProduct', () => {
  it('accepts the usual spellings of a tracked product', () => {
    for (const input of ['BTC', 'btc', 'BTC-USD', 'BTCUSD', 'BTC/USD', 'BTCUSDT', 'BINANCE:BTCUSDT', 'Bitcoin'])
      expect(resolveProduct(input)).toBe('BTC-USD');
    expect(resolveProduct('USDT')).toBe('USDT-USD');
    expect(resolveProduct('USDT-USD')).toBe('USDT-USD');
  });

  it('refuses what we have no data for', () => {
    for (const input of ['AAPL', 'NASDAQ:AAPL', 'USD', 'BT', '']) expect(resolveProduct(input)).toBeNull();
    expect(plainTicker('NASDAQ:aapl')).toBe('AAPL');
    expect(plainTicker('BINANCE:ETHUSDT')).toBe('ETH');
  });

  it('treats the names of Object.prototype members as unknown symbols (fuzzing found a 500)', () => {
    for (const input of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(resolveProduct(input)).toBeNull();
      expect(plainTicker(input)).toBe(input.toUpperCase());
    }
  });
});

describe('mentionedSymbols', () => {
  it('finds products in order and the unknown tickers', () => {
    expect(mentionedSymbols('Compare ETH with bitcoin and SOL-USD')).toEqual({
      products: ['ETH-USD', 'BTC-USD', 'SOL-USD'],
      unknown: [],
    });
    expect(mentionedSymbols('What are the odds for AAPL and TSLA?')).toEqual({
      products: [],
      unknown: ['AAPL', 'TSLA'],
    });
    expect(mentionedSymbols('what are the odds for eth?').products).toEqual(['ETH-USD']);
  });

  it('ignores jargon in capitals and everyday words that are also tickers', () => {
    expect(mentionedSymbols('Show the RSI and ATR of BTC on the 1h chart, WATOS too').unknown).toEqual([]);
    expect(mentionedSymbols('the support is near and I will link it').products).toEqual([]);
    expect(mentionedSymbols('is NEAR or LINK stronger?').products).toEqual(['NEAR-USD', 'LINK-USD']);
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
