/**
 * The numbers of an analysis that can be computed again from what its evidence bundle holds, each with the same pure
 * function the analysis used: the match counts and the share of sources (src/services/analyze/shared-text.ts), the
 * calibrated confidences (src/services/analyze/calibration.ts under the evidence policy, src/services/policy), the
 * per-section coverage (src/services/analyze/sections.ts) and a sampled corpus's share (src/corpus/share.ts). What
 * needs the search's own state (token positions, the chance of a chain of hits) is listed as not re-derived.
 */
import { estimateShare } from '../../corpus/share.js';
import { round1, round4 } from '../../util/round.js';
import { CALIBRATION, datasetConfidence, highestConfidence } from '../analyze/calibration.js';
import { searchedDatasetIds, sectionCoverage } from '../analyze/sections.js';
import { sharedText } from '../analyze/shared-text.js';
import type { AnalysisResult, AttributionSource, DatasetEvidence } from '../analyze/types.js';
import { checkableMatches, countedMatches, countedStrength, countsAsEvidence } from '../policy/evidence-policy.js';
import { confidenceInterval, searchScope, unansweredIds } from '../policy/search-scope.js';
import { QUOTATION_RULE, quotationsOf } from '../analyze/quotations.js';
import { matchKind } from '../policy/kinds/index.js';
import { canonicalJson } from './canonical.js';
import type { VerifyCheck } from './types.js';

/** The checks of one bundle, and what could not be re-derived (and why). */
export interface Rederived {
  readonly checks: VerifyCheck[];
  readonly skipped: string[];
}

/** Content types whose spans point into the analysed text as it is (markup's point into the markup). */
const PLAIN_SPANS = new Set(['text', 'epub', 'pdf', 'docx']);

/**
 * Every number of `result` that the bundle lets one compute again, compared with what the result says. `text`: the
 * analysed text, when the verifier has it (only the sections' word counts need it).
 * @example rederive(bundle.result, null).checks.every((c) => c.ok)
 */
export function rederive(result: AnalysisResult, text: string | null): Rederived {
  const out: Rederived = { checks: [], skipped: [] };
  const run = (name: string, fn: () => string | null) => {
    try {
      const problem = fn();
      out.checks.push({ name, ok: problem === null, detail: problem ?? 'recomputed: equal' });
    } catch (e) {
      out.checks.push({ name, ok: false, detail: `could not be recomputed: ${e instanceof Error ? e.message : e}` });
    }
  };
  for (const ev of result.evidence.datasets) run(`matches:${ev.dataset_id}`, () => matchCounts(result, ev));
  // a result made before quotations were told apart has no roles to check
  if (result.evidence.quotations === undefined) out.skipped.push('quotations: the result predates them');
  else if ((result.evidence.quotation_rule ?? 1) !== QUOTATION_RULE)
    out.skipped.push(
      `quotations: read by rule ${result.evidence.quotation_rule ?? 1}, this verifier recomputes rule ${QUOTATION_RULE}`,
    );
  else if (text !== null) run('quotations', () => quotations(result, text));
  else out.skipped.push('quotations: which matches are quotations is read from the analysed text, not given');
  for (const ev of result.evidence.datasets) run(`coverage:${ev.dataset_id}`, () => datasetCoverage(result, ev));
  if (PLAIN_SPANS.has(result.content_type)) run('potential_matches', () => potentialMatches(result));
  else out.skipped.push('potential_matches: the spans point into markup, the shares were measured on its text');
  if (result.evidence.calibration.id === CALIBRATION.id) {
    for (const ev of result.evidence.datasets)
      run(`confidence:${ev.dataset_id}`, () => datasetConfidenceOf(result, ev));
    run('attribution', () => attribution(result));
  } else {
    out.skipped.push(
      `confidence: calibration ${result.evidence.calibration.id} is not this library's (${CALIBRATION.id})`,
    );
  }
  // the upper end a linked corpus that did not answer sets is read with the calibration's curve
  const linked = result.evidence.unanswered_corpora?.some((u) => u.link_certainty > 0) === true;
  if (linked && result.evidence.calibration.id !== CALIBRATION.id)
    out.skipped.push(`confidence: its interval is read with calibration ${result.evidence.calibration.id}`);
  else run('confidence', () => headline(result));
  for (const r of result.remote_corpora)
    if (r.sampling) run(`sampling:${r.dataset_id}`, () => sampledShare(r.sampling!));
  if (result.sections) run('sections', () => sections(result, text));
  out.skipped.push(
    "coverage shares: counted in the query's word tokens, whose positions only the search had",
    'chance and strength: computed from the search counts (n-grams tested, chains of hits), which only the search had',
  );
  return out;
}

