/**
 * Exact datasets: the winnowed fingerprints of a reference corpus with postings (document,
 * span), in a sorted u64 index that lives in its own WebAssembly instance (dropping the dataset
 * frees it). Searching fingerprints the query once, looks up every query shingle (the winnowing
 * guarantee makes any shared run of ≥ window + size − 1 words hit), and chains the hits of each
 * source document into passages with spans in both texts.
 */
import { Core } from '../engine/abi.js';
import { TrainprintError } from '../errors.js';
import type { Fingerprint } from '../types.js';
import type { DocumentFingerprint } from '../fingerprint/fingerprint.js';
import type { ExactDatasetData } from './snapshot.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats, DocInfo, ExactMatch } from './types.js';

export type { DatasetDescriptor, DatasetDocument, DatasetStats, DocInfo, ExactMatch, PortraitMatch, SearchMatch } from './types.js';

const MIN_PREFIX_BITS = 4;
const MAX_PREFIX_BITS = 22;

/** Prefix-table size for n keys: about two keys per slot, 2^4 … 2^22 slots. */
function prefixBitsFor(n: number): number {
  return Math.max(MIN_PREFIX_BITS, Math.min(MAX_PREFIX_BITS, Math.ceil(Math.log2(Math.max(n, 1))) - 1));
}

/** An exact dataset. Built by `Engine.addDataset`, or restored from a snapshot. */
export class ExactDataset {
  readonly descriptor: DatasetDescriptor & { kind: 'exact' };
  readonly params: string;
  readonly docs: DocInfo[] = [];
  private readonly docIds = new Set<string>();
  private n = 0;
  private keys = new BigUint64Array(1024);
  private postDoc = new Uint32Array(1024);
  private postStart = new Uint32Array(1024);
  private postEnd = new Uint32Array(1024);
  private tokenTotal = 0;
  private byteTotal = 0;
  // Sorted index in the dataset's own instance; rebuilt lazily after additions.
  private sorted = false;
  private prefixBits = MIN_PREFIX_BITS;
  private keysPtr = 0;
  private prefixPtr = 0;
  private persistent = 0;

  constructor(private readonly core: Core, descriptor: DatasetDescriptor, params: string) {
    // Only the documented fields (snapshots refuse unknown ones rather than dropping them).
    const { id, name, models, kb_dataset, meta } = descriptor;
    this.descriptor = {
      id, kind: 'exact',
      ...(name === undefined ? {} : { name }),
      ...(models === undefined ? {} : { models: [...models] }),
      ...(kb_dataset === undefined ? {} : { kb_dataset }),
      ...(meta === undefined ? {} : { meta }),
    };
    this.params = params;
  }

  /** Add one document's fingerprint (made with this dataset's params). */
  addDocument(doc: DatasetDocument, fp: DocumentFingerprint): void {
    if (this.docIds.has(doc.id)) throw new TrainprintError('ALREADY_EXISTS', `document "${doc.id}" is already in dataset "${this.descriptor.id}"`);
    const w = fp.winnow!;
    const d = this.docs.length;
    this.docs.push({ id: doc.id, chars: doc.text.length, tokens: fp.token_count, bytes: fp.byte_length, ...(doc.meta === undefined ? {} : { meta: doc.meta }) });
    this.docIds.add(doc.id);
    this.tokenTotal += fp.token_count;
    this.byteTotal += fp.byte_length;
    this.reserveRows(this.n + w.hashes.length);
    this.keys.set(w.hashes, this.n);
    this.postDoc.fill(d, this.n, this.n + w.hashes.length);
    this.postStart.set(w.starts, this.n);
    this.postEnd.set(w.ends, this.n);
    this.n += w.hashes.length;
    this.sorted = false;
  }

