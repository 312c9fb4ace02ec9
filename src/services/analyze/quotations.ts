/**
 * Quotations: which matches of an analysis are text the work quotes rather than the work's own text. `confidence`
 * answers whether the submitted work was trained on, not whether something it quotes was: a rights holder who quotes
 * the Constitution's preamble learns nothing about her own text from a corpus that holds the preamble. Like "exclude
 * quotes" in a similarity report (Turnitin, iThenticate), quotations are shown and left out of the headline by default
 * (`quotations: 'exclude'`); `quotations: 'count'` counts them (checking a model's output, where a quotation is as
 * much reproduced text as anything else).
 *
 * A match is a quotation when the work is not mostly corpus text (the matches cover less than {@link EXCERPT_SHARE} of
 * its words: an excerpt stays an excerpt, however it is marked) and
 * - at least {@link MARKED_SHARE} of its span lies in a region the content marks as quoted (quotation marks, a block
 *   quote, an indented block, an attribution: src/text/quotations.ts), or
 * - the datasets hold its passage in several documents ({@link widelyReproduced}): a passage many books reprint, or
 * - unmarked, its passage is in another language than the content's own text around it ({@link otherLanguage}): an
 *   English essay that copies a tercet of Dante in Italian quotes it, marks or not.
 *
 * The rule reads only the content and the matches, so a result's roles can be computed again from its record
 * (src/services/report/rederive.ts).
 */
import type { SearchMatch } from '../../datasets/types.js';
import { type ContentType, extractText } from '../../text/index.js';
import { languageOf } from '../../text/languages.js';
import { type QuotationMark, type QuotedRegion, quotedRegions } from '../../text/quotations.js';
import { matchKind } from '../policy/kinds/index.js';

/** How an analysis counts quotations: left out of the headline (default) or counted as the work's text. */
export type QuotationsMode = 'exclude' | 'count';
/** The default {@link QuotationsMode}. */
export const DEFAULT_QUOTATIONS: QuotationsMode = 'exclude';
/**
 * The version of the rule below that a result's quotations were read with (`evidence.quotation_rule`): 4 reads
 * speeches each closed by its own mark as separate quotations, and a match holding two speeches or more with its own
 * words between them as a page of dialogue its marks do not make a quotation; 3 read an
 * unmarked passage in another language than the text around it as a quotation (`other_language`); 2 read the marks
 * and attributions of eleven languages, attributions beside the paragraph, left a cue inside the match out, and gave
 * each quotation its `share`; results without it were read by the first (English marks and attributions, no share).
 * A verifier recomputes only a result of the current rule.
 */
export const QUOTATION_RULE = 4;

/** Why a match is a quotation: the content's marks, its passage held in several documents, or its language. */
export type QuotationBasis = QuotationMark | 'widely_reproduced' | 'other_language';

/** What a match that is a quotation carries beside `role: 'quotation'`. */
export interface MatchQuotation {
  /** What makes it a quotation, sorted. */
  readonly by: readonly QuotationBasis[];
  /** Who the content attributes it to ("Lincoln", "the Bible"), when an attribution marks it. */
  readonly attributed_to?: string;
  /** The share of the content's words quoted from the same work (this match's source), 3 decimals. */
  readonly share: number;
  /**
   * True when that share is over {@link QUOTED_WORK_SHARE}: the quotations of that work count for the work's
   * confidence like its own text (`quotations: 'exclude'` included).
   */
  readonly counts?: true;
}

/** From this share of the content's words inside matches, the content is an excerpt: nothing in it is a quotation. */
export const EXCERPT_SHARE = 0.5;
/** A match is marked as quoted when at least this share of its span lies in quoted regions. */
export const MARKED_SHARE = 0.5;
/**
 * Over this share of the content's words quoted from one work, its quotations count for the work. A third: the quoted
 * text is then more than half as long as all the rest of the content, no longer a passage the author's own text
 * discusses but a large part of what the content gives its reader; and an answer must not fall from ≈ 95 to 0 as a
 * copy's share crosses {@link EXCERPT_SHARE}. Quotations of essays and reviews are far below it (14–21 % of the words
 * on the development texts).
 */
export const QUOTED_WORK_SHARE = 1 / 3;

/** A match as the rule reads it: its span in the content, its words, its document and who else holds the passage. */
type Readable = SearchMatch & { readonly shared_documents?: number };

/**
 * Per match (in the order given), its quotation or null: the rule of the module comment. `content` and `type` are the
 * content as sent (a file's extracted text as `'text'`), `matches` the result's (spans in that content), `tokens` the
 * content's word tokens.
 * @example quotationsOf(essay, 'text', result.matches, result.tokens)[0] // { by: ['quotation_marks'] }
 */
