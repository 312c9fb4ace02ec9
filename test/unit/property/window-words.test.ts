/**
 * The walk's window words from the core's tokenizer (src/align/window-words.ts) against the walk's words as
 * strings: each window normalised, split at its spaces, its words numbered through a Map of the strings. Where the
 * core's path answers, the spans and ids must be those; where it declines (a form it cannot check), the walk takes
 * the strings' path, so a decline is never wrong — but it must be rare on prose. And the aligner's tokens from the
 * core (`tokenize(text, core)`): the same spans and lexicon ids as `tokenize(text)`, new forms interned in the same
 * order.
 */
import { describe, expect, it } from 'vitest';
import { sameAsciiForm, ASCII_WORD } from '../../../src/align/ascii-forms.js';
import { copySpans } from '../../../src/align/copies.js';
import { lexicon, tokenize, TokenizedText, type Tokens } from '../../../src/align/tokens.js';
import { windowWordIds } from '../../../src/align/window-words.js';
import type { Core } from '../../../src/core/abi.js';
import { withTokenHashes } from '../../../src/fingerprint/words.js';
import { normalize } from '../../../src/text/normalize.js';
import { prng } from '../../reference/core.js';
import { windowIdsRef, type WindowTokensRef } from '../../reference/window-ids.js';
import { BUILDS, coreOf } from '../abi/helpers.js';
import { randomText, randomWords } from './gen.js';

/** The reference: both windows normalised as strings, the query's words numbered in order of first sight. */
function referenceIds(query: string, q0: number, q1: number, text: string, s0: number, s1: number) {
  const words = (t: string, from: number, to: number) => {
    const { text: norm, map } = normalize(t.slice(from, to));
    const word = norm.length === 0 ? [] : norm.split(' ');
    const start: number[] = [],
      end: number[] = [];
    for (let i = 0, at = 0; i < word.length; i++) {
      start.push(from + map[at]);
      end.push(from + map[at + word[i].length]);
      at += word[i].length + 1;
    }
    return { word, start, end };
  };
  const q = words(query, q0, q1),
    s = words(text, s0, s1);
  const ids = new Map<string, number>();
  for (const w of q.word) if (!ids.has(w)) ids.set(w, ids.size);
  return {
    q: { start: q.start, end: q.end },
    s: { start: s.start, end: s.end },
    Q: q.word.map((w) => ids.get(w)!),
    S: s.word.map((w) => ids.get(w) ?? -1),
  };
}

const plain = (w: NonNullable<ReturnType<typeof windowWordIds>>) => ({
  q: { start: Array.from(w.q.start), end: Array.from(w.q.end) },
  s: { start: Array.from(w.s.start), end: Array.from(w.s.end) },
  Q: Array.from(w.Q),
  S: Array.from(w.S),
});

/** Prose with capitals and punctuation, as outputs and documents have them. */
function prose(seed: number, n: number): string {
  const rnd = prng(seed);
  return randomWords(seed, n)
    .map((w) => {
      const r = rnd();
      const word = r < 0.15 ? w[0].toUpperCase() + w.slice(1) : r < 0.2 ? w.toUpperCase() : w;
      const p = rnd();
      return p < 0.08 ? `${word},` : p < 0.12 ? `${word}.` : p < 0.14 ? `\u201c${word}\u201d` : word;
    })
    .join(rnd() < 0.5 ? ' ' : '\n');
}

/** A window of `t` from a random point to a random later one (cut anywhere, inside words too). */
function cut(rnd: () => number, t: string): [number, number] {
  const a = Math.floor(rnd() * t.length),
    b = a + Math.floor(rnd() * (t.length - a + 1));
  return [a, b];
}

