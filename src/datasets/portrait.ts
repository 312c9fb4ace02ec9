/**
 * Portrait datasets: a compact membership "portrait" of a reference corpus (after Data Portraits,
 * Marone & Van Durme 2023), over winnowed word 5-grams instead of fixed-stride character grams.
 *
 * **What is stored.** The distinct winnowed fingerprints (word 5-grams, window w, default 8) of
 * every document, in cache-line-blocked Bloom filters at 9.6 bits = 1.2 bytes per distinct stored
 * n-gram, k = 6 (design false-positive rate 1.133 %). No positions, no documents: a portrait
 * answers "are these n-grams in the corpus?", never "where?". Winnowing keeps ≈ 2 / (w + 1)
 * shingles per word, so the index is ≈ 1.2 B × 2/(w+1) × (distinct share) per word:
 * measured 4.7 % of the corpus bytes at w = 8 and 3.3 % at w = 12 on Gutenberg books.
 *
 * Keys go into the filter with their two 32-bit halves swapped: a winnowed fingerprint is the
 * *minimum* of w hashes, so its high bits are far from uniform (the filter picks the block from
 * the high 32 bits; unswapped, the low blocks overflow and the false-positive rate goes from 1 %
 * to 40 %). The low halves are uniform, so swapping restores the design rate.
 *
 * **Growth** ("rebuild from kept hashes until sealed"). While a portrait is open it keeps its
 * distinct fingerprints (8 bytes each, sorted) besides the filter, and rebuilds the last filter
 * lazily, sized exactly for the keys it holds, before the next search, export or stats — so the
 * filter is never sized by a guess and stays at 1.2 B per stored n-gram however the documents
 * arrive. Memory is bounded: once {@link PENDING_MAX} keys (32 MiB) are kept, or when
 * `Engine.finalizeDataset` is called, the filter is *sealed*: the kept keys are dropped and later
 * documents start a new filter of the chain (a lookup tests every filter; a key already in a
 * sealed filter is not stored again). An imported portrait is sealed. Each filter of the chain is
 * sized for its own keys, so every one keeps 1.2 B/key; the chance of a false hit on one lookup
 * is 1 − Π(1 − fᵢ) over the chain (reported as `stats.fpr`).
 *
 * **Search and statistics** (score runs, not single hits). The query is winnowed with the portrait's own w and n,
 * so wherever it copies the corpus it selects the same fingerprints the corpus did: a copied passage hits on
 * (almost) every one of its fingerprints. Unrelated text hits too — the filter's false positives (1.1 %) and the
 * common phrases of the language, which are real members of any large corpus (the shipped packs: 1.4–4.5 % of the
 * fingerprints of natural English in no pack). So the evidence is read from runs of consecutive hits against the
 * portrait's **background**, measured on natural text kept out of it (src/datasets/background.ts:
 * `engine.measureBackground`; the packs ship theirs; without one, the default): runs that add fresh fingerprints,
 * their chance a Poisson tail over the query's places, and the runs that chance rests on reported as matches when it
 * is ≤ alpha (default 1e-4 per query and dataset), each with score = 1 − its own chance. Scattered hits never become
 * matches or evidence.
 *
 * **What length is found.** Winnowing guarantees ≥ 1 shared fingerprint for any shared run of ≥ w + 4 words (12 at
 * w = 8), but one hit is what a common phrase gives: a reported run needs ≈ 1 + (L − w − 4) · 2/(w+1) fingerprints
 * long enough to beat the background. With the Gutenberg pack (bench/eval-false-attribution.mjs): a verbatim excerpt
 * of 70 words is found every time, a 40-word quotation inside 400 words of other text 91 %; a three-book test
 * portrait, whose background has few runs to be measured on and so a cautious tail (test/unit/portrait.test.ts):
 * 50 words 95 %, 30 words 2 % at w = 8, 20 words 90 % at w = 3 (≈ 10.6 % of corpus bytes).
 * **What is shown.** Every shared run of ≥ w + 4 words still leaves its hit: with
 * `search(…, { portraitHits: true })` every run of hits comes back (`portrait_hits`, each with its chance), and
 * `coverage[id].membership` counts the query's hits against the background's hit rate (beta-binomial, for the
 * record): a 12-word passage shows a hit 100 % of the time.
 */
import type { Core } from '../core/abi.js';
import { finish, ITEMS_PER_PAUSE, PAUSE, type Steps } from '../util/steps.js';
import { TrainprintError } from '../errors.js';
import { olderNormalizer, paramsId, resolveOptions, type ResolvedOptions } from '../fingerprint/options.js';
import { blockedBloomFpr, optimalBloomK } from '../sketch/filter.js';
import type { Fingerprint } from '../types.js';
import type { DocumentFingerprint } from '../fingerprint/fingerprint.js';
import { withTokenHashes } from '../fingerprint/words.js';
import { distinctSorted } from '../fingerprint/similarity.js';
import { PORTRAIT_MAX_WINDOW } from './descriptor.js';
import { articleOf, type DocumentArticles, packedOf, unpackArticlesNow } from './articles.js';
import type { PortraitDatasetData } from './snapshot.js';
import type { PortraitDatasetSource } from './snapshot-stream.js';
import {
  checkPortraitBackground,
  DEFAULT_PORTRAIT_BACKGROUND,
  runEvidence,
  type PortraitBackground,
  sharedByChance,
} from './background.js';
import type {
  DatasetDescriptor,
  DatasetDocument,
  DatasetStats,
  DocInfo,
  PortraitAlsoIn,
  PortraitArticle,
  PortraitDocument,
  PortraitHit,
  PortraitMatch,
} from './types.js';
import { binomialUpperTail } from '../stats/binomial.js';
import {
  buildLocator,
  decodeShared,
  keyDigest,
  LOCATOR_BITS,
  LOCATOR_SECTION_WORDS,
  type LocatorData,
  locatorValues,
  type SectionLayout,
  sectionLayout,
  sectionSeeds,
  sectionTable,
  sectionValue,
  type SharedText,
  sharedTable,
} from './locator.js';
import { fingerprintWords, locateChains, type LocatedChain, trimEdges } from './chains.js';
import { chainNullChance } from './chain-null.js';
import {
  type CommonHolder,
  type CommonNgrams,
  type CommonRule,
  checkCommonRule,
  commonHolders,
  commonTable,
  decodeCommon,
} from './common.js';

/** What one portrait search found: the runs the evidence rests on (as matches), every run, and the counts. */
export interface PortraitSearch {
  /** The runs the chance rests on, when it is ≤ alpha (src/datasets/background.ts). */
  readonly matches: PortraitMatch[];
  /** Every run of hits, single hits included, in query order. */
  readonly runs: PortraitHit[];
  /** Query fingerprints looked up. */
  readonly tested: number;
  /** Query fingerprints found in the filter. */
  readonly hits: number;
  /** The filter's false-positive rate (at least the design rate). */
  readonly fpr: number;
  /** Chance of runs at least this strong in unrelated text (src/datasets/background.ts). */
  readonly chance: number;
  /** The run start rate used: the background's, or the query's own where higher. */
  readonly run_start: number;
  /** Runs of at least two fresh fingerprints (K of the statistic). */
  readonly counted: number;
  /** Of those, the runs the chance rests on. */
  readonly evidence_runs: number;
  /** The null read against. */
  readonly background: PortraitBackground;
  /** False when the portrait has no measured background and the default one was used. */
  readonly background_measured: boolean;
  /** True when the hits were resolved to documents: the chance and the matches are those of the chains. */
  readonly located?: boolean;
}

