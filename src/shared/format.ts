// Display formats of docs/SPEC.md shared by every screen: prices with 2 to 8 decimals, spreads
// with 4, file sizes in Bytes/KB/MB/GB with 2 decimals.
// Prices and counts are written out here, as en-US's Intl.NumberFormat writes them (the tests
// compare the two), rather than with toLocaleString: a page's first Intl number format costs
// ICU's set-up, 14 to 18 ms on a desktop and about four times that on a phone, and the
// dashboard's watchlist paid it in a long task of its first screen (docs/performance.md).

/** USD price: 2 decimals from $1 up, more (at most 8) for sub-dollar assets. */
export function formatPrice(value: number): string {
  const decimals = value >= 1 ? 2 : Math.min(8, Math.max(2, 1 - Math.floor(Math.log10(value)) + 3));
  return formatDecimal(value, 2, decimals);
}

/** `digits` (a whole number's decimal digits) plus one in the last place, carried leftwards. */
function incrementDigits(digits: string): string {
  const out = digits.split('');
  for (let index = out.length - 1; index >= 0; index -= 1) {
    if (out[index] !== '9') {
      out[index] = String(Number(out[index]) + 1);
      return out.join('');
    }
    out[index] = '0';
  }
  return `1${out.join('')}`;
}

/** A decimal number's digits before and after its point (no sign, no exponent). */
interface DecimalText {
  whole: string;
  fraction: string;
}

/** The shortest decimal text that reads back as `magnitude` (>= 0, finite), split at its point. */
function decimalText(magnitude: number): DecimalText {
  const text = String(magnitude);
  const exponentAt = text.indexOf('e');
  if (exponentAt < 0) {
    const [whole, fraction = ''] = text.split('.');
    return { whole: whole!, fraction };
  }
  const mantissa = text.slice(0, exponentAt).replace('.', '');
  const pointAt = text.slice(0, exponentAt).split('.')[0]!.length + Number(text.slice(exponentAt + 1));
  if (pointAt <= 0) return { whole: '0', fraction: '0'.repeat(-pointAt) + mantissa };
  return { whole: mantissa.slice(0, pointAt).padEnd(pointAt, '0'), fraction: mantissa.slice(pointAt) };
}

/** `number` divided by 10^places, exactly (the point moves left). */
function shiftLeft({ whole, fraction }: DecimalText, places: number): DecimalText {
  const padded = whole.padStart(places + 1, '0');
  return {
    whole: padded.slice(0, padded.length - places).replace(/^0+(?=\d)/, ''),
    fraction: padded.slice(padded.length - places) + fraction,
  };
}

/** Rounded half away from zero to at most `max` fraction digits, trailing zeros kept to `min`. */
function rounded({ whole, fraction }: DecimalText, min: number, max: number): DecimalText {
  let integer = whole;
  let kept = fraction.slice(0, max);
  if (fraction.length > max && fraction.charCodeAt(max) >= 53 /* '5' */) {
    const up = incrementDigits(integer + kept.padEnd(max, '0'));
    integer = up.slice(0, up.length - max) || '0';
    kept = up.slice(up.length - max);
  }
  return { whole: integer, fraction: kept.replace(/0+$/, '').padEnd(min, '0') };
}

const groupThousands = (digits: string) => digits.replace(/\B(?=(\d{3})+$)/g, ',');

/** '-' for a negative number, -0 included (as Intl writes it), else ''. */
const signOf = (value: number) => (value < 0 || Object.is(value, -0) ? '-' : '');

/**
 * `value` as en-US's Intl.NumberFormat with minimumFractionDigits `min` and maximumFractionDigits
 * `max` writes it: thousands grouped, rounded half away from zero on the shortest decimal text of
 * the number (as ICU rounds: 1.005 to 2 places is 1.01), a minus sign on anything negative
 * (-0.001 is '-0.00').
 */
export function formatDecimal(value: number, min: number, max: number): string {
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max > 100 || min > max)
    throw new RangeError(`fraction digits out of range: ${min} to ${max}`);
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return `${signOf(value)}∞`;
  const { whole, fraction } = rounded(decimalText(Math.abs(value)), min, max);
  return `${signOf(value)}${groupThousands(whole)}${fraction ? `.${fraction}` : ''}`;
}

const COMPACT_SUFFIXES = ['', 'K', 'M', 'B', 'T'] as const;

/**
 * `value` as en-US's compact Intl.NumberFormat with at most 2 fraction digits writes it: '999',
 * '1.23K', '12.35M', '1B'; the scale is chosen after rounding (999,999 is '1M').
 */
export function compactNumber(value: number): string {
  if (!Number.isFinite(value)) return formatDecimal(value, 0, 0);
  const digits = decimalText(Math.abs(value));
  let scale = digits.whole === '0' ? 0 : Math.min(4, Math.floor((digits.whole.length - 1) / 3));
  let shown = rounded(shiftLeft(digits, scale * 3), 0, 2);
  if (shown.whole.length > 3 && scale < 4) {
    scale += 1;
    shown = rounded(shiftLeft(digits, scale * 3), 0, 2);
  }
  // Compact numbers are grouped only from five digits (ICU's minimum grouping there): '1000T'.
  const whole = shown.whole.length >= 5 ? groupThousands(shown.whole) : shown.whole;
  return `${signOf(value)}${whole}${shown.fraction ? `.${shown.fraction}` : ''}${COMPACT_SUFFIXES[scale]}`;
}

/** A whole number with en-US thousands separators ('4,000'). */
export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`groupDigits takes a whole number, not ${value}`);
  return formatDecimal(value, 0, 0);
}

export function formatSpread(percent: number): string {
  return `${percent.toFixed(4)}%`;
}

const SIZE_UNITS = ['Bytes', 'KB', 'MB', 'GB'] as const;

export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const exponent = Math.min(SIZE_UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** exponent).toFixed(2))} ${SIZE_UNITS[exponent]}`;
}
