/**
 * The content-word pairs of a text (candidate retrieval's second stage) against a plain reference: every token
 * stemmed and hashed afresh, no cache. The cache keyed by the characters in the normalised text must give the same
 * pairs — on prose, on random Unicode, and past the point where it starts afresh.
 */
import { describe, expect, it } from 'vitest';
import { porterStem, STOP_WORDS } from '../../../src/align/stem.js';
import {
  contentPairs,
  PAIR_REACH,
  PAIR_SAMPLE,
  pairsOfTokens,
  type ContentPairs,
  type TokenSource,
} from '../../../src/corpus/content-pairs.js';
import { ContentWordIndex } from '../../../src/corpus/content-words.js';
import { withTokenHashes } from '../../../src/fingerprint/words.js';
import { BUILDS, coreOf } from '../abi/helpers.js';
import { prng } from '../../reference/core.js';
import { normalize } from '../../../src/text/normalize.js';
import { randomText, randomWords } from './gen.js';

/** The pairs as first written: a Map-free, cache-free restatement of the definition. */
function referencePairs(text: string): ContentPairs {
  const { text: norm, map } = normalize(text);
  const words: number[] = [],
    starts: number[] = [],
    ends: number[] = [];
  let s = 0;
  for (const token of norm.length === 0 ? [] : norm.split(' ')) {
    const e = s + token.length;
    if (!STOP_WORDS.has(token) && token.length > 1) {
      let h = 0x811c9dc5;
      const stem = porterStem(token);
      for (let k = 0; k < stem.length; k++) h = Math.imul(h ^ stem.charCodeAt(k), 0x01000193);
      words.push(h >>> 0);
      starts.push(map[s]);
      ends.push(map[e]);
    }
    s = e + 1;
  }
  const H: number[] = [],
    S: number[] = [],
    E: number[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j <= i + PAIR_REACH && j < words.length; j++) {
      if (words[i] === words[j]) continue;
      let h = Math.imul(Math.min(words[i], words[j]) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.max(words[i], words[j]);
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
      h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
      h = (h ^ (h >>> 15)) >>> 0;
      if (h % PAIR_SAMPLE !== 0) continue;
      H.push(h);
      S.push(starts[i]);
      E.push(ends[j]);
    }
  }
  return { hashes: Uint32Array.from(H), starts: Uint32Array.from(S), ends: Uint32Array.from(E) };
}

const same = (a: ContentPairs, b: ContentPairs) => {
  expect(Array.from(a.hashes)).toEqual(Array.from(b.hashes));
  expect(Array.from(a.starts)).toEqual(Array.from(b.starts));
  expect(Array.from(a.ends)).toEqual(Array.from(b.ends));
};

describe('contentPairs = the cache-free reference', () => {
  it('on word texts with a shared vocabulary and on random Unicode', () => {
    for (let i = 0; i < 30; i++) {
      const text = i % 3 === 2 ? randomText(i, 2000, 0.7) : randomWords(i, 800).join(i % 2 ? ' ' : '\n');
      same(contentPairs(text), referencePairs(text));
      same(contentPairs(text), referencePairs(text)); // the second time from the cache
    }
  });

  it('past the point where the cache starts afresh (2^18 token forms)', () => {
    const forms = Array.from({ length: 300_000 }, (_, i) => `w${i.toString(36)}x`);
    const text = forms.join(' ');
    same(contentPairs(text), referencePairs(text));
    const again = forms.slice(0, 2000).join(' ');
    same(contentPairs(again), referencePairs(again));
  });
});

/** Prose with capitals, as texts have them: the core folds case while hashing, the table by the lower case. */
const capitalised = (seed: number, n: number) => {
  const rnd = prng(seed);
  return randomWords(seed, n)
    .map((w) => {
      const r = rnd();
      return r < 0.2 ? w[0].toUpperCase() + w.slice(1) : r < 0.25 ? w.toUpperCase() : w;
    })
    .join(' ');
};