export function quotationsOf(
  content: string,
  type: ContentType,
  matches: readonly Readable[],
  tokens: number,
  extracted = extractText(content, type),
): Array<MatchQuotation | null> {
  if (matches.length === 0 || matchedShare(matches, tokens) >= EXCERPT_SHARE) return matches.map(() => null);
  // plain text: its offsets are the matches', so only the paragraphs holding a match are read
  const within = type === 'text' ? matches.map((m) => [m.query_start, m.query_end] as const) : undefined;
  const regions = quotedRegions(content, type, extracted, within);
  const found = matches.map((m) => {
    if (!matchKind(m).passage) return null;
    const marked = markedBy(m, regions, content);
    const widely = widelyReproduced(m, matches);
    const foreign = !marked && type !== 'html' && otherLanguage(m, content);
    if (!marked && !widely && !foreign) return null;
    const by = new Set<QuotationBasis>(marked?.by ?? []);
    if (widely) by.add('widely_reproduced');
    if (foreign) by.add('other_language');
    return { by: [...by].sort(), ...(marked?.attributed_to ? { attributed_to: marked.attributed_to } : {}) };
  });
  return withShares(found, matches, tokens);
}

/**
 * The quotations with the share of the content quoted from each one's work (its document's source, as
 * {@link widelyReproduced} reads it), and `counts` over {@link QUOTED_WORK_SHARE}.
 */
function withShares(
  found: ReadonlyArray<Omit<MatchQuotation, 'share'> | null>,
  matches: readonly Readable[],
  tokens: number,
): Array<MatchQuotation | null> {
  const work = (m: Readable) => matchKind(m).document(m) ?? m.dataset_id;
  const byWork = new Map<string, Readable[]>();
  found.forEach((q, i) => {
    if (q) byWork.set(work(matches[i]), [...(byWork.get(work(matches[i])) ?? []), matches[i]]);
  });
  const shares = new Map([...byWork].map(([k, ms]) => [k, Math.round(matchedShare(ms, tokens) * 1000) / 1000]));
  return found.map((q, i) => {
    if (!q) return null;
    const share = shares.get(work(matches[i])) ?? 0;
    return { ...q, share, ...(share > QUOTED_WORK_SHARE ? { counts: true as const } : {}) };
  });
}

/**
 * Whether the datasets hold a match's passage in the documents of several sources — reprinted by others, as a famous
 * passage is: a portrait names documents of another author holding it (`also_in`; the editions and collections of one
 * author's work are one source), an exact match's passage is in several of its dataset's documents
 * (`shared_documents`), or another match of another source (another author, another article) covers at least half of
 * its span. A remote corpus's matches take no part: the same book in a pack and in a web corpus is one text, not a
 * reprinted one.
 * @example widelyReproduced(preambleInTrollope, [preambleInTrollope, preambleInTheFederalist]) // true
 */
export function widelyReproduced(m: Readable, all: readonly Readable[]): boolean {
  const kind = matchKind(m);
  const key = kind.document(m);
  if (key === null) return false;
  if (kind.reprinted(m)) return true;
  const half = (m.query_end - m.query_start) / 2;
  return all.some((o) => {
    const other = matchKind(o).document(o);
    const overlap = Math.min(o.query_end, m.query_end) - Math.max(o.query_start, m.query_start);
    return o !== m && other !== null && other !== key && overlap >= half;
  });
}

/** How much of the content's own text either side of a match is read for its language (characters). */
const AROUND = 2000;

/**
 * Whether a match's passage is in another language than the content's text around it (up to {@link AROUND}
 * characters either side), both plainly named by `languageOf` (src/text/languages.ts): the German lines an English
 * essay copies are its quotation, not its prose. HTML is not read (its markup is not prose).
 * @example otherLanguage(danteInAnEnglishEssay, essay) // true: 'it' inside 'en'
 */
export function otherLanguage(m: Readable, content: string): boolean {
  const passage = languageOf(content.slice(m.query_start, m.query_end));
  if (passage === null) return false;
  const around = `${content.slice(Math.max(0, m.query_start - AROUND), m.query_start)}\n${content.slice(m.query_end, m.query_end + AROUND)}`;
  const own = languageOf(around);
  return own !== null && own !== passage;
}

/** Where a quotation's passage is: the document its match names, and how many other documents hold it too. */
export interface QuotationSource {
  /** The document (a book's title, an article's title, else its id). */
  readonly document: string;
  /** Other documents holding the passage: those the match names (`also_in`) and other matches' over its span. */
  readonly others: number;
}

/**
 * The source a quotation is shown with ("in *North America* vol. II and 3 other documents"): its match's document and
 * the other documents the result names for its span.
 * @example quotationSource(result.matches[0], result.matches) // { document: 'North America, Volume II (of 2)', others: 3 }
 */
export function quotationSource(m: Readable, all: readonly Readable[]): QuotationSource {
  const key = matchKind(m).document(m);
  const named =
    'article' in m && m.article ? m.article.title : 'document' in m && m.document?.title ? m.document.title : null;
  const others = new Set<string>();
  if ('also_in' in m) for (const a of m.also_in ?? []) others.add(a.document.title ?? a.document_id);
  const half = (m.query_end - m.query_start) / 2;
  for (const o of all) {
    const k = matchKind(o).document(o);
    const overlap = Math.min(o.query_end, m.query_end) - Math.max(o.query_start, m.query_start);
    if (o !== m && k !== null && k !== key && overlap >= half) others.add(k);
  }
  return { document: named ?? String(m.document_id ?? m.dataset_id), others: others.size };
}

