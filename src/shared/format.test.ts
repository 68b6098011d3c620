import { describe, expect, it } from 'vitest';
import { formatFileSize, formatPrice, formatSpread } from './format.ts';

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
