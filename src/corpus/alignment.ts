/**
 * The second stage of a search: the candidate documents of the exact datasets (documents whose
 * exact hits cluster in the query, see `ExactSearch.candidates`) are aligned with the query by
 * the compare algorithm (src/align/compare.ts), which gives the final spans of edited and
 * reworded reuse that chains of exact seeds find only in pieces. Each aligned passage gets a
 * reuse kind and a similarity from the words the two passages share (see `ExactMatch.reuse`).
 *
 * The work is bounded: at most `candidates` documents per query, strongest first, and a budget of work —
 * characters of text aligned, and of the other aligned documents read for a field background, counted the same on
 * every machine and under any load — after which the remaining candidates keep their seed matches (the report says
 * so). A time limit stays as a safety net only: when the clock stops the alignment first, the result depends on
 * the machine's speed, and the report says that too (`time_limit_reached`), so it is never a silently different
 * answer.
 */
import type { Core } from '../core/abi.js';
import { alignTokens, resolveCompareOptions, type AlignedSpan, type ResolvedCompareOptions } from '../align/compare.js';
import { copyRuns, copySpans } from '../align/copies.js';
import { passageRuns } from '../align/passage-runs.js';
import { reuseKind, runsOf, sharedRuns, wordsOf } from '../align/reuse.js';
import { TokenizedCache, tokenizedOnce, type TokenizedText } from '../align/tokens.js';
import type { CandidateRegion, ExactCandidate, ExactSearchable } from '../datasets/exact.js';
import type { ExactMatch, ReuseKind, SearchMatch } from '../datasets/types.js';
import { binomialUpperTail } from '../stats/binomial.js';
import { normalize, type Normalized } from '../text/normalize.js';
import { contentPairs, pairsOfNormalized, type ContentPairs } from './content-pairs.js';
import type { PairCandidate } from './content-words.js';
import type { AlignedEvidence, AlignmentReport } from './types.js';
import { ITEMS_PER_PAUSE, PAUSE, type Steps } from '../util/steps.js';
import { round4 } from '../util/round.js';
import { lowerBound } from '../util/sorted.js';

/** One candidate document of one dataset. */
export interface AlignmentJob {
  readonly dataset: ExactSearchable;
  readonly candidate: ExactCandidate;
}

/** What the alignment stage found: per dataset id, the aligned documents and their passages. */
export interface AlignmentOutcome {
  readonly aligned: Map<string, Map<number, ExactMatch[]>>;
  /** Per dataset id: the content-word counts of its aligned passages (see AlignedEvidence). */
  readonly evidence: Map<string, AlignedEvidence>;
  readonly report: AlignmentReport;
}

/** Compare's defaults: the aligner's measured PAN settings. */
export const COMPARE_DEFAULTS = resolveCompareOptions(undefined);
/** Compare's defaults without synonyms: how a scan for copies aligns (SearchOptions.synonyms). */
const WITHOUT_SYNONYMS = resolveCompareOptions({ synonyms: false });

/**
 * The bounds of the alignment stage: `chars`, the work budget (characters of the query and document windows
 * aligned, summed), which decides the result; `ms`, the safety net of time.
 */
export interface AlignBudget {
  readonly chars: number;
  readonly ms: number;
}

/**
 * Candidate documents tokenized by earlier searches of this process (16 Mi units of text at most): many
 * searches align the same documents — a quoted licence, the chance candidates of common words.
 */
const candidateTokens = new TokenizedCache(1 << 24);

/**
 * Align `query` with the strongest `limit` candidates (across datasets) within `budget`; candidates of datasets
 * that keep no text are counted in the report, not aligned. As steps: it pauses after each aligned window, candidate and passage and every
 * ITEMS_PER_PAUSE query pairs, so a sliced search can give the event loop a turn there. The work budget is
 * checked before each candidate: the characters aligned so far, the same however the work is sliced and however
 * busy the machine. `now` is the clock of the time limit (the safety net): a sliced search passes one that stops
 * while it is paused. The budget bounds the aligning of candidates and the reading of the other aligned documents
 * for the field background of a query that is all passage ({@link FieldReader}: each document's characters once);
 * the backgrounds of the documents that aligned and their passages' shared words follow (work linear in the query
 * and the passages).
 */
