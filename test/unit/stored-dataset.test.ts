/**
 * The corpus side of datasets kept in a database (src/corpus/stored.ts) against a storage of plain arrays
 * (the ExactStorage contract, no database): what a query fetches, searched by the in-memory code, gives the
 * in-memory dataset's results; loads number documents densely and refuse a batch out of turn; the sync
 * search refuses the dataset. The PostgreSQL storage itself: test/contract/dataset-postgres.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, TrainprintError } from '../../src/index.js';
import type {
  ExactStorage,
  FetchedDocument,
  StoredBatch,
  StoredDatasetInfo,
  StoredDocument,
  StoredDocuments,
  StoredDocumentsRequest,
  StoredLookup,
  StoredPostings,
} from '../../src/datasets/stored.js';
import { book, licences } from '../fixtures/texts/index.js';

/** An ExactStorage in arrays: what the contract asks, nothing more. */
class ArrayStorage implements ExactStorage {
  readonly label = 'arrays';
  readonly docs: StoredDocument[] = [];
  readonly fp: Array<[bigint, number, number, number]> = [];
  readonly pairs: Array<[number, number, number]> = [];
  readonly bands: Array<[number, number]> = [];
  params = '';
  lookups = 0;

  constructor(
    readonly id: string,
    private readonly descriptor: StoredDatasetInfo['descriptor'],
  ) {}

  async info(): Promise<StoredDatasetInfo> {
    const sum = (f: (d: StoredDocument) => number) => this.docs.reduce((a, d) => a + f(d), 0);
    return {
      descriptor: this.descriptor,
      params: this.params,
      documents: this.docs.length,
      tokens: sum((d) => d.tokens),
      bytes: sum((d) => d.bytes),
      fingerprints: this.fp.length,
      text_bytes: sum((d) => (d.text === null ? 0 : d.bytes)),
      index_bytes: this.fp.length * 20,
      storage: 'postgres',
    };
  }

  async append(b: StoredBatch): Promise<void> {
    if (b.first !== this.docs.length) throw new TrainprintError('CONFLICT', 'out of turn');
    if (this.params !== '' && b.params !== this.params) throw new TrainprintError('PARAMS_MISMATCH');
    for (const d of b.documents) {
      if (this.docs.some((x) => x.id === d.id)) throw new TrainprintError('ALREADY_EXISTS', d.id);
    }
    this.params = b.params;
    this.docs.push(...b.documents);
    const f = b.fingerprints;
    for (let i = 0; i < f.hash.length; i++) this.fp.push([f.hash[i], f.doc[i], f.start[i], f.end[i]]);
    for (let i = 0; i < b.pairs.hash.length; i++) this.pairs.push([b.pairs.hash[i], b.pairs.doc[i], b.pairs.offset[i]]);
    for (let i = 0; i < b.bands.key.length; i++) this.bands.push([b.bands.key[i], b.bands.doc[i]]);
  }

  async finishLoad(): Promise<StoredDatasetInfo> {
    return this.info();
  }

  async lookup(q: StoredLookup): Promise<StoredPostings> {
    this.lookups++;
    const s = new Map([...q.shingles].map((h, i) => [h, i]));
    const p = new Map([...q.pairs].map((h, i) => [h, i]));
    const b = new Map([...q.bands].map((h, i) => [h, i]));
    const fp = this.fp.filter(([h]) => s.has(h)).reverse(); // any order: the search must not depend on it
    const taken = new Map<number, number>();
    const pairs = this.pairs.filter(([h]) => {
      if (!p.has(h) || (taken.get(h) ?? 0) >= q.pairCap) return false;
      taken.set(h, (taken.get(h) ?? 0) + 1);
      return true;
    });
    const bands = this.bands.filter(([k]) => b.has(k));
    return {
      shingles: {
        at: Uint32Array.from(fp, ([h]) => s.get(h)!),
        doc: Uint32Array.from(fp, (r) => r[1]),
        start: Uint32Array.from(fp, (r) => r[2]),
        end: Uint32Array.from(fp, (r) => r[3]),
      },
      pairs: {
        at: Uint32Array.from(pairs, ([h]) => p.get(h)!),
        doc: Uint32Array.from(pairs, (r) => r[1]),
        offset: Uint32Array.from(pairs, (r) => r[2]),
      },
      bands: { at: Uint32Array.from(bands, ([k]) => b.get(k)!), doc: Uint32Array.from(bands, (r) => r[1]) },
    };
  }