/** Default winnowing window of a portrait (the 12-word guarantee with word 5-grams). */
export const PORTRAIT_DEFAULT_WINDOW = 8;
/** Filter bits per distinct stored n-gram (1.2 bytes). */
export const PORTRAIT_BITS_PER_KEY = 9.6;
let portraitKMemo: number | undefined;
/**
 * Bits set per key (6 at 9.6 bits/key), worked out on first use rather than when the library loads: a process that
 * reads no portrait (a `trainprint scan`) skips the sums.
 * @example portraitK() // 6
 */
export function portraitK(): number {
  portraitKMemo ??= optimalBloomK(PORTRAIT_BITS_PER_KEY);
  return portraitKMemo;
}
/**
 * Design false-positive rate at 9.6 bits/key, k = 6; also the floor of the p used in scoring (memoised by
 * blockedBloomFpr).
 * @example portraitFpr() // 0.01133…
 */
export function portraitFpr(): number {
  return blockedBloomFpr(PORTRAIT_BITS_PER_KEY, portraitK());
}
/**
 * Default bound on the chance of the runs reported, per query and dataset, under the portrait's background: on
 * natural text in no pack, 0 of 3,420 texts get a match at 1e-4 and 3 at 1e-3 (bench/eval-false-attribution.mjs).
 */
export const PORTRAIT_ALPHA = 1e-4;
/** Keys kept (8 bytes each) before the open filter is sealed automatically. */
export const PENDING_MAX = 1 << 22;
/** Shingle size (words). */
const SIZE = 5;
/** Places of prior weight at the background's hit rate when a query's own hit rate is estimated. */
const SHRINK_PLACES = 50;
/** Chance agreement of a hit with a section, as a multiple of 2⁻ᵛ (see `locateRuns`). */
const AGREEMENT_MARGIN = 2;
/**
 * The most chance that some section agrees with a chain's hits as well as its own does, for the chain to name it
 * ({@link namingChance}); above it the match is in the pack, its document uncertain (`document_id` null). The bound
 * takes the chain's first agreeing hit as given, where only one section in 16 agrees with it: it over-states the
 * chance of a short chain, and 0.2 names a chain whose 5 hits all agree in a pack of 7,703 sections (0.12) but not one
 * that agrees with 6 of 9 hits in a pack of 11,387 (0.5, the one wrong book eval-pack-documents had found).
 */
export const NAMING_ALPHA = 0.2;
/**
 * Words between two agreeing hits of a chain that no hit of its covers, at most: a copy's edits leave such stretches
 * (one word replaced in ten kills about half of its 5-grams, in runs of five), and so do the words between a window's
 * fingerprints (up to 8 at the books' window); a run of invented names between formulas a pack holds leaves longer
 * ones. Past it the chain ends. 32 rather than a first 24 after bench/eval-pack-documents.mjs's quick draws of 80-word
 * Gutenberg passages with 1 word in 10 replaced (7 of 16 at ≥ 50, then 9; the naming rule changed between the two runs
 * too, so the share of each is not measured apart). A character of a script without spaces counts as half a word
 * (./chains.ts `fingerprintWords`): Japanese copies with 1 character in 10 replaced left unhit stretches of 40 to 60
 * characters, and 10 of 60 ended in pieces too short for the Japanese null (bench/eval-languages.mjs: 50/60 → 59/60).
 */
export const MAX_UNHIT_WORDS = 32;

/**
 * The holder of each global section, for counting the holders of an n-gram (./common.ts): the first section of its
 * article in a document cut into articles, the first section of its document otherwise — or, counted by author, the
 * first section of the first document by the same author (`meta.author`, compared on its letters alone, so "G.A.
 * Henty" and "G. A. Henty" are one; a document without one is its own holder).
 */
function holdersOf(layout: SectionLayout, docOf: Uint32Array, docs: readonly DocInfo[], by: CommonHolder): Uint32Array {
  const C = docOf.length;
  const out = new Uint32Array(C);
  if (by === 'author') {
    const firstByAuthor = new Map<string, number>();
    const holderOfDoc = docs.map((d, i) => {
      const author = (d.meta as { author?: unknown } | undefined)?.author;
      const key = typeof author === 'string' ? author.toLowerCase().replace(/[^\p{L}]/gu, '') : '';
      if (key === '') return layout.first[i];
      if (!firstByAuthor.has(key)) firstByAuthor.set(key, layout.first[i]);
      return firstByAuthor.get(key)!;
    });
    for (let c = 0; c < C; c++) out[c] = holderOfDoc[docOf[c]];
    return out;
  }
  for (let c = 0; c < C; c++)
    out[c] = c > 0 && docOf[c] === docOf[c - 1] && layout.part[c] === layout.part[c - 1] ? out[c - 1] : c;
  return out;
}

/**
 * The chance that some section of a pack of C sections agrees with at least r of the n hits of a span by chance:
 * C · P(Binomial(n − 1, 2⁻ᵛ) ≥ r − 1) (the first agreeing hit is where the chain was started). A chain names its
 * section only when this is at most {@link NAMING_ALPHA}: returns 0 then, else the chance.
 * @example namingChance(8, 9, 11387, 4) < NAMING_ALPHA // true: 8 of 9 hits agree
 */
export function namingChance(r: number, n: number, C: number, bits: number): number {
  if (r < 2) return 1;
  const chance = Math.min(1, C * binomialUpperTail(r - 1, Math.max(r, n) - 1, 2 ** -bits));
  return chance <= NAMING_ALPHA ? 0 : chance;
}

/**
 * The common hits of a match's span (positions `a` … `b`; `held` the holders of each common hit, 0 elsewhere): how
 * many, and the most documents (articles) holding one of them — absent when it has none.
 */
function commonOfSpan(held: Uint16Array, a: number, b: number): { common_hits?: number; held_by?: number } {
  let n = 0,
    most = 0;
  for (let i = a; i <= b; i++) {
    if (held[i] === 0) continue;
    n++;
    if (held[i] > most) most = held[i];
  }
  return n === 0 ? {} : { common_hits: n, held_by: most };
}

/** What a pack says about a document (its meta's title, author, ebook number and URL), for a match. */
function documentRef(doc: DocInfo): PortraitDocument {
  const meta = (doc.meta ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof meta[k] === 'string' ? { [k]: meta[k] as string } : {});
  return {
    id: doc.id,
    ...str('title'),
    ...str('author'),
    ...(Number.isSafeInteger(meta.ebook) ? { ebook: meta.ebook as number } : {}),
    ...str('url'),
  };
}
const BLOCK_BYTES = 64;
/** Keys per call into the core while building or filtering. */
const BATCH = 1 << 16;
/** Query fingerprints looked up between two pauses of a sliced search (about a millisecond of work). */
const QUERY_BATCH = 1 << 14;
/** New fingerprints buffered before they are merged into the kept set. */
const BATCH_MERGE = 1 << 20;

/** {@link portraitOptions} made once a window (a search asks every portrait for them), frozen: shared by all. */
const optionsOfWindow = new Map<number, ResolvedOptions>();

/** Fingerprint options of a portrait with window `window` (dataset and query side). */
export function portraitOptions(window: number): ResolvedOptions {
  let o = optionsOfWindow.get(window);
  if (o === undefined) {
    o = Object.freeze(resolveOptions({ minhash: false, simhash: false, workHash: false, winnow: { window } }));
    optionsOfWindow.set(window, o);
  }
  return o;
}

/** The params id of a portrait with window `window`. */
export function portraitParams(window: number): string {
  return paramsId(portraitOptions(window));
}