function matchCounts(result: AnalysisResult, ev: DatasetEvidence): string | null {
  const own = result.matches.filter((m) => m.dataset_id === ev.dataset_id);
  const passages = own.filter((m) => matchKind(m).passage);
  const counts = {
    matches: passages.length,
    documents: new Set(passages.map((m) => m.document_id)).size,
    near_duplicates: own.length - passages.length,
    // a result made before quotations were told apart counted every match
    checkable: countedMatches(own, result.evidence.quotations ?? 'count').length,
    ...(ev.quoted === undefined ? {} : { quoted: checkableMatches(own).filter((m) => m.role === 'quotation').length }),
  };
  return differences(counts, ev);
}

/**
 * Which matches are quotations (src/services/analyze/quotations.ts), read again from the analysed text: the content
 * as sent for text, Markdown and HTML (their spans point into it), a file's extracted text as plain text.
 */
function quotations(result: AnalysisResult, text: string): string | null {
  const type = result.content_type === 'markdown' || result.content_type === 'html' ? result.content_type : 'text';
  const again = quotationsOf(text, type, result.matches, result.tokens);
  const problems: string[] = [];
  result.matches.forEach((m, i) => {
    const said = m.role === 'quotation' ? canonical(m.quotation) : 'nothing';
    const recomputed = again[i] ? canonical(again[i]) : 'nothing';
    if (said !== recomputed) problems.push(`match ${i}: quotation recomputed ${recomputed}, the result says ${said}`);
  });
  return problems.length ? problems.join('; ') : null;
}

function datasetCoverage(result: AnalysisResult, ev: DatasetEvidence): string | null {
  const c = result.coverage[ev.dataset_id];
  if (!c) return `no coverage entry for "${ev.dataset_id}"`;
  return differences({ coverage: round4(c.share), longest_run: c.longest_run }, ev);
}

function potentialMatches(result: AnalysisResult): string | null {
  // the length only sizes the depth map: any length past the last span gives the same count
  const length = result.matches.reduce((n, m) => Math.max(n, m.query_end), 0);
  return differences({ potential_matches: sharedText(result.matches, length).distinct_sources }, result);
}

/** The dataset's calibrated confidence from its counts, and whether its evidence counts (the policy). */
function confidenceOf(result: AnalysisResult, ev: DatasetEvidence) {
  const finding = { checkable: ev.checkable, found: ev.found, strength: ev.strength };
  const prior = result.evidence.calibration.prior;
  return {
    counted: countsAsEvidence(finding),
    conf: datasetConfidence(ev.kind, countedStrength(finding), prior, result.tokens),
  };
}

// the result's strength is rounded to 4 decimals before the confidence is recomputed from it: one unit of the
// confidence's own last digit (1e-4) is as close as the two can be held to
const P_TOLERANCE = 1.5e-4;
const PERCENT_TOLERANCE = 0.1 + 1e-9;

function datasetConfidenceOf(result: AnalysisResult, ev: DatasetEvidence): string | null {
  const { counted, conf } = confidenceOf(result, ev);
  if (counted !== ev.counted) return `counted: recomputed ${counted}, the result says ${ev.counted}`;
  const pairs: Array<[string, number, number]> = [
    ['confidence', conf.p, ev.confidence],
    ['confidence_ci_95[0]', conf.lo, ev.confidence_ci_95[0]],
    ['confidence_ci_95[1]', conf.hi, ev.confidence_ci_95[1]],
  ];
  return near(pairs, P_TOLERANCE);
}

/** Each source's confidence: the dataset's confidence × the link's certainty, on 0..100. */
function attribution(result: AnalysisResult): string | null {
  const byId = new Map(result.evidence.datasets.map((ev) => [ev.dataset_id, ev]));
  const problems: string[] = [];
  result.attribution_sources.forEach((s: AttributionSource, i) => {
    const problem = sourceProblem(result, byId.get(s.dataset_id), s);
    if (problem) problems.push(`source ${i}: ${problem}`);
  });
  return problems.length ? problems.join('; ') : null;
}

function sourceProblem(result: AnalysisResult, ev: DatasetEvidence | undefined, s: AttributionSource): string | null {
  if (!ev) return `no evidence for "${s.dataset_id}"`;
  const { counted, conf } = confidenceOf(result, ev);
  if (!counted) return `the evidence of "${s.dataset_id}" does not count`;
  const pct = (p: number) => round1(round4(p * s.link_certainty) * 100);
  return near(
    [
      ['confidence', pct(conf.p), s.confidence],
      ['confidence_ci_95[0]', pct(conf.lo), s.confidence_ci_95[0]],
      ['confidence_ci_95[1]', pct(conf.hi), s.confidence_ci_95[1]],
    ],
    PERCENT_TOLERANCE,
  );
}

/**
 * The top-level confidence: the first source's (0 without one), and its interval by the policy's rule
 * (`confidenceInterval`): the source's or [0, 0], its upper end raised to what the corpora that did not answer
 * (`evidence.unanswered_corpora`, which must name exactly those) could have shown, [0, 100] where nothing was searched.
 * A result made before those corpora were listed is held to the rule without them, and without a source its [0, 0] is
 * taken too (as it read before nothing searched was [0, 100]).
 */