export function* alignSteps(
  core: Core,
  query: string,
  jobs: readonly AlignmentJob[],
  limit: number,
  budget: AlignBudget,
  pairsOf: PairLookup,
  now: () => number = () => performance.now(),
  reworded = true,
  synonyms = true,
  copiesFirst = false,
): Steps<AlignmentOutcome> {
  const compareOptions = synonyms ? COMPARE_DEFAULTS : WITHOUT_SYNONYMS;
  const ranked = byStrength(jobs);
  const withoutText = new Set<string>();
  const started = now();
  const work = { chars: 0 };
  let considered = 0,
    exhausted = false,
    timedOut = false;
  const queryTokens = tokenizedOnce(query); // tokenized once (its pairs read the same tokens), in chunks
  // first the candidates are aligned, strongest first, while the budget lasts ...
  const done: AlignedDocument[] = [];
  for (const { dataset, candidate } of ranked) {
    if (considered === limit) break;
    const text = dataset.documentText(candidate.doc);
    if (text === null) {
      withoutText.add(dataset.descriptor.id);
      continue;
    }
    considered++;
    if (work.chars >= budget.chars || now() - started > budget.ms) {
      // the work budget first; the clock is the safety net: only the clock sets time_limit_reached
      exhausted = true;
      timedOut ||= work.chars < budget.chars;
      continue;
    }
    const { doc, regions } = candidate; // a copy explaining every region settles it without the aligner (copiesFirst)
    const copies = copiesFirst ? copiesOf(core, query, text, regions, work) : null;
    const align = () =>
      alignRegions(core, queryTokens, candidateTokens.get(dataset, doc, text), regions, work, compareOptions);
    done.push({ dataset, doc, text, spans: copies ?? (yield* align()) });
    yield PAUSE;
  }
  // ... then the backgrounds of the documents that aligned something, in one pass over the query's pairs ...
  // (a search for copies only, `reworded` false, reads no backgrounds: it keeps no reworded passage)
  const occurrences = reworded && done.length > 0 ? yield* pairOccurrences(pairsOf.query()) : null;
  const withSpans = done.filter((d) => d.spans.length > 0);
  const field = new FieldReader(done, work, budget.chars, () => now() - started > budget.ms);
  const backgrounds =
    occurrences && withSpans.length > 0 ? yield* pairBackgrounds(pairsOf, withSpans, occurrences.previous) : [];
  const backgroundOf = new Map(withSpans.map((d, k) => [d, backgrounds[k]]));
  // ... and the passages each keeps
  const aligned = new Map<string, Map<number, ExactMatch[]>>();
  /** The shared-pair counts of each kept passage (the evidence of its dataset). */
  const countsOf = new Map<ExactMatch, PassageCounts>();
  for (const d of done) {
    const { dataset, doc, text, spans } = d;
    const id = dataset.descriptor.id;
    // null: the query is (almost) all aligned with this document, nothing of it is left to measure on
    const documentBackground = backgroundOf.get(d) ?? null;
    const kept: ExactMatch[] = [];
    for (const s of spans) {
      yield PAUSE;
      const { runs, qn, sn } = passagesOf(core, query, text, s, reworded);
      const match = alignedMatch(id, dataset.document(doc).id, s, runs);
      if (!reworded) {
        if (REUSE_RANK[match.reuse] === 0) continue;
        kept.push(match);
        countsOf.set(match, NO_COUNTS);
        continue;
      }
      const queryPairs = pairSet(qn!);
      const pairs = sharedPairs(queryPairs, sn!);
      const counts = passageCounts(pairs, REUSE_RANK[match.reuse] === 0, documentBackground, {
        neighbours: () => neighbourBackground(queryPairs, text, s),
        local: () => localBackground(pairsOf, d, s),
        field: () => fieldBackground(queryPairs, s.b_end - s.b_start, field.others(d)),
      });
      // a reworded passage is reported only when its shared content words beat its document's background
      if (counts === null) continue;
      kept.push(match);
      countsOf.set(match, counts);
    }
    let perDoc = aligned.get(id);
    if (!perDoc) aligned.set(id, (perDoc = new Map()));
    perDoc.set(doc, kept);
    yield PAUSE;
  }
  dropOutranked(aligned);
  const passages = new Map<string, PassageCounts[]>();
  for (const [id, perDoc] of aligned) {
    const own: PassageCounts[] = [];
    for (const list of perDoc.values()) for (const m of list) own.push(countsOf.get(m)!);
    passages.set(id, own);
  }
  // distinct pairs of the query: a million or so in 10 MB
  const queryPairs = passages.size > 0 && occurrences ? occurrences.distinct : 0;
  exhausted ||= field.cut;
  timedOut ||= field.late;
  const evidence = new Map<string, AlignedEvidence>();
  for (const [id, list] of passages) evidence.set(id, { documents: aligned.get(id)!.size, queryPairs, passages: list });
  return {
    aligned,
    evidence,
    report: {
      candidates: ranked.length,
      aligned: done.length,
      limit,
      budget_chars: budget.chars,
      aligned_chars: work.chars,
      budget_exhausted: exhausted,
      budget_ms: budget.ms,
      time_limit_reached: timedOut,
      without_text: [...withoutText],
    },
  };
}

/**
 * A passage's shared word runs and its two passages normalised, each once, for its runs and its shared content-word
 * pairs. A search for copies alone, which reads no pairs (`reworded` false), normalises neither passage (null): it
 * takes the runs of a copy the walk settled from the walk (`copyRuns`), and those of any other passage from the
 * core's tokens of its two sides ({@link passageRuns}) — normalising them only where that path declines.
 */
function passagesOf(
  core: Core,
  query: string,
  text: string,
  s: AlignedSpan,
  reworded: boolean,
): { runs: { tokens: number; similarity: number }; qn: Normalized | null; sn: Normalized | null } {
  const runs = reworded ? undefined : (copyRuns.get(s) ?? passageRuns(core, query, text, s) ?? undefined);
  if (runs !== undefined) return { runs, qn: null, sn: null };
  const qn = normalize(query.slice(s.a_start, s.a_end)),
    sn = normalize(text.slice(s.b_start, s.b_end));
  return { runs: runsOf(wordsOf(qn), wordsOf(sn)), qn, sn };
}

