/**
 * The scan service (`engine.scan`, `engine.scanItem`): a stream of items searched against the exact datasets, one
 * item at a time, for the passages they copy — what a model's outputs regurgitate, what a catalogue reprints. Each
 * item is one search of the corpus without the remote corpora (`remote: false`) and, unless paraphrases are asked
 * for, without what only finds reworded reuse (`reworded: false`: no content-word pair candidates, no near-duplicate
 * lookup, no pair backgrounds), so that a clean item costs about its fingerprint and lookups. Its passages —
 * aligned where the alignment ran, seed chains otherwise — of at least `minWords` whitespace-separated words are
 * the hits, in a fixed order: the same datasets and options give the same hits in the same order.
 */
import type { DatasetStats, SearchMatch } from '../../datasets/types.js';
import type { DetailedSearch, SearchOptions, SliceOptions } from '../../corpus/types.js';
import { isExact } from '../../corpus/alignment.js';
import { isExactDataset } from '../../corpus/search-exact.js';
import { TrainprintError } from '../../errors.js';
import { utf8Length } from '../../fingerprint/fingerprint.js';
import { readThrough, within } from '../../util/schema-check.js';
import { countWords } from '../../util/space.js';
import { codeUnitOrder as order } from '../../util/sorted.js';
import { DEFAULT_MIN_WORDS, SCAN_ITEM_REQUEST, SCAN_OPTIONS_REQUEST } from './schema.js';
import type { ScanHit, ScanItem, ScanOptions, ScanReuse, ScanSummary } from './types.js';

/** What the scan reads of the corpus (a `Corpus` is one). */
export interface ScanCorpus {
  datasets(options?: { readonly account?: string }): DatasetStats[];
  searchDetailedAsync(query: string, options?: SearchOptions, run?: SliceOptions): Promise<DetailedSearch>;
  datasetDigest(id: string): Promise<string>;
  /**
   * How many of the query's word 5-grams the exact datasets' indexes hold (null: only a search can tell): an item
   * of which they hold none is searched no further; and its words (runs of characters outside `\s`) counted up to
   * `minWords`. Optional: without it, every item of enough words is searched.
   */
  exactShinglesFound?(query: string, datasets: readonly string[], minWords: number): ShinglesFound | null;
  /**
   * {@link exactShinglesFound} of many queries at once (the same answers, in order), or null: then each is asked
   * alone. Optional: a scan of short items asks it of the items at hand.
   */
  exactShinglesFoundOfMany?(
    queries: readonly string[],
    datasets: readonly string[],
    minWords: number,
  ): readonly ShinglesFound[] | null;
}

/** What the lookups tell of one item (see {@link ScanCorpus.exactShinglesFound}). */
export interface ShinglesFound {
  readonly found: number;
  readonly byteLength: number;
  readonly runs: ReadonlyArray<readonly [number, number]>;
  readonly words: number;
}

/** The scan service: {@link createScanService}. */
export interface ScanService {
  scan(
    items: Iterable<ScanItem> | AsyncIterable<ScanItem>,
    options?: ScanOptions,
  ): AsyncGenerator<ScanHit, ScanSummary>;
  scanItem(item: ScanItem, options?: ScanOptions): Promise<ScanHit[]>;
  digest(id: string): Promise<string>;
}

/** Work between two turns of the event loop inside one item's search (ms): a stream yields between items too. */
const SLICE_MS = 50;
/** Most items of an array, and most UTF-16 units of their texts, looked up together (`exactShinglesFoundOfMany`). */
const BATCH_ITEMS = 64;
const BATCH_UNITS = 1 << 16;

/** The checked options of one scan, with its search options made once. */
interface Plan {
  readonly minWords: number;
  readonly paraphrase: boolean;
  readonly search: SearchOptions;
  /** The exact datasets searched (those of `search`). */
  readonly datasets: readonly string[];
  /** Fewest hits of a document for the search to align it (`search.candidateHits`). */
  readonly candidateHits: number;
  /** Whether a text has at least minWords words ({@link wordsTest}). */
  readonly enough: RegExp;
  readonly signal: AbortSignal | undefined;
  /** Ends a scan before its next item (ScanOptions.stop). */
  readonly stop: AbortSignal | undefined;
  /** Whether a generator's or stream's items are read ahead in batches (ScanOptions.readAhead). */
  readonly readAhead: boolean;
}

/**
 * The scan service over `corpus`.
 * @example const scans = createScanService({ corpus: engine.corpus })
 */
