/** Number formatting for the page (English, fixed so screenshots do not depend on the browser's locale). */

const int = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const usdFmt = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
/** Sub-dollar amounts (per-word rates, small estimates) keep up to 4 decimals: $0.001, not $0.00. */
const usdSmall = new Intl.NumberFormat('en', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});

export function count(n: number): string {
  return int.format(n);
}

/** 0.4567 → '45.7 %' (a share). */
export function percent(x: number, digits = 1): string {
  return `${(x * 100).toFixed(digits)} %`;
}

/** A probability or score 0..1 with two decimals. */
export function decimal(x: number, digits = 2): string {
  return x.toFixed(digits);
}

/**
 * A chance (probability) as a person reads it: three decimals down to 0.001, then a power of ten
 * (7.7e-50 → '7.7 × 10⁻⁵⁰'); below what a double holds beside 1 (a score of 1 − chance that rounds to 1) 'below 10⁻¹⁵'.
 */
export function chance(p: number): string {
  if (!(p > 1e-15)) return 'below 10⁻¹⁵';
  if (p >= 0.001) return p.toFixed(3);
  const [m, e] = p.toExponential(1).split('e');
  const sup = String(Number(e)).replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  return `${m} × 10${sup}`;
}

export function usd(x: number | null): string {
  if (x === null) return '—';
  return x !== 0 && Math.abs(x) < 1 ? usdSmall.format(x) : usdFmt.format(x);
}

/** 1536 → '1.5 KiB'. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/**
 * UTF-8 byte length of `text` when it is over `limit`, else null. No encoding when the UTF-16
 * length settles it (a code unit takes at most 3 UTF-8 bytes).
 */
export function bytesOverLimit(text: string, limit: number): number | null {
  if (text.length * 3 <= limit) return null;
  const n = new TextEncoder().encode(text).length;
  return n > limit ? n : null;
}