describe.each(BUILDS)(
  "pairsOfTokens (from the core's tokens, %s) = the reference",
  (build) => {
    it('on prose with capitals, on random Unicode, and the same forms again from the table', async () => {
      const core = await coreOf(build);
      for (let i = 0; i < 30; i++) {
        const text = i % 3 === 2 ? randomText(100 + i, 2000, i % 2 ? 0.3 : 0.7) : capitalised(i, 800);
        same(
          withTokenHashes(core, text, (t) => pairsOfTokens(text, t)),
          referencePairs(text),
        );
        same(
          withTokenHashes(core, text, (t) => pairsOfTokens(text, t)),
          referencePairs(text),
        );
      }
      for (const text of ['', ' ', 'a', 'ﬁx ﬁx Ⅻ ① e\u0301clair', '\u00a0The\u2019s Caf\u00e9 CAFÉ café']) {
        same(
          withTokenHashes(core, text, (t) => pairsOfTokens(text, t)),
          referencePairs(text),
        );
      }
    });

    it('past the point where the table starts afresh (2^20 token forms)', async () => {
      const core = await coreOf(build);
      const forms = Array.from({ length: (1 << 20) + 5000 }, (_, i) => `Q${i.toString(36)}z`);
      for (let at = 0; at < forms.length; at += 1 << 18) {
        const text = forms.slice(at, at + (1 << 18)).join(' ');
        same(
          withTokenHashes(core, text, (t) => pairsOfTokens(text, t)),
          referencePairs(text),
        );
      }
      const again = forms.slice(0, 2000).join(' ');
      same(
        withTokenHashes(core, again, (t) => pairsOfTokens(again, t)),
        referencePairs(again),
      );
    });
  },
  60_000,
);

describe("ContentWordIndex.build from the core's tokens = from contentPairs", () => {
  it('the same postings for every pair of every document, texts not kept skipped', async () => {
    const core = await coreOf('core.simd.wasm');
    const texts = Array.from({ length: 60 }, (_, i) =>
      i % 7 === 3 ? null : i % 3 === 2 ? randomText(200 + i, 3000, 0.6) : capitalised(300 + i, 600),
    );
    const tokens: TokenSource = (text, use) => withTokenHashes(core, text, use);
    const fast = ContentWordIndex.build(texts, tokens),
      plain = ContentWordIndex.build(texts);
    expect(fast.bytes).toBe(plain.bytes);
    for (const text of texts) {
      if (text === null) continue;
      const q = contentPairs(text);
      const a = fast.postings(q),
        b = plain.postings(q);
      expect(Array.from(a.from)).toEqual(Array.from(b.from));
      expect(Array.from(a.to)).toEqual(Array.from(b.to));
      expect(fast.candidates(q, a)).toEqual(plain.candidates(q, b));
    }
  });
});

describe('ContentWordIndex.postings = a scan of the sorted keys', () => {
  it('on keys with runs of 1 to 5,000 postings, absent keys, and keys at both ends', () => {
    for (const seed of [1, 2, 3]) {
      const rnd = prng(seed);
      const distinct = Array.from({ length: 400 }, () => Math.floor(rnd() * 2 ** 32));
      distinct.push(0, 2 ** 32 - 1);
      const keys: number[] = [];
      for (const k of distinct) {
        const run = rnd() < 0.05 ? 1 + Math.floor(rnd() * 5000) : 1 + Math.floor(rnd() * 8);
        for (let r = 0; r < run; r++) keys.push(k);
      }
      const n = keys.length;
      const index = ContentWordIndex.fromPostings(
        Uint32Array.from(keys),
        Uint32Array.from(keys, (_, i) => i % 97),
        new Uint32Array(n),
        97,
      );
      const sorted = Uint32Array.from(keys).sort();
      const asked = [...distinct, ...Array.from({ length: 200 }, () => Math.floor(rnd() * 2 ** 32))];
      const q: ContentPairs = {
        hashes: Uint32Array.from(asked),
        starts: new Uint32Array(asked.length),
        ends: new Uint32Array(asked.length),
      };
      const at = index.postings(q);
      for (let i = 0; i < asked.length; i++) {
        const first = sorted.findIndex((k) => k >= asked[i]);
        const lo = first < 0 ? n : first;
        let hi = lo;
        while (hi < n && sorted[hi] === asked[i]) hi++;
        expect([at.from[i], at.to[i]]).toEqual([lo, hi]);
      }
    }
  });
});
