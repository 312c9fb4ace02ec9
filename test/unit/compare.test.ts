/** compare(a, b): aligned spans in original offsets, the WASM seed kernel against its TS oracle, and real PAN pairs. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, TrainprintError } from '../../src/index.js';
import type { Core } from '../../src/core/abi.js';
import { alignSpans, compareTexts, resolveCompareOptions } from '../../src/align/compare.js';
import { prepare, TermDict } from '../../src/align/prepare.js';
import { idfWeights, postings, seedsReference, seedsWasm, vectors } from '../../src/align/seeds.js';
import { porterStem } from '../../src/align/stem.js';
// @ts-expect-error plain JS module shared with bench/eval-pan.mjs
import { loadCorpus, panMeasures, plagdetScore, spansToDetections } from '../../bench/pan-measures.mjs';
import { prng } from '../reference/core.js';

let core: Core;
beforeAll(async () => {
  core = (await createEngine())._core;
});

const code = (c: string) => expect.objectContaining({ name: 'TrainprintError', code: c });

const PASSAGE =
  'The river rises in the highlands south of the equator and flows north through the great desert. ' +
  'Farmers along its banks have depended on the annual flood for thousands of years, planting crops in the rich silt. ' +
  'Engineers later built a high dam that ended the floods but made irrigation possible all year round.';
const FILLER_A =
  'Our town council met on Tuesday to discuss parking. Several residents complained about the noise from the new stadium. ' +
  'The mayor promised a report before the summer holidays. Meanwhile the library extended its opening hours. ';
const FILLER_B =
  'Quantum computers use qubits that can hold superpositions of states. Error correction remains the main obstacle to scaling them. ' +
  'Several companies announced new chips this year. Benchmarks are still hard to compare across vendors. ';

describe('compare: known cases', () => {
  it('identical texts: one span covering everything, similarity 1', () => {
    const r = compareTexts(core, PASSAGE, PASSAGE);
    expect(r.spans).toHaveLength(1);
    expect(r.spans[0]).toMatchObject({ a_start: 0, a_end: PASSAGE.length, b_start: 0, b_end: PASSAGE.length });
    expect(r.similarity).toBe(1);
    expect(r.jaccard).toBe(1);
    expect(r.containment_a).toBe(1);
  });

  it('disjoint texts: no spans', () => {
    const r = compareTexts(core, FILLER_A, FILLER_B);
    expect(r.spans).toEqual([]);
    expect(r.similarity).toBe(0);
    expect(r.jaccard).toBe(0);
  });

  it('a passage copied into another text (re-cased, re-wrapped, punctuation noise) → one span on the passage', () => {
    const noisy = PASSAGE.toUpperCase().replace(/ /g, (m, i: number) => (i % 7 === 0 ? '\n' : m)).replace(/,/g, ' ;').replace(/\. /g, '.  ');
    const a = FILLER_A + PASSAGE + ' ' + FILLER_A;
    const b = FILLER_B + noisy + '\n\n' + FILLER_B;
    const r = compareTexts(core, a, b);
    expect(r.spans).toHaveLength(1);
    const s = r.spans[0];
    expect(a.slice(s.a_start, s.a_end)).toBe(PASSAGE);
    expect(b.slice(s.b_start, s.b_end)).toBe(noisy);
    expect(r.containment_a).toBeGreaterThan(0.2);
    expect(r.similarity).toBeGreaterThan(0.3);
  });

  it('spans are offsets into the original strings through Unicode (fullwidth letters, ligatures)', () => {
    const fancy = PASSAGE.replace(/river/g, 'ｒｉｖｅｒ').replace(/fl/g, 'ﬂ');
    const a = '—— ' + FILLER_A + fancy + ' ☃ ' + FILLER_A;
    const b = FILLER_B + PASSAGE + ' ' + FILLER_B;
    const r = compareTexts(core, a, b);
    expect(r.spans).toHaveLength(1);
    expect(a.slice(r.spans[0].a_start, r.spans[0].a_end)).toBe(fancy);
    expect(b.slice(r.spans[0].b_start, r.spans[0].b_end)).toBe(PASSAGE);
  });

  it('bad input → INVALID_INPUT; bad options → INVALID_OPTIONS', () => {
    expect(() => compareTexts(core, 42 as never, 'x')).toThrow(code('INVALID_INPUT'));
    expect(() => compareTexts(core, 'x', null as never)).toThrow(code('INVALID_INPUT'));
    expect(() => compareTexts(core, 'a\ud800b', 'x')).toThrow(code('INVALID_INPUT'));
    expect(() => compareTexts(core, 'x', 'a\udc00')).toThrow(TrainprintError);
    expect(() => compareTexts(core, 'a', 'b', { maxGap: -1 })).toThrow(code('INVALID_OPTIONS'));
    expect(() => compareTexts(core, 'a', 'b', { seedCosine: 1.5 })).toThrow(code('INVALID_OPTIONS'));
    expect(() => compareTexts(core, 'a', 'b', { nope: 1 } as never)).toThrow(code('INVALID_OPTIONS'));
    expect(() => compareTexts(core, 'a', 'b', 'x' as never)).toThrow(code('INVALID_OPTIONS'));
    expect(compareTexts(core, '', '')).toMatchObject({ spans: [], jaccard: 1 });
  });

  it('a verbatim copy is found by the whole-pair verbatim detector even where no sentence pair seeds it', () => {
    // the copy sits inside long run-on sentences of unrelated words on both sides: no sentence pair is
    // similar enough to seed, yet the exact word run gives one span with word-exact edges
    const copy = PASSAGE.replace(/[.,]/g, '').toLowerCase();
    const pad = (f: string) => f.replace(/[.,]/g, '').toLowerCase();
    const a = pad(FILLER_A) + ' ' + copy + ' ' + pad(FILLER_A);
    const b = pad(FILLER_B) + ' ' + copy + ' ' + pad(FILLER_B);
    const r = compareTexts(core, a, b, { seedCosine: 0.99, seedDice: 0.99 });
    expect(r.spans).toHaveLength(1);
    expect(a.slice(r.spans[0].a_start, r.spans[0].a_end)).toBe(copy);
    expect(b.slice(r.spans[0].b_start, r.spans[0].b_end)).toBe(copy);
    expect(r.spans[0].score).toBe(1);
  });

  it('sentences are cut at a line break before a capital (headings, list items), not inside hard-wrapped sentences', () => {
    const dict = new TermDict();
    const cut = prepare('Annual Flood Report Summary\nFarmers along the banks planted crops in the rich\nsilt every single year.', dict, 3);
    expect(cut.sentTok.length - 1).toBe(2);
    const wrapped = prepare('Farmers along the banks planted crops in the rich\nsilt every single year.', dict, 3);
    expect(wrapped.sentTok.length - 1).toBe(1);
  });

  it('new options are validated', () => {
    expect(() => compareTexts(core, 'a', 'b', { obfuscatedSeedCosine: 1 })).toThrow(code('INVALID_OPTIONS'));
    expect(() => compareTexts(core, 'a', 'b', { obfuscatedSeedDice: -0.1 })).toThrow(code('INVALID_OPTIONS'));
    expect(() => compareTexts(core, 'a', 'b', { extendShare: 2 })).toThrow(code('INVALID_OPTIONS'));
    expect(resolveCompareOptions({ extendShare: 0 }).extendShare).toBe(0);
  });

  it('Porter stemmer known words', () => {
    const cases: Record<string, string> = { caresses: 'caress', ponies: 'poni', agreed: 'agre', motoring: 'motor', hopping: 'hop', happy: 'happi', relational: 'relat', generalizations: 'gener', electrical: 'electr', adjustment: 'adjust', controll: 'control' };
    for (const [w, s] of Object.entries(cases)) expect(porterStem(w)).toBe(s);
  });
});

describe('seed kernel: WebAssembly agrees with the TypeScript reference', () => {
  it('random texts over a small vocabulary', () => {
    const rnd = prng(7);
    const vocab = Array.from({ length: 60 }, (_, i) => `w${i}ord`);
    const text = (n: number) => Array.from({ length: n }, (_, i) => vocab[Math.floor(rnd() * vocab.length)] + (i % 9 === 8 ? '. ' : ' ')).join('');
    for (let round = 0; round < 20; round++) {
      const dict = new TermDict();
      const pa = prepare(text(50 + round * 30), dict, 3), pb = prepare(text(40 + round * 25), dict, 3);
      const idf = idfWeights(pa, pb, dict.size);
      const va = vectors(pa, idf), vb = vectors(pb, idf);
      const post = postings(vb, dict.size);
      const ref = seedsReference(va, post, vb, 0.2, 0.2);
      const got = seedsWasm(core, va, post, vb, 0.2, 0.2);
      expect(got.count).toBe(ref.count);
      expect([...got.a]).toEqual([...ref.a]);
      expect([...got.b]).toEqual([...ref.b]);
      expect([...got.cos]).toEqual([...ref.cos]);
    }
  });
});

const ROOT = fileURLToPath(new URL('../../../shared/data/pan13-text-alignment/train-corpus', import.meta.url));
describe.skipIf(!existsSync(ROOT))('real PAN pairs with their ground truth', () => {
  it('plagdet measure matches the official unit values', () => {
    expect(plagdetScore(1, 1, 2)).toBeCloseTo(0.63092975, 7);
    expect(plagdetScore(0.25, 0.75, 2)).toBeCloseTo(0.23659865, 7);
  });

  it('first pairs of each sub-corpus score above a floor (WASM and TS kernels agree)', () => {
    const floors: Record<string, number> = { '02-no-obfuscation': 0.85, '03-random-obfuscation': 0.75, '04-translation-obfuscation': 0.75 };
    for (const sub of loadCorpus(ROOT, ['01-no-plagiarism', ...Object.keys(floors)])) {
      const cases: unknown[] = [], dets: unknown[] = [];
      for (const pair of sub.pairs.slice(0, 15)) {
        const r = compareTexts(core, pair.suspText, pair.srcText);
        const js = alignSpans(null, pair.suspText, pair.srcText, resolveCompareOptions(undefined), 'js');
        expect(r.spans).toEqual(js);
        for (const s of r.spans) {
          expect(s.a_start).toBeLessThan(s.a_end);
          expect(s.b_end).toBeLessThanOrEqual(pair.srcText.length);
        }
        cases.push(...pair.cases);
        dets.push(...spansToDetections(pair, r.spans));
      }
      const m = panMeasures(cases, dets);
      if (sub.name.startsWith('01')) expect(dets.length).toBe(0);
      else expect(m.plagdet, sub.name).toBeGreaterThan(floors[sub.name]);
    }
  });
});

describe('compare input size', () => {
  it('refuses texts longer than MAX_COMPARE_LENGTH with PAYLOAD_TOO_LARGE instead of running for minutes', async () => {
    const { MAX_COMPARE_LENGTH } = await import('../../src/align/compare.js');
    const { createEngine: make } = await import('../../src/index.js');
    const engine = await make();
    const long = 'word '.repeat(MAX_COMPARE_LENGTH / 5 + 1);
    expect(() => engine.compare(long, 'short text')).toThrow(expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }));
    expect(() => engine.compare('short text', long)).toThrow(expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }));
  });
});