/** Validate a portrait window (INVALID_OPTIONS). */
export function checkPortraitWindow(window: unknown): number {
  if (window === undefined) return PORTRAIT_DEFAULT_WINDOW;
  if (!Number.isInteger(window) || (window as number) < 1 || (window as number) > PORTRAIT_MAX_WINDOW) {
    throw new TrainprintError('INVALID_OPTIONS', `window must be an integer in 1..${PORTRAIT_MAX_WINDOW}`);
  }
  return window as number;
}

/**
 * {@link portraitKeys} of a query's fingerprint hashes, made once: every portrait of the same window (and the
 * locator after the filter) reads the same keys, so an analysis with many packs does not make them again for each.
 * Read only.
 */
function queryKeys(hashes: BigUint64Array): BigUint64Array {
  let keys = keysOfQuery.get(hashes);
  if (keys === undefined) keysOfQuery.set(hashes, (keys = portraitKeys(hashes)));
  return keys;
}
const keysOfQuery = new WeakMap<BigUint64Array, BigUint64Array>();

/** Filter keys: the 64-bit hashes with their 32-bit halves swapped (see the module comment). */
export function portraitKeys(hashes: BigUint64Array): BigUint64Array {
  const out = hashes.slice();
  const u = new Uint32Array(out.buffer, out.byteOffset, out.length * 2);
  for (let i = 0; i < u.length; i += 2) {
    const t = u[i];
    u[i] = u[i + 1];
    u[i + 1] = t;
  }
  return out;
}

/** One filter of the chain: its bits at `ptr` in the dataset's core. */
interface Link {
  readonly ptr: number;
  readonly blocks: number;
  readonly keys: number;
  readonly k: number;
}

/** Blocks for `keys` keys: rounded down, so a filter never takes more than 1.2 B per key (beyond one block). */
function blocksFor(keys: number): number {
  return Math.max(1, Math.floor((keys * PORTRAIT_BITS_PER_KEY) / (BLOCK_BYTES * 8)));
}

/** Each filter's rate, once: a link never changes (a new filter is a new link), and every analysis asks each pack. */
const LINK_FPR = new WeakMap<Link, number>();

function linkFpr(l: Link): number {
  let rate = LINK_FPR.get(l);
  if (rate === undefined)
    LINK_FPR.set(l, (rate = l.keys === 0 ? 0 : blockedBloomFpr((l.blocks * BLOCK_BYTES * 8) / l.keys, l.k)));
  return rate;
}

/**
 * A portrait dataset. Built by `Engine.addDataset({ kind: 'portrait' })` or restored from a
 * snapshot. The filters live in the dataset's own WebAssembly instance (dropping the dataset
 * frees them): sealed filters first, then the open one, then scratch space.
 */
export class PortraitDataset {
  descriptor: DatasetDescriptor & {
    kind: 'portrait';
    window: number;
    background?: PortraitBackground;
    locate?: boolean;
  };
  readonly params: string;
  /** Which n-grams the locator stores as common when it is built (./common.ts); not part of the snapshot. */
  private readonly common: CommonRule;
  readonly window: number;
  readonly docs: DocInfo[] = [];
  private readonly docIds = new Set<string>();
  private tokenTotal = 0;
  private byteTotal = 0;
  private readonly sealed: Link[] = [];
  private sealedEnd = 0;
  /** Kept keys of the open filter: sorted, distinct, none of them in a sealed filter. */
  private pending: BigUint64Array = new BigUint64Array(0);
  /** New keys not yet merged into `pending`. */
  private batch = new BigUint64Array(1024);
  private batchN = 0;
  /** The open filter as built (null: none, or stale). */
  private open: Link | null = null;
  /** Counts additions and seals: a search paused in between starts again (see {@link searchSteps}). */
  private version = 0;
  /**
   * Key occurrences kept for the locator (src/datasets/locator.ts), in document order: the key's halves and its
   * global section. Null when the portrait does not locate, or was restored (its locator is then fixed).
   */
  private occ: { lo: Uint32Array; hi: Uint32Array; sec: Uint32Array; n: number } | null = null;
  /** Sections of the documents so far. */
  private sectionCount = 0;
  /**
   * The first word of each part of each document so far (an empty array: a document not cut into parts), while the
   * locator is built from kept occurrences; null when no document has parts (sections every 4,096 words).
   */
  private partWords: Uint32Array[] | null = null;
  /** Article tables inflated so far, by document (a file stores them deflated: inflated when first named). */
  private readonly articleTables = new Map<number, DocumentArticles>();
  /** Restored from a snapshot: its documents' occurrences are not kept. */
  private restored = false;
  /** The locator as built or restored (null: none, or stale). */
  private locator: LocatorData | null = null;
  /** Section seeds and each document's first section, for the locator. */
  private locating: {
    seeds: Uint32Array;
    first: Uint32Array;
    layout: SectionLayout;
    shared: Map<number, SharedText[]>;
    common: CommonNgrams | null;
  } | null = null;

  constructor(
    private readonly core: Core,
    descriptor: DatasetDescriptor,
  ) {
    // read through CREATE_DATASET_REQUEST (./descriptor.ts) by the corpus, or checked in a file by ./snapshot.ts
    const { id, name, models, kb_dataset, meta, background, locate } = descriptor;
    this.window = checkPortraitWindow(descriptor.window);
    this.common = checkCommonRule(descriptor.common);
    this.descriptor = {
      id,
      kind: 'portrait',
      window: this.window,
      ...(background === undefined ? {} : { background: checkPortraitBackground(background, 'descriptor.background') }),
      ...(locate === true ? { locate: true } : {}),
      ...(name === undefined ? {} : { name }),
      ...(models === undefined ? {} : { models: [...models] }),
      ...(kb_dataset === undefined ? {} : { kb_dataset }),
      ...(meta === undefined ? {} : { meta }),
    };
    this.params = portraitParams(this.window);
  }

  /** Fingerprint options documents and queries of this portrait are winnowed with. */
  get options(): ResolvedOptions {
    return portraitOptions(this.window);
  }

  /**
   * Add one document's fingerprint (made with {@link options}). `text` (the document's text) is needed only for a
   * document with `parts`, whose first words the tokens of the text give.
   * @throws ALREADY_EXISTS, INVALID_INPUT (parts not ascending from 0 inside the text)
   */
  addDocument(doc: DatasetDocument, fp: DocumentFingerprint, text?: string): void {
    if (this.docIds.has(doc.id))
      throw new TrainprintError('ALREADY_EXISTS', `document "${doc.id}" is already in dataset "${this.descriptor.id}"`);
    const parts = this.descriptor.locate ? this.partsOf(doc, fp, text) : undefined;
    const keys = portraitKeys(fp.winnow!.hashes);
    this.docs.push({
      id: doc.id,
      chars: doc.text.length,
      tokens: fp.token_count,
      bytes: fp.byte_length,
      ...(doc.meta === undefined ? {} : { meta: doc.meta }),
    });
    this.docIds.add(doc.id);
    this.tokenTotal += fp.token_count;
    this.byteTotal += fp.byte_length;
    if (this.batchN + keys.length > this.batch.length) {
      let cap = this.batch.length;
      while (cap < this.batchN + keys.length) cap *= 2;
      const b = new BigUint64Array(cap);
      b.set(this.batch.subarray(0, this.batchN));
      this.batch = b;
    }
    this.batch.set(keys, this.batchN);
    this.batchN += keys.length;
    this.version++;
    if (this.descriptor.locate) this.keepOccurrences(keys, fp, parts);
    if (this.batchN >= BATCH_MERGE) this.merge();
  }