describe.each(BUILDS)(
  "the walk's window words from the core (%s) = the words as strings",
  (build) => {
    it('on prose with capitals and punctuation, on random Unicode, on windows cut anywhere', async () => {
      const core = await coreOf(build);
      const rnd = prng(8311);
      let answered = 0,
        prosePairs = 0,
        proseAnswered = 0;
      for (let t = 0; t < 240; t++) {
        const kind = t % 4;
        const query = kind === 3 ? randomText(500 + t, 600, 0.6) : prose(t, 300);
        const text = kind === 3 ? randomText(900 + t, 1500, 0.6) : `${prose(t + 7, 200)} ${query.slice(100, 900)}`;
        const [q0, q1] = kind === 0 ? [0, query.length] : cut(rnd, query);
        const [s0, s1] = kind === 0 ? [0, text.length] : cut(rnd, text);
        let want: ReturnType<typeof referenceIds> | null = null;
        try {
          want = referenceIds(query, q0, q1, text, s0, s1);
        } catch {
          // a window cut inside a surrogate pair: the core's path must decline it too
        }
        const got = windowWordIds(core, query, q0, q1, text, s0, s1);
        if (want === null) expect(got, `case ${t}`).toBeNull();
        else if (got !== null) {
          expect(plain(got), `case ${t}`).toEqual(want);
          answered++;
        }
        if (kind !== 3) {
          prosePairs++;
          if (got !== null) proseAnswered++;
        }
      }
      // prose (ASCII words, curly quotes) is settled by the core's path every time
      expect(proseAnswered).toBe(prosePairs);
      expect(answered).toBeGreaterThan(prosePairs);
    });

    it('edge cases: empty windows, case only, ligatures and accents (declined or equal), digits', async () => {
      const core = await coreOf(build);
      const cases: Array<[string, string]> = [
        ['', ''],
        ['The cat. THE CAT', 'a cat'],
        ['ﬁx fix FIX', 'fix ﬁx'],
        ['Caf\u00e9 cafe\u0301 CAF\u00c9', 'caf\u00e9'],
        ['x1 X1 1x 2024 ２０２４', '2024 x1'],
        ['\u00a0The\u2019s dog\u2014the dog', 'the dog\u2019s'],
        ['日本語 日本', '本日'],
      ];
      for (const [query, text] of cases) {
        const want = referenceIds(query, 0, query.length, text, 0, text.length);
        const got = windowWordIds(core, query, 0, query.length, text, 0, text.length);
        if (got !== null) expect(plain(got), query).toEqual(want);
      }
      // ASCII forms in any case are always settled
      expect(windowWordIds(core, 'The cat. THE CAT', 0, 16, 'a cat', 0, 5)).not.toBeNull();
      // a form outside ASCII met twice is left to the strings' path
      expect(windowWordIds(core, 'caf\u00e9 caf\u00e9', 0, 9, 'x', 0, 1)).toBeNull();
    });

    it('copySpans with the core = copySpans without it, on planted copies with edits', async () => {
      const core = await coreOf(build);
      const rnd = prng(8312);
      let spans = 0;
      for (let t = 0; t < 80; t++) {
        const doc = prose(2000 + t, 600);
        const words = doc.split(' ');
        const from = Math.floor(rnd() * 400),
          to = from + 40 + Math.floor(rnd() * 60);
        const passage = words.slice(from, to);
        for (let e = Math.floor(rnd() * 4); e > 0; e--) passage[Math.floor(rnd() * passage.length)] = 'Edited';
        const lead = prose(3000 + t, 40),
          tail = prose(4000 + t, 40);
        const query = `${lead} ${passage.join(' ')} ${tail}`;
        const q0 = lead.length + 1,
          q1 = q0 + passage.join(' ').length;
        const s0 = words.slice(0, from).join(' ').length + 1;
        const regions = [{ query_start: q0 + 5, query_end: q1 - 5, source_start: s0 + 5, source_end: s0 + 40 }];
        const windows = [{ q0: 0, q1: query.length, s0: 0, s1: doc.length }];
        const want = copySpans(query, doc, windows, regions);
        expect(copySpans(query, doc, windows, regions, core), `case ${t}`).toEqual(want);
        if (want !== null) spans++;
      }
      expect(spans).toBeGreaterThan(10);
    });
  },
  60_000,
);