export function createScanService(deps: { readonly corpus: ScanCorpus }): ScanService {
  const { corpus } = deps;

  const plan = (options: ScanOptions | undefined): Plan => {
    if (options === undefined) options = {};
    if (options === null || typeof options !== 'object')
      throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
    // what only a program passes (no JSON door takes them): a progress callback, abort signals, reading ahead
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
      throw new TrainprintError('INVALID_OPTIONS', 'onProgress must be a function');
    const { signal, stop } = options;
    if (signal !== undefined && !isSignal(signal))
      throw new TrainprintError('INVALID_OPTIONS', 'signal must be an AbortSignal');
    if (stop !== undefined && !isSignal(stop))
      throw new TrainprintError('INVALID_OPTIONS', 'stop must be an AbortSignal');
    const readAhead = options.readAhead ?? false;
    if (typeof readAhead !== 'boolean') throw new TrainprintError('INVALID_OPTIONS', 'readAhead must be a boolean');
    const account = options.account;
    const visible = corpus.datasets(account === undefined ? {} : { account });
    // a member undefined is one not given, as its schema reads it
    const given = { datasets: options.datasets, min_words: options.minWords, paraphrase: options.paraphrase };
    const o = readThrough(SCAN_OPTIONS_REQUEST, given, { datasets: visible });
    const minWords = o.min_words ?? DEFAULT_MIN_WORDS;
    const paraphrase = o.paraphrase ?? false;
    const datasets = o.datasets
      ? [...new Set(o.datasets)]
      : visible
          .filter(isExactDataset)
          .map((d) => d.id)
          .sort();
    const search: SearchOptions = {
      datasets,
      remote: false,
      reworded: paraphrase,
      // the hits are made of the matches alone
      coverage: false,
      // a scan for copies keeps no reworded passage, which is all that synonyms help to align
      ...(paraphrase ? {} : { candidateHits: candidateHits(minWords), synonyms: false, copiesFirst: true }),
      ...(account === undefined ? {} : { account }),
    };
    const enough = wordsTest(minWords);
    return {
      ...{ minWords, paraphrase, search, datasets, candidateHits: candidateHits(minWords), enough },
      ...{ signal, stop, readAhead },
    };
  };

  /**
   * One item's hits and UTF-8 bytes when they are known without a search (null hits: not searched, too few words;
   * none: copies nothing), else null: synchronous, so that the items of a stream that copy nothing, most of them,
   * cost no turn of the promise queue.
   */
  const settle = (item: ScanItem, p: Plan): { hits: ScanHit[] | null; bytes: number } | null => {
    const { text } = item;
    // most items of a stream copy nothing, which the lookups alone tell, without the search's spans, objects and
    // steps: none of their 5-grams is in an index (a search for copies then finds no seed match and no candidate),
    // or too few to make a document a candidate and none of their runs (where any seed match lies) of minWords;
    // the words are counted on the bytes the lookups hash (a regular expression over the string took as long)
    let pre: ShinglesFound | null = null;
    try {
      if (!p.paraphrase && corpus.exactShinglesFound) pre = corpus.exactShinglesFound(text, p.datasets, p.minWords);
    } catch (e) {
      // a text the tokenizer refuses (a lone surrogate) is skipped unread when it has too few words, as it always was
      if (p.enough.test(text)) throw e;
      return { hits: null, bytes: utf8Length(text) };
    }
    if (pre === null) return p.enough.test(text) ? null : { hits: null, bytes: utf8Length(text) };
    return settled(text, pre, p);
  };

  /**
   * {@link settle} of the items of `batch` that its lookups answer, from one call for them all
   * (`exactShinglesFoundOfMany`): per item, its hits and bytes, null (to be searched) or undefined (not answered:
   * settled alone, which checks it and reports what it must — the first item that is no item, and those after it).
   */
  const settleMany = (
    batch: readonly unknown[],
    p: Plan,
  ): Array<{ hits: ScanHit[] | null; bytes: number } | null> | undefined => {
    if (p.paraphrase || !corpus.exactShinglesFoundOfMany || batch.length < 2) return undefined;
    let valid = 0;
    while (valid < batch.length && isItem(batch[valid])) valid++;
    const texts = (batch.slice(0, valid) as ScanItem[]).map((item) => item.text);
    const pre = texts.length > 1 ? corpus.exactShinglesFoundOfMany(texts, p.datasets, p.minWords) : null;
    return pre?.map((one, k) => settled(texts[k], one, p));
  };

  /** An item's hits and bytes when its lookups `pre` tell them (see {@link settle}), else null: it is searched. */
  const settled = (text: string, pre: ShinglesFound, p: Plan): { hits: ScanHit[] | null; bytes: number } | null => {
    if (pre.words < p.minWords) return { hits: null, bytes: pre.byteLength };
    if (pre.found === 0 || (pre.found < p.candidateHits && !holdsWords(text, pre.runs, p.minWords)))
      return { hits: [], bytes: pre.byteLength };
    return null;
  };

  /** One item's hits and UTF-8 bytes (null hits: not searched, too few words). */
  const scanOne = async (item: ScanItem, p: Plan): Promise<{ hits: ScanHit[] | null; bytes: number }> => {
    const found = await corpus.searchDetailedAsync(item.text, p.search, { sliceMs: SLICE_MS });
    return { hits: hitsOf(item, found.result.matches, p), bytes: found.fingerprint.byte_length };
  };

  return {
    async *scan(items, options) {
      const p = plan(options);
      const onProgress = options?.onProgress;
      if (items === null || typeof items !== 'object' || !(Symbol.iterator in items || Symbol.asyncIterator in items))
        throw new TrainprintError('INVALID_INPUT', 'items must be an Iterable or AsyncIterable of { id, text }');
      const started = performance.now();
      let count = 0,
        bytes = 0,
        hits = 0,
        skipped = 0;
      p.signal?.throwIfAborted();
      // an array's items are settled in batches, and those of a source read ahead; any other source's one at a time,
      // as it gives them
      const batches = Array.isArray(items)
        ? inBatches(items)
        : p.readAhead
          ? aheadBatches(items as AsyncIterable<unknown>)
          : null;
      const stopped = () => {
        p.signal?.throwIfAborted();
        return p.stop?.aborted === true;
      };
      // a stop is checked before the source is read, before a batch's lookups, before each item and after each item's
      // progress (so a scan stopped from onProgress reads no further item): none after it is reported
      const source = stopped() ? [] : (batches ?? (items as AsyncIterable<unknown>));
      scan: for await (const got of source) {
        const batch = batches ? (got as unknown[]) : [got];
        if (stopped()) break;
        const pre = batches ? settleMany(batch, p) : undefined;
        for (let k = 0; k < batch.length; k++) {
          if (stopped()) break scan;
          // read through the item's contract before any answer of its batch is used
          const item = readItem(batch[k], count);
          const answered = pre?.[k];
          const one =
            answered === undefined
              ? (settle(item, p) ?? (await scanOne(item, p)))
              : (answered ?? (await scanOne(item, p)));
          count++;
          bytes += one.bytes;
          if (one.hits === null) skipped++;
          else {
            for (const hit of one.hits) {
              p.signal?.throwIfAborted();
              hits++;
              yield hit;
            }
          }
          onProgress?.({ items: count, bytes, hits, skipped });
          if (p.stop?.aborted) break scan;
        }
      }
      return { items: count, bytes, hits, skipped, ms: performance.now() - started };
    },
    async scanItem(given, options) {
      const p = plan(options);
      p.signal?.throwIfAborted();
      const item = readItem(given);
      const { hits } = settle(item, p) ?? (await scanOne(item, p));
      p.signal?.throwIfAborted();
      return hits ?? [];
    },
    digest: (id) => corpus.datasetDigest(id),
  };
}