  /** The first word of each of a document's parts (undefined: no parts). @throws INVALID_INPUT */
  private partsOf(doc: DatasetDocument, fp: DocumentFingerprint, text: string | undefined): Uint32Array | undefined {
    const parts = doc.parts;
    if (parts === undefined) return undefined;
    const bad = (detail: string): never => {
      throw new TrainprintError('INVALID_INPUT', `document "${doc.id}": ${detail}`);
    };
    if (!Array.isArray(parts) || parts.length === 0 || parts[0] !== 0) bad('parts must be offsets from 0');
    if (text === undefined) bad('a document with parts needs its text');
    const t = text as string;
    for (let j = 1; j < parts.length; j++)
      if (!Number.isSafeInteger(parts[j]) || parts[j] <= parts[j - 1] || parts[j] >= t.length)
        bad('parts must be ascending offsets inside the text');
    // each part's first token: the first token that starts at or after its offset
    const words = withTokenHashes(this.core, t, (tok) => {
      const out = new Uint32Array(parts.length);
      let i = 0;
      for (let j = 0; j < parts.length; j++) {
        while (i < tok.count && tok.starts[i] < parts[j]) i++;
        out[j] = i;
      }
      return out;
    });
    for (let j = 1; j < words.length; j++)
      if (words[j] <= words[j - 1] || words[j] >= fp.token_count) bad('every part must hold a word');
    return words;
  }

  /** Keep a document's key occurrences and their sections for the locator. */
  private keepOccurrences(keys: BigUint64Array, fp: DocumentFingerprint, parts: Uint32Array | undefined): void {
    this.locator = null;
    this.locating = null;
    if (this.occ === null) {
      if (this.restored) return; // restored: its locator (if any) cannot take new documents
      this.occ = { lo: new Uint32Array(1024), hi: new Uint32Array(1024), sec: new Uint32Array(1024), n: 0 };
    }
    const o = this.occ;
    const n = keys.length;
    if (o.n + n > o.lo.length) {
      let cap = o.lo.length;
      while (cap < o.n + n) cap *= 2;
      for (const k of ['lo', 'hi', 'sec'] as const) {
        const a = new Uint32Array(cap);
        a.set(o[k].subarray(0, o.n));
        o[k] = a;
      }
    }
    const u = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
    const positions = fp.winnow!.positions;
    const base = this.sectionCount;
    if (parts !== undefined && this.partWords === null)
      this.partWords = this.docs.slice(0, -1).map(() => new Uint32Array(0));
    if (this.partWords !== null) this.partWords.push(parts ?? new Uint32Array(0));
    if (parts === undefined || parts.length === 0) {
      for (let i = 0; i < n; i++) {
        o.lo[o.n] = u[2 * i];
        o.hi[o.n] = u[2 * i + 1];
        o.sec[o.n++] = base + Math.floor(positions[i] / LOCATOR_SECTION_WORDS);
      }
      this.sectionCount += Math.max(1, Math.ceil(fp.token_count / LOCATOR_SECTION_WORDS));
      return;
    }
    // each part is cut every LOCATOR_SECTION_WORDS words from its own first word (sectionTable's layout)
    const partFirst = new Uint32Array(parts.length + 1);
    for (let j = 0; j < parts.length; j++) {
      const end = j + 1 < parts.length ? parts[j + 1] : fp.token_count;
      partFirst[j + 1] = partFirst[j] + Math.max(1, Math.ceil((end - parts[j]) / LOCATOR_SECTION_WORDS));
    }
    let j = 0;
    for (let i = 0; i < n; i++) {
      const p = positions[i];
      // winnowed positions ascend: the part only moves forward
      while (j + 1 < parts.length && parts[j + 1] <= p) j++;
      while (j > 0 && parts[j] > p) j--;
      o.lo[o.n] = u[2 * i];
      o.hi[o.n] = u[2 * i + 1];
      o.sec[o.n++] = base + partFirst[j] + Math.floor((p - parts[j]) / LOCATOR_SECTION_WORDS);
    }
    this.sectionCount += partFirst[parts.length];
  }

  /**
   * The locator, built from the kept occurrences if stale: each distinct key with the section it was first seen in
   * (a stable radix sort by key keeps occurrences in document order).
   */
  private ensureLocator(): LocatorData | null {
    if (!this.descriptor.locate) return null;
    if (this.locator === null && this.occ !== null && this.occ.n > 0) {
      const { lo, hi, sec, n } = this.occ;
      let a = { lo: lo.slice(0, n), hi: hi.slice(0, n), sec: sec.slice(0, n) };
      let b = { lo: new Uint32Array(n), hi: new Uint32Array(n), sec: new Uint32Array(n) };
      const count = new Uint32Array(65536);
      for (const [word, shift] of [
        ['lo', 0],
        ['lo', 16],
        ['hi', 0],
        ['hi', 16],
      ] as const) {
        count.fill(0);
        const src = a[word];
        for (let i = 0; i < n; i++) count[(src[i] >>> shift) & 0xffff]++;
        let sum = 0;
        for (let d = 0; d < 65536; d++) {
          const c = count[d];
          count[d] = sum;
          sum += c;
        }
        for (let i = 0; i < n; i++) {
          const j = count[(src[i] >>> shift) & 0xffff]++;
          b.lo[j] = a.lo[i];
          b.hi[j] = a.hi[i];
          b.sec[j] = a.sec[i];
        }
        [a, b] = [b, a];
      }
      // distinct keys, each with its first section; on the way, the n-grams each section owns and, for the
      // shared-text table, every later section of another document that holds an owned n-gram (once per section)
      const tokens = this.docs.map((d) => d.tokens);
      const sections =
        this.partWords === null ? undefined : sectionTable(tokens, this.partWords, LOCATOR_SECTION_WORDS);
      const built = sectionLayout(tokens, LOCATOR_SECTION_WORDS, sections) as SectionLayout;
      const firstOfDoc = built.first;
      const C = firstOfDoc[firstOfDoc.length - 1];
      const docOf = new Uint32Array(C);
      for (let d = 0; d + 1 < firstOfDoc.length; d++) docOf.fill(d, firstOfDoc[d], firstOfDoc[d + 1]);
      const holderOf = holdersOf(built, docOf, this.docs, this.common.by);
      // the key an n-gram's holder was last counted for: a holder's sections need not be adjacent (by author)
      const countedFor = new Int32Array(C).fill(-1);
      const owned = new Uint32Array(C);
      // the holders (articles, or documents) of each distinct key: its occurrences are in document order
      const holders = new Uint32Array(n);
      let pairs = new Float64Array(1024);
      let pairN = 0;
      let m = 0;
      let lastOther = -1;
      for (let i = 0; i < n; i++) {
        if (m > 0 && a.lo[i] === a.lo[m - 1] && a.hi[i] === a.hi[m - 1]) {
          const owner = a.sec[m - 1],
            other = a.sec[i];
          if (countedFor[holderOf[other]] !== m - 1) {
            countedFor[holderOf[other]] = m - 1;
            holders[m - 1]++;
          }
          if (other !== lastOther && docOf[other] !== docOf[owner]) {
            if (pairN === pairs.length) {
              const grown = new Float64Array(pairs.length * 2);
              grown.set(pairs);
              pairs = grown;
            }
            pairs[pairN++] = owner * C + other;
          }
          lastOther = other;
          continue;
        }
        lastOther = a.sec[i];
        countedFor[holderOf[a.sec[i]]] = m;
        holders[m] = 1;
        owned[a.sec[i]]++;
        a.lo[m] = a.lo[i];
        a.hi[m] = a.hi[i];
        a.sec[m++] = a.sec[i];
      }
      const shared = sharedTable(pairs.subarray(0, pairN), owned, firstOfDoc);
      const seeds = sectionSeeds(this.sectionCount);
      const values = new Uint8Array(m);
      for (let i = 0; i < m; i++) values[i] = sectionValue(seeds[a.sec[i]], keyDigest(a.lo[i], a.hi[i]), LOCATOR_BITS);
      const fuse = buildLocator(a.lo.subarray(0, m), a.hi.subarray(0, m), values, LOCATOR_BITS, LOCATOR_SECTION_WORDS);
      const common = commonTable(
        a.lo.subarray(0, m),
        a.hi.subarray(0, m),
        holders.subarray(0, m),
        this.common.min_holders,
      );
      this.locator = {
        ...fuse,
        ...(shared === undefined ? {} : { shared }),
        ...(sections === undefined ? {} : { sections }),
        ...(common === undefined ? {} : { common }),
      };
    }
    if (this.locator === null) return null;
    if (this.locating === null) {
      const layout = sectionLayout(
        this.docs.map((d) => d.tokens),
        this.locator.section_words,
        this.locator.sections,
      );
      if (typeof layout === 'string') throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', layout);
      this.locating = {
        seeds: sectionSeeds(layout.first[layout.first.length - 1]),
        first: layout.first,
        layout,
        shared: decodeShared(this.locator.shared),
        common: this.locator.common === undefined ? null : decodeCommon(this.locator.common),
      };
    }
    return this.locator;
  }

