/**
 * The evidence policy: what an answer may claim from what a search found. The one place analyze and score read
 * (monitors and assess read it through score), so that every door gives the same answer.
 *
 * 1. **A confident answer shows its evidence.** Evidence counts only with something a person can check: a match with
 *    exact spans in both texts (exact datasets, remote corpora), a near-duplicate document, or a portrait's run of the
 *    query's own consecutive words (src/datasets/background.ts). A dataset with nothing checkable gives no
 *    attribution source, its strength does not count, and no confidence, tier, monitor event or risk above low rests
 *    on it. A remote corpus's boilerplate passages are shown, not evidence.
 * 2. **Scattered hits and chance matches are not evidence.** Unrelated text shares common phrases with any large
 *    corpus: a dataset hit only by scattered n-grams says so (`scattered_common_phrases`), and one whose matches are
 *    no stronger than unrelated text shows (chance above {@link EVIDENCE_CHANCE}: "return to the United States")
 *    says so too (`match_within_chance`); neither gives anything else.
 * 3. **The words follow the number.** A dataset's evidence is called strong only when its calibrated confidence is
 *    at least {@link CONFIDENT}; below that it is weak, whatever its chance.
 * 4. **The headline is about the work's own text.** A match of text the work quotes (`role: 'quotation'`,
 *    src/services/analyze/quotations.ts) is shown with its source, and counts only when the request counts
 *    quotations (`quotations: 'count'`): a dataset whose checkable matches are all quotations gives no source.
 */
import type { DatasetStats, SearchMatch } from '../../datasets/types.js';
import type { FactorCode } from '../kb/factors.js';
import { matchKind } from './kinds/index.js';
import { ANSWERED_OUTCOMES, searchedNothing, type SearchScope, type UnansweredCorpus } from './search-scope.js';

/** Confidence (0..1) from which evidence is called strong and an answer confident. */
export const CONFIDENT = 0.5;
/**
 * Largest chance of a dataset's checkable evidence that still counts (rule 2): the level reworded passages are held
 * to as well (src/corpus/alignment.ts PARAPHRASE_ALPHA).
 */
export const EVIDENCE_CHANCE = 0.05;
/** −log₁₀ {@link EVIDENCE_CHANCE}: the least strength that counts. */
const MIN_STRENGTH = -Math.log10(EVIDENCE_CHANCE);

/** The matches of a search a person can check (rule 1): all but boilerplate passages (a remote corpus's). */
export function checkableMatches<M extends SearchMatch>(matches: readonly M[]): M[] {
  return matches.filter((m) => !('boilerplate' in m && m.boilerplate));
}

/** How an analysis counts the text a work quotes (rule 4): left out (default) or counted as the work's. */
export type QuotationsCounting = 'exclude' | 'count';

/** What the policy reads of a match's quotation: the share quoted from its work, and whether that share counts. */
export interface QuotationShare {
  readonly share?: number;
  readonly counts?: boolean;
}

/**
 * The checkable matches that count for the work (rules 1 and 4): a quotation only when quotations are counted, or
 * when so much of the content is quoted from its work that the quotations count for the work (`counts`).
 * @example countedMatches(result.matches, 'exclude') // the checkable matches that are not quotations (or count)
 */
export function countedMatches<M extends SearchMatch & { readonly role?: string; readonly quotation?: QuotationShare }>(
  matches: readonly M[],
  quotations: QuotationsCounting = 'exclude',
): M[] {
  const checkable = checkableMatches(matches);
  return quotations === 'count'
    ? checkable
    : checkable.filter((m) => m.role !== 'quotation' || m.quotation?.counts === true);
}

/** What the policy reads about one dataset's search. */
export interface DatasetFinding {
  /** Matches a person can check ({@link checkableMatches}). */
  readonly checkable: number;
  /** Query n-grams found in the dataset, scattered or not. */
  readonly found: number;
  /** −log₁₀ of the chance of what was found (src/services/analyze/evidence.ts). */
  readonly strength: number;
  /** Checkable matches left out as quotations (rule 4): not scattered hits, so no `scattered_common_phrases`. */
  readonly quoted?: number;
}

