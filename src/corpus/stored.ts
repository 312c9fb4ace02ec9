/**
 * Exact datasets kept in a database ({@link ExactStorage}, src/datasets/stored.ts) as the corpus sees
 * them: {@link StoredExactDataset} loads documents into the storage (their fingerprints, content-word
 * pairs and LSH band keys, computed here as the in-memory dataset computes them) and prepares each
 * search by fetching what the query's keys hit, in two requests. The result of {@link
 * StoredExactDataset.prepare} is an {@link ExactSlice}: the part of the dataset the query touches, with
 * the same document numbers, searched by the same functions as an in-memory `ExactDataset`
 * (`chainHits`, `seedSearch`, `nearMatches`, `ContentWordIndex`). The same documents added in the
 * same order thus give the same matches, scores and alignment.
 *
 * What a slice fetches: every posting of the query's shingles and band keys (as memory reads them);
 * of its content-word pairs at most MAX_POSTINGS + 1 postings each (a pair in more documents is never a
 * candidate, so only that count matters); then the ids of the documents the matches and near-duplicate
 * candidates name, the signatures of the latter, and the texts of the strongest `candidates` documents
 * (the only ones the alignment stage may align), with which of them hold the query's too-common pairs
 * (the alignment's background rate asks).
 */
import { TrainprintError } from '../errors.js';
import type { DocumentFingerprint } from '../fingerprint/fingerprint.js';
import type { Fingerprint } from '../types.js';
import {
  bandKeys,
  chainHits,
  nearMatches,
  NEAR_K,
  seedSearch,
  swapHalves,
  type ExactSearch,
  type ExactSearchable,
  type ShingleHit,
} from '../datasets/exact.js';
import type { ExactDatasetSource } from '../datasets/snapshot-stream.js';
import type {
  ExactStorage,
  FetchedDocument,
  StoredBatch,
  StoredDatasetInfo,
  StoredDocument,
} from '../datasets/stored.js';
import { DATASET_OPTIONS, DATASET_PARAMS } from '../datasets/params.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats, DocInfo, NearMatch } from '../datasets/types.js';
import { strongest, withPairCandidates } from './alignment.js';
import { contentPairs, type ContentPairs } from './content-pairs.js';
import {
  ContentWordIndex,
  MAX_POSTINGS,
  type PairCandidate,
  type PairIndex,
  type QueryPostings,
} from './content-words.js';
import { finish, type Pause, type Steps } from '../util/steps.js';
import type { Core } from '../core/abi.js';
import type { PortraitBackground } from '../datasets/background.js';
import { winnowCore } from '../fingerprint/fingerprint.js';
import { storedDigest } from './digest.js';
import type { CopyTarget, DatasetLoad, LoadedDataset } from './loaded.js';
import { checkExactJoin, notAPortrait, notInMemoryExact } from './loaded.js';
import type { Fetch, LocalSearch } from './local-search.js';
import { EXACT_SIZE, EXACT_WINDOW, type ExactSearchSide, searchExactSteps } from './search-exact.js';
import { pairsIn, type PureWork } from './work.js';

/** Documents per appended batch, and fingerprints: a batch is one transaction of a few MB. */
const BATCH_DOCUMENTS = 1000;
const BATCH_FINGERPRINTS = 250_000;

/** What a search asks of a stored dataset (the corpus's search settings). */
export interface StoredSearch {
  readonly fp: Fingerprint;
  /** The query's sampled content-word pairs, or null when candidates are not aligned here. */
  readonly pairs: ContentPairs | null;
  readonly window: number;
  readonly size: number;
  readonly minTokens: number;
  /** Most candidate documents aligned (their texts are fetched). */
  readonly limit: number;
  /** Fewest distinct exact hits of a candidate aligned (SearchOptions.candidateHits; default 2). */
  readonly candidateHits?: number;
  readonly queryChars: number;
}

/**
 * An exact dataset in a storage, attached to a corpus (./loaded.ts: what a corpus asks of it). Its stats are the
 * storage's, as of the attach and of this process's last load.
 */
export class StoredExactDataset implements LoadedDataset, CopyTarget, ExactSearchSide<ExactSlice> {
  private info: StoredDatasetInfo;