  /**
   * Document d's meta with its article table readable: a stored (deflated) table is inflated the first time one of its
   * articles is named — a few milliseconds for one document, where inflating every table at import cost every load.
   * @throws SNAPSHOT_INCOMPATIBLE when the stored table does not inflate
   */
  private articlesMeta(d: number): unknown {
    const meta = this.docs[d].meta;
    const packed = packedOf(meta);
    if (packed === undefined) return meta;
    let table = this.articleTables.get(d);
    if (table === undefined) this.articleTables.set(d, (table = unpackArticlesNow(packed)));
    return { articles: table };
  }

  /** True when hits resolve to documents (the portrait keeps a locator for all its documents). */
  get locates(): boolean {
    return this.ensureLocator() !== null;
  }

  /**
   * Merge buffered keys into the kept set: sort, de-duplicate, drop those a sealed filter already
   * answers for (lossless: a lookup of such a key hits that filter anyway). Seals when the kept
   * set reaches {@link PENDING_MAX}.
   */
  merge(): void {
    if (this.batchN === 0) return;
    let fresh = distinctSorted(this.batch.subarray(0, this.batchN));
    this.batchN = 0;
    if (this.batch.length > 1 << 16) this.batch = new BigUint64Array(1024);
    if (this.sealed.length > 0) {
      const hit = this.lookup(fresh, this.sealed);
      let n = 0;
      for (let i = 0; i < fresh.length; i++) if (!hit[i]) fresh[n++] = fresh[i];
      fresh = fresh.subarray(0, n);
    }
    // merge two sorted distinct arrays
    const a = this.pending;
    const out = new BigUint64Array(a.length + fresh.length);
    let i = 0,
      j = 0,
      n = 0;
    while (i < a.length && j < fresh.length) {
      if (a[i] < fresh[j]) out[n++] = a[i++];
      else if (a[i] > fresh[j]) out[n++] = fresh[j++];
      else {
        out[n++] = a[i++];
        j++;
      }
    }
    while (i < a.length) out[n++] = a[i++];
    while (j < fresh.length) out[n++] = fresh[j++];
    this.pending = n === out.length ? out : out.slice(0, n);
    this.open = null;
    if (this.pending.length >= PENDING_MAX) this.seal();
  }

  /** Build the open filter from the kept keys if it is stale. */
  private ensureOpen(): void {
    this.merge();
    if (this.open || this.pending.length === 0) return;
    const core = this.core;
    const keys = this.pending;
    const blocks = blocksFor(keys.length);
    core.guard(() => {
      const L = core.layout(this.sealedEnd);
      const ptr = L.take(blocks * BLOCK_BYTES);
      const kp = L.take(BATCH * 8);
      L.commit();
      core.u8.fill(0, ptr, ptr + blocks * BLOCK_BYTES);
      for (let i = 0; i < keys.length; i += BATCH) {
        const n = Math.min(BATCH, keys.length - i);
        core.u64(kp, n).set(keys.subarray(i, i + n));
        core.raw.bloomInsert(ptr, blocks, kp, n, portraitK());
      }
      this.open = { ptr, blocks, keys: keys.length, k: portraitK() };
    });
  }

  /**
   * Seal the open filter: it joins the chain and the kept keys are dropped (memory falls to the
   * filter's 1.2 B per key). Later documents go into a new filter.
   */
  seal(): void {
    this.ensureOpen();
    if (!this.open) return;
    this.version++;
    this.sealed.push(this.open);
    this.sealedEnd = this.open.ptr - this.core.arenaBase + this.open.blocks * BLOCK_BYTES;
    this.open = null;
    this.pending = new BigUint64Array(0);
  }

  /** True while the portrait keeps keys for rebuilding (not sealed since the last addition). */
  get isOpen(): boolean {
    return this.pending.length > 0 || this.batchN > 0;
  }

  private links(): Link[] {
    this.ensureOpen();
    return this.open ? [...this.sealed, this.open] : this.sealed;
  }

  /** Byte offset in the arena after every filter (where scratch space starts). */
  private get filtersEnd(): number {
    return this.open ? this.open.ptr - this.core.arenaBase + this.open.blocks * BLOCK_BYTES : this.sealedEnd;
  }

  /** 1 where `keys` (filter keys) hit any of `links`. */
  private lookup(keys: BigUint64Array, links: readonly Link[]): Uint8Array {
    const out = new Uint8Array(keys.length);
    if (links.length === 0 || keys.length === 0) return out;
    const core = this.core;
    core.guard(() => {
      const L = core.layout(this.filtersEnd);
      const kp = L.take(BATCH * 8);
      const op = L.take(BATCH);
      L.commit();
      for (let i = 0; i < keys.length; i += BATCH) {
        const n = Math.min(BATCH, keys.length - i);
        core.u64(kp, n).set(keys.subarray(i, i + n));
        for (const l of links) {
          if (core.raw.bloomQuery(l.ptr, l.blocks, kp, n, l.k, op) === 0) continue;
          const r = core.u8;
          for (let j = 0; j < n; j++) out[i + j] |= r[op + j];
        }
      }
    });
    return out;
  }

  /** Membership of fingerprint hashes (as `fingerprint().winnow.hashes`): 1 = probably stored. */
  has(hashes: BigUint64Array): Uint8Array {
    return this.lookup(portraitKeys(hashes), this.links());
  }

  /** Chance that one absent key hits some filter of the chain (design rates at the real loads). */
  fpr(): number {
    let miss = 1;
    for (const l of this.links()) miss *= 1 - linkFpr(l);
    return 1 - miss;
  }

  /** Distinct n-grams stored over the chain. */
  private get storedKeys(): number {
    this.merge();
    return this.sealed.reduce((a, l) => a + l.keys, 0) + this.pending.length;
  }

  /** The null this portrait's runs are read against: its measured background, or the default one. */
  get background(): PortraitBackground {
    return this.descriptor.background ?? DEFAULT_PORTRAIT_BACKGROUND;
  }

  /** Set the measured background (src/datasets/background.ts); it travels with the dataset's snapshots. */
  setBackground(background: PortraitBackground): void {
    this.descriptor = { ...this.descriptor, background };
  }

  /** Membership of the query fingerprints `fp` (winnowed with {@link options}), 1 = in the portrait. */
  hitsOf(fp: Fingerprint): Uint8Array {
    return finish(this.hitSteps(fp));
  }