  async documents(r: StoredDocumentsRequest): Promise<StoredDocuments> {
    const docs = new Map<number, FetchedDocument>();
    const sigs = new Set(r.signatures),
      texts = new Set(r.texts),
      common = new Set(r.commonPairs);
    for (const d of r.docs) {
      const { minhash, text, ...info } = this.docs[d];
      docs.set(d, { info, ...(sigs.has(d) ? { minhash } : {}), ...(texts.has(d) ? { text } : {}) });
    }
    const held = this.pairs.filter(([h, d]) => common.has(h) && texts.has(d));
    return { docs, holds: { pair: Uint32Array.from(held, (x) => x[0]), doc: Uint32Array.from(held, (x) => x[1]) } };
  }
}

const persuasion = book('austen-persuasion');
const caesar = book('shakespeare-caesar');
const DOCS = [
  ...Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, text: persuasion.slice(i * 6000, (i + 1) * 6000) })),
  ...Object.entries(licences()).map(([id, text]) => ({ id, text })),
];

describe('stored exact datasets (corpus side)', () => {
  it('search the documents a query fetches with the in-memory code: same results', async () => {
    const memory = await createEngine();
    await memory.addDataset({ id: 'd' }, DOCS);
    const stored = await createEngine();
    const storage = new ArrayStorage('d', { id: 'd', kind: 'exact' });
    await stored.attachDataset(storage);
    await stored.addDataset({ id: 'd' }, DOCS);
    expect(storage.docs.map((d) => d.id)).toEqual(DOCS.map((d) => d.id));
    const edited = persuasion
      .slice(40_000, 42_500)
      .split(' ')
      .map((w, i) => (i % 4 ? w : 'zzq'))
      .join(' ');
    const queries = [
      `${caesar.slice(1000, 2500)} ${persuasion.slice(20_000, 22_000)}`,
      edited,
      licences()['MPL-2.0'].replace(/the/g, 'a'),
      '',
    ];
    for (const q of queries) {
      for (const options of [{ alignBudgetMs: 60_000 }, { candidates: 0, near: 0.3 }]) {
        expect(await stored.searchAsync(q, options)).toEqual(memory.search(q, options));
      }
    }
    // the queries exercised seed matches, aligned passages and near-duplicates
    const kinds = new Set(
      queries
        .flatMap((q) => memory.search(q, { near: 0.3 }).matches)
        .map((m) => (m.kind === 'exact' ? `exact:${m.aligned}` : m.kind)),
    );
    expect([...kinds].sort()).toEqual(['exact:false', 'exact:true', 'near']);
    // an empty query asks nothing of the storage
    const before = storage.lookups;
    await stored.searchAsync('');
    expect(storage.lookups).toBe(before);
    expect(() => stored.search(queries[0])).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
    expect(stored.datasets()[0]).toMatchObject({ id: 'd', storage: 'postgres', documents: DOCS.length });
  });

  it('appends after the stored documents, and refuses a batch out of turn or of other params', async () => {
    const engine = await createEngine();
    const storage = new ArrayStorage('d', { id: 'd', kind: 'exact', keep_text: false });
    await engine.attachDataset(storage);
    await engine.addDataset({ id: 'd' }, DOCS.slice(0, 3));
    await engine.addDataset({ id: 'd' }, DOCS.slice(3, 5));
    expect(storage.docs.map((d) => d.text)).toEqual([null, null, null, null, null]);
    expect(new Set(storage.fp.map((r) => r[1]))).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(storage.pairs).toEqual([]); // no texts kept, no content-word pairs
    const none = new Uint32Array(0);
    const rows = {
      documents: [],
      fingerprints: { doc: none, hash: new BigUint64Array(0), start: none, end: none },
      pairs: { doc: none, hash: none, offset: none },
      bands: { doc: none, key: new Float64Array(0) },
    };
    const outOfTurn = storage.append({ params: storage.params, first: 3, ...rows });
    await expect(outOfTurn).rejects.toMatchObject({ code: 'CONFLICT' });
    const otherParams = storage.append({ params: 'other', first: 5, ...rows });
    await expect(otherParams).rejects.toMatchObject({ code: 'PARAMS_MISMATCH' });
    // a storage of fingerprints made otherwise is refused when attached
    const foreign = new ArrayStorage('f', { id: 'f', kind: 'exact' });
    foreign.params = 'tp1;other';
    await expect(engine.attachDataset(foreign)).rejects.toMatchObject({ code: 'SNAPSHOT_INCOMPATIBLE' });
    await expect(engine.attachDataset({} as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