  /** @internal use `Corpus.attachDataset` */
  constructor(
    readonly storage: ExactStorage,
    info: StoredDatasetInfo,
  ) {
    this.info = info;
  }

  get descriptor(): DatasetDescriptor & { readonly kind: 'exact' } {
    return this.info.descriptor;
  }

  /** The params of its fingerprints (an exact dataset's; recorded in the storage by the first batch). */
  get params(): string {
    return this.info.params || DATASET_PARAMS;
  }

  /** True unless the descriptor says `keep_text: false`. */
  get keepsText(): boolean {
    return this.info.descriptor.keep_text !== false;
  }

  /** Size and content (as of the attach or this process's last load), with `storage`. */
  stats(): DatasetStats {
    const i = this.info;
    return {
      id: i.descriptor.id,
      name: i.descriptor.name,
      kind: 'exact',
      documents: i.documents,
      tokens: i.tokens,
      fingerprints: i.fingerprints,
      bytes: i.bytes,
      index_bytes: i.index_bytes,
      params: this.params,
      kb_dataset: i.descriptor.kb_dataset ?? null,
      models: [...(i.descriptor.models ?? [])],
      ...(this.keepsText || i.text_bytes > 0 ? { text_bytes: i.text_bytes } : {}),
      storage: i.storage,
    };
  }

  /**
   * A loader that appends documents in batches, numbered after the stored ones. `pairsOf` makes a kept text's
   * content-word pairs ({@link contentPairs}, or the same from the core's tokens).
   */
  loader(pairsOf: (text: string) => ContentPairs = contentPairs): StoredLoader {
    return new StoredLoader(this.storage, this.info.documents, this.keepsText, pairsOf);
  }

  /** Ends a load: the storage builds what lookups need; the stats are read again. */
  async finishLoad(): Promise<void> {
    this.info = await this.storage.finishLoad();
  }

  /** INVALID_OPTIONS unless documents sent under `descriptor` may join it (an exact dataset of its keep_text). */
  checkJoin(descriptor: DatasetDescriptor): void {
    checkExactJoin(this, descriptor);
  }

  /** A load in batches ({@link loader}); its end appends what is gathered and builds the storage's indexes. */
  load(core: Core): DatasetLoad {
    const loader = this.loader(pairsIn(core));
    const end = async () => {
      try {
        await loader.flush();
      } finally {
        await this.finishLoad();
      }
    };
    return {
      add: (doc, text) => loader.add(doc, text, winnowCore(core, text, DATASET_OPTIONS)),
      addFingerprinted: (doc, text, fp) => loader.add(doc, text, fp),
      end,
      // what came before the failure is stored; the failure is what is reported
      abort: () => end().catch(() => undefined),
    };
  }

  /** Nothing to finalize: the storage builds its indexes at the end of each load. */
  finalize(): void {}

  /** Nothing to prepare: each search fetches what it needs. */
  async prepareSearch(): Promise<void> {}

  *searchSteps(s: LocalSearch): Generator<Pause | PureWork | Fetch, void, unknown> {
    yield* searchExactSteps(this, s);
  }

  /** What the query's keys hit, fetched (the async search only: the sync search refuses the step). */
  *open(s: LocalSearch, pairs: ContentPairs | null): Generator<Fetch, ExactSlice, unknown> {
    const { minTokens, limit, candidateHits } = s.options;
    const fetch: Fetch = {
      kind: 'fetch',
      notSynchronous: () => notSynchronous(this),
      run: () =>
        this.prepare({
          fp: s.fp,
          pairs,
          window: EXACT_WINDOW,
          size: EXACT_SIZE,
          minTokens,
          limit,
          candidateHits,
          queryChars: s.query.length,
        }),
    };
    return (yield fetch) as ExactSlice;
  }

  // biome-ignore lint/correctness/useYield: the slice was searched when it was fetched
  *seedSteps(x: ExactSlice): Steps<ExactSearch> {
    return x.search();
  }

  // biome-ignore lint/correctness/useYield: the slice's pair candidates were found when it was fetched
  *pairCandidateSteps(x: ExactSlice): Steps<PairCandidate[] | null> {
    return x.pairCandidates;
  }

  pairIndex(x: ExactSlice): PairIndex {
    return x.pairs;
  }

