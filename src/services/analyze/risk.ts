/**
 * Risk assessment of `analyze`, not legal advice. The weights are this project's heuristic,
 * documented in docs/jurisdictions-and-revenue.md; the factor codes stand for the laws and decisions
 * cited in the factor table (src/services/kb/factors.ts), e.g. Directive (EU) 2019/790 Art. 4 and
 * Regulation (EU) 2024/1689 Art. 53 behind the EU base, Art. 4(3) behind `tdm_opt_out_declared`,
 * Bartz v. Anthropic (N.D. Cal. 2025) behind `pirated_source_dataset`.
 *
 * weight = clip(base(jurisdiction) + Σ modifiers, 0, 1), then scaled by the lower end
 * of the attribution interval when that is below 0.5 (`attribution_uncertain`), so weak
 * evidence can never give a high level. Levels: `none` without any match; otherwise `low`
 * < 0.35 ≤ `medium` < 0.6 ≤ `high` < 0.8 ≤ `critical`.
 */
import type { FactorCode } from '../kb/factors.js';
import type { PublicDomainStatus } from '../kb/copyright-terms.js';
import { NEUTRAL_BASE, type Jurisdiction } from '../kb/jurisdictions.js';
import type { RiskLevel, WorkType } from './types.js';
import { round4 } from '../../util/round.js';

/** What the risk weight is computed from. */
export interface RiskInput {
  readonly jurisdiction: Jurisdiction | null;
  /** Any match at all (exact, near or portrait). */
  readonly anyMatch: boolean;
  /** Lower end of the overall attribution interval, 0..1 (0 without attribution sources). */
  readonly attributionLow: number;
  readonly optOut: 'none' | 'applies' | 'after_release';
  /** A linked model reached the content through a dataset documented as pirated. */
  readonly pirated: boolean;
  readonly workType: WorkType;
  /**
   * Where the evidence is public domain when all of it is (Project Gutenberg's texts: `['US']`), else null/absent:
   * in those jurisdictions using the text infringes nothing (`public_domain_source`, the weight goes to 0); elsewhere
   * the code is listed without a weight (the term of the author's country decides: check it).
   */
  readonly publicDomainIn?: readonly string[] | null;
  /**
   * The work's own status in the jurisdiction by its author's year of death (src/services/kb/copyright-terms.ts), when
   * the request names an author; null/absent otherwise. Public domain there: nothing to infringe (`public_domain_by_term`,
   * the weight goes to 0); in copyright: `in_copyright_by_term`, listed; unknown: `public_domain_status_unknown`.
   */
  readonly term?: PublicDomainStatus | null;
}

/** The assessment, with every part of the weight. */
export interface RiskResult {
  readonly level: RiskLevel;
  readonly score: number;
  readonly base_weight: number;
  readonly modifiers: Array<{ code: FactorCode; delta: number }>;
  readonly attribution_scale: number;
  /** Jurisdiction and modifier codes that fired. */
  readonly factors: FactorCode[];
}

/**
 * Content types with public licence prices: books (HarperCollins–Microsoft, 2024), news (News Corp–OpenAI,
 * 2024) and articles (Defined.ai per-word price, 2024); see `DEALS` (src/services/kb/deals.ts).
 */
const PRICED: ReadonlySet<WorkType> = new Set(['book', 'news', 'article']);

/**
 * Risk level and weight.
 * @example
 * assessRisk({ jurisdiction: resolveJurisdiction('US'), anyMatch: true, attributionLow: 0.9, optOut: 'none', pirated: true, workType: 'book' })
 * // { level: 'high', score: 0.75, … }
 */
export function assessRisk(input: RiskInput): RiskResult {
  const j = input.jurisdiction;
  const base = j ? j.base : NEUTRAL_BASE;
  const factors: FactorCode[] = j ? [...j.factors] : [];
  const modifiers: Array<{ code: FactorCode; delta: number }> = [];
  if (input.optOut === 'applies') modifiers.push({ code: 'tdm_opt_out_declared', delta: j?.eu ? 0.2 : 0.05 });
  if (input.pirated)
    modifiers.push({
      code: 'pirated_source_dataset',
      delta: j && (j.code === 'US' || j.code.startsWith('US-')) ? 0.25 : 0.15,
    });
  if (PRICED.has(input.workType)) modifiers.push({ code: 'licensing_market_exists', delta: 0.05 });
  const pd = input.publicDomainIn ?? null;
  const term = input.term ?? null;
  const country = j?.code.split('-')[0];
  const sourceFree = pd !== null && country !== undefined && pd.includes(country);
  // the risk of using a public-domain text, not of infringing it: nothing to weigh where it is public domain, whether
  // the evidence's datasets are documented so there or the work's own term has run out there
  if (pd !== null) modifiers.push({ code: 'public_domain_source', delta: sourceFree ? -1 : 0 });
  if (!sourceFree && term === 'public_domain') modifiers.push({ code: 'public_domain_by_term', delta: -1 });
  const termCodes: FactorCode[] = [];
  if (term === 'in_copyright') termCodes.push('in_copyright_by_term');
  // said in words where neither the sources' documentation nor a term decides (never a silent "high")
  else if (!sourceFree && term !== 'public_domain' && (term === 'unknown' || pd !== null))
    termCodes.push('public_domain_status_unknown');
  let weight = Math.min(1, Math.max(0, base + modifiers.reduce((t, m) => t + m.delta, 0)));
  let scale = 1;
  if (input.attributionLow < 0.5) {
    scale = Math.max(0, input.attributionLow);
    modifiers.push({ code: 'attribution_uncertain', delta: 0 });
  }
  weight *= scale;
  for (const m of modifiers) factors.push(m.code);
  factors.push(...termCodes);
  const level = riskLevel(input.anyMatch, weight);
  return { level, score: round4(weight), base_weight: base, modifiers, attribution_scale: round4(scale), factors };
}

/**
 * The risk level of a weight in [0, 1] (analyze and the memorization assessment read it alike): none without a match
 * that counts, then low below 0.35, medium below 0.6, high below 0.8, critical from 0.8.
 * @example riskLevel(true, 0.7) // 'high'
 */
export function riskLevel(anyMatch: boolean, weight: number): RiskLevel {
  if (!anyMatch) return 'none';
  return weight < 0.35 ? 'low' : weight < 0.6 ? 'medium' : weight < 0.8 ? 'high' : 'critical';
}