/** Shared content-word pairs of an aligned passage and its document's background rate (AlignedEvidence). */
interface PassageCounts {
  readonly pairs: number;
  readonly shared: number;
  readonly background: number;
}

/** The pair counts of a passage kept by a search for copies only (`reworded` false: no backgrounds read). */
const NO_COUNTS: PassageCounts = Object.freeze({ pairs: 0, shared: 0, background: 0 });

/** Reworded kinds (rank 0) are reported only beyond their document's background, and give way to copies. */
const REUSE_RANK: Record<ReuseKind, number> = { verbatim: 2, edited: 1, paraphrase: 0, summary: 0 };
/** Share of a reworded passage's query span that a passage of another document must cover to outrank it. */
const OUTRANKED_OVERLAP = 0.5;

/**
 * A passage aligned as a paraphrase is dropped where a verbatim or edited passage of another document covers at
 * least half of its query span: that text is attributed to the source it was copied from, while documents on the
 * same subject align loosely with the same query passage. Verbatim and edited passages are all kept (a quotation
 * found in two documents is in both), and so are paraphrases competing with paraphrases (translated reuse is
 * aligned as paraphrase, and the true source is not always the most similar one). On the PAN 2013 training
 * corpus as retrieval (bench/eval-pan-retrieval.mjs): verified share 0.9576 → 0.9606, pooled plagdet 0.9241 →
 * 0.9251, translation recall 0.8888 → 0.8860, cases found 0.9314 → 0.9304. Outranking by a paraphrase of higher
 * similarity as well was measured too: verified 0.9616 but translation recall 0.8818 and cases found 0.9288.
 */
function dropOutranked(aligned: Map<string, Map<number, ExactMatch[]>>): void {
  const all: ExactMatch[] = [];
  for (const perDoc of aligned.values()) for (const list of perDoc.values()) all.push(...list);
  const stronger = (x: ExactMatch, y: ExactMatch) => REUSE_RANK[x.reuse!] > REUSE_RANK[y.reuse!];
  const dropped = new Set<ExactMatch>();
  for (const p of all) {
    if (REUSE_RANK[p.reuse!] !== 0) continue;
    const len = p.query_end - p.query_start;
    for (const m of all) {
      if (m === p || (m.dataset_id === p.dataset_id && m.document_id === p.document_id) || !stronger(m, p)) continue;
      const overlap = Math.min(m.query_end, p.query_end) - Math.max(m.query_start, p.query_start);
      if (overlap >= OUTRANKED_OVERLAP * len) {
        dropped.add(p);
        break;
      }
    }
  }
  if (dropped.size === 0) return;
  for (const perDoc of aligned.values()) {
    for (const [doc, list] of perDoc)
      perDoc.set(
        doc,
        list.filter((m) => !dropped.has(m)),
      );
  }
}

/**
 * One candidate list per document from the exact and the content-word candidates: the regions of
 * both, their strengths added.
 * @example const jobs = withPairCandidates(search.candidates, pairCandidates)
 */
export function withPairCandidates(
  exact: readonly ExactCandidate[],
  pairs: readonly PairCandidate[] | null,
): ExactCandidate[] {
  if (!pairs || pairs.length === 0) return exact.slice();
  const byDoc = new Map<number, ExactCandidate>(exact.map((c) => [c.doc, c]));
  for (const p of pairs) {
    const c = byDoc.get(p.doc);
    if (!c) {
      byDoc.set(p.doc, p);
      continue;
    }
    const regions = [...c.regions, ...p.regions];
    byDoc.set(p.doc, { doc: p.doc, hits: Math.max(c.hits, p.hits), strength: c.strength + p.strength, regions });
  }
  return [...byDoc.values()];
}

/**
 * The candidates that {@link alignSteps} would consider, at most `limit`: the strongest first, in its
 * order (a dataset whose texts are fetched per query fetches only these).
 * @example strongest(withPairCandidates(search.candidates, pairs), 50).map((c) => c.doc)
 */
export function strongest(candidates: readonly ExactCandidate[], limit: number): ExactCandidate[] {
  return byStrength(candidates).slice(0, limit);
}

/** Candidates strongest first; equally strong ones keep their order (the sort is stable). */
const byStrength = <T extends { readonly candidate: ExactCandidate } | ExactCandidate>(items: readonly T[]): T[] =>
  items.slice().sort((x, y) => strengthOf(y) - strengthOf(x));
const strengthOf = (x: { readonly candidate: ExactCandidate } | ExactCandidate): number =>
  'candidate' in x ? x.candidate.strength : x.strength;

/**
 * The reported matches of one exact dataset: the aligned passages of its aligned documents, then
 * the seed matches of those documents that no aligned passage overlaps in the query (short
 * verbatim quotes below the aligner's minimum length), and the seed matches of every other document.
 */
export function mergeAligned(
  seeds: readonly ExactMatch[],
  aligned: Map<number, ExactMatch[]> | undefined,
  docIndex: (id: string) => number,
): ExactMatch[] {
  if (!aligned || aligned.size === 0) return seeds.slice();
  const out: ExactMatch[] = [];
  for (const matches of aligned.values()) out.push(...matches);
  for (const m of seeds) {
    const own = aligned.get(docIndex(m.document_id));
    if (own?.some((a) => a.query_start < m.query_end && m.query_start < a.query_end)) continue;
    out.push(m);
  }
  return out;
}

