/** Coverage of a query by its matches, and a portrait's hit count tested against chance. */
import type { PortraitSearch } from '../datasets/portrait.js';
import type { SearchMatch } from '../datasets/types.js';
import { betaBinomialUpperTail } from '../stats/binomial.js';
import { lowerBound } from '../util/sorted.js';
import type { Fingerprint } from '../types.js';
import type { PortraitMembership } from './types.js';

/**
 * A portrait search's hit count against how often unrelated natural text hits the portrait (its background's hit
 * rate, overdispersed between texts): shown for the record, never evidence on its own — scattered hits are what
 * the common phrases of a language give (src/datasets/background.ts).
 */
export function membership(r: PortraitSearch): PortraitMembership {
  const rate = Math.max(r.background.hit_rate, r.fpr);
  return {
    tested: r.tested,
    hits: r.hits,
    expected: r.tested * rate,
    fpr: r.fpr,
    background_rate: rate,
    p_value: betaBinomialUpperTail(r.hits, r.tested, rate, r.background.dispersion),
  };
}

/** Share of query tokens covered by the union of the matches, and the longest match. */
export function tokenCoverage(
  matches: readonly SearchMatch[],
  fp: Fingerprint,
): { share: number; longest_run: number } {
  if (fp.token_count === 0 || matches.length === 0) return { share: 0, longest_run: 0 };
  // token index of a query offset: shingle i starts at token i
  const covered = new Uint8Array(fp.token_count);
  const starts = fp.shingles.starts; // non-decreasing: binary search the first shingle at a match's start
  let longest = 0;
  for (const m of matches) {
    const first = lowerBound(starts, m.query_start);
    covered.fill(1, first, Math.min(fp.token_count, first + m.tokens));
    longest = Math.max(longest, m.tokens);
  }
  let n = 0;
  for (let i = 0; i < covered.length; i++) n += covered[i];
  return { share: n / fp.token_count, longest_run: longest };
}