  /** @throws NOT_SUPPORTED: a database is not read synchronously */
  documentText(): string | null {
    throw notSynchronous(this);
  }

  /** @throws NOT_SUPPORTED: the database is its copy */
  toData(): never {
    throw notExportable(this);
  }

  /** @throws NOT_SUPPORTED: the database is its copy */
  toSource(): never {
    throw notExportable(this);
  }

  copySource(): () => ExactDatasetSource {
    throw notInMemoryExact(this.descriptor.id);
  }

  copyTarget(): CopyTarget {
    return this;
  }

  /** @throws NOT_SUPPORTED: its declarations are made when it is created */
  checkDeclarable(): void {
    const where = `dataset "${this.descriptor.id}" is stored in ${this.storage.label}`;
    throw new TrainprintError('NOT_SUPPORTED', `${where}: its declarations are made when it is created`);
  }

  digest(): Promise<string> {
    return storedDigest(this);
  }

  async measureBackground(): Promise<PortraitBackground> {
    throw notAPortrait(this.descriptor.id);
  }

  /**
   * Copies an in-memory exact dataset (its export source) into the storage, after the documents already
   * there: documents first (with their pairs and band keys), then the fingerprints in key order.
   */
  async copyFrom(source: ExactDatasetSource, pairsOf?: (text: string) => ContentPairs): Promise<void> {
    const loader = this.loader(pairsOf);
    const base = this.info.documents;
    for (let d = 0; d < source.docs.length; d++) {
      const text = source.texts?.[d] ?? null;
      const minhash = source.minhash.subarray(d * NEAR_K, (d + 1) * NEAR_K);
      await loader.addRows(source.docs[d], this.keepsText ? text : null, minhash);
    }
    await loader.flush();
    const n = source.keys.length;
    for (let from = 0; from < n; from += BATCH_FINGERPRINTS) {
      const to = Math.min(n, from + BATCH_FINGERPRINTS);
      const hash = source.keys.read(from, to).slice();
      swapHalves(hash, 0, hash.length);
      const doc = source.postDoc.read(from, to).map((d) => d + base);
      const fingerprints = { doc, hash, start: source.postStart.read(from, to), end: source.postEnd.read(from, to) };
      await this.storage.append({ ...emptyBatch(loader.next), fingerprints });
    }
  }