/**
 * The margin of the first, probing alignment of a region: a paragraph or two on each side. Most candidate
 * regions are chance clusters of shared words that align to nothing, and aligning costs time linear in
 * the window: a probe that finds nothing ends the work on its region. The aligner cuts the window into
 * sentences and weighs words by their rarity in it, so a window that is hardly longer than its region can
 * miss a reworded passage that the whole pair aligns (a lone long sentence pair counts as one seed, too weak
 * alone). On PAN 2013 as retrieval (bench/eval-pan-retrieval.mjs), from 600 to 2,000 characters: query-side
 * recall of random obfuscation 0.878 → 0.890, of translation 0.915 → 0.924, verified share ≥ 0.976 in each
 * sub-corpus, analyze's median time the same (11–12 ms); 3,000 gained little more (0.891, 0.925).
 */
const PROBE_MARGIN = 2000;
/**
 * Characters added on each side of a probe window that found a passage, in the query and in the
 * document, before it is aligned again: reuse with word edits keeps hits only here and there, so the
 * passage runs on past the first and the last hit, and growing by whole sentences needs the
 * neighbouring text too (spans end closer to the truth with this context on PAN 2013).
 */
const REGION_MARGIN = 3000;

/** A stretch to align: [q0, q1) of the query against [s0, s1) of the document. */
export interface Window {
  q0: number;
  q1: number;
  s0: number;
  s1: number;
}

/** A window widened by `margin` characters on each side, cut at white space. */
const widen =
  (query: string, text: string) =>
  (margin: number) =>
  (r: Window): Window => ({
    q0: cutBefore(query, r.q0 - margin),
    q1: cutAfter(query, r.q1 + margin),
    s0: cutBefore(text, r.s0 - margin),
    s1: cutAfter(text, r.s1 + margin),
  });

/** The probe windows of a candidate's regions: each widened by PROBE_MARGIN, those overlapping in both texts merged. */
const probeWindows = (query: string, text: string, regions: readonly CandidateRegion[]): Window[] =>
  mergeWindows(
    regions.map((r) =>
      widen(query, text)(PROBE_MARGIN)({ q0: r.query_start, q1: r.query_end, s0: r.source_start, s1: r.source_end }),
    ),
  );

/**
 * The spans of the copies that explain a candidate's regions in its probe windows (src/align/copies.ts), or null
 * for the aligner; the windows' characters are counted into `work` either way, as the aligner's probes would be.
 */
function copiesOf(
  core: Core,
  query: string,
  text: string,
  regions: readonly CandidateRegion[],
  work: { chars: number },
): AlignedSpan[] | null {
  const probes = probeWindows(query, text, regions);
  const spans = copySpans(query, text, probes, regions, core);
  if (spans !== null) for (const w of probes) work.chars += w.q1 - w.q0 + (w.s1 - w.s0);
  return spans;
}

/** True when two windows overlap in both texts. */
const overlaps = (x: Window, y: Window): boolean => x.q0 < y.q1 && y.q0 < x.q1 && x.s0 < y.s1 && y.s0 < x.s1;

/**
 * Align only where the hits are: each region, widened by PROBE_MARGIN and cut at white space, is
 * aligned as its own pair (windows overlapping in both texts are merged first); windows that found a
 * passage are widened by REGION_MARGIN and aligned again — unless the probe's passages are verbatim copies
 * that end well inside it ({@link settles}) — and the spans, shifted back to offsets in the whole texts,
 * are the result. A whole book is never aligned against a query for the sake of one quoted page.
 */
function* alignRegions(
  core: Core,
  queryTokens: TokenizedText,
  textTokens: TokenizedText,
  regions: readonly CandidateRegion[],
  work: { chars: number },
  options: ResolvedCompareOptions,
): Steps<AlignedSpan[]> {
  const query = queryTokens.text,
    text = textTokens.text;
  const around = widen(query, text);
  const probes = probeWindows(query, text, regions);
  const found: Window[] = [];
  const settled: Array<{ window: Window; spans: AlignedSpan[] }> = [];
  for (const w of probes) {
    const spans = alignWindow(core, queryTokens, textTokens, w, work, options);
    if (spans.length > 0 && settles(spans, w, query.length, text.length)) settled.push({ window: w, spans });
    else if (spans.length > 0) found.push(w);
    yield PAUSE;
  }
  let widened = mergeWindows(found.map(around(REGION_MARGIN)));
  // a settled probe that a widened window overlaps is aligned again with it: its passages would come twice
  for (let k = 0; k < settled.length; ) {
    if (widened.some((o) => overlaps(o, settled[k].window))) {
      found.push(settled.splice(k, 1)[0].window);
      widened = mergeWindows(found.map(around(REGION_MARGIN)));
      k = 0; // the widened windows grew: every settled probe is tested again
    } else k++;
  }
  const out: AlignedSpan[] = settled.flatMap((p) => p.spans);
  for (const w of widened) {
    out.push(...alignWindow(core, queryTokens, textTokens, w, work, options));
    yield PAUSE;
  }
  return out.sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start);
}

