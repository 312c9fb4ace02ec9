/**
 * Near-duplicate documents in exact datasets (MinHash-LSH, src/datasets/exact.ts): real licence texts
 * that are near-duplicates of one another (SPDX texts), two editions of Alice, edited copies, snapshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type NearMatch, type SearchMatch } from '../../src/index.js';
import { fingerprintCore, winnowCore } from '../../src/fingerprint/fingerprint.js';
import type { Core } from '../../src/core/abi.js';
import { resolveOptions } from '../../src/fingerprint/options.js';
import { NEAR_BANDS, NEAR_K, NEAR_ROWS, nearCandidateProbability } from '../../src/datasets/exact.js';
import { prng } from '../reference/core.js';
import { aliceEditions, book, licences, LICENCE_IDS } from '../fixtures/texts/index.js';

const licence: Record<string, string> = licences();
const licenceNames: string[] = [...LICENCE_IDS].sort();
const { current: alice11, old: alice30 } = aliceEditions();
const code = (c: string) => expect.objectContaining({ code: c });
const near = (ms: readonly SearchMatch[]) => ms.filter((m): m is NearMatch => m.kind === 'near');

/**
 * `text` with a share `p` of its words replaced by fresh random words, in runs of `run`
 * consecutive words (run 1: scattered substitutions; run 5: phrase edits).
 */
function edit(text: string, p: number, seed: number, run: number): string {
  const rnd = prng(seed);
  const parts = text.split(/(\s+)/);
  const words = parts.map((_, i) => i).filter((i) => i % 2 === 0 && parts[i].length > 0);
  const target = Math.round(words.length * p);
  const changed = new Set<number>();
  while (changed.size < target) {
    const s = Math.floor(rnd() * words.length);
    for (let j = 0; j < run && changed.size < target && s + j < words.length; j++) {
      if (changed.has(s + j)) continue;
      changed.add(s + j);
      parts[words[s + j]] = `zq${Math.floor(rnd() * 2 ** 40).toString(36)}`;
    }
  }
  return parts.join('');
}

