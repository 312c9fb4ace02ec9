/**
 * The chain null of a pack's kind (src/datasets/chain-null.ts): its rule — a chain's chance is at least
 * m · start · extend^(r − 3) — known answers of the measurement's tally (bench/chain-null.mjs), and the check of a
 * null read from a file.
 */
import { describe, expect, it } from 'vitest';
import { type ChainNull, chainNullChance, checkChainNull } from '../../src/datasets/chain-null.js';
import { checkPortraitBackground, DEFAULT_PORTRAIT_BACKGROUND } from '../../src/datasets/background.js';
// @ts-expect-error plain JS module shared with bench/measure-chain-null.mjs
import * as measure from '../../bench/chain-null.mjs';

const { ChainNullTally, chainNullOf, markShared, plainWords, SHARED_RUN, wilsonUpper } = measure;

const measured_on = { corpus: 'test', texts: 1, fingerprints: 1, chains: 0, longest: 0, date: '2026-01-02' };
const nul: ChainNull = { start: 2e-4, extend: 0.5, measured_on };

describe('the rule of the chain null', () => {
  it('is the expected number of formula chains at least this long, at most 1', () => {
    expect(chainNullChance(3, 100, nul)).toBeCloseTo(0.02, 12);
    expect(chainNullChance(5, 100, nul)).toBeCloseTo(0.005, 12);
    // twice the query, twice the places a formula can chain
    expect(chainNullChance(5, 200, nul)).toBeCloseTo(0.01, 12);
    expect(chainNullChance(3, 1e6, nul)).toBe(1);
    // a chain shorter than the locator's shortest is never evidence
    expect(chainNullChance(2, 100, nul)).toBe(1);
  });

  it('falls with every agreeing hit, so a long copy still beats any alpha a formula cannot', () => {
    for (let r = 3; r < 60; r++) expect(chainNullChance(r + 1, 100, nul)).toBeLessThan(chainNullChance(r, 100, nul));
    // the failing formula of a station article: 4 agreeing hits in 35 fingerprints, under a Wikipedia pack's null
    expect(chainNullChance(4, 35, { ...nul, start: 2.64e-4, extend: 0.3 })).toBeGreaterThan(1e-4);
    // a 90-word copy at window 4 (about 36 agreeing hits) under the same null
    expect(chainNullChance(36, 36, { ...nul, start: 2.64e-4, extend: 0.3 })).toBeLessThan(1e-15);
  });
});

describe('the measurement', () => {
  it('tallies chains of at least 3 and pools the tail from 4 to 7 (known answer)', () => {
    const t = new ChainNullTally();
    t.add(1000, [3, 4, 4, 5, 9, 2]);
    t.add(500, []);
    const n = t.result('c', '2026-01-02');
    expect(n.measured_on).toEqual({
      corpus: 'c',
      texts: 2,
      fingerprints: 1500,
      chains: 5,
      longest: 9,
      date: '2026-01-02',
    });
    // start: 5 chains in 1,500 fingerprints; extend: ≥5, ≥6, ≥7, ≥8 over ≥4 … ≥7 = (2 + 1 + 1 + 1) / (4 + 2 + 1 + 1),
    // with 10 pseudo-chains at 0.5
    expect(n.start).toBe(Math.round(wilsonUpper(5, 1500) * 1e6) / 1e6);
    expect(n.extend).toBe(Math.round(wilsonUpper(5 + 5, 8 + 10) * 1e6) / 1e6);
    expect(n.start).toBeGreaterThan(5 / 1500);
    expect(() => new ChainNullTally().result('c', '2026-01-02')).toThrow(/no fingerprints/);
  });

  it('leaves out chains whose span a packed document holds as a run of 24 words, not shorter formulas', () => {
    const copy = plainWords('one two three four five six seven eight nine ten '.repeat(4)).join(' ');
    const formula = 'in fiscal 2019 the station was used by an average of';
    const rows = [
      {
        tested: 100,
        chains: [
          { agreeing: 12, text: copy },
          { agreeing: 4, text: formula },
        ],
      },
    ];
    markShared(rows, [`Packed: ${copy}. Also: ${formula}.`]);
    expect(rows[0].chains.map((c) => (c as { shared?: boolean }).shared)).toEqual([true, false]);
    const { chains, shared } = chainNullOf(rows, 'c', '2026-01-02');
    expect(shared).toBe(1);
    expect(chains.measured_on.longest).toBe(4);
    expect(SHARED_RUN).toBe(24);
  });
});

describe('a chain null read from a file', () => {
  it('is kept in a background, and anything else is refused naming where', () => {
    const bg = checkPortraitBackground({ ...DEFAULT_PORTRAIT_BACKGROUND, chains: nul });
    expect(bg.chains).toEqual(nul);
    expect(checkChainNull({ ...nul, extra: 1 }, 'x')).toEqual(nul);
    expect(checkChainNull(nul, 'x').measured_on).not.toBe(nul.measured_on);
    for (const bad of [
      null,
      { ...nul, start: 0 },
      { ...nul, extend: 1.5 },
      { ...nul, start: '0.1' },
      { ...nul, measured_on: { ...measured_on, corpus: 3 } },
    ])
      expect(() => checkChainNull(bad, 'index.packs[0].background.chains')).toThrow(/background\.chains/);
    expect(() => checkPortraitBackground({ ...DEFAULT_PORTRAIT_BACKGROUND, chains: { start: 1 } })).toThrow(/chains/);
  });
});