/**
 * Characters a verbatim passage must leave between itself and each edge of its probe window, in both texts, for
 * the probe's alignment to stand without the widened one (see {@link settles}).
 */
export const SETTLED_ROOM = 300;

/**
 * True when a probe's alignment is final: every passage it found is a verbatim copy (score 1: the exact-run
 * detector's) that ends at least SETTLED_ROOM characters inside the probe window on every side, in both texts
 * (an edge at the start or end of a text leaves room enough). Such a copy ended inside the window: the widened
 * alignment would find the same passage, at the cost of a window five times as long. An edited or reworded
 * passage, or a copy near an edge, may run on past the window, and is aligned again widened. On PAN 2013 as
 * retrieval (bench/eval-pan-retrieval.mjs) recall stayed the same for obfuscated reuse and rose for copies (0.9989
 * → 0.9992); letting edited passages settle too cost 0.6 points of recall on word-level obfuscation.
 * @example
 * const copy = { a_start: 700, a_end: 1500, b_start: 900, b_end: 1700, score: 1 }
 * settles([copy], { q0: 100, q1: 2100, s0: 300, s1: 2300 }, query.length, text.length) // true
 */
export function settles(
  spans: readonly AlignedSpan[],
  w: Readonly<Window>,
  queryLength: number,
  textLength: number,
): boolean {
  const room = (edge: number, at: number, textEdge: number) => edge === textEdge || Math.abs(at - edge) >= SETTLED_ROOM;
  return spans.every(
    (s) =>
      s.score === 1 &&
      room(w.q0, s.a_start, 0) &&
      room(w.q1, s.a_end, queryLength) &&
      room(w.s0, s.b_start, 0) &&
      room(w.s1, s.b_end, textLength),
  );
}

/** The aligned spans of one window, as offsets in the whole texts; its characters are counted into `work`. */
function alignWindow(
  core: Core,
  query: TokenizedText,
  text: TokenizedText,
  w: Window,
  work: { chars: number },
  options: ResolvedCompareOptions,
): AlignedSpan[] {
  work.chars += w.q1 - w.q0 + (w.s1 - w.s0);
  return alignTokens(core, query.window(w.q0, w.q1, core), text.window(w.s0, w.s1, core), options).map((s) => ({
    a_start: s.a_start + w.q0,
    a_end: s.a_end + w.q0,
    b_start: s.b_start + w.s0,
    b_end: s.b_end + w.s0,
    score: s.score,
    ...(s.summary ? { summary: true as const } : {}),
  }));
}

/** Windows that overlap in both texts become one (until none do). */
function mergeWindows(windows: Window[]): Window[] {
  const out: Window[] = [];
  for (const w of windows.sort((x, y) => x.q0 - y.q0 || x.s0 - y.s0)) {
    const m = out.find((o) => overlaps(o, w));
    if (m) {
      m.q0 = Math.min(m.q0, w.q0);
      m.q1 = Math.max(m.q1, w.q1);
      m.s0 = Math.min(m.s0, w.s0);
      m.s1 = Math.max(m.s1, w.s1);
    } else out.push({ ...w });
  }
  return out.length === windows.length ? out : mergeWindows(out);
}

const SPACE = /\s/;
/** Furthest a cut moves to find white space (text without spaces, e.g. CJK, is cut where it falls). */
const CUT_REACH = 64;
/** The offset of the white space at or before `at` (0 at the start), so that no word is cut. */
export function cutBefore(text: string, at: number): number {
  if (at <= 0) return 0;
  for (let i = at; i > 0 && i > at - CUT_REACH; i--) if (SPACE.test(text[i])) return i;
  return notInsidePair(text, at);
}
/** The offset of the white space at or after `at` (the length at the end). */
export function cutAfter(text: string, at: number): number {
  if (at >= text.length) return text.length;
  for (let i = at; i < text.length && i < at + CUT_REACH; i++) if (SPACE.test(text[i])) return i;
  return notInsidePair(text, at);
}
/** `at`, or one before it when it would split a surrogate pair. */
const notInsidePair = (text: string, at: number): number => ((text.charCodeAt(at) & 0xfc00) === 0xdc00 ? at - 1 : at);

/** The query's sampled content-word pairs (computed once) and which documents hold a pair. */
export interface PairLookup {
  query(): ContentPairs;
  /**
   * A test of document `doc` of `dataset`: true for the query's pair numbers `i` it holds (looked up once per
   * document, not per pair: the background walks every pair of the query).
   */
  holderOf(dataset: ExactSearchable, doc: number): (i: number) => boolean;
}

/**
 * A passage aligned as a paraphrase (under half of its words in shared runs) is kept only when the
 * chance of its shared content-word pairs at its document's background rate is at most this: the
 * aligner also pairs passages that merely share a topic.
 */
export const PARAPHRASE_ALPHA = 0.05;

/** Lowest background rate assumed for shared content-word pairs. */
export const PAIR_BACKGROUND_FLOOR = 0.02;
/** Fewest query pairs outside the aligned spans for them to measure a document's background. */
const MIN_CONTROL_PAIRS = 10;
/**
 * The background assumed when nothing is left to measure it on: the query is (almost) all aligned, and the source
 * passage is (almost) all of its document ({@link neighbourBackground}). It is the share of pairs that passages the
 * aligner pairs without reuse hold in common (0.20 on the PAN 2013 documents without reuse), rounded up.
 */
