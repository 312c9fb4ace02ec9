/**
 * A found passage is verified where its document holds it: the regions of one document are each aligned with their
 * own window, however close they lie (src/remote/search.ts `followUp`, `freeStretch`), the document's passages
 * joined into chains (src/remote/sampling.ts `alignedChains`); and the share's interval carries the finds that could
 * not be checked (src/corpus/share.ts `verifiedShare`, `unchecked`).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import type { Core } from '../../src/core/abi.js';
import { ALIGNMENT_KIT } from '../../src/corpus/alignment-kit.js';
import { estimateShare, verifiedShare, wilson } from '../../src/corpus/share.js';
import {
  charWindow,
  followUp,
  freeStretch,
  MARGIN_CHARS,
  Session,
  type Region,
  type SearchContext,
  type ShardWindow,
} from '../../src/remote/search.js';
import {
  alignedChains,
  DOCUMENT_REACH_CHARS,
  DOCUMENT_REACH_TOKENS,
  holdsNeighbour,
  PASSAGE_WORDS,
  VERIFY_WORDS,
} from '../../src/remote/sampling.js';

const RAW = readFileSync(new URL('../fixtures/texts/gutenberg/austen-persuasion.txt', import.meta.url), 'utf8');
/** The work: Persuasion's paragraphs, one a line (about 14,000 words). */
const PARAGRAPHS = RAW.replace(/\r/g, '')
  .split(/\n{2,}/)
  .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
  .filter((p) => p.split(' ').length >= 8);
const WORK = PARAGRAPHS.slice(0, 120).join('\n\n');
const wrap70 = (p: string) => p.replace(/(.{1,70})(?: |$)/g, '$1\n').trim();
const wordsOf = (t: string) => [...t.matchAll(/\S+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));

let core: Core;
beforeAll(async () => {
  core = ((await createEngine()) as unknown as { assertLive(): Core }).assertLive();
});

/** A search context over no endpoint: the windows come from the test's own fetch. */
function context(): SearchContext {
  return {
    config: {
      id: 'corpus',
      kind: 'infini-gram',
      index: 'v4_test_llama',
      endpoint: 'http://127.0.0.1:9/',
      maxCalls: 400,
      deadlineMs: 60_000,
      boilerplateCount: 1_000_000,
      cacheTtlMs: 0,
      concurrency: 8,
    },
    post: () => Promise.reject(new Error('no calls in this test')),
    core: () => core,
    kit: ALIGNMENT_KIT,
  };
}

/** Where the work's stretch `q0`–`q1` lies in `document` (its words, whatever white space between). */
function locate(document: string, q0: number, q1: number): { at: number; end: number } {
  const words = WORK.slice(q0, q1)
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const m = new RegExp(words.join('\\s+')).exec(document);
  if (!m) throw new Error('not in the document');
  return { at: m.index, end: m.index + m[0].length };
}

/** Sampled passages of 48 words every `gap` words, as regions (the found window: their middle 8 words). */
function regionsEvery(gap: number, from = 0, to = Number.POSITIVE_INFINITY): Region[] {
  const words = wordsOf(WORK);
  const out: Region[] = [];
  for (let w = 0; w + PASSAGE_WORDS < words.length; w += gap) {
    const q0 = words[w].start,
      q1 = words[w + PASSAGE_WORDS - 1].end;
    if (q0 < from || q1 > to) continue;
    const b0 = words[w + 20].start,
      b1 = words[w + 27].end;
    out.push({
      q0,
      q1,
      best: { start: 0, end: 8, q0: b0, q1: b1, count: 1, query: [1, 2, 3, 4, 5, 6, 7, 8] },
      start: -160,
      end: 168,
    });
  }
  return out;
}

/** Words of the stretch `q0`–`q1` of the work inside the document's chain that holds most of them. */
function heldWords(
  passages: Awaited<ReturnType<typeof followUp>>['passages'],
  r: { q0: number; q1: number },
): { within: number; beyond: number } {
  const count = (a: number, b: number) => (b > a ? wordsOf(WORK.slice(a, b)).length : 0);
  const chains = alignedChains(WORK, passages);
  const best = chains.sort(
    (x, y) => count(Math.max(y.q0, r.q0), Math.min(y.q1, r.q1)) - count(Math.max(x.q0, r.q0), Math.min(x.q1, r.q1)),
  )[0];
  if (!best) return { within: 0, beyond: 0 };
  return {
    within: count(Math.max(best.q0, r.q0), Math.min(best.q1, r.q1)),
    beyond: count(best.q0, r.q0) + count(r.q1, best.q1),
  };
}

