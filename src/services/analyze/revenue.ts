/**
 * Estimated licensing revenue (this project's transparent proposal, documented in
 * docs/jurisdictions-and-revenue.md):
 *
 *     monthly = Σ over providers  P(used) × rate × quantity ÷ term_months
 *
 * P(used) per provider is its best attribution source's confidence: the interval's low end for
 * `low`, the point for `mid` (= `monthly`), the high end for `high`. Rates come from public deals
 * only (each with its reports and links in `DEALS`, src/services/kb/deals.ts; quoted by id in `basis.deal_ids`):
 * - books: $2,500 / $3,750 / $5,000 per title for a 36-month licence — the HarperCollins–Microsoft
 *   licence of November 2024 ($5,000 per nonfiction title for 3 years, $2,500 of it to the author;
 *   Publishers Weekly, 25 Nov 2024), id {@link DEAL_HARPERCOLLINS};
 * - other text: $0.001 per word — the Defined.ai marketplace price reported by Reuters on
 *   5 Apr 2024, id {@link DEAL_DEFINED_AI}; a one-off price, spread over 36 months;
 * - code: no public price, so no figure (`no_market_anchor`).
 * Jurisdiction risk stays out of it: licence value and legal exposure are different quantities.
 */
import { DEAL_DEFINED_AI, DEAL_HARPERCOLLINS } from '../kb/deals.js';
import type { FactorCode } from '../kb/factors.js';
import type { RevenueBasis, WorkType } from './types.js';

/** Amortisation period for one-off prices and the book licence term (months). */
export const TERM_MONTHS = 36;
/** Words from which a text with no declared work type is taken for a book. */
export const BOOK_MIN_WORDS = 40_000;

/** One provider's P(used): [low, mid, high]. */
export interface ProviderUse {
  readonly provider: string;
  readonly p_used: readonly [number, number, number];
}

/**
 * The revenue estimate and its basis.
 * @example
 * estimateRevenue('book', 'metadata', 120_000, [{ provider: 'EleutherAI', p_used: [0.9, 0.95, 0.98] }])
 * // { monthly: 98.96, basis: { method: 'per_title_36m', low: 62.5, mid: 98.96, high: 136.11, … }, factors: [] }
 */
export function estimateRevenue(
  workType: WorkType,
  source: RevenueBasis['work_type_source'],
  words: number,
  providers: readonly ProviderUse[],
): { monthly: number | null; basis: RevenueBasis; factors: FactorCode[] } {
  const base = {
    work_type: workType,
    work_type_source: source,
    term_months: TERM_MONTHS,
    providers: providers.map((p) => ({ provider: p.provider, p_used: p.p_used })),
  };
  if (workType === 'code') {
    const basis: RevenueBasis = {
      ...base,
      method: 'none',
      deal_ids: [],
      rate: null,
      quantity: words,
      unit: 'word',
      low: null,
      mid: null,
      high: null,
    };
    return { monthly: null, basis, factors: ['no_market_anchor'] };
  }
  const book = workType === 'book';
  const rate = book
    ? { low: 2500, mid: 3750, high: 5000, unit: 'USD per title per 36-month licence' }
    : { low: 0.001, mid: 0.001, high: 0.001, unit: 'USD per word, one-off' };
  const quantity = book ? 1 : words;
  const sum = (k: 0 | 1 | 2, r: number) =>
    cents(providers.reduce((t, p) => t + p.p_used[k] * r * quantity, 0) / TERM_MONTHS);
  const basis: RevenueBasis = {
    ...base,
    method: book ? 'per_title_36m' : 'per_word_amortised',
    deal_ids: book ? [DEAL_HARPERCOLLINS] : [DEAL_DEFINED_AI],
    rate,
    quantity,
    unit: book ? 'title' : 'word',
    low: sum(0, rate.low),
    mid: sum(1, rate.mid),
    high: sum(2, rate.high),
  };
  return { monthly: basis.mid, basis, factors: book ? [] : ['low_confidence_rate'] };
}

/** Work type from metadata, else from the form (code) and the length (books ≥ 40,000 words). */
export function chooseWorkType(
  declared: WorkType | undefined,
  text: string,
  words: number,
): { type: WorkType; source: RevenueBasis['work_type_source'] } {
  if (declared) return { type: declared, source: 'metadata' };
  if (looksLikeCode(text)) return { type: 'code', source: 'form' };
  return { type: words >= BOOK_MIN_WORDS ? 'book' : 'article', source: 'length' };
}

/**
 * Source code, by form: most non-empty lines end in `;`, `{`, `}`, `)` or `:` or start with
 * a keyword or comment marker, across at least 5 lines.
 */
function looksLikeCode(text: string): boolean {
  const lines = text
    .slice(0, 20_000)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length < 5) return false;
  const CODE_LINE =
    /([;{}):]|=>)$|^(\/\/|#include|#!|import |export |def |class |function |return |const |let |var |if \(|for \(|public |private |package )/;
  let n = 0;
  for (const l of lines) if (CODE_LINE.test(l)) n++;
  return n / lines.length >= 0.6;
}

const cents = (x: number) => Math.round(x * 100) / 100;
