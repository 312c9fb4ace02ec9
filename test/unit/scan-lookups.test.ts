/**
 * The lookups of many items at once (`corpus.exactShinglesFoundOfMany`: one pass of the tokenizer over the items
 * written one after another) against the lookups of each alone (`exactShinglesFound`): the same counts, lengths,
 * words and runs, on items that copy an archive's passages, items that copy nothing, and items with what the
 * normaliser rewrites at their edges (marks, ligatures, fullwidth digits, curly quotes, no-break spaces, CJK).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { mulberry32 } from '../../src/util/random.js';
import { archive, cleanOutputs } from '../fixtures/scan-plant.js';

/** Pieces the normaliser rewrites or the tokenizer splits on, put at the items' edges and inside them. */
const ODD = [
  '\u0301',
  'e\u0301',
  'ﬁ',
  '１２',
  '\u201cquoted\u201d',
  '\u00a0',
  '\ufeff',
  '東京',
  'Σίσυφος',
  '\n',
  '\t',
  ' ',
  '',
  '—',
  'İ',
  '\ud83d\ude00',
];

describe('lookups of many items at once', () => {
  let engine: Engine;
  let docs: Array<{ id: string; text: string }>;
  beforeAll(async () => {
    engine = await createEngine({ synonyms: false });
    docs = archive(3000);
    await engine.addDataset({ id: 'books' }, docs);
  });

  it('give what each item looked up alone gives, on 40 random batches', () => {
    const rnd = mulberry32(11);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const clean = cleanOutputs(200, 3);
    const item = (): string => {
      const d = pick(docs).text;
      const at = Math.floor(rnd() * (d.length - 600));
      const copy = d.slice(at, at + 50 + Math.floor(rnd() * 500));
      const parts = [pick(ODD), rnd() < 0.5 ? copy : pick(clean), pick(ODD)];
      if (rnd() < 0.3) parts.splice(1 + Math.floor(rnd() * 2), 0, pick(ODD), pick(clean).slice(0, 80));
      return rnd() < 0.05 ? '' : parts.join(rnd() < 0.5 ? ' ' : '');
    };
    let found = 0;
    for (let round = 0; round < 40; round++) {
      const texts = Array.from({ length: 1 + Math.floor(rnd() * 70) }, item);
      const minWords = pick([0, 1, 20, 50]);
      const many = engine.corpus.exactShinglesFoundOfMany(texts, ['books'], minWords);
      const alone = texts.map((t) => engine.corpus.exactShinglesFound(t, ['books'], minWords));
      expect(many).toEqual(alone);
      for (const a of alone) found += a!.found;
    }
    expect(found).toBeGreaterThan(0); // some items copy, so runs were compared
  });

  it('give what each alone gives for items with a U+FFFD of their own, which the texts joined are read for', () => {
    // the core hands a region with U+FFFD back, and the host reads it from the texts joined to tell it from a lone
    // surrogate the encoder replaced: the only read of the joined texts in a batch it answers
    const texts = [
      `${docs[0].text.slice(0, 400)} \ufffd`,
      'clean words \ufffd\u00e9t\u00e9 and more',
      docs[1].text.slice(200, 900),
      '\ufffd',
      `caf\u00e9 ${docs[2].text.slice(50, 700)}\ufffd${docs[2].text.slice(700, 800)}`,
    ];
    for (const minWords of [0, 20]) {
      const many = engine.corpus.exactShinglesFoundOfMany(texts, ['books'], minWords);
      expect(many).not.toBeNull();
      expect(many).toEqual(texts.map((t) => engine.corpus.exactShinglesFound(t, ['books'], minWords)));
      expect(many!.some((a) => a.found > 0)).toBe(true);
    }
  });

  it('say null where one pass cannot stand for the items (a lone surrogate), and for a dataset not in memory', () => {
    expect(engine.corpus.exactShinglesFoundOfMany(['a fine text', 'bad \ud800 text'], ['books'], 0)).toBeNull();
    expect(() => engine.corpus.exactShinglesFound('bad \ud800 text', ['books'], 0)).toThrow(/lone surrogate/);
    expect(engine.corpus.exactShinglesFoundOfMany(['a', 'b'], ['nowhere'], 0)).toBeNull();
  });

  it('scan the same hits from an array (items at hand) as from a slow stream (one item at a time)', async () => {
    const texts = cleanOutputs(30, 5);
    for (let k = 0; k < 6; k++) texts.splice(k * 5, 0, docs[k].text.slice(100, 1600));
    const items = texts.map((text, i) => ({ id: `o${i}`, text }));
    async function* slow() {
      for (const x of items) {
        await new Promise((r) => setTimeout(r, 0));
        yield x;
      }
    }
    const all = async (source: Iterable<(typeof items)[0]> | AsyncIterable<(typeof items)[0]>) => {
      const hits = [];
      const scan = engine.scan(source, { minWords: 20 });
      for (;;) {
        const r = await scan.next();
        if (r.done) return { hits, summary: { ...r.value, ms: 0 } };
        hits.push(r.value);
      }
    };
    const fromArray = await all(items);
    expect(fromArray.hits.length).toBeGreaterThanOrEqual(6);
    expect(await all(slow())).toEqual(fromArray);
  });
});