  private *hitSteps(fp: Fingerprint): Steps<Uint8Array> {
    const w = fp.winnow;
    if (!w) throw new TrainprintError('INVALID_INPUT', 'portrait search needs a winnowed fingerprint');
    const m = w.hashes.length;
    const hits = new Uint8Array(m);
    if (m === 0 || this.storedKeys === 0) return hits;
    const version = this.version;
    const keys = queryKeys(w.hashes);
    const links = this.links();
    for (let from = 0; from < m; from += QUERY_BATCH) {
      if (from > 0) {
        yield PAUSE;
        if (this.version !== version) return this.hitsOf(fp);
      }
      hits.set(this.lookup(keys.subarray(from, Math.min(m, from + QUERY_BATCH)), links), from);
    }
    return hits;
  }

  /**
   * The query's runs of hits read against the portrait's background (src/datasets/background.ts): every run, and as
   * matches the runs the evidence rests on when its chance is ≤ `alpha`; the hit count for the record. `fp` must be
   * winnowed with {@link options}; `text`, the text it is the fingerprint of, lets a chain's bound on unhit words count
   * a character of a script without spaces as the part of a word it is ({@link fingerprintWords}; without it every
   * token is a word).
   */
  search(fp: Fingerprint, alpha: number, text?: string): PortraitSearch {
    return finish(this.searchSteps(fp, alpha, text));
  }

  /**
   * {@link search} as steps (src/util/steps.ts): it pauses between batches of QUERY_BATCH fingerprints
   * and every ITEMS_PER_PAUSE runs while it reads them. Each batch is looked up in one go, so
   * another search of this dataset in between cannot disturb it (they share the scratch space); documents
   * added while it is paused make it start again in one go, so the result is always that of one chain.
   */
  *searchSteps(fp: Fingerprint, alpha: number, text?: string): Steps<PortraitSearch> {
    const w = fp.winnow;
    if (!w) throw new TrainprintError('INVALID_INPUT', 'portrait search needs a winnowed fingerprint');
    const m = w.hashes.length;
    const bg = this.background;
    const hits = yield* this.hitSteps(fp);
    let found = 0;
    for (let i = 0; i < m; i++) found += hits[i];
    const ev = runEvidence(hits, w.hashes, bg);
    const located = this.ensureLocator() === null ? null : this.locateRuns(fp, hits, found, bg, text);
    const chance = located === null ? ev.chance : located.chance;
    const reported = located === null && ev.chance <= alpha ? new Set(ev.evidence) : new Set<number>();
    const result: PortraitSearch = {
      matches: [],
      runs: [],
      tested: m,
      hits: found,
      fpr: Math.max(this.fpr(), portraitFpr()),
      chance,
      run_start: ev.run_start,
      counted: located === null ? ev.counted : located.chains.length,
      evidence_runs: located === null ? ev.evidence.length : located.chains.filter((c) => c.chance <= alpha).length,
      background: bg,
      background_measured: this.descriptor.background !== undefined,
      ...(located === null ? {} : { located: true }),
    };
    const dataset_id = this.descriptor.id;
    for (let k = 0; k < ev.runs.length; k++) {
      if ((k + 1) % ITEMS_PER_PAUSE === 0) yield PAUSE;
      const r = ev.runs[k];
      const query_start = w.starts[r.start],
        query_end = w.ends[r.end - 1];
      const tokens = Math.min(fp.token_count, w.positions[r.end - 1] - w.positions[r.start] + SIZE);
      result.runs.push({ dataset_id, query_start, query_end, fingerprints: r.distinct, tokens, chance: r.chance });
      if (reported.has(k)) {
        result.matches.push({
          dataset_id,
          query_start,
          query_end,
          tokens,
          document_id: null,
          source_start: null,
          source_end: null,
          kind: 'portrait',
          score: 1 - r.chance,
        });
      }
    }
    if (located !== null) {
      for (const c of located.chains) {
        if (c.chance > alpha) continue;
        const a = c.chain.positions[0],
          b = c.chain.positions[c.chain.positions.length - 1];
        const span = {
          dataset_id,
          query_start: w.starts[a],
          query_end: w.ends[b],
          tokens: Math.min(fp.token_count, w.positions[b] - w.positions[a] + SIZE),
          source_start: null,
          source_end: null,
          kind: 'portrait' as const,
          score: 1 - c.chance,
        };
        const tail = {
          agreeing: c.chain.positions.length,
          fingerprints: b - a + 1,
          ...commonOfSpan(located.held, a, b),
        };
        // in the pack, the document uncertain: its hits agree with the section little more than chance allows
        if (!c.named) result.matches.push({ ...span, document_id: null, ...tail });
        else result.matches.push({ ...span, ...this.named(c.chain), ...tail });
      }
      result.matches.sort((x, y) => x.query_start - y.query_start);
    }
    return result;
  }

  /** What a match names for a chain: its document, the words of its section(s), its article, the other holders. */
  private named(
    chain: LocatedChain,
  ): Pick<PortraitMatch, 'document_id' | 'document' | 'source_words' | 'article' | 'also_in'> {
    const doc = this.docs[chain.doc];
    const [from, to] = this.sectionWords(chain.doc, chain.first_section, chain.section);
    const article = this.articleAt(chain.doc, chain.first_section, chain.section);
    return {
      document_id: doc.id,
      document: documentRef(doc),
      source_words: [from, to],
      ...(article === undefined ? {} : { article }),
      ...this.alsoIn(chain),
    };
  }

  /** Word offsets [start, end) in document `d` of its global sections `lo` … `hi`. */
  private sectionWords(d: number, lo: number, hi: number): [number, number] {
    const { first, layout } = this.locating!;
    const end = hi + 1 < first[d + 1] ? layout.start[hi + 1] : this.docs[d].tokens;
    return [layout.start[lo], Math.max(layout.start[lo], end)];
  }

  /**
   * The article of document `d` that sections `lo` … `hi` are in, when the document is cut into articles and its meta
   * names them (src/datasets/articles.ts): the first section's, with the words of the sections in it.
   */
  private articleAt(d: number, lo: number, hi: number): PortraitArticle | undefined {
    const { layout } = this.locating!;
    if (this.locator!.sections === undefined) return undefined;
    const j = layout.part[lo];
    const ref = articleOf(this.articlesMeta(d), j);
    if (ref === undefined) return undefined;
    let last = lo;
    while (last < hi && layout.part[last + 1] === j) last++;
    const [from, to] = this.sectionWords(d, lo, last);
    return { ...ref, words: [from - layout.partStart[lo], to - layout.partStart[lo]] };
  }

  /**
   * The other documents holding the text of a chain's sections (the locator's shared-text table): the locator names
   * the document that stored the text first, and cannot tell identical text in a later one apart, so a match names
   * both, when its share is beyond chance ({@link sharedByChance}). Best first: the largest share of the sections'
   * n-grams.
   */
  private alsoIn(chain: LocatedChain): { also_in?: PortraitAlsoIn[] } {
    const { shared } = this.locating!;
    const chance = sharedByChance(this.background);
    const best = new Map<number, { lo: number; hi: number; share: number }>();
    for (let c = chain.first_section; c <= chain.section; c++) {
      for (const row of shared.get(c) ?? []) {
        if (row.doc === chain.doc || row.doc >= this.docs.length) continue;
        // a share the null reaches is common phrasing (Japanese novels share 20–30 % by chance), not one text
        if (row.share <= chance) continue;
        const b = best.get(row.doc);
        if (!b) best.set(row.doc, { lo: row.first_section, hi: row.last_section, share: row.share });
        else {
          b.lo = Math.min(b.lo, row.first_section);
          b.hi = Math.max(b.hi, row.last_section);
          b.share = Math.max(b.share, row.share);
        }
      }
    }
    if (best.size === 0) return {};
    const out: PortraitAlsoIn[] = [];
    for (const [d, b] of best) {
      const doc = this.docs[d];
      out.push({
        document_id: doc.id,
        document: documentRef(doc),
        source_words: this.sectionWords(d, b.lo, b.hi),
        shared: b.share,
      });
    }
    out.sort((x, y) => y.shared - x.shared || (x.document_id < y.document_id ? -1 : 1));
    return { also_in: out };
  }