describe('verified where the passage is', () => {
  it('every passage of a long document is aligned, however close the next one lies (hard-wrapped copy)', async () => {
    // one document of 500,000 characters: other text, the work hard-wrapped, other text
    const filler = 'lorem ipsum dolor sit amet '.repeat(9_000);
    const body = WORK.split('\n\n').map(wrap70).join('\n\n');
    const document = `${filler}\n\n${body}\n\n${filler}`.slice(0, 500_000);
    expect(document.length).toBe(500_000);
    // passages every 170 words (about 1,000 characters apart: a 14,000-word work sampled 80 times)
    const regions = regionsEvery(170);
    expect(regions.length).toBeGreaterThan(20);
    const ctx = context();
    const session = new Session(ctx, 400, {});
    let fetched = 0;
    const fetch = async (r: Region): Promise<ShardWindow> => {
      fetched++;
      // the window the engine gives around the found stretch: about 160 tokens (700 characters) each side
      const at = locate(document, r.best.q0, r.best.q1);
      const a = Math.max(0, at.at - 900),
        b = Math.min(document.length, at.end + 900);
      return {
        docIx: 3,
        docLen: 120_000,
        text: document.slice(a, b),
        needleAt: at.at - a,
        metadata: null,
        shard: 0,
        count: 1,
      };
    };
    try {
      const { passages, windows } = await followUp(ctx, session, WORK, regions, fetch);
      expect(windows).toBe(fetched);
      // the document's passages never overlap in the work (counted once in the evidence)
      const sorted = passages.map((p) => p.match).sort((x, y) => x.query_start - y.query_start);
      for (let i = 1; i < sorted.length; i++)
        expect(sorted[i].query_start).toBeGreaterThanOrEqual(sorted[i - 1].query_end);
      // every region's passage is held by the document's chain there: ≥ 20 of its words and more of the work around
      for (const r of regions) {
        const { within, beyond } = heldWords(passages, r);
        expect(within, `passage at ${r.q0}`).toBeGreaterThanOrEqual(VERIFY_WORDS);
        expect(within).toBeGreaterThanOrEqual(PASSAGE_WORDS - 2);
        expect(beyond).toBeGreaterThanOrEqual(10);
      }
    } finally {
      await session.end();
    }
  }, 60_000);

  it('a short document that ends inside a passage: the passage runs to the window’s edge there', async () => {
    // documents of about 600 characters, cut at a space: a passage of 48 words (about 270) often spans two
    const body = WORK.split('\n\n').join('\n\n');
    const documents: Array<{ start: number; text: string }> = [];
    for (let s = 0; s < body.length; ) {
      let e = Math.min(body.length, s + 600);
      if (e < body.length) e = body.lastIndexOf(' ', e) + 1;
      documents.push({ start: s, text: body.slice(s, e) });
      s = e;
    }
    const ctx = context();
    const session = new Session(ctx, 400, {});
    const regions = regionsEvery(300);
    const straddling = regions.filter((r) =>
      documents.some((d) => d.start > r.q0 && d.start < r.q1 && !(d.start > r.best.q0 && d.start < r.best.q1)),
    );
    expect(straddling.length).toBeGreaterThan(3);
    const fetch = async (r: Region): Promise<ShardWindow> => {
      const ix = documents.findIndex((d) => d.start <= r.best.q0 && r.best.q1 <= d.start + d.text.length);
      return { docIx: ix, docLen: 150, text: documents[ix].text, needleAt: 0, metadata: null, shard: 0, count: 1 };
    };
    try {
      const { passages } = await followUp(ctx, session, WORK, straddling, fetch);
      for (const r of straddling) {
        const mine = passages.filter((p) => p.match.query_start < r.q1 && r.q0 < p.match.query_end);
        expect(mine.length).toBeGreaterThan(0);
        // the passage reaches the document's edge inside the sampled passage
        expect(mine.some((p) => p.edges && (p.edges.start || p.edges.end))).toBe(true);
      }
    } finally {
      await session.end();
    }
  }, 60_000);

  it('infini-gram mini: the document window reaches as far as the region asks (calibration away from the find)', async () => {
    // a sampled passage's region with the reach of ./sampling.ts: the window asked must hold the region, the margin
    // and the reach on each side, or the calibration passages are aligned only right beside the passage found
    const asked: Array<Record<string, unknown>> = [];
    const post = async (body: Record<string, unknown>) => {
      asked.push(body);
      return { body: { doc_ix: 1, doc_len: 50_000, text: 'x'.repeat(100) }, ms: 0 };
    };
    const region = (reach?: number): Region => ({
      q0: 10_000,
      q1: 10_270,
      reach,
      best: {
        start: 0,
        end: 5,
        q0: 10_100,
        q1: 10_140,
        count: 1,
        query: 'a window',
        found: { cnt: 1, segments: [[7, 8]] },
      },
      start: 0,
      end: 0,
    });
    await charWindow(post, 'v2_test')(region(3_500));
    await charWindow(post, 'v2_test')(region());
    const [wide, near] = asked.map((b) => b.max_ctx_len as number);
    expect(asked[0]).toMatchObject({ query_type: 'get_doc_by_rank', s: 0, rank: 7 });
    expect(wide).toBeGreaterThanOrEqual(130 + MARGIN_CHARS + 3_500);
    // twice the reach fits in the window (./search.ts alignRegion aligns that far only then)
    expect(2 * wide).toBeGreaterThanOrEqual(2 * 3_500);
    expect(near).toBeGreaterThanOrEqual(130 + MARGIN_CHARS);
    expect(near).toBeLessThan(130 + MARGIN_CHARS + 3_500);
  });

  it('infini-gram: the token window holds twice the reach on the densest text (1.8 characters a token)', () => {
    // ./search.ts alignRegion aligns a region's reach only where the window holds twice it; the window is the tokens
    // on each side of the found run, so at the density of made-up words and code-like identifiers (Llama-2) it must
    // hold 2 × DOCUMENT_REACH_CHARS, or the calibration passages lie right beside the found one
    expect(2 * DOCUMENT_REACH_TOKENS * 1.8).toBeGreaterThanOrEqual(2 * DOCUMENT_REACH_CHARS);
  });

  it('freeStretch: a region aligns between the passages of its document found already', () => {
    const m = (doc: number, query_start: number, query_end: number) => ({
      match: { doc_ix: doc, shard: 0, query_start, query_end },
    });
    const w = { docIx: 7, shard: 0 };
    expect(freeStretch([], w, { q0: 1000, q1: 1300 })).toEqual({ lo: 0, hi: Number.POSITIVE_INFINITY });
    expect(freeStretch([m(7, 0, 900), m(7, 1800, 2500), m(8, 1100, 1200)], w, { q0: 1000, q1: 1300 })).toEqual({
      lo: 900,
      hi: 1800,
    });
    // a passage of the document across the region's middle: aligned there already
    expect(freeStretch([m(7, 900, 1200)], w, { q0: 1000, q1: 1300 })).toBeNull();
    // another shard's document of the same number is another document
    expect(
      freeStretch([{ match: { doc_ix: 7, shard: 1, query_start: 900, query_end: 1200 } }], w, { q0: 1000, q1: 1300 }),
    ).toEqual({
      lo: 0,
      hi: Number.POSITIVE_INFINITY,
    });
  });

  it('holdsNeighbour: the document runs on with the work beside the stretch (line breaks aside)', () => {
    const work = 'one two three four five six seven eight nine';
    const q0 = work.indexOf('three'),
      q1 = work.indexOf('six') + 3;
    expect(holdsNeighbour(work, { q0, q1 }, 'intro two\nthree four five and more')).toBe(true);
    expect(holdsNeighbour(work, { q0, q1 }, 'x four five six\nseven y')).toBe(true);
    // only the stretch, other words around it: what was sent
    expect(holdsNeighbour(work, { q0, q1 }, 'ten three four five six eleven')).toBe(false);
  });

  it('alignedChains joins a document’s passages that follow each other in the work', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen';
    const at = (w: string) => text.indexOf(w);
    const p = (a: string, b: string, edges?: { start: boolean; end: boolean }) => ({
      match: { query_start: at(a), query_end: at(b) + b.length } as never,
      edges,
    });
    const chains = alignedChains(text, [
      p('one', 'four', { start: true, end: false }),
      p('six', 'nine'),
      p('fourteen', 'fifteen', { start: false, end: true }),
    ]);
    expect(chains).toEqual([
      { q0: 0, q1: at('nine') + 4, start: true, end: false },
      { q0: at('fourteen'), q1: text.length, start: false, end: true },
    ]);
  });
});

