// Display formats of docs/SPEC.md shared by every screen: prices with 2 to 8 decimals, spreads
// with 4, file sizes in Bytes/KB/MB/GB with 2 decimals.

/** USD price: 2 decimals from $1 up, more (at most 8) for sub-dollar assets. */
export function formatPrice(value: number): string {
  const decimals = value >= 1 ? 2 : Math.min(8, Math.max(2, 1 - Math.floor(Math.log10(value)) + 3));
  return value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: decimals });
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
