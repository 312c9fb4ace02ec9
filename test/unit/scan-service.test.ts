/**
 * engine.scan / scanItem / datasetDigest (src/services/scan/): the hits of items against exact datasets — the
 * min-words filter, the kinds, ids and order, UTF-16 offsets, abort, progress and the summary — and the digest of a
 * dataset, the same for a dataset built, exported and imported again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, TrainprintError, type Engine, type ScanHit } from '../../src/index.js';
import { countWords, createScanService, type ScanItem, type ScanSummary } from '../../src/services/scan/index.js';
import { hitsOf } from '../../src/services/scan/scan.js';
import type { ExactMatch } from '../../src/datasets/types.js';
import { archive, cleanOutputs, exactSpan, plantedOutputs } from '../fixtures/scan-plant.js';
import { mulberry32 } from '../../src/util/random.js';

let engine: Engine;
const docs = archive();
const byId = new Map(docs.map((d) => [d.id, d.text]));

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'arch' }, docs);
});

/** Every hit of a scan, and its summary. */
async function collect(it: AsyncGenerator<ScanHit, unknown>): Promise<{ hits: ScanHit[]; summary: unknown }> {
  const hits: ScanHit[] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) return { hits, summary: r.value };
    hits.push(r.value);
  }
}

describe('engine.scan', () => {
  it('finds a planted passage with its spans in the item and in the source document', async () => {
    const [p] = plantedOutputs(docs, 1, 3);
    const hits = await engine.scanItem({ id: 'out-1', text: p.text });
    expect(hits).toHaveLength(1);
    const h = hits[0];
    expect(Object.keys(h)).toEqual([
      'id',
      'dataset_id',
      'document_id',
      'query_start',
      'query_end',
      'source_start',
      'source_end',
      'words',
      'kind',
    ]);
    expect(h).toMatchObject({ id: 'out-1', dataset_id: 'arch', document_id: p.document_id });
    expect(exactSpan(p.text, h, p)).toBe(true);
    expect(h.words).toBe(countWords(p.text, h.query_start, h.query_end));
    const source = byId.get(h.document_id)!.slice(h.source_start, h.source_end);
    expect(source.replace(/\s+/g, ' ')).toBe(p.text.slice(h.query_start, h.query_end).replace(/\s+/g, ' '));
  });

  it('reports only passages of at least minWords words', async () => {
    const planted = plantedOutputs(docs, 12, 11).filter((p) => !p.edited);
    for (const p of planted) {
      const [h] = await engine.scanItem({ id: 'x', text: p.text }, { minWords: 50 });
      expect(h.words).toBeGreaterThanOrEqual(50);
      expect(await engine.scanItem({ id: 'x', text: p.text }, { minWords: h.words + 1 })).toEqual([]);
      expect(await engine.scanItem({ id: 'x', text: p.text }, { minWords: h.words })).toHaveLength(1);
    }
  });

  it('gives an edited copy kind edited (or verbatim when nearly all its words are kept), never paraphrase', async () => {
    const planted = plantedOutputs(docs, 30, 5).filter((p) => p.edited);
    expect(planted.length).toBeGreaterThan(5);
    for (const p of planted) {
      const hits = await engine.scanItem({ id: 'e', text: p.text });
      const h = hits.find((x) => x.document_id === p.document_id)!;
      expect(exactSpan(p.text, h, p)).toBe(true);
      expect(['edited', 'verbatim']).toContain(h.kind);
    }
  });

  it('maps the reuse kinds: summary → paraphrase, paraphrases only with paraphrase: true', () => {
    const text = 'w '.repeat(200);
    const m = (reuse: ExactMatch['reuse'], at: number): ExactMatch => ({
      kind: 'exact',
      dataset_id: 'd',
      document_id: `doc-${reuse}`,
      query_start: at,
      query_end: at + 120,
      source_start: 0,
      source_end: 120,
      tokens: 60,
      score: 1,
      reuse,
      similarity: 1,
      aligned: true,
    });
    const matches = [m('summary', 200), m('paraphrase', 100), m('edited', 50), m('verbatim', 0)];
    const item = { id: 'i', text };
    expect(hitsOf(item, matches, { minWords: 50, paraphrase: true }).map((h) => h.kind)).toEqual([
      'verbatim',
      'edited',
      'paraphrase',
      'paraphrase',
    ]);
    expect(hitsOf(item, matches, { minWords: 50, paraphrase: false }).map((h) => h.kind)).toEqual([
      'verbatim',
      'edited',
    ]);
    expect(hitsOf(item, matches, { minWords: 61, paraphrase: true })).toEqual([]);
  });

  it('joins the pieces of one passage into one hit: overlapping or touching in the item and in the source', () => {
    const text = `${'w '.repeat(100)}, ${'w '.repeat(100)}`; // 100 words, a comma, 100 words
    const m = (doc: string, q: [number, number], src: [number, number], reuse: ExactMatch['reuse']): ExactMatch => ({
      kind: 'exact',
      dataset_id: 'd',
      document_id: doc,
      query_start: q[0],
      query_end: q[1],
      source_start: src[0],
      source_end: src[1],
      tokens: 60,
      score: 1,
      reuse,
      similarity: 1,
      aligned: true,
    });
    const item = { id: 'i', text };
    const o = { minWords: 50, paraphrase: false };
    // one edited passage aligned as two overlapping pieces (67 + 65 words): one hit of its whole span
    const two = [m('a', [0, 134], [1000, 1134], 'verbatim'), m('a', [130, 270], [1130, 1270], 'edited')];
    expect(hitsOf(item, two, o)).toEqual([
      {
        id: 'i',
        dataset_id: 'd',
        document_id: 'a',
        query_start: 0,
        query_end: 270,
        source_start: 1000,
        source_end: 1270,
        words: 135,
        kind: 'edited',
      },
    ]);
    expect(hitsOf(item, [...two].reverse(), o)).toEqual(hitsOf(item, two, o));
    // touching across the comma (nothing but spaces and punctuation between them)
    const touching = [m('a', [0, 199], [0, 199], 'verbatim'), m('a', [202, 402], [202, 402], 'verbatim')];
    expect(hitsOf(item, touching, o).map((h) => [h.query_start, h.query_end, h.words, h.kind])).toEqual([
      [0, 402, 201, 'verbatim'],
    ]);
    // not one passage: another document, a word between them, or far apart in the source
    const apart = [
      [m('a', [0, 134], [0, 134], 'verbatim'), m('b', [100, 270], [100, 270], 'verbatim')],
      [m('a', [0, 120], [0, 120], 'verbatim'), m('a', [140, 270], [140, 270], 'verbatim')],
      [m('a', [0, 134], [0, 134], 'verbatim'), m('a', [100, 270], [5000, 5170], 'verbatim')],
    ];
    for (const ms of apart) expect(hitsOf(item, ms, o)).toHaveLength(2);
    // pieces each shorter than minWords that make one passage of enough words are reported as that passage
    const short = [m('a', [0, 80], [0, 80], 'verbatim'), m('a', [70, 140], [70, 140], 'verbatim')];
    expect(hitsOf(item, short, o).map((h) => h.words)).toEqual([70]);
  });

  it('yields hits item by item in input order with their ids; the same scan gives the same hits', async () => {
    const planted = plantedOutputs(docs, 10, 21);
    const clean = cleanOutputs(10, 22);
    const items = planted.flatMap((p, i) => [
      { id: `p${i}`, text: p.text },
      { id: `c${i}`, text: clean[i] },
    ]);
    const progress: unknown[] = [];
    const a = await collect(engine.scan(items, { onProgress: (p) => progress.push(p) }));
    const b = await collect(engine.scan(items));
    expect(a.hits).toEqual(b.hits);
    expect(a.hits.map((h) => h.id)).toEqual(planted.map((_, i) => `p${i}`));
    expect(a.summary).toMatchObject({ items: 20, hits: 10, skipped: 0 });
    expect(progress).toHaveLength(20);
    expect(progress[19]).toEqual({
      items: 20,
      hits: 10,
      bytes: items.reduce((n, x) => n + new TextEncoder().encode(x.text).length, 0),
      skipped: 0,
    });
    // scanItem gives each item's hits as the stream does
    for (const [i, p] of planted.entries())
      expect(await engine.scanItem({ id: `p${i}`, text: p.text })).toEqual(a.hits.filter((h) => h.id === `p${i}`));
  });

  it('skips items of fewer words than minWords (counted, not searched), and takes async iterables', async () => {
    async function* items() {
      yield { id: 'short', text: 'only a few words here' };
      yield { id: 'empty', text: '' };
      yield { id: 'long', text: cleanOutputs(1, 3)[0] };
    }
    const r = await collect(engine.scan(items()));
    expect(r.hits).toEqual([]);
    expect(r.summary).toMatchObject({ items: 3, skipped: 2, hits: 0 });
    // words are what \s separates, Unicode spaces too; exactly minWords is enough
    const edge = [
      { id: 'three', text: ' a\u00a0b\u3000c\n' },
      { id: 'two', text: '\ta  b\u2028 ' },
      { id: 'joined', text: 'a-b-c d' },
    ];
    const e = await collect(engine.scan(edge, { minWords: 3 }));
    expect(e.summary).toMatchObject({ items: 3, skipped: 2 });
  });

  it('finds no hit in clean natural outputs', async () => {
    const items = cleanOutputs(200, 42).map((text, i) => ({ id: `c${i}`, text }));
    expect((await collect(engine.scan(items))).hits).toEqual([]);
  });

  it('gives UTF-16 offsets in texts with non-ASCII characters', async () => {
    const [p] = plantedOutputs(docs, 1, 9);
    const head = 'Résumé — naïve café 🙂 “quoted” über straße, ';
    const text = head.repeat(3) + p.text.slice(p.query_start, p.query_end) + ' — fin 🙂 ñ';
    const [h] = await engine.scanItem({ id: 'u', text });
    const q = { query_start: head.length * 3, query_end: head.length * 3 + p.query_end - p.query_start };
    expect(exactSpan(text, h, q)).toBe(true);
    expect(text.slice(h.query_start, h.query_end).replace(/\s+/g, ' ')).toBe(
      byId.get(h.document_id)!.slice(h.source_start, h.source_end).replace(/\s+/g, ' '),
    );
  });

  it('rejects with the signal reason when aborted, before or during a scan', async () => {
    const items = cleanOutputs(50, 1).map((text, i) => ({ id: `c${i}`, text }));
    const c = new AbortController();
    c.abort();
    await expect(collect(engine.scan(items, { signal: c.signal }))).rejects.toMatchObject({ name: 'AbortError' });
    await expect(engine.scanItem(items[0], { signal: c.signal })).rejects.toMatchObject({ name: 'AbortError' });
    const d = new AbortController();
    let seen = 0;
    const run = collect(
      engine.scan(items, {
        signal: d.signal,
        onProgress: (p) => {
          seen = p.items;
          if (p.items === 5) d.abort(new Error('stop'));
        },
      }),
    );
    await expect(run).rejects.toThrow('stop');
    expect(seen).toBe(5);
  });

  it('refuses bad options, unknown and non-exact datasets, bad items', async () => {
    const item = { id: 'a', text: 'x' };
    // the options and items as every door reads them (src/services/scan/schema.ts): INVALID_INPUT naming the field
    const named = (field: string, reason: string, code = 'INVALID_INPUT') => ({ code, cause: { field, reason } });
    await expect(engine.scanItem(item, { minWords: 0 })).rejects.toMatchObject(named('min_words', 'must be ≥ 1'));
    await expect(engine.scanItem(item, { paraphrase: 'yes' as never })).rejects.toMatchObject(
      named('paraphrase', 'must be true or false'),
    );
    await expect(engine.scanItem(item, { datasets: ['nope'] })).rejects.toMatchObject(
      named('datasets[0]', 'no dataset "nope"', 'NOT_FOUND'),
    );
    await expect(engine.scanItem({ id: '', text: 'x' })).rejects.toMatchObject(
      named('id', 'must have at least this many characters: 1'),
    );
    await expect(engine.scanItem({ id: 'a', text: 3 } as never)).rejects.toMatchObject(
      named('text', 'must be a string'),
    );
    // in a stream, the item is named by its place, as a job's item is
    await expect(collect(engine.scan([item, { id: 'b' } as never]))).rejects.toMatchObject(
      named('items[1].text', 'is required'),
    );
    await expect(collect(engine.scan([item, 7 as never]))).rejects.toMatchObject(
      named('items[1]', 'must be an object'),
    );
    // an item may carry more than its id and text (a dataset document's meta)
    expect(await engine.scanItem({ ...item, meta: { a: 1 } } as ScanItem)).toEqual([]);
    // an item of the two members read through accessors, without a prototype, or whose member throws when read: as
    // the contract reads it (each member read once; a member that throws named)
    let reads = 0;
    const counted = {
      get id() {
        reads++;
        return 'a';
      },
      text: 'x',
    };
    expect(await engine.scanItem(counted)).toEqual([]);
    expect(reads).toBe(1);
    expect(await engine.scanItem(Object.assign(Object.create(null), item))).toEqual([]);
    const throwing = {
      id: 'a',
      get text(): string {
        throw new Error('boom');
      },
    };
    await expect(engine.scanItem(throwing)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/text could not be read \(boom\)/),
    });
    // in a scan of an array or a stream too: the batch's size and the lookups read no member that throws
    for (const source of [
      [item, throwing, item],
      (async function* () {
        yield* [item, throwing, item];
      })(),
    ])
      await expect(collect(engine.scan(source as never))).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/text could not be read \(boom\)/),
      });
    await expect(engine.scanItem({ text: 'x', id: ['a'] } as never)).rejects.toMatchObject(
      named('id', 'must be a string'),
    );
    await expect(engine.scanItem(item, { signal: {} as never })).rejects.toBeInstanceOf(TrainprintError);
    const e = await createEngine();
    await e.addDataset({ id: 'p', kind: 'portrait' }, docs.slice(0, 5));
    await expect(e.scanItem(item)).rejects.toMatchObject(named('datasets', 'no exact dataset to scan against'));
    await expect(e.scanItem(item, { datasets: ['p'] })).rejects.toMatchObject(
      named('datasets[0]', '"p" is not an exact dataset: a scan searches exact datasets'),
    );
    await expect(e.datasetDigest('p')).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });

  it('the service alone searches what its corpus gives (no engine)', async () => {
    const scans = createScanService({ corpus: engine.corpus });
    const [p] = plantedOutputs(docs, 1, 3);
    expect(await scans.scanItem({ id: 'out-1', text: p.text })).toEqual(
      await engine.scanItem({ id: 'out-1', text: p.text }),
    );
  });
});