describe('the interval carries the finds not checked', () => {
  it('unchecked finds: the estimate counts them at the checked rate, the interval from none to all held', () => {
    // 150 passages, 75 found, 36 fetched: 18 verified, 18 unchecked, none shown not held
    const base = { passages: 150, found: 75, fetched: 36, detection: { hits: 40, trials: 40 } };
    const share = verifiedShare({ ...base, verified: 18, unchecked: 18, ciRule: 'product' });
    expect(share.estimate).toBe(0.5);
    const [pLo, pHi] = wilson(75, 150);
    expect(share.ci_95[0]).toBeCloseTo(pLo * wilson(18, 36)[0], 4);
    expect(share.ci_95[1]).toBeCloseTo(Math.min(1, (pHi * wilson(36, 36)[1]) / wilson(40, 40)[0]), 4);
    expect(share.ci_95[0]).toBeLessThanOrEqual(0.5);
    expect(share.ci_95[1]).toBeGreaterThanOrEqual(0.5);
    // the old reading (unchecked as not held) halves the estimate and excludes the truth
    const old = verifiedShare({ ...base, verified: 18, ciRule: 'product' });
    expect(old.estimate).toBe(0.25);
    expect(old.ci_95[1]).toBeLessThan(0.5);
  });

  it('covers the truth whatever the verification rate (every unchecked find held)', () => {
    for (const v of [0, 5, 10, 20, 30, 36]) {
      const share = estimateShare({
        passages: 150,
        found: 75,
        fetched: 36,
        verified: v,
        unchecked: 36 - v,
        detection: { hits: 30, trials: 30 },
      });
      expect(share.ci_95[0]).toBeLessThanOrEqual(0.5);
      expect(share.ci_95[1]).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('the detection rate counted over its design effect: calibration pairs of one document widen the upper end', () => {
    const base = {
      passages: 150,
      found: 60,
      fetched: 30,
      verified: 30,
      unchecked: 0,
      detection: { hits: 80, trials: 90 },
      ciRule: 'product' as const,
    };
    const one = verifiedShare(base);
    const two = verifiedShare({ ...base, detectionDesignEffect: 2 });
    expect(two.estimate).toBe(one.estimate);
    expect(two.ci_95[0]).toBe(one.ci_95[0]);
    expect(two.ci_95[1]).toBeCloseTo(Math.min(1, wilson(60, 150)[1] / wilson(40, 45)[0]), 4);
    expect(two.ci_95[1]).toBeGreaterThan(one.ci_95[1]);
    expect(() => verifiedShare({ ...base, detectionDesignEffect: 0.5 })).toThrow(RangeError);
  });

  it('finds shown not held still lower the share; with none unchecked the rule is the earlier one', () => {
    const s = verifiedShare({ passages: 100, found: 40, fetched: 20, verified: 10, unchecked: 5 });
    // 10 verified of the 15 checked
    expect(s.estimate).toBeCloseTo(0.4 * (10 / 15), 4);
    // every found passage fetched: v/n to (v + u)/n
    const all = verifiedShare({ passages: 100, found: 20, fetched: 20, verified: 10, unchecked: 10 });
    expect(all.ci_95[0]).toBeCloseTo(wilson(10, 100)[0], 4);
    expect(all.estimate).toBe(0.2);
    expect(verifiedShare({ passages: 100, found: 20, fetched: 20, verified: 10, unchecked: 0 })).toEqual(
      verifiedShare({ passages: 100, found: 20, fetched: 20, verified: 10 }),
    );
    expect(() => verifiedShare({ passages: 100, found: 20, fetched: 20, verified: 10, unchecked: 11 })).toThrow(
      RangeError,
    );
  });
});