  /**
   * Fetches what one query needs (two requests) and returns it as an {@link ExactSlice} to search.
   * @throws (rejects) what the storage rejects with (STORE_UNAVAILABLE, STORE_CLOSED)
   */
  async prepare(q: StoredSearch): Promise<ExactSlice> {
    const { fp, pairs } = q;
    const shingles = distinct(fp.shingles.hashes);
    const pairKeys = pairs ? distinct(pairs.hashes) : EMPTY_DISTINCT_U32;
    const bands = fp.minhash ? bandKeys(fp.minhash) : []; // no MinHash: a search for copies only
    const empty = shingles.keys.length === 0 && pairKeys.keys.length === 0 && bands.length === 0;
    const found = empty
      ? null
      : await this.storage.lookup({
          shingles: BigUint64Array.from(shingles.keys as bigint[]),
          pairs: Uint32Array.from(pairKeys.keys as number[]),
          pairCap: MAX_POSTINGS + 1,
          bands: Float64Array.from(bands),
        });
    // the hits of the shingles, each weighing 1 / the postings of its key, as in memory
    const m = fp.shingles.hashes.length;
    const hitAt = new Uint8Array(m);
    let shinglesHit = 0;
    const hits: ShingleHit[] = [];
    if (found) {
      const rows = groupRows(found.shingles.at, shingles.keys.length);
      const s = found.shingles;
      for (let i = 0; i < m; i++) {
        const own = rows[shingles.at[i]];
        if (own.length === 0) continue;
        hitAt[i] = 1;
        shinglesHit++;
        for (const r of own) hits.push({ doc: s.doc[r], i, start: s.start[r], end: s.end[r], weight: 1 / own.length });
      }
    }
    const chained = chainHits(hits, fp, q.window, q.size, q.minTokens);
    // the content-word pairs' postings (capped) as an index, and the candidates they give
    const p = found?.pairs;
    const pairIndex = ContentWordIndex.fromPostings(
      Uint32Array.from(p?.at ?? [], (at) => pairKeys.keys[at] as number),
      Uint32Array.from(p?.doc ?? []),
      Uint32Array.from(p?.offset ?? []),
      this.info.documents,
    );
    const pairCandidates = pairs ? finish(pairIndex.candidateSteps(pairs, pairIndex.postings(pairs))) : null;
    // near-duplicate candidates: band by band, each key's documents in order (the in-memory table's order)
    const near = new Set<number>();
    if (found) {
      const rows = groupRows(found.bands.at, bands.length);
      for (const own of rows) for (const d of own.map((r) => found.bands.doc[r]).sort((a, b) => a - b)) near.add(d);
    }
    const aligned =
      q.limit > 0 && this.keepsText
        ? strongest(
            withPairCandidates(
              (q.candidateHits ?? 2) > 2
                ? chained.candidates.filter((c) => c.hits >= q.candidateHits!)
                : chained.candidates,
              pairCandidates,
            ),
            q.limit,
          ).map((c) => c.doc)
        : [];
    const common = new Set<number>();
    const counts = new Map<number, number>();
    for (const at of p?.at ?? []) counts.set(at, (counts.get(at) ?? 0) + 1);
    for (const [at, count] of counts) if (count > MAX_POSTINGS) common.add(pairKeys.keys[at] as number);
    const docs = new Set<number>([...chained.chains.map((c) => c.doc), ...near, ...aligned]);
    const fetched =
      docs.size === 0
        ? null
        : await this.storage.documents({
            docs: Uint32Array.from(docs),
            signatures: Uint32Array.from(near),
            texts: Uint32Array.from(aligned),
            commonPairs: aligned.length === 0 ? new Uint32Array(0) : Uint32Array.from(common),
          });
    const holds = new Set<string>();
    const held = fetched?.holds ?? { pair: [], doc: [] };
    for (let k = 0; k < held.pair.length; k++) holds.add(`${held.pair[k]}:${held.doc[k]}`);
    const byNumber = fetched?.docs ?? new Map<number, FetchedDocument>();
    const doc = (d: number): FetchedDocument => {
      const f = byNumber.get(d);
      if (!f) throw new TrainprintError('INTERNAL', `document ${d} of dataset "${this.descriptor.id}" was not fetched`);
      return f;
    };
    const result = seedSearch(this.descriptor.id, hitAt, fp, q.window, chained, (d) => doc(d).info.id, shinglesHit);
    const pairView = new FetchedPairs(pairIndex, common, holds, new Set(aligned));
    return new ExactSlice(this.descriptor, this.keepsText, result, near, doc, byNumber, pairView, pairCandidates);
  }
}

/** The same batch shape with nothing in it, for rows after the documents `first`… */
function emptyBatch(first: number): StoredBatch {
  return {
    params: DATASET_PARAMS,
    first,
    documents: [],
    fingerprints: {
      doc: new Uint32Array(0),
      hash: new BigUint64Array(0),
      start: new Uint32Array(0),
      end: new Uint32Array(0),
    },
    pairs: { doc: new Uint32Array(0), hash: new Uint32Array(0), offset: new Uint32Array(0) },
    bands: { doc: new Uint32Array(0), key: new Float64Array(0) },
  };
}

/**
 * Appends documents to a storage in batches: their fingerprints, the content-word pairs of the texts
 * kept (what the in-memory dataset's pair index is built from) and the band keys of their signatures.
 */
export class StoredLoader {
  private docs: StoredDocument[] = [];
  /** Per document (its number): its winnowed fingerprints and content-word pairs, as made (copied at flush). */
  private fp: Array<{ doc: number; hashes: BigUint64Array; starts: Uint32Array; ends: Uint32Array }> = [];
  private pairs: Array<{ doc: number; hashes: Uint32Array; starts: Uint32Array }> = [];
  private fpRows = 0;
  private pairRows = 0;
  private bands = { doc: [] as number[], key: [] as number[] };

  /**
   * @param next the number the next document gets (the stored count)
   * @param pairsOf a kept text's content-word pairs
   */
  constructor(
    private readonly storage: ExactStorage,
    public next: number,
    private readonly keepText: boolean,
    private readonly pairsOf: (text: string) => ContentPairs = contentPairs,
  ) {}