  private reserveRows(rows: number): void {
    if (rows <= this.keys.length) return;
    let cap = this.keys.length;
    while (cap < rows) cap *= 2;
    const grow = <T extends BigUint64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a.subarray(0, this.n) as never);
      return b;
    };
    this.keys = grow(this.keys, (c) => new BigUint64Array(c));
    this.postDoc = grow(this.postDoc, (c) => new Uint32Array(c));
    this.postStart = grow(this.postStart, (c) => new Uint32Array(c));
    this.postEnd = grow(this.postEnd, (c) => new Uint32Array(c));
  }

  /** Sort the keys (radix sort in the core), permute the postings alike, build the prefix table. */
  private ensureSorted(): void {
    if (this.sorted) return;
    const core = this.core;
    const n = this.n;
    core.guard(() => {
      const L = core.layout();
      const keysPtr = L.take(n * 8);
      const valsPtr = L.take(n * 4);
      const tmpK = L.take(n * 8);
      const tmpV = L.take(n * 4);
      L.commit();
      core.u64(keysPtr, n).set(this.keys.subarray(0, n));
      const vals = core.u32(valsPtr, n);
      for (let i = 0; i < n; i++) vals[i] = i;
      core.raw.sortPairs(keysPtr, valsPtr, n, tmpK, tmpV);
      const perm = core.u32(valsPtr, n).slice();
      this.keys.set(core.u64(keysPtr, n));
      const permute = (a: Uint32Array) => {
        const src = a.slice(0, n);
        for (let i = 0; i < n; i++) a[i] = src[perm[i]];
      };
      permute(this.postDoc);
      permute(this.postStart);
      permute(this.postEnd);
      this.placeIndex(n, keysPtr);
    });
    this.sorted = true;
  }

  /** Keys are sorted at `keysPtr` in the arena: put the prefix table after them. */
  private placeIndex(n: number, keysPtr: number): void {
    const core = this.core;
    this.prefixBits = prefixBitsFor(n);
    const L = core.layout();
    this.keysPtr = L.take(n * 8);
    if (this.keysPtr !== keysPtr) throw new TrainprintError('WASM_ABORT', 'index layout mismatch');
    this.prefixPtr = L.take((2 ** this.prefixBits + 1) * 4);
    L.commit();
    core.raw.buildPrefix(this.keysPtr, n, this.prefixBits, this.prefixPtr);
    this.persistent = L.size;
  }

  /**
   * Chain the hits of `fp`'s shingles into passages per source document.
   * `minTokens`: shortest passage reported (in query tokens).
   */
  search(fp: Fingerprint, window: number, size: number, minTokens: number): ExactMatch[] {
    this.ensureSorted();
    const m = fp.shingles.hashes.length;
    if (m === 0 || this.n === 0) return [];
    const core = this.core;
    const hits: Array<{ doc: number; i: number; start: number; end: number }> = [];
    core.guard(() => {
      const L = core.layout(this.persistent);
      const qPtr = L.take(m * 8);
      const outPtr = L.take(m * 8);
      L.commit();
      core.u64(qPtr, m).set(fp.shingles.hashes);
      const found = core.raw.lookupSorted(this.keysPtr, this.prefixPtr, this.prefixBits, qPtr, m, outPtr);
      if (found === 0) return;
      const out = core.u32(outPtr, m * 2);
      for (let i = 0; i < m; i++) {
        const count = out[2 * i + 1];
        for (let j = out[2 * i], e = j + count; j < e; j++) hits.push({ doc: this.postDoc[j], i, start: this.postStart[j], end: this.postEnd[j] });
      }
    });
    hits.sort((a, b) => a.doc - b.doc || a.i - b.i || a.start - b.start);
    // Chain hits along diagonals: a reused passage keeps (source offset − query offset) nearly
    // constant, so a repeated phrase elsewhere in the source starts its own chain instead of
    // breaking the true one. Gaps up to 2·window + size − 1 shingles are bridged: winnowing keeps
    // a fingerprint in every window of verbatim text, and one edited word destroys the `size`
    // shingles that contain it, so the hits on either side of a single edit between verbatim runs
    // of ≥ window + size − 1 words are at most (window − 1) + size + 1 + (window − 1) shingles
    // apart. A passage with isolated word edits thus stays one chain instead of falling apart
    // into fragments (each of which may be too short to report). The diagonal may drift by a
    // quarter of the gap (inserted/deleted words).
    interface Chain { doc: number; firstI: number; lastI: number; lastQ: number; delta: number; start: number; end: number; count: number }
    const qs = fp.shingles.starts;
    const maxGap = 2 * window + size - 1;
    const done: Chain[] = [];
    let active: Chain[] = [];
    let doc = -1;
    for (const h of hits) {
      if (h.doc !== doc) {
        done.push(...active);
        active = [];
        doc = h.doc;
      }
      const q = qs[h.i];
      const delta = h.start - q;
      let best: Chain | undefined;
      let bestDrift = Infinity;
      const still: Chain[] = [];
      for (const c of active) {
        if (h.i - c.lastI > maxGap) { done.push(c); continue; }
        still.push(c);
        if (c.lastI === h.i) continue;
        const drift = Math.abs(delta - c.delta);
        if (drift <= 32 + (q - c.lastQ) / 4 && drift < bestDrift) { best = c; bestDrift = drift; }
      }
      active = still;
      if (best) {
        best.lastI = h.i;
        best.lastQ = q;
        best.delta = delta;
        best.start = Math.min(best.start, h.start);
        best.end = Math.max(best.end, h.end);
        best.count++;
      } else {
        active.push({ doc: h.doc, firstI: h.i, lastI: h.i, lastQ: q, delta, start: h.start, end: h.end, count: 1 });
      }
    }
    done.push(...active);
    const matches: ExactMatch[] = [];
    const density = 2 / (window + 1);
    for (const c of done) {
      const tokens = Math.min(c.lastI - c.firstI + size, fp.token_count);
      if (tokens < minTokens) continue;
      matches.push({
        dataset_id: this.descriptor.id,
        document_id: this.docs[c.doc].id,
        query_start: fp.shingles.starts[c.firstI],
        query_end: fp.shingles.ends[c.lastI],
        source_start: c.start,
        source_end: c.end,
        kind: 'exact',
        tokens,
        score: Math.min(1, c.count / Math.max(1, (c.lastI - c.firstI + 1) * density)),
      });
    }
    return matches;
  }

  /** Size and content. */
  stats(): DatasetStats {
    return {
      id: this.descriptor.id,
      name: this.descriptor.name,
      kind: 'exact',
      documents: this.docs.length,
      tokens: this.tokenTotal,
      fingerprints: this.n,
      bytes: this.byteTotal,
      index_bytes: this.n * 20 + (2 ** prefixBitsFor(this.n) + 1) * 4,
      params: this.params,
    };
  }

  /** The dataset as plain data (sorted), for snapshots. */
  toData(): ExactDatasetData {
    this.ensureSorted();
    const n = this.n;
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs,
      keys: this.keys.slice(0, n),
      postDoc: this.postDoc.slice(0, n),
      postStart: this.postStart.slice(0, n),
      postEnd: this.postEnd.slice(0, n),
    };
  }

  /** Rebuild a dataset from snapshot data (keys already sorted and checked). */
  static fromData(core: Core, data: ExactDatasetData): ExactDataset {
    const ds = new ExactDataset(core, data.descriptor, data.params);
    for (const d of data.docs) {
      if (ds.docIds.has(d.id)) throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `document id "${d.id}" appears twice`);
      ds.docs.push(d);
      ds.docIds.add(d.id);
      ds.tokenTotal += d.tokens;
      ds.byteTotal += d.bytes;
    }
    const n = data.keys.length;
    for (let i = 0; i < n; i++) {
      if (data.postEnd[i] > data.docs[data.postDoc[i]].chars) throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `posting ${i} ends past its document`);
    }
    ds.reserveRows(n);
    ds.keys.set(data.keys);
    ds.postDoc.set(data.postDoc);
    ds.postStart.set(data.postStart);
    ds.postEnd.set(data.postEnd);
    ds.n = n;
    core.guard(() => {
      const L = core.layout();
      const keysPtr = L.take(n * 8);
      L.commit();
      core.u64(keysPtr, n).set(data.keys);
      ds.placeIndex(n, keysPtr);
    });
    ds.sorted = true;
    return ds;
  }
}
