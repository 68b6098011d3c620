import { describe, expect, it } from 'vitest';
import { compactNumber, formatDecimal, formatFileSize, formatPrice, formatSpread, groupDigits } from './format.ts';

describe('formatPrice', () => {
  it('shows 2 decimals for prices of a dollar and more', () => {
    expect(formatPrice(64123.456)).toBe('64,123.46');
    expect(formatPrice(1)).toBe('1.00');
  });
  it('shows enough decimals (at most 8) for small prices', () => {
    expect(formatPrice(0.5123)).toBe('0.5123');
    expect(formatPrice(0.00001234)).toBe('0.00001234');
    expect(formatPrice(0.000000012345)).toBe('0.00000001');
  });
});

describe('formatSpread', () => {
  it('has 4 decimals', () => {
    expect(formatSpread(1.000049)).toBe('1.0000%');
    expect(formatSpread(0.12345)).toBe('0.1235%');
  });
});

describe('formatFileSize', () => {
  it('uses Bytes, KB, MB or GB with up to 2 decimals', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(512)).toBe('512 Bytes');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(5 * 1024 * 1024 + 12345)).toBe('5.01 MB');
    expect(formatFileSize(3 * 1024 ** 3)).toBe('3 GB');
  });
});

describe('groupDigits', () => {
  it('writes a whole number as en-US toLocaleString does', () => {
    for (const value of [0, 7, 999, 1000, 4000, 12345, 999999, 1000000, -1234567, Number.MAX_SAFE_INTEGER])
      expect(groupDigits(value)).toBe(value.toLocaleString('en-US'));
  });

  it('refuses a fraction or a number past the safe integers', () => {
    expect(() => groupDigits(1.5)).toThrow('groupDigits takes a whole number, not 1.5');
    expect(() => groupDigits(Number.NaN)).toThrow(RangeError);
    expect(() => groupDigits(2 ** 60)).toThrow(RangeError);
  });
});

/** A seeded pseudo-random sequence in [0, 1) (mulberry32): the same numbers on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Numbers across 24 orders of magnitude, with ties (…5 in the last place) and negatives. */
function sampleNumbers(count: number, seed: number): number[] {
  const random = seeded(seed);
  const values = [0, -0, 0.5, 1.005, 2.675, 9.995, 99.995, 999.995, 999999, 1e15, 1.234e16, 5e-324, 1e-7];
  for (let index = 0; index < count; index += 1) {
    let value = random() * 10 ** Math.floor(random() * 24 - 12);
    if (index % 3 === 0) value = Number(`${Math.floor(random() * 1e6)}.${Math.floor(random() * 1e4)}5`);
    if (index % 5 === 0) value = Math.round(value);
    if (index % 9 === 0) value = -value;
    values.push(value);
  }
  return values;
}

describe('formatDecimal, formatPrice and compactNumber: as en-US Intl.NumberFormat writes them', () => {
  it('formatDecimal matches toLocaleString for every fraction-digit range, ties and negatives included', () => {
    const random = seeded(7);
    for (const value of sampleNumbers(20_000, 1)) {
      const max = Math.floor(random() * 9);
      const min = Math.floor(random() * (max + 1));
      const expected = value.toLocaleString('en-US', { minimumFractionDigits: min, maximumFractionDigits: max });
      expect(formatDecimal(value, min, max), `${value} with ${min} to ${max} digits`).toBe(expected);
    }
    // ICU rounds the shortest decimal text, not the binary value toFixed rounds.
    expect(formatDecimal(1.005, 2, 2)).toBe('1.01');
    expect((1.005).toFixed(2)).toBe('1.00');
    expect(formatDecimal(-0.001, 2, 2)).toBe('-0.00');
    expect([Number.NaN, Infinity, -Infinity].map((value) => formatDecimal(value, 2, 2))).toEqual(['NaN', '∞', '-∞']);
    expect(() => formatDecimal(1, 3, 2)).toThrow(RangeError);
  });

  it('formatPrice matches the toLocaleString it replaced', () => {
    for (const value of sampleNumbers(20_000, 2).map(Math.abs)) {
      const decimals = value >= 1 ? 2 : Math.min(8, Math.max(2, 1 - Math.floor(Math.log10(value)) + 3));
      const expected = value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: decimals });
      expect(formatPrice(value), String(value)).toBe(expected);
    }
  });

  it('compactNumber matches the compact format with at most 2 fraction digits', () => {
    const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
    for (const value of sampleNumbers(20_000, 3).concat(Infinity, Number.NaN))
      expect(compactNumber(value), String(value)).toBe(compact.format(value));
    expect([999, 1234, 999_999, 12_345_678, 999_995_000].map(compactNumber)).toEqual([
      '999',
      '1.23K',
      '1M',
      '12.35M',
      '1B',
    ]);
  });
});
