/**
 * The seed search's chaining on hit columns (src/datasets/seed-chains.ts) against its plain reference, which chains
 * one object per hit as the search did before (test/reference/seed-chains.ts): on seeded random hits — copied
 * passages along diagonals with edits, repeated phrases, noise, several documents, in any order — through
 * `chainHits` (a database's hits) and through the in-memory index's own search (`ExactDataset.search`, whose hits
 * come from its lookups in the core), the same candidates and chains, and so the same seed search.
 */
import { describe, expect, it } from 'vitest';
import { Core } from '../../../src/core/abi.js';
import { compileCore } from '../../../src/core/load.js';
import { chainHits, ExactDataset, seedSearch, type ShingleHit } from '../../../src/datasets/exact.js';
import { EXACT_MINHASH_K } from '../../../src/datasets/snapshot.js';
import type { Fingerprint } from '../../../src/types.js';
import { prng } from '../../reference/core.js';
import { chainHitsRef } from '../../reference/seed-chains.js';

/** A query of `m` shingles about 6 units apart, as a fingerprint's shingle columns. */
function queryOf(rnd: () => number, m: number): Fingerprint {
  const starts = new Uint32Array(m);
  for (let i = 1; i < m; i++) starts[i] = starts[i - 1] + 2 + Math.floor(rnd() * 9);
  const ends = starts.map((s) => s + 20 + Math.floor(rnd() * 12));
  const hashes = BigUint64Array.from({ length: m }, (_, i) => BigInt(i + 1) * 0x9e3779b97f4a7c15n);
  return { shingles: { hashes, starts, ends }, token_count: m + 4 } as unknown as Fingerprint;
}

/** Hits of query shingles in `docs` documents: copied runs along a diagonal (edited, drifting), and noise. */
function randomHits(rnd: () => number, fp: Fingerprint, docs: number): ShingleHit[] {
  const m = fp.shingles.starts.length;
  const hits: ShingleHit[] = [];
  const runs = Math.floor(rnd() * 6);
  for (let r = 0; r < runs; r++) {
    const doc = Math.floor(rnd() * docs);
    const first = Math.floor(rnd() * m);
    const length = Math.floor(rnd() * 80);
    let offset = Math.floor(rnd() * 5000);
    for (let i = first; i < Math.min(m, first + length); i++) {
      if (rnd() < 0.35) continue; // winnowing keeps some; an edit drops a few
      if (rnd() < 0.05) offset += Math.floor(rnd() * 60) - 20; // words inserted or deleted
      const start = fp.shingles.starts[i] + offset;
      hits.push({ doc, i, start, end: start + 25, weight: 1 / (1 + Math.floor(rnd() * 3)) });
      if (rnd() < 0.1) hits.push({ doc, i, start: start + 400, end: start + 425, weight: 0.5 }); // a repeat
    }
  }
  // crowded diagonals a few units apart: chains whose drifts tie
  const crowd = rnd() < 0.3 ? Math.floor(rnd() * 60) : 0;
  for (let k = 0; k < crowd; k++) {
    const i = Math.floor(rnd() * Math.min(m, 40));
    const start = fp.shingles.starts[i] + 8 * Math.floor(rnd() * 5);
    hits.push({ doc: 0, i, start, end: start + 20, weight: 1 });
  }
  const noise = Math.floor(rnd() * 30);
  for (let k = 0; k < noise; k++) {
    const start = Math.floor(rnd() * (rnd() < 0.5 ? 50 : 8000));
    hits.push({ doc: Math.floor(rnd() * docs), i: Math.floor(rnd() * m), start, end: start + 20, weight: rnd() });
  }
  // in any order (a database's), or as an index gives them (by query shingle)
  return rnd() < 0.5 ? hits.sort(() => rnd() - 0.5) : hits.sort((a, b) => a.i - b.i);
}

describe('seed chains on hit columns', () => {
  it('chainHits gives the reference candidates and chains', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = prng(seed);
      const fp = queryOf(rnd, 1 + Math.floor(rnd() * (seed % 10 === 0 ? 800 : 200)));
      const hits = randomHits(rnd, fp, 1 + Math.floor(rnd() * 4));
      const [window, size] = seed % 3 === 0 ? [4, 3] : [8, 5];
      const minTokens = 1 + Math.floor(rnd() * 30);
      expect(chainHits(hits, fp, window, size, minTokens)).toEqual(chainHitsRef(hits, fp, window, size, minTokens));
    }
  });

  it('the in-memory index finds the postings of its lookups and chains them as the reference does', async () => {
    const core = await Core.create(await compileCore('simd'));
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = prng(seed);
      const fp = queryOf(rnd, 1 + Math.floor(rnd() * 300));
      const docs = 1 + Math.floor(rnd() * 4);
      const hits = randomHits(rnd, fp, docs);
      // the index: each hit a posting of its query shingle's key (stored with its halves swapped), and keys no
      // query holds; postings of one key in the order given
      const swap = (h: bigint) => ((h >> 32n) | (h << 32n)) & 0xffff_ffff_ffff_ffffn;
      const rows = hits.map((h) => ({ key: swap(fp.shingles.hashes[h.i]), doc: h.doc, start: h.start, end: h.end }));
      for (let k = Math.floor(rnd() * 50); k > 0; k--) rows.push({ key: BigInt(k) * 7919n, doc: 0, start: 0, end: 1 });
      rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const ds = ExactDataset.fromData(core, {
        descriptor: { id: 'chains', name: 'Chains', kind: 'exact' },
        params: 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=oph128;sh=off',
        docs: Array.from({ length: docs }, (_, d) => ({ id: `d${d}`, chars: 20_000, tokens: 10, bytes: 20_000 })),
        keys: BigUint64Array.from(rows, (r) => r.key),
        postDoc: Uint32Array.from(rows, (r) => r.doc),
        postStart: Uint32Array.from(rows, (r) => r.start),
        postEnd: Uint32Array.from(rows, (r) => r.end),
        minhash: new Uint32Array(docs * EXACT_MINHASH_K),
      });
      // what the lookups give: per query shingle, the postings of its key in index order, each 1 / their number
      const want: ShingleHit[] = [];
      const hitAt = new Uint8Array(fp.shingles.hashes.length);
      fp.shingles.hashes.forEach((h, i) => {
        const own = rows.filter((r) => r.key === swap(h));
        if (own.length > 0) hitAt[i] = 1;
        for (const r of own) want.push({ doc: r.doc, i, start: r.start, end: r.end, weight: 1 / own.length });
      });
      const minTokens = 1 + Math.floor(rnd() * 20);
      const chained = chainHitsRef(want, fp, 8, 5, minTokens);
      const ref = seedSearch('chains', hitAt, fp, 8, chained, (d) => `d${d}`, hitAt.filter((x) => x === 1).length);
      expect(ds.search(fp, 8, 5, minTokens)).toEqual(ref);
    }
  });
});