/**
 * Fewest exact hits for a document to be aligned with an item, in a scan for copies of at least `minWords` words: a
 * verbatim copy of n words shows about (n − 4) · 2 / (window + 1) of them (its 5-grams the source's winnowing kept,
 * window 8); edits remove some (each changed word up to five), so 40 % of that is asked for, at least 2 (the search's
 * own floor). 4 at 50 words, 8 at 100. A common phrase or two does not make an item's search align a document.
 */
export function candidateHits(minWords: number): number {
  return Math.max(2, Math.floor((0.4 * ((minWords - 4) * 2)) / 9));
}

/**
 * An array's items in order, BATCH_ITEMS at a time (or BATCH_UNITS units of text, at least one item). An array is
 * read ahead always; a generator or a stream only when the caller says so (`readAhead`, {@link aheadBatches}): it may
 * decide its next item from what the scan has done so far (a caller that stops the source from `onProgress` stops it
 * right after that item), so the scan reads those one item at a time unless told, and `stop` ends a scan at an item
 * whatever was read ahead.
 */
async function* inBatches(items: readonly unknown[]): AsyncGenerator<unknown[], void> {
  for (let k = 0; k < items.length; ) {
    const batch: unknown[] = [];
    let units = 0;
    while (k < items.length && batch.length < BATCH_ITEMS && units < BATCH_UNITS) {
      const item: unknown = await items[k++]; // awaited, as `for await` awaits an array's values
      batch.push(item);
      units += unitsOf(item);
    }
    yield batch;
  }
}