export const NO_CONTROL_BACKGROUND = 0.25;
/** Shortest neighbour of a source passage, as a share of the passage's length, that {@link neighbourBackground} measures on. */
const MIN_NEIGHBOUR_SHARE = 0.5;

/**
 * The background of a passage of a query that leaves nothing to measure a background on (a passage submitted on its
 * own is all aligned): the share of the query passage's distinct sampled pairs that the document text just before
 * the source passage holds, and the same for the text just after it, each as long as the source passage; the
 * larger of the two (at least PAIR_BACKGROUND_FLOOR). The neighbours are the same document, on the same subject, in
 * the same words, and as long: a passage that merely shares the subject shares as much with them as with the source
 * passage, a reworded copy far more with its source. A neighbour shorter than half the passage (the document's edge)
 * is not measured on; with neither, NO_CONTROL_BACKGROUND. LLM paraphrases of arXiv passages analysed on their own
 * (bench/eval-paraphrase.mjs) share a median 0.30 of their pairs with their source, passages of other papers of the
 * field 0.04; with NO_CONTROL_BACKGROUND for every such passage, 0.68 of the paraphrases were found, with this 0.90
 * (the same false matches).
 * @example
 * const rate = neighbourBackground(pairSet(normalize(query)), documentText, { b_start: 4000, b_end: 4600 })
 */
export function neighbourBackground(
  queryPairs: ReadonlySet<number>,
  text: string,
  s: { readonly b_start: number; readonly b_end: number },
): number {
  const len = s.b_end - s.b_start;
  const sides = [
    [cutBefore(text, s.b_start - len), s.b_start],
    [s.b_end, cutAfter(text, s.b_end + len)],
  ].filter(([from, to]) => to - from >= MIN_NEIGHBOUR_SHARE * len);
  // no neighbour: a passage that is (nearly) its whole document
  if (sides.length === 0 || queryPairs.size === 0) return NO_CONTROL_BACKGROUND;
  let most = 0;
  for (const [from, to] of sides) {
    const { shared } = sharedPairs(queryPairs, normalize(text.slice(from, to)));
    most = Math.max(most, shared / queryPairs.size);
  }
  return Math.max(PAIR_BACKGROUND_FLOOR, most);
}

/**
 * The counts of a passage with the background its evidence is weighed against, or null when a reworded passage
 * (`rewordedOnly`) is not reported: its shared pairs are not beyond its own document's background (at most
 * PARAPHRASE_ALPHA). A reworded passage of a long query is also read against the query text around it (same text,
 * same subject): a query of many topics would otherwise leave its one passage on a field a low background against a
 * document of that field (bench/eval-false-attribution.mjs, concatenations of unrelated texts). A query that is all
 * aligned (`documentBackground` null) leaves the source span's neighbours to measure on; the evidence of a reworded
 * passage of such a query is weighed against the field as well ({@link fieldBackground}), once it is reported.
 */
function passageCounts(
  pairs: { readonly pairs: number; readonly shared: number },
  rewordedOnly: boolean,
  documentBackground: number | null,
  rates: { readonly neighbours: () => number; readonly local: () => number; readonly field: () => number },
): PassageCounts | null {
  if (!rewordedOnly) return { ...pairs, background: documentBackground ?? rates.neighbours() };
  const own = documentBackground === null ? rates.neighbours() : Math.max(documentBackground, rates.local());
  if (binomialUpperTail(pairs.shared, pairs.pairs, own) > PARAPHRASE_ALPHA) return null;
  return { ...pairs, background: documentBackground === null ? Math.max(own, rates.field()) : own };
}

/** The sampled content-word pairs of a whole document and its length ({@link fieldBackground} reads its stretches). */
export interface DocumentPairs {
  readonly pairs: ContentPairs;
  readonly length: number;
}

/**
 * The evidence background of a reworded passage of a query that is all aligned, measured on the other documents the
 * aligner paired with the query (of any dataset searched): the largest share of the passage's distinct sampled pairs
 * that a stretch of another document `len` characters long holds (the source passage's length), its stretches
 * starting every half length (0 with no other document). The documents a query aligns with are the corpus's texts on
 * its subject, and the source passage is the stretch of its document that shares the most with the query: the null
 * to beat is the stretch that shares the most in another document of the field. What those share with the query is
 * the vocabulary of the field (benchmark names, terms of art), which the source document's own neighbours need not
 * show (a 150-word passage of the XLNet paper on RACE and GLUE, aligned as a summary of 6,200 characters of the
 * RoBERTa paper, shares 7 of its 53 pairs with it, at most 1 with its neighbours, 3 with a stretch of another
 * aligned paper: its aligned chance 0.0095 → 1, bench/eval-false-attribution.mjs). It weighs the evidence, not
 * whether the passage is reported: the best of a hundred stretches is a high bar for a short passage, and as that
 * test too it dropped 17 of 2,229 LLM paraphrases of arXiv passages that their neighbours keep, and no passage of
 * another paper (bench/eval-paraphrase.mjs: a paraphrase shares a median 0.30 of its pairs with its source, 0.04
 * with passages of other papers of the field).
 * @example
 * const rate = fieldBackground(pairSet(normalize(passage)), 600, [{ pairs: contentPairs(other), length: other.length }])
 */
