/**
 * What the services read of a kind of evidence: its chance, the calibration its strength is read with, what its
 * matches can show, and the factor and limitation codes its findings give. One module per kind implements it
 * (./exact.ts, ./portrait.ts, ./remote.ts, ./source.ts) and ./index.ts registers them: analyze, score and monitors
 * look a kind up instead of switching on it.
 */
import type { DatasetSearchDetail } from '../../../corpus/types.js';
import type { SearchMatch } from '../../../datasets/types.js';
import type { KnowledgeBase } from '../../kb/kb.js';
import type { FactorCode } from '../../kb/factors.js';
import type { KbModel } from '../../kb/types.js';
import type { KindChance } from './chance.js';

/** Factor and limitation codes a finding adds, in the order the result lists them. */
export interface KindCodes {
  readonly factors?: readonly FactorCode[];
  readonly limitations?: readonly FactorCode[];
}

/** What a kind's codes are read from: one dataset's matches in one search. */
export interface KindFinding {
  /** The dataset's matches (near duplicates included). */
  readonly own: readonly SearchMatch[];
  /** Those a person can check (the policy's rule 1). */
  readonly checkable: readonly SearchMatch[];
  /** Checkable passages (no near duplicates): what the evidence factors describe. */
  readonly passages: readonly SearchMatch[];
  /** Near-duplicate documents among its matches. */
  readonly near: number;
  /** Chains or runs the chance rests on. */
  readonly runs: number;
}

/** One kind of evidence, as the services read it (see the module comment). */
export interface EvidenceKind<D extends DatasetSearchDetail = DatasetSearchDetail> {
  /** The calibration fit its strength is read with. */
  readonly fit: 'exact' | 'portrait';
  /** Its matches give the spans of the source (a portrait's do not): only such evidence can confirm a score. */
  readonly positions: boolean;
  /** Searched over the network once for a whole text: a score reads the one search per chunk. */
  readonly wholeText: boolean;
  /** The sync search can search it (the async search searches every kind). */
  readonly synchronous: boolean;
  /** Closed-form chance of one search's findings; with `range`, of the part of the query inside it. */
  chance(detail: D, range?: readonly [number, number]): KindChance;
  /** Codes said whether or not the evidence counts (what could not be checked, what was shown but left out). */
  always(detail: D, finding: KindFinding): KindCodes;
  /** Codes of evidence that counts. */
  counted(detail: D, finding: KindFinding): KindCodes;
  /** A score's finding in a flagged chunk adds these factors. */
  readonly flaggedChunk: readonly FactorCode[];
  /** A score with a flagged chunk in a dataset of this kind adds these factors (after `verbatim_overlap`). */
  readonly flaggedDataset: readonly FactorCode[];
  /**
   * The knowledge-base components the evidence passages' documents name (a remote corpus's documents may name
   * theirs: the Pile's Books3), one per passage (null: it names none); absent for kinds whose documents name none.
   */
  components?(detail: D, passages: readonly SearchMatch[]): ReadonlyArray<Record<string, unknown> | null>;
  /** The search as a model's score reads it: the passages whose named component that model did not train on left out. */
  forModel?(detail: D, kb: KnowledgeBase, kbDataset: string | null, model: KbModel, factors: Set<FactorCode>): D;
}

/** What the services read of a match of one kind. */
/** An aligned match's {@link MatchKind.edgeSlack}: its span ends within a word or two of the copy's end. */
export const ALIGNED_EDGE_SLACK = 24;

export interface MatchKind<M extends SearchMatch = SearchMatch> {
  /** A passage of the query (not a whole near-duplicate document). */
  readonly passage: boolean;
  /** Counted among the documents that share a passage (`shared_documents`, src/services/analyze/shared-text.ts). */
  readonly sharedDocuments: boolean;
  /** The verbatim run it shows, in query words (0: none a score can confirm with). */
  run(m: M): number;
  /** What it shows, in words (`where`: "characters a–b"). */
  describe(m: M, where: string): string;
  /**
   * Who reproduced its passage, to tell a passage reprinted by others from one held in several documents of one
   * source (src/services/analyze/quotations.ts): a book's author (an edition and a collection of one author's work are
   * one source), an article's title, a document id; null when its matches take no part (a remote corpus's: the same
   * book in a pack and in a web corpus is one text, not a reprinted one; a near duplicate is no passage).
   */
  document(m: M): string | null;
  /** Whether the match itself says that other sources of its dataset (other authors' documents) hold its passage. */
  reprinted(m: M): boolean;
  /**
   * How far, in characters, its span may run past the text the dataset holds: an alignment ends where the copy ends
   * (a word or two), a portrait's chain of winnowed hits up to a window of fingerprints either side. The quotation
   * rule reads an attribution as the copied book's own words only inside this margin (src/services/analyze/quotations.ts).
   */
  readonly edgeSlack: number;
  /**
   * Its weight when a headline picks the longest of its matches: a passage's words, weighed by its score where the
   * search orders by it (an exact match); a near-duplicate's only when it is the whole content (a README whose
   * licence is half its words is no longest match: its passages say what is shared).
   */
  headlineWords(m: M): number;
}

/** The factors of reused passages: verbatim, edited or reworded reuse, and a long run. */
export function reuseFactors(passages: readonly SearchMatch[]): FactorCode[] {
  const reuse = new Set(passages.map((m) => ('reuse' in m ? m.reuse : 'verbatim')));
  const out: FactorCode[] = [];
  if (reuse.has('verbatim')) out.push('verbatim_overlap');
  if (reuse.has('edited')) out.push('edited_reuse');
  if (reuse.has('paraphrase') || reuse.has('summary')) out.push('reworded_reuse');
  if (passages.some((m) => m.tokens >= 50)) out.push('long_verbatim_run');
  return out;
}

/** The factors any counted evidence may give: several independent runs, near-duplicate documents. */
export function runFactors(f: KindFinding): FactorCode[] {
  const out: FactorCode[] = [];
  if (f.runs >= 3) out.push('multiple_independent_runs');
  if (f.near > 0) out.push('near_duplicate');
  return out;
}

/**
 * What the kinds whose findings are passages of documents share (exact datasets, evidence sources): read with the
 * exact fit and with positions, never whole texts, counted with the passages' reuse and the runs' factors, and
 * adding nothing else. Each kind adds its own `synchronous` and `chance`.
 */
export const PASSAGE_EVIDENCE: Pick<
  EvidenceKind<DatasetSearchDetail>,
  'fit' | 'positions' | 'wholeText' | 'always' | 'counted' | 'flaggedChunk' | 'flaggedDataset'
> = {
  fit: 'exact',
  positions: true,
  wholeText: false,
  always: () => ({}),
  counted: (_, f) => ({ factors: [...reuseFactors(f.passages), ...runFactors(f)] }),
  flaggedChunk: [],
  flaggedDataset: [],
};
