/**
 * The aligner's synonyms: WordNet's synonym sets by stem (known answers; the generated table of stems equal to WordNet's
 * lemmas stemmed by this stemmer, as the library once did at run time), the per-pair swap against a plain
 * Map-based reference of its rule on random texts over words that share sets, and compare aligning a passage whose
 * content words were replaced by synonyms as nearly its source (as written, it is at the validation bar).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { stemSetsOf } from '../../../build/synonym-tables.mjs';
import { preparePair } from '../../../src/align/prepare.js';
import { stemOnce, STOP_WORDS } from '../../../src/align/stem.js';
import { loadSynonyms, swapSynonyms, synonymSets, termSynsets } from '../../../src/align/synonyms.js';
import { LEMMAS, SYNSET_COUNT, SYNSETS } from '../../../src/align/synonyms.generated.js';
import { lexicon, tokenize } from '../../../src/align/tokens.js';
import { createFingerprintEngine } from '../../../src/index.js';
import { prng } from '../../reference/core.js';
import { filler, REWORDED, SOURCE, SWAPS } from '../../fixtures/synonym-pair.js';

// the table is a module of its own that createEngine loads; these tests read it directly
beforeAll(loadSynonyms);

const setsOf = (word: string): Int32Array => synonymSets().get(stemOnce(word)) ?? new Int32Array(0);
const share = (x: string, y: string): boolean => setsOf(x).some((s) => setsOf(y).includes(s));

describe('synonymSets (WordNet 3.1)', () => {
  it('links the words a rewording swaps, and not unrelated ones', () => {
    for (const [x, y] of [
      ['coupon', 'voucher'],
      ['edges', 'border'],
      ['trim', 'pare'],
      ['finally', 'eventually'],
      ['string', 'twine'],
      ['large', 'big'],
      ['mend', 'repair'],
      // irregular forms join their base form's sets (WordNet's exception lists): said ~ say ~ state
      ['said', 'stated'],
      ['children', 'kids'],
    ])
      expect(share(x, y), `${x} ~ ${y}`).toBe(true);
    for (const [x, y] of [
      ['coupon', 'kite'],
      ['cat', 'table'],
      ['large', 'small'],
    ])
      expect(share(x, y), `${x} !~ ${y}`).toBe(false);
  });

  it('holds stems of plain words only: no stop words, no names of instances (Aachen)', () => {
    const sets = synonymSets();
    expect(sets.size).toBeGreaterThan(30_000);
    for (const stop of ['the', 'was', 'not', 'also']) expect(sets.has(stop)).toBe(false);
    for (const name of ['aachen', 'aalborg']) expect(sets.has(stemOnce(name))).toBe(false);
    const malformed = [...sets].filter(
      ([stem, list]) =>
        !/^[a-z]+$/.test(stem) ||
        list.length === 0 ||
        list.some((s, k) => s < 0 || s >= SYNSET_COUNT || (k > 0 && s <= list[k - 1])),
    );
    expect(malformed).toEqual([]);
  });
});

describe('the table of stems (build/synonym-stems.mjs)', () => {
  it("is WordNet's lemmas stemmed by this stemmer, set for set (else: node build/synonym-stems.mjs)", () => {
    const expected = stemSetsOf({ LEMMAS, SYNSETS, SYNSET_COUNT }, { stemOnce, STOP_WORDS });
    const held = synonymSets();
    expect(held.size).toBe(expected.size);
    const differ: string[] = [];
    for (const [stem, list] of expected) {
      const got = held.get(stem);
      if (got === undefined || got.join() !== list.join()) differ.push(stem);
    }
    expect(differ.slice(0, 20)).toEqual([]);
    for (const absent of ['', 'zzzzz', 'the', 'aachen', 'a b']) expect(held.get(absent)).toBeUndefined();
  });
});

/** The swap's rule, written plainly: Maps and Sets, every term looked at afresh. */
function swapReference(termA: Int32Array, termB: Int32Array, sets: (t: number) => Int32Array): Int32Array {
  const inA = new Set([...termA].filter((t) => t >= 0));
  const inB = new Set([...termB].filter((t) => t >= 0));
  const onlyB = [...inB].filter((t) => !inA.has(t)).sort((x, y) => x - y);
  const firstOfSet = new Map<number, number>();
  for (const t of onlyB) for (const s of sets(t)) if (!firstOfSet.has(s)) firstOfSet.set(s, t);
  const to = new Map<number, number>();
  for (const t of inA) {
    if (inB.has(t)) continue;
    const s = [...sets(t)].find((x) => firstOfSet.has(x));
    if (s !== undefined) to.set(t, firstOfSet.get(s)!);
  }
  return termA.map((t) => to.get(t) ?? t);
}