  /**
   * Adds one document with its fingerprint (made with the exact datasets' options from `text`).
   * @throws (rejects) INVALID_INPUT (no signature), and what the storage rejects with (ALREADY_EXISTS for a
   *   document id stored or appended twice)
   */
  async add(doc: DatasetDocument, text: string, fp: DocumentFingerprint): Promise<void> {
    const sig = fp.minhash;
    if (!sig || sig.length !== NEAR_K) {
      const why = `exact datasets need a ${NEAR_K}-value MinHash signature`;
      throw new TrainprintError('INVALID_INPUT', `document "${doc.id}": ${why}`);
    }
    const w = fp.winnow;
    this.fp.push({ doc: this.next + this.docs.length, hashes: w.hashes, starts: w.starts, ends: w.ends });
    this.fpRows += w.hashes.length;
    const info = {
      id: doc.id,
      chars: text.length,
      tokens: fp.token_count,
      bytes: fp.byte_length,
      ...(doc.meta === undefined ? {} : { meta: doc.meta }),
    };
    await this.gather(info, this.keepText ? text : null, sig);
  }

  /** Adds a document whose fingerprint rows come separately (a copy), with its pairs and band keys. */
  async addRows(info: DocInfo, text: string | null, minhash: Uint32Array): Promise<void> {
    await this.gather(info, text, minhash);
  }

  /** Gathers a document (its id is checked by the storage: a repeated one, stored or in the batch, is refused). */
  private async gather(info: DocInfo, text: string | null, minhash: Uint32Array): Promise<void> {
    const d = this.next + this.docs.length;
    this.docs.push({ ...info, minhash: minhash.slice(), text });
    if (text !== null) {
      const p = this.pairsOf(text);
      this.pairs.push({ doc: d, hashes: p.hashes, starts: p.starts });
      this.pairRows += p.hashes.length;
    }
    for (const key of bandKeys(minhash)) {
      this.bands.doc.push(d);
      this.bands.key.push(key);
    }
    if (this.docs.length >= BATCH_DOCUMENTS || this.fpRows >= BATCH_FINGERPRINTS) await this.flush();
  }

  /** Appends what is gathered (one transaction). */
  async flush(): Promise<void> {
    if (this.docs.length === 0 && this.fpRows === 0) return;
    const fingerprints = {
      doc: new Uint32Array(this.fpRows),
      hash: new BigUint64Array(this.fpRows),
      start: new Uint32Array(this.fpRows),
      end: new Uint32Array(this.fpRows),
    };
    let at = 0;
    for (const f of this.fp) {
      fingerprints.doc.fill(f.doc, at, at + f.hashes.length);
      fingerprints.hash.set(f.hashes, at);
      fingerprints.start.set(f.starts, at);
      fingerprints.end.set(f.ends, at);
      at += f.hashes.length;
    }
    const n = this.pairRows;
    const pairs = { doc: new Uint32Array(n), hash: new Uint32Array(n), offset: new Uint32Array(n) };
    at = 0;
    for (const p of this.pairs) {
      pairs.doc.fill(p.doc, at, at + p.hashes.length);
      pairs.hash.set(p.hashes, at);
      pairs.offset.set(p.starts, at);
      at += p.hashes.length;
    }
    const bands = { doc: Uint32Array.from(this.bands.doc), key: Float64Array.from(this.bands.key) };
    const first = this.next;
    await this.storage.append({ params: DATASET_PARAMS, first, documents: this.docs, fingerprints, pairs, bands });
    this.next += this.docs.length;
    this.docs = [];
    this.fp = [];
    this.pairs = [];
    this.fpRows = this.pairRows = 0;
    this.bands = { doc: [], key: [] };
  }
}

/** A list's distinct values in first-seen order, and each position's index among them. */
interface Distinct<T> {
  readonly keys: T[];
  readonly at: Uint32Array;
}

const EMPTY_DISTINCT_U32: Distinct<number> = { keys: [], at: new Uint32Array(0) };

function distinct<T extends bigint | number>(values: ArrayLike<T>): Distinct<T> {
  const seen = new Map<T, number>();
  const keys: T[] = [];
  const at = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    let k = seen.get(values[i]);
    if (k === undefined) seen.set(values[i], (k = keys.push(values[i]) - 1));
    at[i] = k;
  }
  return { keys, at };
}