/** The share of the content's words inside matches: overlapping matches count once, as the longest of them. */
export function matchedShare(matches: readonly Readable[], tokens: number): number {
  if (tokens <= 0) return 0;
  const sorted = matches.slice().sort((a, b) => a.query_start - b.query_start || b.query_end - a.query_end);
  let words = 0;
  let end = -1;
  let longest = 0;
  for (const m of sorted) {
    if (m.query_start >= end) {
      words += longest;
      longest = 0;
    }
    longest = Math.max(longest, m.tokens);
    end = Math.max(end, m.query_end);
  }
  return Math.min(1, (words + longest) / tokens);
}

/**
 * The marks of one quotation covering at least {@link MARKED_SHARE} of a match's span, or null. Regions that only
 * whitespace and quotation marks separate are one quotation (a quotation of several paragraphs, each opened); regions
 * with words between them are not: the dialogue of a copied page of fiction — “Come in,” said Tom. “The rain …” —
 * marks the copy's own speeches, not the work's quotation of the page. So a match that holds two speeches or more
 * with its own words between them (the book's narration and dialogue tags) is a page of dialogue, and none of its
 * speeches marks it, however long one is: only the author's text around the copy (an attribution, a block quote,
 * marks around the whole page) makes it a quotation.
 */
function markedBy(
  m: Readable,
  regions: readonly QuotedRegion[],
  content: string,
): Omit<MatchQuotation, 'share'> | null {
  const length = m.query_end - m.query_start;
  if (length <= 0) return null;
  const over = regions.filter((r) => r.start < m.query_end && r.end > m.query_start && !cueInside(r, m));
  const blocks = quotations(over, content);
  const speech = (block: readonly QuotedRegion[]) => block.every((r) => r.by === 'quotation_marks');
  const dialogue = blocks.filter(speech).length >= 2;
  let best: QuotedRegion[] = [];
  let bestCovered = 0;
  for (const block of dialogue ? blocks.filter((b) => !speech(b)) : blocks) {
    const from = Math.max(m.query_start, block[0].start);
    const to = Math.min(m.query_end, Math.max(...block.map((r) => r.end)));
    if (to - from > bestCovered) {
      bestCovered = to - from;
      best = block;
    }
  }
  if (bestCovered < MARKED_SHARE * length) return null;
  const attribution = best.find((r) => r.attributed_to !== undefined)?.attributed_to;
  return { by: [...new Set(best.map((r) => r.by))].sort(), ...(attribution ? { attributed_to: attribution } : {}) };
}

/**
 * Whether an attribution's cue lies inside the match, with at least the match kind's edge slack of match text on each
 * side: the copied book's own words (its dialogue tag "and Peter said:--"), not the work attributing the book. An
 * aligned match's edges are the copy's (a few characters of slack); a portrait's chain may run on over the words
 * beside the copy, up to about a window of fingerprints (a lead "… quoted Dickens at me:" 138 characters inside a
 * chain that began in the author's prose), so its margin is wider (MatchKind.edgeSlack).
 */
function cueInside(r: QuotedRegion, m: Readable): boolean {
  const margin = matchKind(m).edgeSlack;
  return r.cue !== undefined && r.cue[0] >= m.query_start + margin && r.cue[1] <= m.query_end - margin;
}

/** What may stand between two regions of one quotation: whitespace and quotation marks. */
const BETWEEN = /^[\s"“”‘’«»‹›„‚「」『』>]*$/;

/**
 * Regions (sorted by start) grouped into quotations: overlapping ones, or ones only {@link BETWEEN} separates — but
 * not a speech its own mark closed and the next one its mark opens ("… fortnight." "Well, …"): a quotation of several
 * paragraphs leaves each but the last open, while the turns of a copied page of dialogue are closed one by one, the
 * book's own marks and not the work quoting the page.
 */
function quotations(regions: readonly QuotedRegion[], content: string): QuotedRegion[][] {
  const out: QuotedRegion[][] = [];
  let last: QuotedRegion | undefined;
  for (const r of regions) {
    const group = out[out.length - 1];
    if (last && group && (r.start <= last.end || oneQuotation(last, r, content))) group.push(r);
    else out.push([r]);
    if (!last || r.end > last.end) last = r;
  }
  return out;
}

/** Whether `b` goes on with the quotation `a` (which ends first): only {@link BETWEEN}, and not two closed speeches. */
function oneQuotation(a: QuotedRegion, b: QuotedRegion, content: string): boolean {
  const gap = content.slice(a.end, b.start);
  if (!BETWEEN.test(gap)) return false;
  // a speech closed by its mark stops right before one: the mark at its end is in the gap's first character
  return !(a.by === 'quotation_marks' && b.by === 'quotation_marks' && /^\S/.test(gap));
}