describe('alignment without synonyms', () => {
  it('a scan aligns its candidates without synonyms and finds the hits, spans and kinds it finds with them', async () => {
    const seen: Array<boolean | undefined> = [];
    /** The corpus, its searches asked for synonyms (what a search does by default). */
    const withSynonyms = {
      datasets: (o?: { readonly account?: string }) => engine.corpus.datasets(o),
      searchDetailedAsync: (
        q: string,
        o: Parameters<Engine['corpus']['searchDetailedAsync']>[1],
        run?: { sliceMs?: number },
      ) => {
        seen.push(o?.synonyms);
        return engine.corpus.searchDetailedAsync(q, { ...o, synonyms: true }, run);
      },
      datasetDigest: (id: string) => engine.corpus.datasetDigest(id),
    };
    const planted = plantedOutputs(docs, 40, 31);
    let hits = 0;
    for (const [i, p] of planted.entries()) {
      const item = { id: `out-${i}`, text: p.text };
      const without = await engine.scanItem(item);
      expect(without).toEqual(await createScanService({ corpus: withSynonyms }).scanItem(item));
      hits += without.length;
    }
    expect(hits).toBeGreaterThanOrEqual(40);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s === false)).toBe(true);
    // asked for paraphrases, a scan aligns with synonyms
    seen.length = 0;
    await createScanService({ corpus: withSynonyms }).scanItem(
      { id: 'x', text: planted[0].text },
      { paraphrase: true },
    );
    expect(seen).toEqual([undefined]);
  });
});