/** A window's tokens from the core's tokenizer, as the reference reads them (spans in the window's text). */
function refTokens(core: Core, text: string, from: number, to: number): WindowTokensRef {
  const slice = text.slice(from, to);
  return withTokenHashes(core, slice, (t) => ({
    text: slice,
    start: Array.from(t.starts),
    end: Array.from(t.ends),
    hash: Array.from({ length: t.count }, (_, i) => BigInt(t.hashes[2 * i]) | (BigInt(t.hashes[2 * i + 1]) << 32n)),
  }));
}

/**
 * The numbering the kernel replaced: in JavaScript, by the low 32 bits of each hash, with the same check of the
 * characters (a form outside ASCII letters and digits met twice, or two spellings of one key, give up the windows).
 */
function jsIds(core: Core, query: string, q0: number, q1: number, text: string, s0: number, s1: number) {
  const ids = new Map<number, number>();
  const forms: string[] = [];
  const name = (t: string, from: number, to: number, add: boolean) =>
    withTokenHashes(core, t.slice(from, to), (k) => {
      const out: number[] = [];
      for (let i = 0; i < k.count; i++) {
        const key = k.hashes[2 * i] | 0,
          a = from + k.starts[i],
          b = from + k.ends[i];
        const id = ids.get(key);
        if (id === undefined) {
          if (!add) {
            out.push(-1);
            continue;
          }
          ids.set(key, forms.length);
          const form = t.slice(a, b);
          forms.push(ASCII_WORD.test(form) ? form : '');
          out.push(forms.length - 1);
        } else if (sameAsciiForm(forms[id], t, a, b)) out.push(id);
        else return null;
      }
      return out;
    });
  try {
    const Q = name(query, q0, q1, true);
    if (Q === null) return null;
    const S = name(text, s0, s1, false);
    return S === null ? null : { Q, S };
  } catch {
    return null; // a lone surrogate
  }
}

/** Words with case variants, forms outside ASCII met again, marks, ideographs. */
function mixed(seed: number, n: number): string {
  const rnd = prng(seed);
  const pool = [
    'Caf\u00e9',
    'caf\u00e9',
    'cafe\u0301',
    'CAF\u00c9',
    '\u65e5\u672c',
    '\u1100\u1161',
    'e\u0301',
    '\ufb01x',
  ];
  return randomWords(seed, n)
    .map((w) => {
      const r = rnd();
      if (r < 0.04) return pool[(rnd() * pool.length) | 0];
      if (r < 0.06) return `${w}\u2014${w.toUpperCase()}`;
      if (r < 0.08) return `\u{1F600}${w}`;
      return r < 0.25 ? w.toUpperCase() : w;
    })
    .join(rnd() < 0.5 ? ' ' : '\u00a0');
}