export function fieldBackground(
  queryPairs: ReadonlySet<number>,
  len: number,
  others: readonly DocumentPairs[],
): number {
  if (queryPairs.size === 0 || len <= 0) return 0;
  const step = Math.max(1, Math.ceil(len / 2));
  let most = 0;
  for (const { pairs, length } of others) {
    // the document's pairs that the passage holds, in text order: the stretches count only these
    const held: number[] = [];
    for (let i = 0; i < pairs.hashes.length; i++) if (queryPairs.has(pairs.hashes[i])) held.push(i);
    if (held.length <= most * queryPairs.size) continue; // no stretch of it can hold more
    const seen = new Set<number>();
    for (let from = 0, k = 0; from < length; from += step) {
      const to = Math.min(length, from + len);
      if (to - from < MIN_NEIGHBOUR_SHARE * len) break;
      while (k < held.length && pairs.starts[held[k]] < from) k++;
      seen.clear();
      for (let j = k; j < held.length && pairs.starts[held[j]] < to; j++)
        if (pairs.ends[held[j]] <= to) seen.add(pairs.hashes[held[j]]);
      most = Math.max(most, seen.size / queryPairs.size);
      if (to === length) break;
    }
  }
  return most;
}

/**
 * The other aligned documents of a search as {@link fieldBackground} reads them: each document's pairs found once
 * per search, its characters counted into the work of the alignment; once the work budget or the time limit is
 * spent, no further document is read and the search says so (`cut`, `late`: the report's `budget_exhausted` and
 * `time_limit_reached`), never a silently different background.
 */
class FieldReader {
  /** True when a document was left unread: the work budget or the time limit was spent. */
  cut = false;
  /** True when the time limit, not the work budget, left it unread. */
  late = false;
  readonly #read = new Map<AlignedDocument, DocumentPairs | null>();

  constructor(
    private readonly done: readonly AlignedDocument[],
    private readonly work: { chars: number },
    private readonly budgetChars: number,
    private readonly pastTime: () => boolean,
  ) {}

  /** The pairs of the documents aligned with the query other than `d`, those the budget let be read. */
  others(d: AlignedDocument): DocumentPairs[] {
    const out: DocumentPairs[] = [];
    for (const o of this.done) {
      if (o === d || (o.dataset === d.dataset && o.doc === d.doc)) continue;
      const p = this.#pairsOf(o);
      if (p) out.push(p);
    }
    return out;
  }

  #pairsOf(o: AlignedDocument): DocumentPairs | null {
    const known = this.#read.get(o);
    if (known !== undefined) return known;
    let p: DocumentPairs | null = null;
    if (this.work.chars >= this.budgetChars || this.pastTime()) {
      this.cut = true;
      this.late ||= this.work.chars < this.budgetChars;
    } else {
      this.work.chars += o.text.length;
      p = { pairs: contentPairs(o.text), length: o.text.length };
    }
    this.#read.set(o, p);
    return p;
  }
}

/** Query characters on each side of a passage that {@link localBackground} measures on (about 2,000 words). */
export const LOCAL_BACKGROUND_CHARS = 12_000;

/**
 * The background of a reworded passage of a long query measured on the query text around it: the share of the
 * query's distinct sampled pairs within {@link LOCAL_BACKGROUND_CHARS} before and after the passage, outside every
 * aligned span of the document, that the document holds (0 when fewer than MIN_CONTROL_PAIRS lie there). A query
 * shorter than the window on both sides gives its whole-query background again, so a document-sized query is
 * judged as before; in a long query of many topics the text around a passage is on its subject, as the whole is not.
 */
function localBackground(pairsOf: PairLookup, d: AlignedDocument, s: AlignedSpan): number {
  const q = pairsOf.query();
  const from = s.a_start - LOCAL_BACKGROUND_CHARS,
    to = s.a_end + LOCAL_BACKGROUND_CHARS;
  if (from <= 0 && to >= (q.ends.at(-1) ?? 0)) return 0; // the whole query: its background is the document's
  const inSpans = overlapTest(d.spans);
  const holds = pairsOf.holderOf(d.dataset, d.doc);
  const seen = new Set<number>();
  let outside = 0,
    held = 0;
  for (let i = lowerBound(q.starts, Math.max(0, from)); i < q.hashes.length && q.starts[i] < to; i++) {
    if (inSpans(q.starts[i], q.ends[i]) || seen.has(q.hashes[i])) continue;
    seen.add(q.hashes[i]);
    outside++;
    if (holds(i)) held++;
  }
  return outside < MIN_CONTROL_PAIRS ? 0 : held / outside;
}

/** A candidate document aligned with the query: its text and the aligned spans (none when nothing aligned). */
interface AlignedDocument {
  readonly dataset: ExactSearchable;
  readonly doc: number;
  readonly text: string;
  readonly spans: AlignedSpan[];
}

/**
 * Where each of the query's sampled pairs occurred before: `previous[i]` is the last j < i with the same hash
 * (−1 for a first occurrence), and `distinct` the number of distinct hashes. One pass with a typed hash table
 * (open addressing, linear probing): no object per pair for the garbage collector, as a `Map` of a million
 * pairs would make.
 */