/**
 * A generator's or stream's items in order, read ahead as {@link inBatches} reads an array's. A source that fails
 * hands over the items before the failure first (they are scanned and reported, as they were one at a time), then its
 * error; a scan that stops closes the source.
 */
async function* aheadBatches(items: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<unknown[], void> {
  let batch: unknown[] = [];
  let units = 0;
  try {
    for await (const item of items) {
      batch.push(item);
      units += unitsOf(item);
      if (batch.length >= BATCH_ITEMS || units >= BATCH_UNITS) {
        const full = batch;
        batch = [];
        units = 0;
        yield full;
      }
    }
  } catch (e) {
    if (batch.length > 0) yield batch;
    throw e;
  }
  if (batch.length > 0) yield batch;
}

/**
 * The UTF-16 units of an item's text that count toward a batch's size: 0 for anything that is no item, including
 * one whose member throws when read (its contract refuses it in its place, naming the member, as {@link readItem}).
 */
function unitsOf(item: unknown): number {
  try {
    const text = (item as ScanItem | null)?.text;
    return typeof text === 'string' ? text.length : 0;
  } catch {
    return 0;
  }
}

/** Whether `item` has an item's shape (the lookups of a batch stop before one that has not; its contract refuses it). */
function isItem(item: unknown): item is ScanItem {
  try {
    return (
      item !== null &&
      typeof item === 'object' &&
      typeof (item as ScanItem).id === 'string' &&
      (item as ScanItem).id.length > 0 &&
      typeof (item as ScanItem).text === 'string'
    );
  } catch {
    return false; // a member that throws: the contract names it
  }
}

/** An AbortSignal (of this realm or another). */
const isSignal = (s: unknown): s is AbortSignal =>
  s !== null &&
  typeof s === 'object' &&
  typeof (s as AbortSignal).aborted === 'boolean' &&
  typeof (s as AbortSignal).throwIfAborted === 'function';

/**
 * An item read through its contract; in a stream (`at`: its place), a refusal names it as a job's item is named:
 * `items[3].text`.
 */
function readItem(item: unknown, at?: number): ScanItem {
  try {
    const copy = twoMembers(item);
    if (copy !== null && typeof copy.id === 'string' && copy.id.length > 0 && typeof copy.text === 'string')
      return copy as ScanItem;
    return readThrough(SCAN_ITEM_REQUEST, copy ?? item, undefined);
  } catch (e) {
    throw at === undefined ? e : within(`items[${at}]`, e);
  }
}

/**
 * A plain object of exactly the two members `id` and `text`, as a JSON Lines reader or an object literal makes an
 * item, copied as the contract's reader copies it (each member read once), or null for anything else (another
 * prototype, other members, a member or proxy that throws when read): {@link readItem} reads those through the
 * contract. Why: `trainprint scan` reads every item through its contract, and for 10 MB of 1 kB outputs the general
 * reader (a deep copy, then a walk of the schema: code that runs once an item, mostly interpreted) was ≈ 4 % of the
 * scan's CPU samples; an item of this shape needs only its two members' types checked, and a copy that fails them
 * goes through the contract as it is, which names the field as before.
 * @example twoMembers({ id: 'o1', text: 'An output' }) // { id: 'o1', text: 'An output' }; twoMembers({ id: 'o1' }) // null
 */
function twoMembers(item: unknown): { id: unknown; text: unknown } | null {
  if (item === null || typeof item !== 'object') return null;
  try {
    const proto: unknown = Object.getPrototypeOf(item);
    if (proto !== Object.prototype && proto !== null) return null;
    const keys = Object.keys(item);
    if (keys.length !== 2 || !((keys[0] === 'id' && keys[1] === 'text') || (keys[0] === 'text' && keys[1] === 'id')))
      return null;
    const { id, text } = item as { id: unknown; text: unknown };
    return { id, text };
  } catch {
    return null;
  }
}

/** Kinds of reuse as a scan reports them: a summary is a paraphrase. */
const KINDS: Readonly<Record<string, ScanReuse>> = {
  verbatim: 'verbatim',
  edited: 'edited',
  paraphrase: 'paraphrase',
  summary: 'paraphrase',
};

/**
 * The hits of one item among its search's matches, in order of the item's text: one hit per passage. The search
 * may report one passage in pieces (an edited copy aligned from two seed regions: two overlapping spans), so the
 * matches of one document whose spans overlap or touch in both texts — nothing but spaces and punctuation between
 * them in the item, and in the source no further apart than in the item — are joined first, and then measured.
 */
export function hitsOf(
  item: ScanItem,
  matches: readonly SearchMatch[],
  p: Pick<Plan, 'minWords' | 'paraphrase'>,
): ScanHit[] {
  const pieces: ScanHit[] = [];
  for (const m of matches) {
    if (!isExact(m)) continue;
    const kind = KINDS[m.reuse] ?? 'edited';
    if (kind === 'paraphrase' && !p.paraphrase) continue;
    pieces.push({
      id: item.id,
      dataset_id: m.dataset_id,
      document_id: m.document_id,
      query_start: m.query_start,
      query_end: m.query_end,
      source_start: m.source_start,
      source_end: m.source_end,
      words: 0,
      kind,
    });
  }
  const hits: ScanHit[] = [];
  for (const h of joinPieces(item.text, pieces.sort(byPlace)).sort(byPlace)) {
    const words = countWords(item.text, h.query_start, h.query_end);
    if (words >= p.minWords) hits.push({ ...h, words });
  }
  return hits;
}

/** Hits in order of the item's text, then of their datasets, documents and sources. */
const byPlace = (a: ScanHit, b: ScanHit): number =>
  a.query_start - b.query_start ||
  a.query_end - b.query_end ||
  order(a.dataset_id, b.dataset_id) ||
  order(a.document_id, b.document_id) ||
  a.source_start - b.source_start;

/** How far a kind is from a verbatim copy: a passage joined from pieces is as far as its furthest. */
const DISTANCE: Readonly<Record<ScanReuse, number>> = { verbatim: 0, edited: 1, paraphrase: 2 };

/** Characters two pieces of one passage may lie further apart in the source than in the item (a changed word). */
const SOURCE_SLACK = 32;

/**
 * `pieces` (sorted by {@link byPlace}) with each set of pieces of one passage joined: same dataset and document,
 * query spans that overlap or have only non-word characters between them, source spans that overlap or are at
 * most the query gap (+ {@link SOURCE_SLACK}) apart. The result is in the same order.
 */
function joinPieces(text: string, pieces: ScanHit[]): ScanHit[] {
  const joined: ScanHit[] = [];
  for (const h of pieces) {
    let at = -1;
    for (let k = joined.length - 1; k >= 0 && at < 0; k--) if (samePassage(text, joined[k], h)) at = k;
    if (at < 0) {
      joined.push(h);
      continue;
    }
    const a = joined[at];
    joined[at] = {
      ...a,
      query_end: Math.max(a.query_end, h.query_end),
      source_start: Math.min(a.source_start, h.source_start),
      source_end: Math.max(a.source_end, h.source_end),
      kind: DISTANCE[h.kind] > DISTANCE[a.kind] ? h.kind : a.kind,
    };
  }
  return joined;
}

/** Whether `b` (starting at or after `a` in the item) is more of `a`'s passage (see {@link joinPieces}). */
function samePassage(text: string, a: ScanHit, b: ScanHit): boolean {
  if (a.dataset_id !== b.dataset_id || a.document_id !== b.document_id) return false;
  const queryGap = b.query_start - a.query_end;
  if (queryGap > 0 && WORD_CHAR.test(text.slice(a.query_end, b.query_start))) return false;
  const sourceGap = Math.max(a.source_start, b.source_start) - Math.min(a.source_end, b.source_end);
  return sourceGap <= Math.max(queryGap, 0) + SOURCE_SLACK;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Whether a hit made of seed matches inside `runs` (query spans in order) could hold `n` words: a run, or runs that
 * touch with nothing but spaces and punctuation between them (as {@link joinPieces} would join their pieces), of at
 * least `n` whitespace-separated words.
 */
function holdsWords(text: string, runs: ReadonlyArray<readonly [number, number]>, n: number): boolean {
  for (let k = 0; k < runs.length; ) {
    const start = runs[k][0];
    let end = runs[k][1];
    for (k++; k < runs.length && !WORD_CHAR.test(text.slice(end, runs[k][0])); k++) end = Math.max(end, runs[k][1]);
    if (countWords(text, start, end) >= n) return true;
  }
  return false;
}

/**
 * A test of whether a text holds at least `n` whitespace-separated words (`\s` is what isSpace reads as a
 * space): one regular expression, which reads the text faster than a loop over its code units. For the items whose
 * datasets the corpus looks up in memory, the words are counted on the UTF-8 instead (`exactShinglesFound`).
 * @example wordsTest(2).test(' a  b') // true
 */
function wordsTest(n: number): RegExp {
  return new RegExp(`^\\s*(?:\\S+\\s+){${n - 1}}\\S`);
}