describe.each(BUILDS)(
  "the core's window ids (%s) = the reference's, and settle every window the JavaScript numbering settled",
  (build) => {
    it('on prose, mixed words, random Unicode; windows whole and cut anywhere', async () => {
      const core = await coreOf(build);
      const rnd = prng(8321);
      let answered = 0,
        declined = 0,
        beyondJs = 0;
      for (let t = 0; t < 300; t++) {
        const kind = t % 5;
        const query =
          kind < 2 ? prose(t, 200) : kind < 4 ? mixed(t, 200) : randomText(700 + t, 400, [0.3, 0.6, 0.85][t % 3]);
        const text =
          kind < 4 ? `${mixed(t + 9, 150)} ${query.slice(50, 700)}` : randomText(800 + t, 900, [0.3, 0.6, 0.85][t % 3]);
        const [q0, q1] = t % 3 === 0 ? [0, query.length] : cut(rnd, query);
        const [s0, s1] = t % 3 === 0 ? [0, text.length] : cut(rnd, text);
        const got = windowWordIds(core, query, q0, q1, text, s0, s1);
        let qt: WindowTokensRef, st: WindowTokensRef;
        try {
          qt = refTokens(core, query, q0, q1);
          st = refTokens(core, text, s0, s1);
        } catch {
          expect(got, `case ${t}: a lone surrogate`).toBeNull();
          continue;
        }
        const want = windowIdsRef(qt, st);
        const js = jsIds(core, query, q0, q1, text, s0, s1);
        if (want === null) {
          expect(got, `case ${t}`).toBeNull();
          expect(js, `case ${t}: the JavaScript numbering declined too`).toBeNull();
          declined++;
          continue;
        }
        expect(got, `case ${t}`).not.toBeNull();
        expect({ Q: Array.from(got!.Q), S: Array.from(got!.S) }, `case ${t}`).toEqual(want);
        expect(Array.from(got!.q.start), `case ${t}`).toEqual(Array.from(qt.start, (x) => x + q0));
        expect(Array.from(got!.q.end), `case ${t}`).toEqual(Array.from(qt.end, (x) => x + q0));
        expect(Array.from(got!.s.start), `case ${t}`).toEqual(Array.from(st.start, (x) => x + s0));
        expect(Array.from(got!.s.end), `case ${t}`).toEqual(Array.from(st.end, (x) => x + s0));
        if (js !== null) expect(want, `case ${t}`).toEqual(js);
        else beyondJs++;
        answered++;
      }
      expect(answered).toBeGreaterThan(150);
      expect(declined).toBeGreaterThan(10);
      expect(beyondJs).toBe(0); // (one only where two forms' keys agree in their low 32 bits)
    });
  },
  60_000,
);

const tokensOf = (t: Tokens) => ({ start: Array.from(t.start), end: Array.from(t.end), word: Array.from(t.word) });

describe.each(BUILDS)(
  "the aligner's tokens from the core (%s) = tokenize's own",
  (build) => {
    it('on prose with capitals, random Unicode and the edge cases; windows of a tokenized text', async () => {
      const core = await coreOf(build);
      const rnd = prng(8313);
      const texts = [
        '',
        ' ',
        'a',
        'ﬁx ﬁx Ⅻ ① e\u0301clair FIX fix',
        '\u00a0The\u2019s Caf\u00e9 CAFÉ café',
        '日本語 テキスト 日本',
        ...Array.from({ length: 40 }, (_, i) => (i % 2 ? prose(5000 + i, 400) : randomText(6000 + i, 1500, 0.5))),
      ];
      for (const text of texts) {
        const fromCore = tokenize(text, core);
        expect(fromCore.epoch).toBe(lexicon.epoch);
        expect(tokensOf(fromCore), text.slice(0, 40)).toEqual(tokensOf(tokenize(text)));
      }
      for (let t = 0; t < 20; t++) {
        const text = prose(7000 + t, 2000);
        const [a, b] = cut(rnd, text);
        expect(tokensOf(new TokenizedText(text).window(a, b, core))).toEqual(tokensOf(tokenize(text.slice(a, b))));
      }
    });

    it('new forms get their ids in the order the text first has them, whichever path interns them', async () => {
      const core = await coreOf(build);
      const fresh = (tag: string) =>
        Array.from({ length: 300 }, (_, i) =>
          i % 3 === 0 ? `${tag}${i}` : i % 3 === 1 ? `Caf\u00e9${tag}${i}` : 'the',
        );
      const before = lexicon.words;
      const t = tokenize(fresh('qzv').join(' '), core);
      const firstSight: number[] = [];
      const seen = new Set<number>();
      for (const id of t.word) {
        if (id < before || seen.has(id)) continue;
        seen.add(id);
        firstSight.push(id);
      }
      expect(firstSight).toEqual(firstSight.map((_, k) => before + k));
    });
  },
  60_000,
);