/**
 * True when the dataset's evidence counts (rules 1 and 2): something checkable, beyond chance (≤ {@link EVIDENCE_CHANCE}).
 * Only then may it give attribution sources, tiers and events.
 * @example countsAsEvidence({ checkable: 0, found: 22, strength: 5.4 }) // false: scattered hits
 * @example countsAsEvidence({ checkable: 1, found: 3, strength: 0.4 })  // false: a stock phrase
 */
export function countsAsEvidence(f: DatasetFinding): boolean {
  return f.checkable > 0 && f.strength >= MIN_STRENGTH;
}

/**
 * The strength the confidence may rest on: the dataset's strength when its evidence counts, else 0 — no evidence.
 * @example countedStrength({ checkable: 0, found: 22, strength: 5.4 }) // 0: scattered hits
 */
export function countedStrength(f: DatasetFinding): number {
  return countsAsEvidence(f) ? f.strength : 0;
}

/**
 * The limitation a dataset's finding adds (rule 2): `scattered_common_phrases` when it was hit but shows nothing
 * checkable, `match_within_chance` when its checkable matches are no stronger than unrelated text shows.
 * @example findingLimitations({ checkable: 0, found: 9, strength: 0 }) // ['scattered_common_phrases']
 */
export function findingLimitations(f: DatasetFinding): FactorCode[] {
  if (f.checkable === 0) return f.found > 0 && !(f.quoted ?? 0) ? ['scattered_common_phrases'] : [];
  return countsAsEvidence(f) ? [] : ['match_within_chance'];
}

/** How strong a dataset's evidence is called (rule 3). */
export type EvidenceLevel = 'none' | 'weak' | 'strong';

/**
 * The level of a dataset's evidence: `none` when it does not count ({@link countsAsEvidence}), `strong` at
 * confidence ≥ {@link CONFIDENT}, else `weak`.
 * @example evidenceLevel(0.97, true)  // 'strong'
 * @example evidenceLevel(0.97, false) // 'none': nothing a person could check beyond chance
 */
export function evidenceLevel(confidence: number, counts: boolean): EvidenceLevel {
  if (!counts) return 'none';
  return confidence >= CONFIDENT ? 'strong' : 'weak';
}

/**
 * What a match shows, in words: "48 consecutive words of the content (characters 120–410) are in the portrait",
 * "a passage of 48 words (characters 120–410) matches document "x"". Offsets are the caller's.
 * @example describeMatch({ kind: 'portrait', tokens: 48, query_start: 120, query_end: 410, … }) // '48 consecutive words …'
 */
export function describeMatch(m: SearchMatch): string {
  return matchKind(m).describe(m, `characters ${m.query_start}–${m.query_end}`);
}

/** The dataset the headline names: what it is, how strong its evidence and how it is called (rule 3). */
export interface HeadlineDataset {
  readonly dataset_id: string;
  readonly kind: DatasetStats['kind'];
  readonly kb_dataset: string | null;
  readonly chance: number;
  readonly strength: number;
  /** The dataset's calibrated confidence (0..1) that the content shares text with it. */
  readonly confidence: number;
  /** `strong` at confidence ≥ 0.5, else `weak` (rule 3). */
  readonly level: 'weak' | 'strong';
}

/** One searched dataset as the headline reads it. */
export interface DatasetHeadline extends Omit<HeadlineDataset, 'level'> {
  /** Its checkable matches ({@link checkableMatches}), offsets in the caller's content. */
  readonly shown: readonly SearchMatch[];
  /** Whether its evidence counts ({@link countsAsEvidence}). */
  readonly counted: boolean;
  /** Jurisdictions where its texts are documented as public domain (empty: none). */
  readonly public_domain_in?: readonly string[];
}

/**
 * The headline of the corpus evidence: the dataset with the strongest checkable evidence, what it rests on and
 * whether a model is linked to it. Text can be in a corpus beyond doubt while `confidence` — that a model trained on
 * it — is 0, because no model documents training on that corpus; this says so at the top level.
 */
export interface CorpusEvidence {
  readonly strongest: HeadlineDataset | null;
  /** True when at least one attribution source rests on the evidence. */
  readonly linked_to_models: boolean;
  /** One sentence for people: how strong, and what a person can check. */
  readonly summary: string;
}