describe('the lookups before the search (exactShinglesFound)', () => {
  /** The corpus without its pre-search lookups: every item is searched. */
  const searchOnly = () => ({
    datasets: (o?: { readonly account?: string }) => engine.corpus.datasets(o),
    searchDetailedAsync: engine.corpus.searchDetailedAsync.bind(engine.corpus),
    datasetDigest: (id: string) => engine.corpus.datasetDigest(id),
  });

  it('counts the query 5-grams the search finds in the index, with the UTF-8 length; null where it cannot tell', async () => {
    const [p] = plantedOutputs(docs, 1, 5);
    for (const text of [p.text, cleanOutputs(1, 8)[0], 'Résumé — naïve 🙂 café', '']) {
      const pre = engine.corpus.exactShinglesFound(text, ['arch']);
      const { details, fingerprint } = engine.corpus.searchDetailed(text, { datasets: ['arch'], reworded: false });
      const found = details.get('arch');
      expect(pre).toMatchObject({
        found: found?.kind === 'exact' ? found.search.hits : -1,
        byteLength: fingerprint.byte_length,
      });
      // every seed match lies inside one run
      const seeds = found?.kind === 'exact' ? found.search.matches : [];
      for (const m of seeds) expect(pre!.runs.some(([s, e]) => s <= m.query_start && m.query_end <= e)).toBe(true);
      if (pre!.found === 0) expect(pre!.runs).toEqual([]);
    }
    expect(engine.corpus.exactShinglesFound(p.text, ['arch'])!.found).toBeGreaterThan(10);
    expect(engine.corpus.exactShinglesFound(p.text, ['nope'])).toBeNull();
    const e = await createEngine();
    await e.addDataset({ id: 'p', kind: 'portrait' }, docs.slice(0, 5));
    expect(e.corpus.exactShinglesFound(p.text, ['p'])).toBeNull();
  });

  it('counts words on the UTF-8 as the string test counts them: the same items skipped, the same bytes', async () => {
    // spaces of every kind and the characters that share their first bytes, in 400 random items
    const pool = ['a', 'bc', '"', '\u0085', 'é', '\u200b', '\u201c', '東', '\ud835\udc9c'];
    const spaces = [
      ' ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      '\u1680',
      '\u2003',
      '\u2028',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
    ];
    const random = mulberry32(58);
    const pick = (a: readonly string[]) => a[Math.floor(random() * a.length)];
    const items = Array.from({ length: 400 }, (_, i) => {
      let text = '';
      for (let k = Math.floor(random() * 40); k > 0; k--) text += random() < 0.45 ? pick(spaces) : pick(pool);
      return { id: `r${i}`, text };
    });
    for (const minWords of [3, 5, 8]) {
      const read = (await collect(engine.scan(items, { minWords }))).summary as ScanSummary;
      const searched = (await collect(createScanService({ corpus: searchOnly() }).scan(items, { minWords })))
        .summary as ScanSummary;
      expect(read).toMatchObject({ items: 400, skipped: searched.skipped, bytes: searched.bytes });
      const fewer = items.filter((x) => x.text.split(/\s+/).filter(Boolean).length < minWords).length;
      expect(read.skipped).toBe(fewer);
      expect(fewer).toBeGreaterThan(40);
      expect(fewer).toBeLessThan(360);
    }
  });

  it('skips a short item the tokenizer refuses (a lone surrogate) and refuses a long one, as the string test did', async () => {
    const short = [
      { id: 'lone', text: 'short \ud800 item' },
      { id: 'ok', text: cleanOutputs(1, 4)[0] },
    ];
    for (const scan of [engine.scan.bind(engine), createScanService({ corpus: searchOnly() }).scan]) {
      const r = (await collect(scan(short))).summary as ScanSummary;
      expect(r).toMatchObject({ items: 2, skipped: 1 });
    }
    const long = [{ id: 'lone', text: `${cleanOutputs(1, 4)[0]} \ud800` }];
    await expect(collect(engine.scan(long))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('changes no hit and no count: a scan gives what the search of every item gives', async () => {
    const planted = plantedOutputs(docs, 30, 21);
    const clean = cleanOutputs(60, 22);
    // clean outputs holding a phrase of the archive: 5-grams found, no passage
    const phrases = clean.slice(0, 20).map((t, i) => {
      const words = docs[i * 3].text.split(/\s+/).slice(40, 52).join(' ');
      return `${t.slice(0, 200)} ${words} ${t.slice(200)}`;
    });
    // and clean outputs around 25–44 words of an archive document: a few 5-grams found, or enough to align
    const pieces = clean.slice(20, 40).map((t, i) => {
      const words = docs[i * 5 + 1].text
        .split(/\s+/)
        .slice(30, 55 + i)
        .join(' ');
      return `${t.slice(0, 150)}\n\n${words}\n\n${t.slice(150)}`;
    });
    const texts = [
      ...planted.map((x) => x.text),
      ...clean,
      ...phrases,
      ...pieces,
      'too short',
      'Résumé — naïve 🙂 café '.repeat(20),
    ];
    const items = texts.map((text, i) => ({ id: `i${i}`, text }));
    for (const options of [{}, { minWords: 20 }, { minWords: 100 }]) {
      const fast = await collect(engine.scan(items, options));
      const full = await collect(createScanService({ corpus: searchOnly() }).scan(items, options));
      expect(fast.hits).toEqual(full.hits);
      expect({ ...(fast.summary as object), ms: 0 }).toEqual({ ...(full.summary as object), ms: 0 });
    }
    const found = [...phrases, ...pieces].map((t) => engine.corpus.exactShinglesFound(t, ['arch'])!.found);
    expect(found.some((f) => f > 0 && f < 4)).toBe(true); // told by the runs at minWords 50
    expect(found.some((f) => f >= 4)).toBe(true); // searched
  });
});

describe('engine.datasetDigest', () => {
  it('is the same for a dataset exported and imported again, and changes with its content', async () => {
    const digest = await engine.datasetDigest('arch');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const other = await createEngine();
    await other.importDataset(engine.exportDataset('arch'));
    expect(await other.datasetDigest('arch')).toBe(digest);
    const changed = await createEngine();
    await changed.addDataset(
      { id: 'arch' },
      // a sentence rewritten (a change that keeps every id, length and signature goes unseen: docs/scan.md)
      docs.map((d, i) =>
        i === 7 ? { id: d.id, text: `${d.text.slice(0, 1000)} and so it was not. ${d.text.slice(1060)}` } : d,
      ),
    );
    expect(await changed.datasetDigest('arch')).not.toBe(digest);
    await changed.addDataset({ id: 'arch' }, [{ id: 'more', text: 'one more document' }]);
    const grown = await changed.datasetDigest('arch');
    expect(grown).not.toBe(await other.datasetDigest('arch'));
    await expect(engine.datasetDigest('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