  /**
   * Chains of hits that agree with one document section (src/datasets/locator.ts), each with its chance under the
   * null: a place is a hit agreeing with a given section with probability p = ρ · 2 · 2⁻ᵛ, ρ the hit rate of the
   * query outside its chains (at least the background's), 2⁻ᵛ the chance agreement doubled for the phrases a section
   * owns by being the first to hold them. A chain of r agreeing hits over s places then has the chance
   * min(1, m · C · p · P(Binomial(s − 1, p) ≥ r − 1)): m places it could start, C sections it could agree with.
   * The search's chance is the smallest chain's.
   */
  private locateRuns(
    fp: Fingerprint,
    hits: Uint8Array,
    found: number,
    bg: PortraitBackground,
    text: string | undefined,
  ): { chains: Array<{ chain: LocatedChain; chance: number; named: boolean }>; chance: number; held: Uint16Array } {
    const locator = this.locator!;
    const { seeds, first, common } = this.locating!;
    const m = hits.length;
    // no hit, no chain (and no key to read): the usual answer of a pack in another language
    if (found === 0) return { chains: [], chance: 1, held: new Uint16Array(m) };
    const keys = queryKeys(fp.winnow!.hashes);
    const words = new Uint32Array(keys.buffer, keys.byteOffset, keys.length * 2);
    // a common n-gram (many articles or documents hold it: ./common.ts) is no one section's evidence: its hit neither
    // votes for a section nor extends a chain; it stays a hit of the query (its hit rate, the naming's trials)
    const held = new Uint16Array(m);
    const at: number[] = [];
    for (let i = 0; i < m; i++) {
      if (!hits[i]) continue;
      if (common !== null && (held[i] = commonHolders(common, words[2 * i], words[2 * i + 1])) > 0) continue;
      at.push(i);
    }
    // a chain keeps three agreeing hits at least (locateChains's minLength below): fewer hits, no chain
    if (at.length < 3) return { chains: [], chance: 1, held };
    const stored = locatorValues(locator, words, at);
    const digests = new Uint32Array(at.length);
    for (let j = 0; j < at.length; j++) digests[j] = keyDigest(words[2 * at[j]], words[2 * at[j] + 1]);
    // a chain of two agreeing hits never beats chance (m · C · p² ≫ 1 for any query of a pack's size)
    const chains = locateChains(at, digests, stored, seeds, first, locator.bits, 3, {
      ...(text === undefined ? { words: fp.winnow!.positions } : fingerprintWords(fp, text)),
      maxUnhitWords: MAX_UNHIT_WORDS,
    });
    // the query's own hit rate outside its chains of three or more, shrunk towards the background's
    let inside = 0,
      spanned = 0;
    for (const c of chains) {
      if (c.positions.length < 3) continue;
      inside += c.hits;
      spanned += c.positions[c.positions.length - 1] - c.positions[0] + 1;
    }
    const own = (found - inside + SHRINK_PLACES * bg.hit_rate) / (Math.max(0, m - spanned) + SHRINK_PLACES);
    const rho = Math.min(1, Math.max(bg.hit_rate, own));
    const p = Math.min(1, rho * AGREEMENT_MARGIN * 2 ** -locator.bits);
    const C = seeds.length;
    const { uncommonBefore, missedBefore } = countsBefore(hits, at);
    const missedBetween = (x: number, y: number): number => missedBefore[y] - missedBefore[x + 1] + 1;
    const distinct = new DistinctNgrams(m, at, digests, uncommonBefore);
    // a formula of the pack's kind chains as long in documents it does not hold: the chance is at least the kind's
    // (./chain-null.ts), where the pack has one measured
    const kind = bg.chains;
    const chanceOf = (positions: number[]): number => {
      const r = distinct.of(positions);
      if (r < 2) return 1;
      const floor = kind === undefined ? 0 : chainNullChance(r, m, kind);
      // at least m · C · pʳ: where that is ≥ 1 the tail is not worth computing
      if (floor >= 1 || m * C * p ** r >= 1) return 1;
      const span = positions[r - 1] - positions[0] + 1;
      return Math.max(floor, Math.min(1, m * C * p * binomialUpperTail(r - 1, span - 1, p)));
    };
    // a chain names its section only when the section agrees with more of the span's (uncommon) hits than some section
    // of the pack would by chance; otherwise its hits are in the pack, the document uncertain
    const named = (positions: number[]): boolean => {
      const inSpan = distinct.inSpan(positions[0], positions[positions.length - 1]);
      return namingChance(distinct.of(positions), inSpan, C, locator.bits) === 0;
    };
    // each hit counts for one document: the strongest chain claims its hits, and a weaker chain keeps only the hits
    // no stronger chain holds (a copied passage's hits also agree with other sections by chance, 2⁻ᵛ each)
    const ranked = chains.map((chain) => ({ chain, chance: chanceOf(chain.positions) }));
    ranked.sort((x, y) => x.chance - y.chance || x.chain.positions[0] - y.chain.positions[0]);
    const claimed = new Uint8Array(m);
    const out: Array<{ chain: LocatedChain; chance: number; named: boolean }> = [];
    let chance = 1;
    for (const { chain } of ranked) {
      const { counted, positions } = chainHits(chain.positions, claimed, missedBetween, (x) => hits[x] === 1);
      if (positions.length < 2) continue;
      const c = chanceOf(counted);
      for (const x of counted) claimed[x] = 1;
      if (c < chance) chance = c;
      out.push({
        chain: positions.length === chain.positions.length ? chain : { ...chain, positions },
        chance: c,
        named: named(counted),
      });
    }
    out.sort((x, y) => x.chain.positions[0] - y.chain.positions[0]);
    return { chains: out, chance, held };
  }

  /** Size and content. */
  stats(): DatasetStats {
    const links = this.links();
    return {
      id: this.descriptor.id,
      name: this.descriptor.name,
      kind: 'portrait',
      documents: this.docs.length,
      tokens: this.tokenTotal,
      fingerprints: this.storedKeys,
      bytes: this.byteTotal,
      index_bytes: links.reduce((a, l) => a + l.blocks * BLOCK_BYTES, 0) + (this.ensureLocator()?.cells.length ?? 0),
      params: this.params,
      kb_dataset: this.descriptor.kb_dataset ?? null,
      models: [...(this.descriptor.models ?? [])],
      window: this.window,
      fpr: this.fpr(),
      filters: links.length,
    };
  }

  /** The locator for a snapshot (none when the portrait does not locate or lost it to documents added later). */
  private locatorData(): { locator?: LocatorData } {
    const l = this.ensureLocator();
    return l === null ? {} : { locator: l };
  }