describe('near-duplicate documents (MinHash-LSH)', () => {
  let engine: Engine;
  /** Exact Jaccard similarity of the distinct word 5-gram sets. */
  let jaccard: (a: string, b: string) => number;

  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset(
      { id: 'licences' },
      licenceNames.map((n) => ({ id: n, text: licence[n] })),
    );
    await engine.addDataset({ id: 'alice' }, [{ id: 'alice-11', text: alice11 }]);
    await engine.addDataset(
      { id: 'no-gpl3' },
      licenceNames.filter((n) => n !== 'GPL-3.0-only').map((n) => ({ id: n, text: licence[n] })),
    );
    jaccard = (a, b) => {
      const A = new Set(engine.shingleHashes(a));
      const B = new Set(engine.shingleHashes(b));
      let both = 0;
      for (const x of A) if (B.has(x)) both++;
      return both / (A.size + B.size - both);
    };
  });

  it('LSH parameters and the S-curve 1 − (1 − J^r)^b', () => {
    expect([NEAR_K, NEAR_BANDS, NEAR_ROWS]).toEqual([128, 32, 4]);
    expect((1 / NEAR_BANDS) ** (1 / NEAR_ROWS)).toBeCloseTo(0.42, 3);
    expect(nearCandidateProbability(0.3)).toBeCloseTo(0.229, 3);
    expect(nearCandidateProbability(0.5)).toBeCloseTo(0.8732, 3);
    expect(nearCandidateProbability(0.6)).toBeCloseTo(0.9882, 3);
    expect(nearCandidateProbability(0.7)).toBeCloseTo(0.99985, 4);
  });

  it('indexing (winnowCore) and querying (fingerprintCore) compute the same OPH-128 signature over all shingles', () => {
    const core = (engine as unknown as { assertLive(): Core }).assertLive();
    const mh = { mode: 'oph', permutations: 128 } as const;
    for (const t of [licence['BSD-3-Clause'], licence['GPL-3.0-only'], 'one two three', '']) {
      const a = winnowCore(core, t, resolveOptions({ minhash: mh, simhash: false, workHash: false })).minhash!;
      const b = fingerprintCore(
        core,
        t,
        resolveOptions({ minhash: mh, simhash: false, workHash: false, winnow: false }),
      ).fp.minhash!;
      expect(a.length).toBe(128);
      expect(Array.from(a)).toEqual(Array.from(b));
      expect(Array.from(a)).toEqual(
        Array.from(engine.minhash(engine.shingleHashes(t), { k: 128, mode: 'oph', seed: 0 })),
      );
    }
    // portraits keep no signature
    const portraitLike = resolveOptions({ minhash: false, simhash: false, workHash: false });
    expect(winnowCore(core, licence['BSD-3-Clause'], portraitLike).minhash).toBeUndefined();
  });

  it('a verbatim licence is a near match to itself (score 1), after its exact passages', () => {
    for (const n of licenceNames) {
      const { matches } = engine.search(licence[n], { datasets: ['licences'] });
      expect(matches[0].kind, n).toBe('exact');
      const nm = near(matches);
      expect(nm[0], n).toEqual({
        kind: 'near',
        dataset_id: 'licences',
        document_id: n,
        query_start: 0,
        query_end: licence[n].length,
        source_start: 0,
        source_end: licence[n].length,
        tokens: engine.search(licence[n], { datasets: [] }).query_tokens,
        score: 1,
      });
      expect(matches.indexOf(nm[0])).toBe(matches.length - nm.length); // near matches come last
    }
  });

  it('every licence with 5 % of its words changed in phrase edits (runs of 5 words) → near match to it, score ≥ 0.7', () => {
    const rows: string[] = [];
    for (const [i, n] of licenceNames.entries()) {
      const q = edit(licence[n], 0.05, 100 + i, 5);
      const nm = near(engine.search(q, { datasets: ['licences'] }).matches);
      const j = jaccard(q, licence[n]);
      rows.push(`${n} J ${j.toFixed(3)} est ${nm[0]?.document_id === n ? nm[0].score.toFixed(3) : '-'}`);
      expect(nm[0]?.document_id, n).toBe(n);
      expect(nm[0].score, n).toBeGreaterThanOrEqual(0.7);
      expect(Math.abs(nm[0].score - j), n).toBeLessThan(0.15); // ≈ 3.5 standard errors of a 128-value estimate
      expect(nm[0].tokens).toBe(engine.search(q, { datasets: [] }).query_tokens);
    }
    console.log(`5 % phrase edits (runs of 5 words): ${rows.join('; ')}`);
  });

  it('5 % scattered single-word substitutions leave J ≈ 0.64 (each edit breaks five 5-grams): above the 0.42 LSH threshold, found', () => {
    let found = 0;
    const rows: string[] = [];
    for (const [i, n] of licenceNames.entries()) {
      const q = edit(licence[n], 0.05, 200 + i, 1);
      const j = jaccard(q, licence[n]);
      expect(j, n).toBeGreaterThan(0.6);
      expect(j, n).toBeLessThan(0.72);
      const nm = near(engine.search(q, { datasets: ['licences'] }).matches);
      for (const m of nm) expect(m.score).toBeGreaterThanOrEqual(0.5);
      const mine = nm.find((m) => m.document_id === n);
      if (mine) found++;
      rows.push(`${n} J ${j.toFixed(3)} est ${mine ? mine.score.toFixed(3) : '-'}`);
    }
    expect(found).toBeGreaterThanOrEqual(licenceNames.length - 2);
    console.log(
      `5 % scattered substitutions: found ${found}/${licenceNames.length} (LSH P at J 0.64 ≈ ${nearCandidateProbability(0.64).toFixed(2)}): ${rows.join('; ')}`,
    );
  });

  it('the other Alice edition is a near match', () => {
    const { matches } = engine.search(alice30, { datasets: ['alice'] });
    const nm = near(matches);
    expect(nm.length).toBe(1);
    expect(nm[0]).toMatchObject({
      dataset_id: 'alice',
      document_id: 'alice-11',
      query_start: 0,
      query_end: alice30.length,
      source_end: alice11.length,
    });
    expect(nm[0].score).toBeGreaterThanOrEqual(0.9);
    console.log(`Alice editions: J ${jaccard(alice30, alice11).toFixed(4)}, estimate ${nm[0].score.toFixed(4)}`);
  });

  it('near-duplicate licences in the corpus: GFDL-1.2 finds GFDL-1.3 (J 0.85); measured estimates vs exact Jaccard', () => {
    const nm = near(engine.search(licence['GFDL-1.2-only'], { datasets: ['licences'] }).matches);
    expect(nm.map((m) => m.document_id)).toEqual(['GFDL-1.2-only', 'GFDL-1.3-only']);
    expect(nm[1].score).toBeGreaterThan(0.7);
    const pairs = [
      ['GFDL-1.2-only', 'GFDL-1.3-only'],
      ['LGPL-2.0-only', 'LGPL-2.1-only'],
      ['GPL-1.0-only', 'GPL-2.0-only'],
      ['GPL-2.0-only', 'LGPL-2.1-only'],
      ['GPL-2.0-only', 'GPL-3.0-only'],
      ['MPL-1.1', 'MPL-2.0'],
      ['GPL-3.0-only', 'LGPL-3.0-only'],
      ['Apache-2.0', 'GPL-3.0-only'],
    ];
    const rows: string[] = [];
    for (const [a, b] of pairs) {
      const j = jaccard(licence[a], licence[b]);
      // the estimate, whether or not LSH makes the pair a candidate: the query's signature against b's
      const est = near(engine.search(licence[a], { datasets: ['licences'], near: 1e-9 }).matches).find(
        (m) => m.document_id === b,
      );
      const sa = engine.minhash(engine.shingleHashes(licence[a]), { k: 128, mode: 'oph' });
      const sb = engine.minhash(engine.shingleHashes(licence[b]), { k: 128, mode: 'oph' });
      const e = sa.reduce((s, v, i) => s + (v === sb[i] ? 1 : 0), 0) / 128;
      if (est) expect(est.score).toBe(e);
      expect(Math.abs(e - j), `${a} / ${b}`).toBeLessThan(0.15);
      rows.push(
        `${a}/${b} J ${j.toFixed(3)} est ${e.toFixed(3)} P(cand) ${nearCandidateProbability(j).toFixed(3)} ${est ? 'candidate' : 'not a candidate'}`,
      );
    }
    console.log(`licence pairs: ${rows.join('; ')}`);
  });

  it('unrelated documents give no near match', () => {
    for (const q of [
      book('austen-persuasion'),
      book('chesterton-thursday').slice(0, 20_000),
      alice30.slice(0, 30_000),
      licence['GPL-3.0-only'],
    ]) {
      expect(near(engine.search(q, { datasets: ['no-gpl3', 'alice'] }).matches)).toEqual([]);
    }
    // GPL-3 vs LGPL-3 (which incorporates it by reference): J 0.02
    expect(near(engine.search(licence['GPL-3.0-only'], { datasets: ['no-gpl3'], near: 0.05 }).matches)).toEqual([]);
  });

  it('empty documents and queries never near-match (the empty set has no signature)', async () => {
    const e = await createEngine();
    await e.addDataset({ id: 'tiny' }, [
      { id: 'empty', text: '' },
      { id: 'blank', text: '  \n ' },
      { id: 'bsd', text: licence['BSD-3-Clause'] },
    ]);
    expect(e.search('').matches).toEqual([]);
    expect(e.search('   ').matches).toEqual([]);
    expect(near(e.search(licence['BSD-3-Clause']).matches).map((m) => m.document_id)).toEqual(['bsd']);
    const back = await createEngine();
    await back.importDataset(e.exportDataset('tiny'));
    expect(back.search('').matches).toEqual([]);
    expect(back.search(licence['BSD-3-Clause'])).toEqual(e.search(licence['BSD-3-Clause']));
  });

  it('export → import → the same near matches (LSH rebuilt from the stored signatures)', async () => {
    const other = await createEngine();
    for (const id of ['licences', 'alice']) {
      const stats = await other.importDataset(engine.exportDataset(id));
      expect(stats).toEqual(engine.datasets().find((d) => d.id === id));
    }
    const queries = [
      alice30,
      licence['GFDL-1.2-only'],
      edit(licence['GPL-2.0-only'], 0.05, 7, 5),
      edit(licence['MPL-2.0'], 0.05, 8, 1),
      book('austen-persuasion').slice(0, 50_000),
    ];
    for (const q of queries) {
      for (const nearOpt of [undefined, 0.05, 0.9]) {
        const opts = { datasets: ['licences', 'alice'], ...(nearOpt === undefined ? {} : { near: nearOpt }) };
        const a = engine.search(q, opts);
        expect(other.search(q, opts)).toEqual(a);
      }
    }
    expect(near(other.search(alice30).matches).map((m) => m.document_id)).toEqual(['alice-11']);
    // a dataset grown after import keeps its old signatures and indexes the new ones
    await other.addDataset({ id: 'alice' }, [{ id: 'alice-30', text: alice30 }]);
    expect(
      near(other.search(alice11, { datasets: ['alice'] }).matches)
        .map((m) => m.document_id)
        .sort(),
    ).toEqual(['alice-11', 'alice-30']);
  });

  it('near must be a number in (0, 1]', () => {
    for (const bad of [0, -0.1, 1.0001, Number.NaN, Infinity, -Infinity, '0.5', true]) {
      expect(() => engine.search('text', { near: bad } as never), String(bad)).toThrow(code('INVALID_OPTIONS'));
    }
    expect(
      near(engine.search(licence['BSD-3-Clause'], { datasets: ['licences'], near: 1 }).matches).map(
        (m) => m.document_id,
      ),
    ).toEqual(['BSD-3-Clause']);
  });
});