function headline(result: AnalysisResult): string | null {
  const top = result.attribution_sources[0];
  const scope = searchScope(result.evidence.datasets, result.remote_corpora);
  const listed = result.evidence.unanswered_corpora;
  const ids = [listed?.map((u) => u.dataset_id) ?? [], unansweredIds(scope)].map((l) => `[${l.join(', ')}]`);
  if (listed && ids[0] !== ids[1])
    return `unanswered_corpora: the result lists ${ids[0]}, its remote corpora ${ids[1]}`;
  const highest = highestConfidence('remote', result.evidence.calibration.prior, result.tokens);
  const ci = confidenceInterval(top ? top.confidence_ci_95 : null, scope, listed ?? [], highest);
  const actual = { confidence: result.confidence, ci: [...result.confidence_ci_95] };
  const problem = differences({ confidence: top?.confidence ?? 0, ci }, actual);
  return problem && !listed && !top ? differences({ confidence: 0, ci: [0, 0] }, actual) : problem;
}

function sampledShare(s: NonNullable<AnalysisResult['remote_corpora'][number]['sampling']>): string | null {
  const share = estimateShare({
    passages: s.passages,
    found: s.found,
    sensitivity: s.sensitivity,
    sensitivityWorst: s.sensitivity_worst,
    falseFound: s.false_found,
    ...(s.documents
      ? {
          fetched: s.documents.fetched,
          verified: s.documents.verified,
          // results that count unchecked finds count the calibration pairs with a design effect of 2 too
          ...(s.documents.unchecked === undefined
            ? {}
            : { unchecked: s.documents.unchecked, detectionDesignEffect: 2 }),
          detection: s.detection,
        }
      : {}),
    ciRule: s.share.ci_rule ?? 'product',
  });
  return differences(
    { estimate: share.estimate, ci_95: [...share.ci_95] },
    {
      estimate: s.share.estimate,
      ci_95: [...s.share.ci_95],
    },
  );
}

function sections(result: AnalysisResult, text: string | null): string | null {
  const extraction = result.extraction;
  if (!extraction) return 'sections without an extraction';
  // results of earlier versions named a remote corpus that answered nothing with a coverage of 0: recomputed as they were
  const named = new Set(Object.keys(result.sections?.[0]?.coverage ?? {}));
  const ids = [
    ...new Set([
      ...searchedDatasetIds(result.evidence.datasets, result.remote_corpora),
      ...result.remote_corpora.filter((r) => named.has(r.dataset_id)).map((r) => r.dataset_id),
    ]),
  ];
  // the coverage needs only the spans and the sections' bounds; the word counts need the text itself
  const document = { text: text ?? '', sections: extraction.sections };
  const again = sectionCoverage(document, result.matches, ids, result.remote_corpora);
  const shown = result.sections!;
  if (again.length !== shown.length) return `${again.length} sections recomputed, the result has ${shown.length}`;
  const problems: string[] = [];
  again.forEach((s, i) => {
    const { words: _w, ...bounds } = s;
    const { words: _x, ...said } = shown[i];
    // results of earlier versions gave a section a sampled search cut short asked nothing of a coverage of 0
    for (const id of ids) if (!(id in s.coverage) && said.coverage[id] === 0) bounds.coverage[id] = 0;
    const d = differences(bounds, said);
    if (d) problems.push(`section ${i}: ${d}`);
    if (text !== null && s.words !== shown[i].words)
      problems.push(`section ${i}: words recomputed ${s.words}, the result says ${shown[i].words}`);
  });
  return problems.length ? problems.join('; ') : null;
}

/**
 * The members of `expected` whose values differ from `actual`'s, in words; null when none. Values are compared as
 * canonical JSON (RFC 8785), never in their members' order: a bundle read back from its canonical form has every
 * object's members sorted, where the engine wrote a section's coverage in the order the datasets were searched.
 */
function differences(expected: Record<string, unknown>, actual: object): string | null {
  const a = actual as Record<string, unknown>;
  const bad = Object.keys(expected).filter((k) => canonical(expected[k]) !== canonical(a[k]));
  if (bad.length === 0) return null;
  return bad.map((k) => `${k}: recomputed ${canonical(expected[k])}, the result says ${canonical(a[k])}`).join('; ');
}

/** `value` as canonical JSON; a missing member or one JSON cannot carry in words (it never equals a JSON value). */
function canonical(value: unknown): string {
  if (value === undefined) return 'nothing';
  try {
    return canonicalJson(value);
  } catch {
    return `not JSON (${typeof value})`;
  }
}

/** The pairs (name, recomputed, said) further apart than `tolerance`, in words; null when none. */
function near(pairs: ReadonlyArray<[string, number, number]>, tolerance: number): string | null {
  const bad = pairs.filter(([, x, y]) => !(Math.abs(x - y) <= tolerance));
  if (bad.length === 0) return null;
  return bad.map(([k, x, y]) => `${k}: recomputed ${x}, the result says ${y}`).join('; ');
}