/**
 * What was not searched, in words, for an answer of no evidence: an absence of evidence is worth only what was
 * looked at.
 */
function notSearched(scope: SearchScope | undefined): string {
  if (!scope) return '';
  const local = `${scope.local} local dataset${scope.local === 1 ? '' : 's'} (samples of training corpora)`;
  // a search cut short by its budget or deadline asked part of what it planned: partly searched, not unsearched
  const partial = scope.remote.filter((r) => r.outcome !== 'searched' && ANSWERED_OUTCOMES.has(r.outcome));
  const missed = scope.remote.filter((r) => !ANSWERED_OUTCOMES.has(r.outcome));
  const searched = scope.remote.length - missed.length - partial.length;
  if (scope.remote.length === 0)
    return ` Searched: ${local} only; no web-scale corpus was searched (remote corpora are off).`;
  const remote = `${searched} remote ${searched === 1 ? 'corpus' : 'corpora'}`;
  const named = (rs: typeof missed) => rs.map((r) => `"${r.dataset_id}" (${r.outcome.replace(/_/g, ' ')})`).join(', ');
  const part = partial.length ? `; partly searched: ${named(partial)}` : '';
  return ` Searched: ${local} and ${remote}${part}${missed.length ? `; not searched: ${named(missed)}` : ''}.`;
}

/**
 * Where the answer of no evidence is not the whole answer: the linked remote corpora that did not answer, which set
 * the upper end of the analysis's interval (search-scope.ts), or '' where none is linked.
 */
function unansweredSentence(unanswered: readonly UnansweredCorpus[]): string {
  const linked = unanswered.filter((u) => u.link_certainty > 0);
  if (linked.length === 0) return '';
  const named = linked.map((u) => `"${u.dataset_id}" (${u.model} trained on it)`).join(', ');
  return ` The upper end of confidence_ci_95 comes from ${linked.length === 1 ? 'a linked corpus' : 'linked corpora'} that did not answer: ${named}.`;
}

/** The matches of text the work quotes (rule 4) and whether they were counted, for the headline's sentence. */
export interface QuotedText {
  readonly matches: ReadonlyArray<SearchMatch & { readonly quotation?: QuotationShare }>;
  readonly quotations: QuotationsCounting;
}

/**
 * What the headline says of the work's quotations (rule 4), or '' when it quotes nothing the datasets hold: the longest
 * quotation, the share of the text quoted from its work, and how it was counted.
 */
function quotedSentence(quoted: QuotedText | undefined): string {
  if (!quoted || quoted.matches.length === 0) return '';
  const longest = quoted.matches.reduce((a, m) => (m.tokens > a.tokens ? m : a));
  const more = quoted.matches.length > 1 ? ` (the longest of ${quoted.matches.length} quotations)` : '';
  const share = longest.quotation?.share;
  const pct = share === undefined ? '' : `; ${Math.round(share * 100)} % of the text is quoted from ${workOf(longest)}`;
  const how =
    quoted.quotations === 'count'
      ? "counted as the work's text (quotations: 'count')"
      : longest.quotation?.counts
        ? "counted for the work: more than a third of its text is quoted from one work (quotations: 'exclude' leaves out smaller quotations)"
        : "not counted for the work's own text (quotations: 'exclude')";
  return ` The content quotes text the datasets hold: ${describeMatch(longest)}${more}${pct}; shown as a quotation, ${how}.`;
}

/** The work a quotation is from, in words: its article's or document's title, else its document id. */
function workOf(m: SearchMatch): string {
  const title =
    ('article' in m && m.article?.title) ||
    ('document' in m && m.document && 'title' in m.document && m.document.title);
  return title ? `"${title}"` : m.document_id ? `document "${m.document_id}"` : `dataset "${m.dataset_id}"`;
}

/**
 * The headline of an analysis (rules 1 and 3): datasets with nothing checkable are left out, the strongest of the
 * others is named with its longest checkable match in words, and "strong" is said only at confidence ≥ 0.5. With
 * `scope`, an answer of no evidence says what was searched and what was not (a remote corpus that was off, down or
 * out of budget), and where nothing was, that it says nothing either way; with `unanswered`, that a linked corpus that
 * did not answer sets the upper end of the interval.
 * @example corpusEvidence([], false, { local: 4, remote: [] }).summary // 'No corpus evidence: … Searched: 4 local datasets (…) only; …'
 */