const VOCABULARY = (
  'coupon voucher holes apertures hole aperture string twine strings finally eventually large big bigger mend ' +
  'repair repairs edge border edges trim pare page leaf pages leaves kite table cat harbour house home road route ' +
  'quiet tranquil boy lad small little the of and was'
).split(' ');

describe('swapSynonyms = its plain rule', () => {
  it('on random texts over words that share synonym sets', () => {
    const rnd = prng(20261125);
    for (let i = 0; i < 300; i++) {
      const words = (n: number) =>
        Array.from({ length: n }, () => VOCABULARY[(rnd() * VOCABULARY.length) | 0]).join(' ');
      const a = tokenize(words(1 + ((rnd() * 40) | 0)));
      const b = tokenize(words((rnd() * 40) | 0));
      // the pair's local terms, as preparePair numbers them: a's first, then b's
      const local = new Map<number, number>();
      const lexiconTerm: number[] = [];
      const localTerms = (ids: Int32Array) =>
        Int32Array.from(ids, (w) => {
          const g = lexicon.termOf[w];
          if (g < 0) return -1;
          if (!local.has(g)) {
            local.set(g, local.size);
            lexiconTerm.push(g);
          }
          return local.get(g)!;
        });
      const termA = localTerms(a.word),
        termB = localTerms(b.word);
      const expected = swapReference(termA, termB, (t) => termSynsets(lexiconTerm[t]));
      const swapped = termA.slice();
      const relabelled = swapSynonyms(swapped, termB, local.size, lexiconTerm);
      expect(Array.from(swapped)).toEqual(Array.from(expected));
      expect(relabelled).toBe(swapped.filter((t, k) => t !== termA[k]).length);
      // terms both texts hold are never relabelled; a relabelled term is one of b's that a lacked
      const inB = new Set(termB);
      for (let k = 0; k < termA.length; k++) {
        if (inB.has(termA[k])) expect(swapped[k]).toBe(termA[k]);
        if (swapped[k] !== termA[k]) {
          expect(inB.has(swapped[k])).toBe(true);
          expect(termA.includes(swapped[k])).toBe(false);
        }
      }
    }
  });

  it('preparePair with synonyms reads "coupon" as the "voucher" its pair holds; without, as written', () => {
    const a = tokenize('The coupon was torn at the edges.'),
      b = tokenize('A voucher was torn along the border.');
    const withSyn = preparePair(a, b, 1, true),
      plain = preparePair(a, b, 1, false);
    expect(withSyn.pa.terms).not.toEqual(plain.pa.terms);
    expect(withSyn.pb.terms).toEqual(plain.pb.terms);
    // coupon → voucher, edges → border: a holds b's terms for both
    const bTerms = new Set(plain.pb.terms);
    expect([...withSyn.pa.terms].filter((t) => bTerms.has(t)).length).toBe(
      [...plain.pa.terms].filter((t) => bTerms.has(t)).length + 2,
    );
  });
});

describe('compare with synonyms', () => {
  it('every swap of the example shares a WordNet synonym set with its word', () => {
    for (const [x, y] of Object.entries(SWAPS)) expect(share(x, y), `${x} ~ ${y}`).toBe(true);
  });

  it('aligns a passage whose content words were swapped for synonyms as one nearly its source (cosine > 0.9)', async () => {
    const engine = await createFingerprintEngine();
    const a = `${filler} ${REWORDED} ${filler}`;
    const b = `A preface about ships and harbours. ${SOURCE} A closing note on the printing.`;
    const found = engine.compare(a, b);
    expect(found.spans).toHaveLength(1);
    const [span] = found.spans;
    expect(span.kind).not.toBe('verbatim');
    expect(span.score).toBeGreaterThan(0.9);
    expect(a.slice(span.a_start, span.a_end)).toContain('twine');
    expect(span.a_end - span.a_start).toBeGreaterThan(0.8 * REWORDED.length);
    expect(b.slice(span.b_start, span.b_end)).toContain('mend the string');
    // read as written, the two passages share about a third of their weighted content words: at the validation bar
    for (const s of engine.compare(a, b, { synonyms: false }).spans) expect(s.score).toBeLessThan(0.5);
  });
});
