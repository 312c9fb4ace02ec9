import { describe, expect, it } from 'vitest';
import {
  vouchedExtent,
  vouchSpans,
  wellFormedSpans,
  type PostingColumnsData,
} from '../../../src/datasets/posting-spans.js';
import { Core } from '../../../src/core/abi.js';
import { compileCore } from '../../../src/core/load.js';
import { ExactDataset } from '../../../src/datasets/exact.js';
import {
  decodeDatasetLazily,
  EXACT_MINHASH_K,
  encodeDataset,
  type ExactDatasetData,
} from '../../../src/datasets/snapshot.js';
import { prng } from '../../reference/core.js';

/**
 * The checks the one pass stands for, as they were written before it, one rule at a time: null when any posting
 * breaks one, else the largest start and the longest span.
 */
function reference(data: PostingColumnsData): { maxStart: number; maxLength: number } | null {
  const { keys, postDoc, postStart, postEnd, docs } = data;
  const n = keys.length;
  if (postDoc.length !== n || postStart.length !== n || postEnd.length !== n) return null;
  for (let i = 0; i < n; i++) if (postDoc[i] >= docs.length || postStart[i] > postEnd[i]) return null;
  for (let i = 1; i < n; i++) if (keys[i] < keys[i - 1]) return null;
  let maxStart = 0;
  let maxLength = 0;
  for (let i = 0; i < n; i++) {
    if (!(postEnd[i] <= docs[postDoc[i]].chars)) return null;
    maxStart = Math.max(maxStart, postStart[i]);
    maxLength = Math.max(maxLength, postEnd[i] - postStart[i]);
  }
  return { maxStart, maxLength };
}

/** Random well-formed columns, then at most one fault of each kind planted at a random posting. */
function columns(random: () => number): PostingColumnsData {
  const docs = Array.from({ length: 1 + Math.floor(random() * 6) }, () => ({
    chars: Math.floor(random() * (random() < 0.1 ? 2 ** 32 : 5000)),
  }));
  const n = Math.floor(random() * 40);
  const keys = new BigUint64Array(n);
  const postDoc = new Uint32Array(n);
  const postStart = new Uint32Array(n);
  const postEnd = new Uint32Array(n);
  let key = 0n;
  for (let i = 0; i < n; i++) {
    // steps across both u32 halves, equal keys included
    key += random() < 0.2 ? 0n : BigInt(Math.floor(random() * 2 ** 32)) * BigInt(1 + Math.floor(random() * 2 ** 20));
    keys[i] = key & 0xffffffffffffffffn;
    postDoc[i] = Math.floor(random() * docs.length);
    const chars = docs[postDoc[i]].chars;
    postEnd[i] = Math.floor(random() * (chars + 1));
    postStart[i] = Math.floor(random() * (postEnd[i] + 1));
  }
  if (n > 0) {
    const at = () => Math.floor(random() * n);
    const fault = random();
    if (fault < 0.1) postDoc[at()] = docs.length + Math.floor(random() * 3);
    else if (fault < 0.2) postStart[at()] = 0xffffffff;
    else if (fault < 0.3) postEnd[at()] += 1 + Math.floor(random() * 3);
    else if (fault < 0.4 && n > 1) {
      const i = 1 + Math.floor(random() * (n - 1));
      keys[i] = keys[i - 1] - 1n - BigInt(Math.floor(random() * 2 ** 40));
    } else if (fault < 0.45) postEnd[at()] = 0xffffffff;
  }
  return { keys, postDoc, postStart, postEnd, docs };
}

describe('the postings checked in one pass', () => {
  it('agrees with the checks one rule at a time, faults planted or not (2,000 random column sets)', () => {
    const random = prng(0x5ca9);
    let refused = 0;
    for (let round = 0; round < 2000; round++) {
      const data = columns(random);
      const expected = reference(data);
      expect(wellFormedSpans(data), `round ${round}`).toEqual(expected);
      if (expected === null) refused++;
    }
    // both outcomes are exercised
    expect(refused).toBeGreaterThan(400);
    expect(refused).toBeLessThan(1600);
  });

  it('refuses columns of different lengths, and passes the empty set', () => {
    const ok = {
      keys: new BigUint64Array(0),
      postDoc: new Uint32Array(0),
      postStart: new Uint32Array(0),
      postEnd: new Uint32Array(0),
      docs: [],
    };
    expect(wellFormedSpans(ok)).toEqual({ maxStart: 0, maxLength: 0 });
    expect(wellFormedSpans({ ...ok, postEnd: new Uint32Array(1) })).toBeNull();
  });

  it('hands its extent on only for the very columns and documents it vouched for', () => {
    const data = {
      keys: new BigUint64Array([1n, 2n]),
      postDoc: new Uint32Array([0, 0]),
      postStart: new Uint32Array([0, 4]),
      postEnd: new Uint32Array([3, 9]),
      docs: [{ chars: 9 }],
    };
    expect(vouchedExtent(data)).toBeNull();
    const extent = wellFormedSpans(data);
    expect(extent).toEqual({ maxStart: 4, maxLength: 5 });
    vouchSpans(data, extent!);
    expect(vouchedExtent(data)).toEqual(expect.objectContaining({ maxStart: 4, maxLength: 5 }));
    expect(vouchedExtent({ ...data, postEnd: data.postEnd.slice() })).toBeNull();
    expect(vouchedExtent({ ...data, postDoc: data.postDoc.slice() })).toBeNull();
    expect(vouchedExtent({ ...data, docs: [{ chars: 9 }] })).toBeNull();
  });
});

/** A snapshot's data: two documents, four postings, the last span ending at `lastEnd` in a document of 20 units. */
function snapshotData(lastEnd: number): ExactDatasetData {
  return {
    descriptor: { id: 'spans', name: 'Spans', kind: 'exact' },
    params: 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=oph128;sh=off',
    docs: [
      { id: 'a', chars: 10, tokens: 2, bytes: 10 },
      { id: 'b', chars: 20, tokens: 4, bytes: 20 },
    ],
    keys: new BigUint64Array([1n, 5n, 5n, 0xffff_ffff_ffff_ffffn]),
    postDoc: new Uint32Array([0, 1, 0, 1]),
    postStart: new Uint32Array([0, 3, 4, 7]),
    postEnd: new Uint32Array([5, 9, 4, lastEnd]),
    minhash: new Uint32Array(2 * EXACT_MINHASH_K),
  };
}

describe('an import: the decode vouches, the index takes its word', () => {
  it('a decoded snapshot brings its extent, and the index laid out from it holds the same spans', async () => {
    const data = decodeDatasetLazily(encodeDataset(snapshotData(20))) as ExactDatasetData;
    expect(vouchedExtent(data)).toEqual(expect.objectContaining({ maxStart: 7, maxLength: 13 }));
    const core = await Core.create(await compileCore('simd'));
    const ds = ExactDataset.fromData(core, data);
    const back = ds.toData();
    expect([...back.postStart]).toEqual([0, 3, 4, 7]);
    expect([...back.postEnd]).toEqual([5, 9, 4, 20]);
  });

  it('a span past its document is not vouched for, and the index refuses it as before', async () => {
    // the encoder does not hold spans against their documents' lengths; the index does
    const data = decodeDatasetLazily(encodeDataset(snapshotData(21))) as ExactDatasetData;
    expect(vouchedExtent(data)).toBeNull();
    const core = await Core.create(await compileCore('simd'));
    expect(() => ExactDataset.fromData(core, data)).toThrow(/posting 3 ends past its document/);
  });
});