export function corpusEvidence(
  datasets: readonly DatasetHeadline[],
  linked: boolean | ReadonlySet<string>,
  scope?: SearchScope,
  quoted?: QuotedText,
  unanswered: readonly UnansweredCorpus[] = [],
): CorpusEvidence {
  const about = quotedSentence(quoted);
  const anyLinked = typeof linked === 'boolean' ? linked : linked.size > 0;
  let best: DatasetHeadline | null = null;
  for (const d of datasets)
    if (
      d.counted &&
      d.shown.length > 0 &&
      (best === null || d.strength > best.strength || (d.strength === best.strength && d.confidence > best.confidence))
    )
      best = d;
  // no dataset loaded and no remote corpus answered: not an absence of evidence, none was looked for
  const noneSearched = scope !== undefined && searchedNothing(scope);
  if (best === null)
    return {
      strongest: null,
      linked_to_models: false,
      summary:
        (noneSearched
          ? 'No corpus was searched, so this says nothing either way: an absence of evidence is worth only what was looked at.'
          : about && quoted?.quotations === 'exclude'
            ? "No corpus evidence about the work's own text: beyond the text it quotes, nothing a person could check was found beyond chance." +
              about
            : 'No corpus evidence: nothing a person could check was found beyond chance (scattered common phrases, which any text shares with a large corpus, are not evidence).' +
              about) +
        notSearched(scope) +
        (noneSearched ? '' : unansweredSentence(unanswered)),
    };
  const level = evidenceLevel(best.confidence, true) === 'strong' ? 'strong' : 'weak';
  const { dataset_id, kind, kb_dataset, chance, strength, confidence } = best;
  // a near-duplicate that is not the whole content (a README whose licence is half its words) is not its longest
  // match: the passages say what is shared; a passage's words weigh by its score, as the search orders them
  const words = (m: SearchMatch) => matchKind(m).headlineWords(m);
  const longest = best.shown.reduce((a, m) => (words(m) > words(a) ? m : a));
  const more = best.shown.length > 1 ? ` (the longest of ${best.shown.length} matches)` : '';
  const rests = `${describeMatch(longest)}${more}`;
  // a confidence that rounds to 100 % is not certainty: said as "> 99.9 %"
  const pct = confidence >= 0.9995 ? '> 99.9' : `${Math.round(confidence * 1000) / 10}`;
  const numbers = `confidence ${pct} %, chance ${chance.toPrecision(2)}`;
  // "linked" is said of the dataset named: a corpus no model documents training on is not linked because another is
  const linkedHere = typeof linked === 'boolean' ? linked : linked.has(dataset_id);
  const summary =
    level === 'weak'
      ? `Weak corpus evidence in dataset "${dataset_id}" (${numbers}): ${rests}.`
      : linkedHere
        ? `Strong corpus evidence in dataset "${dataset_id}" (${numbers}): ${rests}; linked to models: see attribution_sources.`
        : anyLinked
          ? `Strong corpus evidence in dataset "${dataset_id}" (${numbers}): ${rests}; no model is documented or declared to have trained on this dataset (the confidence rests on other datasets: see attribution_sources).`
          : `Strong corpus evidence in dataset "${dataset_id}" (${numbers}): ${rests}; but no model is documented or declared to have trained on it, so confidence (that a model trained on this content) is 0.`;
  // being in a training corpus is not a claim: a public-domain source says so
  const pd = best.public_domain_in ?? [];
  const rights =
    pd.length === 0
      ? ''
      : ` Its texts are public domain in ${pd.map((c) => (c === 'US' ? 'the USA' : c)).join(', ')}: that this text is in a training corpus does not mean anyone holds a claim to it there (elsewhere, check your country's copyright term).`;
  return {
    strongest: { dataset_id, kind, kb_dataset, chance, strength, confidence, level },
    linked_to_models: anyLinked,
    summary: summary + rights + about,
  };
}