function* pairOccurrences(q: ContentPairs): Steps<{ previous: Int32Array; distinct: number }> {
  const n = q.hashes.length;
  const bits = Math.max(4, Math.ceil(Math.log2(2 * n + 1)));
  const keys = new Uint32Array(2 ** bits),
    last = new Int32Array(2 ** bits).fill(-1);
  const mask = keys.length - 1,
    shift = 32 - bits;
  const previous = new Int32Array(n);
  let distinct = 0;
  for (let i = 0; i < n; i++) {
    if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE; // a large query has a million pairs
    const h = q.hashes[i];
    let at = Math.imul(h, 0x9e3779b1) >>> shift;
    while (last[at] >= 0 && keys[at] !== h) at = (at + 1) & mask;
    if (last[at] < 0) distinct++;
    previous[i] = last[at];
    keys[at] = h;
    last[at] = i;
  }
  return { previous, distinct };
}

/**
 * How often the query shares a content-word pair with each document where nothing was aligned: the share of the
 * query's distinct sampled pairs outside every aligned query span of the document that the whole document holds
 * (at least PAIR_BACKGROUND_FLOOR; null when fewer than MIN_CONTROL_PAIRS are outside: see neighbourBackground). Two texts
 * on one topic share pairs everywhere; a reused passage shares far more inside its span than the rest of the
 * query shares with the whole document. A pair counts at its first occurrence outside the spans (`previous`:
 * {@link pairOccurrences}). The documents are measured together, in one pass over the query's pairs: the look-ups
 * of one pair for each document read the same postings, which the first brings into the cache.
 */
function* pairBackgrounds(
  pairsOf: PairLookup,
  docs: readonly AlignedDocument[],
  previous: Int32Array,
): Steps<Array<number | null>> {
  const q = pairsOf.query();
  const holds = docs.map((d) => pairsOf.holderOf(d.dataset, d.doc));
  const inSpan = docs.map((d) => overlapTest(d.spans));
  const outside = new Float64Array(docs.length),
    held = new Float64Array(docs.length);
  const every = Math.max(1, Math.floor(ITEMS_PER_PAUSE / docs.length)); // pairs between pauses
  for (let i = 0; i < q.hashes.length; i++) {
    if (i % every === every - 1) yield PAUSE;
    for (let e = 0; e < docs.length; e++) {
      const inSpans = inSpan[e];
      if (inSpans(q.starts[i], q.ends[i])) continue;
      let j = previous[i];
      while (j >= 0 && inSpans(q.starts[j], q.ends[j])) j = previous[j];
      if (j >= 0) continue; // counted at an earlier occurrence outside the spans
      outside[e]++;
      if (holds[e](i)) held[e]++;
    }
  }
  return docs.map((_, e) =>
    outside[e] < MIN_CONTROL_PAIRS ? null : Math.max(PAIR_BACKGROUND_FLOOR, held[e] / outside[e]),
  );
}

/**
 * `(start, end) => true` when [start, end) overlaps the query span of some of `spans`: the spans sorted by
 * start, the overlapping ones are among those starting before `end`, and one of them overlaps when the
 * furthest end of those passes `start` (a binary search instead of a test of every span: a long query
 * aligned with a long document has hundreds of spans and a million pairs to test).
 */
function overlapTest(spans: readonly AlignedSpan[]): (start: number, end: number) => boolean {
  const sorted = spans.slice().sort((x, y) => x.a_start - y.a_start);
  const starts = sorted.map((s) => s.a_start);
  const furthest: number[] = [];
  for (const s of sorted) furthest.push(Math.max(s.a_end, furthest.at(-1) ?? -Infinity));
  return (start, end) => {
    let lo = 0,
      hi = starts.length; // spans [0, lo) start before `end`
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] < end) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && furthest[lo - 1] > start;
  };
}

/**
 * The distinct sampled content-word pairs of a normalised passage.
 * @example sharedPairs(pairSet(normalize(queryPassage)), normalize(sourcePassage))
 */
export const pairSet = (passage: Normalized): Set<number> => new Set(pairsOfNormalized(passage).hashes);

/** The distinct sampled content-word pairs of a query passage (`pairSet`), and how many of them a passage holds. */
export function sharedPairs(queryPairs: ReadonlySet<number>, passage: Normalized): { pairs: number; shared: number } {
  const held = pairSet(passage);
  let shared = 0;
  for (const h of queryPairs) if (held.has(h)) shared++;
  return { pairs: queryPairs.size, shared };
}

/** An aligned span as a match, with its reuse kind and similarity. */
function alignedMatch(
  datasetId: string,
  documentId: string,
  s: AlignedSpan,
  { tokens, similarity }: { tokens: number; similarity: number },
): ExactMatch {
  return {
    dataset_id: datasetId,
    document_id: documentId,
    query_start: s.a_start,
    query_end: s.a_end,
    source_start: s.b_start,
    source_end: s.b_end,
    kind: 'exact',
    tokens,
    score: round4(s.score),
    reuse: s.summary ? 'summary' : reuseKind(similarity),
    similarity: round4(similarity),
    aligned: true,
  };
}

export { reuseKind, sharedRuns };

/** True for matches that point into a document (exact and near). */
export const isExact = (m: SearchMatch): m is ExactMatch => m.kind === 'exact';