  /** The dataset as plain data (filters copied out of the core), for snapshots. */
  toData(): PortraitDatasetData {
    const links = this.links();
    const u8 = this.core.u8;
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs,
      filters: links.map((l) => ({ keys: l.keys, k: l.k, bits: u8.slice(l.ptr, l.ptr + l.blocks * BLOCK_BYTES) })),
      ...this.locatorData(),
    };
  }

  /**
   * The portrait for a streamed export (./snapshot-stream.ts): like {@link toData}, the filter
   * bits read from the core a chunk at a time instead of copied whole. Adding documents while it
   * is read fails the read (CONFLICT).
   */
  toSource(): PortraitDatasetSource {
    const links = this.links();
    const docs = this.docs.length;
    const read = (ptr: number, from: number, to: number) => {
      if (this.docs.length !== docs)
        throw new TrainprintError('CONFLICT', `dataset "${this.descriptor.id}" changed during its export`);
      return this.core.u8.slice(ptr + from, ptr + to);
    };
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs.slice(),
      filters: links.map((l) => ({
        keys: l.keys,
        k: l.k,
        bits: { length: l.blocks * BLOCK_BYTES, read: (from: number, to: number) => read(l.ptr, from, to) },
      })),
      ...this.locatorData(),
    };
  }

  /** Rebuild a (sealed) portrait from snapshot data. @throws SNAPSHOT_INCOMPATIBLE */
  static fromData(core: Core, data: PortraitDatasetData): PortraitDataset {
    const bad = (detail: string): never => {
      throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', detail);
    };
    let ds: PortraitDataset;
    try {
      ds = new PortraitDataset(core, data.descriptor);
    } catch (e) {
      return bad(`bad portrait descriptor (${(e as Error).message})`);
    }
    ds.restored = true;
    if (data.locator !== undefined) {
      if (!ds.descriptor.locate) bad('a locator in a portrait whose descriptor does not say locate');
      ds.locator = data.locator;
    }
    if (data.params !== ds.params) {
      const older = olderNormalizer(data.params, ds.params);
      bad(
        `params mismatch: snapshot has ${JSON.stringify(data.params)}, expected ${JSON.stringify(ds.params)}${older}`,
      );
    }
    for (const d of data.docs) {
      if (ds.docIds.has(d.id)) bad(`document id "${d.id}" appears twice`);
      ds.docs.push(d);
      ds.docIds.add(d.id);
      ds.tokenTotal += d.tokens;
      ds.byteTotal += d.bytes;
    }
    if (data.locator !== undefined) {
      const layout = sectionLayout(
        ds.docs.map((d) => d.tokens),
        data.locator.section_words,
        data.locator.sections,
      );
      if (typeof layout === 'string') bad(layout);
    }
    if (data.locator?.shared !== undefined) {
      // rows must name sections and documents of this portrait (a row out of range would name nothing, or crash)
      const sections = (
        sectionLayout(
          ds.docs.map((d) => d.tokens),
          data.locator.section_words,
          data.locator.sections,
        ) as SectionLayout
      ).first;
      const C = sections[sections.length - 1];
      for (const [owner, rows] of decodeShared(data.locator.shared))
        if (owner >= C || rows.some((r) => r.doc >= ds.docs.length || r.last_section >= C))
          bad('locator.shared names a section or document the portrait does not have');
    }
    const maxK = core.raw.bloomMaxK.value as number;
    core.guard(() => {
      const L = core.layout();
      const ptrs = data.filters.map((f) => {
        if (f.k > maxK) bad(`filter k = ${f.k} exceeds the core's limit ${maxK}`);
        return L.take(f.bits.length);
      });
      L.commit();
      data.filters.forEach((f, i) => {
        core.u8.set(f.bits, ptrs[i]);
        ds.sealed.push({ ptr: ptrs[i], blocks: f.bits.length / BLOCK_BYTES, keys: f.keys, k: f.k });
      });
      ds.sealedEnd = L.size;
    });
    return ds;
  }
}

/**
 * The hits of a chain that count as its evidence (`counted`: those no stronger chain claimed) and those its span covers
 * (`positions`: the counted ones less lone edge hits, trimEdges). Only the span is trimmed: an edited copy's agreeing
 * hits lie 4–8 fingerprints apart (1 word in 10 replaced kills half of its 5-grams), so an edge hit that far from the
 * next is as often the copy's own as a chance agreement, and counting only the hits within 3 of each other took the
 * evidence of 1 in 20 such copies below the alpha (100-word passages of packed books, bench/eval-packs.mjs).
 * @example chainHits([2, 10, 11, 12, 13, 19], new Uint8Array(22)) // { counted: [2, …, 19], positions: [10, 11, 12, 13] }
 */
export function chainHits(
  chain: readonly number[],
  claimed: Uint8Array,
  gap?: (x: number, y: number) => number,
  held?: (x: number) => boolean,
): { counted: number[]; positions: number[] } {
  const counted = chain.filter((x) => claimed[x] === 0);
  return { counted, positions: trimEdges(counted, gap, held) };
}

/**
 * Distinct n-grams among a query's uncommon hits (`at`, ascending): a phrase repeated through the text ("the Government
 * of the United States of America", ten times) agrees with the section that stored it first each time, and is one
 * agreement, not ten. Each hit's n-gram is a small number (equal n-grams, equal numbers) with a stamp per number, so a
 * set of hits is counted in one pass without a Set (a whole book has chains of tens of thousands of hits).
 * @example new DistinctNgrams(m, at, digests, uncommonBefore).of(chain.positions) // 3 for a phrase said 3 × 10 times
 */
class DistinctNgrams {
  private readonly ngramAt: Int32Array;
  private readonly stamp: Int32Array;
  private now = 0;
  /** Hits {@link inSpan} may still read: a few times the query's, then it counts them all (fewer names, never more). */
  private spanBudget: number;

  constructor(
    m: number,
    private readonly at: readonly number[],
    digests: Uint32Array,
    private readonly uncommonBefore: Int32Array,
  ) {
    this.ngramAt = new Int32Array(m).fill(-1);
    const number = new Map<number, number>();
    for (let j = 0; j < at.length; j++) {
      let id = number.get(digests[j]);
      if (id === undefined) number.set(digests[j], (id = number.size));
      this.ngramAt[at[j]] = id;
    }
    this.stamp = new Int32Array(at.length);
    this.spanBudget = 4 * at.length;
  }

  /** The distinct n-grams at `positions` (a chain's hits). */
  of(positions: readonly number[]): number {
    this.now++;
    let r = 0;
    for (const x of positions) r += this.first(this.ngramAt[x]);
    return r;
  }

  /**
   * The distinct n-grams of the uncommon hits from `first` to `last`: a chain's span, whose repeats are not more chances
   * to agree than the chain's are (a passage copied ten times agrees once with its section).
   */
  inSpan(first: number, last: number): number {
    const from = this.uncommonBefore[first];
    const to = this.uncommonBefore[last + 1];
    if ((this.spanBudget -= to - from) < 0) return to - from;
    this.now++;
    let r = 0;
    for (let j = from; j < to; j++) r += this.first(this.ngramAt[this.at[j]]);
    return r;
  }

  /** 1 the first time n-gram `id` is seen in this count, else 0. */
  private first(id: number): number {
    if (this.stamp[id] === this.now) return 0;
    this.stamp[id] = this.now;
    return 1;
  }
}

/**
 * Before each place of a query's fingerprints (and its end): how many of them are uncommon hits (`at`, in order), and
 * how many the dataset does not hold at all (a chain's edge gap counts those: trimEdges).
 * @example countsBefore(Uint8Array.of(1, 0, 1), [0, 2]).missedBefore // Int32Array [0, 0, 1, 1]
 */
function countsBefore(
  hits: Uint8Array,
  at: readonly number[],
): { uncommonBefore: Int32Array; missedBefore: Int32Array } {
  const m = hits.length;
  const uncommonBefore = new Int32Array(m + 1);
  const missedBefore = new Int32Array(m + 1);
  for (let j = 0, i = 0; i < m; i++) {
    if (j < at.length && at[j] === i) j++;
    uncommonBefore[i + 1] = j;
    missedBefore[i + 1] = missedBefore[i] + (hits[i] ? 0 : 1);
  }
  return { uncommonBefore, missedBefore };
}