/** Row numbers grouped by the key position they belong to. */
function groupRows(at: Uint32Array, keys: number): number[][] {
  const rows: number[][] = Array.from({ length: keys }, () => []);
  for (let r = 0; r < at.length; r++) rows[at[r]].push(r);
  return rows;
}

/**
 * The pair index of a slice: the postings fetched for the query's pairs, and for the pairs too common
 * to fetch, which of the documents to align hold them.
 */
class FetchedPairs implements PairIndex {
  private query: ContentPairs | undefined;

  constructor(
    private readonly index: ContentWordIndex,
    private readonly common: ReadonlySet<number>,
    private readonly holds: ReadonlySet<string>,
    private readonly aligned: ReadonlySet<number>,
  ) {}

  postings(q: ContentPairs): QueryPostings {
    this.query = q;
    return this.index.postings(q);
  }

  holdsAt(at: QueryPostings, i: number, doc: number): boolean {
    const key = this.query?.hashes[i];
    if (key === undefined || !this.common.has(key)) return this.index.holdsAt(at, i, doc);
    if (!this.aligned.has(doc)) throw new TrainprintError('INTERNAL', `document ${doc} was not fetched for alignment`);
    return this.holds.has(`${key}:${doc}`);
  }

  candidateSteps(q: ContentPairs, at: QueryPostings): Steps<PairCandidate[]> {
    return this.index.candidateSteps(q, at);
  }
}

/**
 * The part of a stored exact dataset that one query touches, searched like an in-memory one: the
 * seed search is made (it is the same for the same query and settings), the near-duplicate candidates
 * and their signatures are kept, and the documents the search names are known by number.
 */
export class ExactSlice implements ExactSearchable {
  private readonly byId = new Map<string, number>();

  /** @internal made by {@link StoredExactDataset.prepare} */
  constructor(
    readonly descriptor: DatasetDescriptor,
    readonly keepsText: boolean,
    private readonly result: ExactSearch,
    private readonly near: ReadonlySet<number>,
    private readonly doc: (d: number) => FetchedDocument,
    docs: ReadonlyMap<number, FetchedDocument>,
    /** The query's content-word pairs in this dataset. */
    readonly pairs: PairIndex,
    /** The candidates those pairs gave (null when candidates are not aligned). */
    readonly pairCandidates: PairCandidate[] | null,
  ) {
    for (const [d, f] of docs) this.byId.set(f.info.id, d);
  }

  /** The search made by `prepare` (for the query and settings it was prepared with). */
  search(): ExactSearch {
    return this.result;
  }

  searchNear(sig: Uint32Array, near: number, queryChars: number, queryTokens: number): NearMatch[] {
    const sigOf = (d: number) => this.doc(d).minhash!;
    const query = { chars: queryChars, tokens: queryTokens };
    return nearMatches(this.descriptor.id, sig, this.near, sigOf, (d) => this.doc(d).info, near, query);
  }

  document(d: number): DocInfo {
    return this.doc(d).info;
  }

  /** The number of a document the query touched, or −1. */
  documentIndex(id: string): number {
    return this.byId.get(id) ?? -1;
  }

  /** The text of a document fetched for alignment (null when the dataset keeps none). */
  documentText(d: number): string | null {
    if (!this.keepsText) return null;
    const text = this.doc(d).text;
    if (text === undefined) throw new TrainprintError('INTERNAL', `the text of document ${d} was not fetched`);
    return text;
  }
}

/** What the sync search (and `documentText`) throws for a stored dataset. */
function notSynchronous(d: StoredExactDataset): TrainprintError {
  return new TrainprintError(
    'NOT_SUPPORTED',
    `dataset "${d.descriptor.id}" is stored in ${d.storage.label} and ` +
      'cannot be searched synchronously: use searchAsync (analyze and score do), or leave it out (option datasets)',
  );
}

/** What exporting a stored dataset throws. */
function notExportable(d: StoredExactDataset): TrainprintError {
  return new TrainprintError(
    'NOT_SUPPORTED',
    `dataset "${d.descriptor.id}" is stored in ${d.storage.label}: ` +
      'it is not exported as a file (the database is its copy)',
  );
}
