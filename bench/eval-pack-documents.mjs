// Do the default packs name the document a passage comes from? Held-out passages of the Gutenberg pack's own books
// (seeded positions, never tuned on), 80 and 200 words, verbatim and edited four ways (1 word in 10 replaced,
// re-punctuated, modernised spelling, OCR-like noise), analysed with the default packs loaded: the share at
// confidence ≥ 50, the share naming the drawn book first and among every document named (`also_in`: other documents
// holding the same text), and the wrong-document rate (a named passage whose named documents neither include the
// drawn book nor hold its text). Whole packed books: the share of their words the Gutenberg pack covers (`search`
// coverage, every run counted) and the search's time. Pastiches of packed authors written for this project
// (invented people and plot; test/fixtures/texts/pastiches/ and, never tuned on, bench/data/pastiches/): their
// confidence, and whether any answer ≥ 50 lacks a named document. Costs against a baseline measured in the same run
// (alternating, medians): the default packs' bytes, their load time, and analyze of 10,000-word texts (Brown Corpus
// samples, ../shared/data; a different text each round) with them loaded.
//
// Wikipedia articles (--wiki-texts): held-out 80- and 200-word passages of articles of the two WikiExtractor packs,
// verbatim and with 1 word in 10 replaced: the share at ≥ 50, the share naming the drawn ARTICLE (page id) and the
// wrong-article rate (an article named that is not the drawn one and whose text does not hold the passage).
//
//   node bench/eval-pack-documents.mjs --texts DIR [--wiki-texts DIR] [--base DIR [--base-dist DIR]] [--quick]
//       [--check] [--out NAME]
//     --texts: the Gutenberg pack's texts (node build/packs-prepare.mjs gutenberg …); without it, the passages are skipped
//     --wiki-texts: a folder holding wikipedia-articles/ and wikipedia-core/ as the prepare step writes them
//     --out: the result's name under bench/results/ (default eval-pack-documents)
//     --packs: a packs folder (index.json and its files) whose default packs are loaded, e.g. the English ones alone
//     --base: a packs folder of the baseline (index.json and its .tpk files), e.g. from `git show BASE:packs/…`
//     --base-dist: the baseline's dist/ (its engine loads the baseline's packs); default: this build's
// Writes bench/results/eval-pack-documents.json (-quick with --quick); --check exits 1 under the floors (CHECK).
import './help.mjs';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { changedWords, editKinds } from './edits.mjs';
import { upperMedian } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    texts: { type: 'string' },
    'wiki-texts': { type: 'string' },
    // the packs folder whose default packs are loaded (index.json and its files; default: this checkout's packs/)
    packs: { type: 'string' },
    out: { type: 'string' },
    'no-pastiches': { type: 'boolean' },
    base: { type: 'string' },
    'base-dist': { type: 'string' },
    quick: { type: 'boolean' },
    check: { type: 'boolean' },
  },
});
const root = fileURLToPath(new URL('../', import.meta.url));
const { createEngine } = await import('../dist/index.js');
const { loadDefaultPacks } = await import('../dist/node.js');

/** Floors of --check. */
const CHECK = {
  verbatim80_named: 0.98,
  replaced200_ge50: 0.9,
  replaced80_ge50: 0.6,
  whole_book_coverage: 0.9,
  wrong_document_rate: 0.02,
  /** Wikipedia: verbatim 80-word passages naming the drawn article, and the wrong-article rate of every kind. */
  wiki_verbatim80_article: 0.95,
  wrong_article_rate: 0.02,
};

let seed = 20261126;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const engine = await createEngine();
const t0 = performance.now();
const loaded = await loadDefaultPacks(engine, args.packs ? { dir: args.packs } : {});
const loadOnce = performance.now() - t0;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  quick: args.quick === true,
  packs: loaded.map((p) => ({ id: p.stats.id, file_bytes: p.info.file_bytes, ngrams: p.info.counts.ngrams })),
};
const gutenberg = JSON.parse(readFileSync(join(root, 'packs/gutenberg/manifest.json'), 'utf8'));

/** The best portrait match of an analysis (the one with the most agreeing hits). */
const bestMatch = (r) => {
  const m = r.matches.filter((x) => x.kind === 'portrait' && x.document_id);
  m.sort((a, b) => (b.agreeing ?? 0) - (a.agreeing ?? 0) || b.score - a.score);
  return m[0] ?? null;
};
/** The named document of an analysis's portrait matches. */
const named = (r) => bestMatch(r)?.document_id ?? null;
/** Every document the best match names: its document and those holding the same text (`also_in`). */
const namedAll = (r) => {
  const m = bestMatch(r);
  return m ? [m.document_id, ...(m.also_in ?? []).map((a) => a.document_id)] : [];
};

// ------------------------------------------------------------------ held-out passages of packed books
if (args.texts && existsSync(args.texts)) {
  const nBooks = args.quick ? 16 : 48;
  const docs = gutenberg.documents.slice();
  const picked = [];
  while (picked.length < nBooks && docs.length) picked.push(docs.splice(Math.floor(rnd() * docs.length), 1)[0]);
  const KINDS = editKinds(rnd);
  const cases = {};
  const textOf = new Map();
  const flat = (id) => {
    if (!textOf.has(id)) {
      const doc = gutenberg.documents.find((x) => x.id === id);
      textOf.set(id, doc ? readFileSync(join(args.texts, doc.file), 'utf8').split(/\s+/).join(' ') : '');
    }
    return textOf.get(id);
  };
  for (const d of picked) {
    const words = readFileSync(join(args.texts, d.file), 'utf8').split(/\s+/).filter(Boolean);
    const lo = Math.floor(words.length * 0.05),
      hi = Math.floor(words.length * 0.95) - 200;
    const at = lo + Math.floor(rnd() * Math.max(1, hi - lo));
    // a named document other than the one drawn from may hold the same text (another edition in the pack): the
    // probe is 30 words inside both passages, looked for in the named document's text
    const probe = words.slice(at + 120, at + 150).join(' ');
    for (const [kind, f] of Object.entries(KINDS)) {
      // 200 words from `at`, 80 words from `at + 100` (the edited 80 are inside the 200, as before)
      for (const [n, from] of [
        [200, at],
        [80, at + 100],
      ]) {
        const original = words.slice(from, from + n);
        const w = f(original);
        const r = await engine.analyze({ content: w.join(' '), content_type: 'text' });
        const name = named(r);
        const all = namedAll(r);
        // the named document holds the passage: it is the drawn book, or its text holds the probe
        const holds = name === null ? false : name === d.id || flat(name).includes(probe);
        (cases[`${kind}${n}`] ??= []).push({
          book: d.id,
          confidence: r.confidence,
          named: name,
          named_all: all,
          holds,
          changed: changedWords(original, w),
        });
      }
    }
  }
  result.passages = Object.fromEntries(
    Object.entries(cases).map(([kind, xs]) => {
      const ge50 = xs.filter((x) => x.confidence >= 50);
      const namedAny = xs.filter((x) => x.named !== null);
      return [
        kind,
        {
          n: xs.length,
          // the words the edit changed, per passage (mean), and the passages it changed at all
          changed_words_mean: Math.round((xs.reduce((a, x) => a + x.changed, 0) / xs.length) * 10) / 10,
          changed_passages: xs.filter((x) => x.changed > 0).length,
          ge50: ge50.length / xs.length,
          // passages whose analysis names a document (at any confidence)
          named: namedAny.length,
          // the drawn book is the document named first
          ge50_named_first: ge50.filter((x) => x.named === x.book).length / xs.length,
          // the drawn book is among the documents named (the first and those holding the same text, also_in)
          ge50_named_right: ge50.filter((x) => x.named_all.includes(x.book)).length / xs.length,
          // the document named first holds the passage's text
          ge50_named_holding: ge50.filter((x) => x.holds).length / xs.length,
          // wrong document: a document is named, the drawn book is not among the named, and the first named does
          // not hold the text — the rate a reader is sent to the wrong place
          wrong_document: namedAny.filter((x) => !x.named_all.includes(x.book) && !x.holds).length,
          wrong_document_rate: namedAny.length
            ? namedAny.filter((x) => !x.named_all.includes(x.book) && !x.holds).length / namedAny.length
            : 0,
          not_among_named: xs
            .filter((x) => x.named !== null && !x.named_all.includes(x.book))
            .map((x) => `${x.book} → ${x.named_all.join(', ')}${x.holds ? ' (holds the text)' : ''}`),
          ge50_unnamed: ge50.filter((x) => x.named === null).length,
        },
      ];
    }),
  );
  // whole packed books: the share of their words covered by the Gutenberg pack's matches
  const wholeIds = args.quick ? ['pg105'] : ['pg105', 'pg1342', 'pg2701'];
  result.whole_books = [];
  for (const id of wholeIds) {
    const d = gutenberg.documents.find((x) => x.id === id);
    if (!d) continue;
    const text = readFileSync(join(args.texts, d.file), 'utf8');
    const s = performance.now();
    const r = await engine.search(text, { datasets: ['pack:gutenberg'] });
    const ms = performance.now() - s;
    const names = new Set(r.matches.filter((m) => m.document_id).map((m) => m.document_id));
    result.whole_books.push({
      id,
      title: d.title,
      words: text.split(/\s+/).filter(Boolean).length,
      coverage: Math.round(r.coverage['pack:gutenberg'].share * 1e4) / 1e4,
      matches: r.matches.length,
      documents_named: [...names],
      search_ms: Math.round(ms),
    });
  }
}

// ------------------------------------------------------------------ held-out passages of Wikipedia articles
if (args['wiki-texts'] && existsSync(args['wiki-texts'])) {
  const WIKI = [
    ['wikipedia-articles', 'pack:wikipedia-articles'],
    ['wikipedia-core', 'pack:wikipedia-core'],
  ];
  const perPack = args.quick ? 12 : 40;
  result.wikipedia = {};
  for (const [name, packId] of WIKI) {
    const manifest = JSON.parse(readFileSync(join(root, `packs/${name}/manifest.json`), 'utf8'));
    if (!manifest.documents.every((d) => d.articles)) continue;
    /** The articles of a document: [{ key, title, words }], from the manifest's starts. */
    const articlesOf = (d) => {
      const text = readFileSync(join(args['wiki-texts'], name, d.file), 'utf8');
      const { starts, page_ids } = d.articles;
      return starts.map((start, j) => {
        const body = text.slice(start, j + 1 < starts.length ? starts[j + 1] : text.length);
        const lines = body.split('\n');
        return {
          key: String(page_ids[j]),
          title: lines[0],
          words: lines.slice(1).join(' ').split(/\s+/).filter(Boolean),
        };
      });
    };
    const byKey = new Map();
    const cases = {};
    let drawn = 0;
    for (let tries = 0; drawn < perPack && tries < perPack * 20; tries++) {
      const d = manifest.documents[Math.floor(rnd() * manifest.documents.length)];
      const arts = articlesOf(d);
      for (const a of arts) byKey.set(a.key, a);
      const a = arts[Math.floor(rnd() * arts.length)];
      if (a.words.length < 260) continue; // room for a 200-word passage away from the title
      drawn++;
      const at = 20 + Math.floor(rnd() * (a.words.length - 220));
      const probe = a.words.slice(at + 120, at + 150).join(' ');
      for (const [kind, f] of Object.entries({ verbatim: (w) => w, replaced: editKinds(rnd).replaced })) {
        for (const [n, from] of [
          [200, at],
          [80, at + 100],
        ]) {
          const w = f(a.words.slice(from, from + n));
          const r = await engine.analyze({ content: w.join(' '), content_type: 'text' });
          // the best match of the drawn pack (another pack may hold the same article, e.g. WikiText's copy)
          const m = r.matches
            .filter((x) => x.kind === 'portrait' && x.dataset_id === packId && x.document_id)
            .sort((x, y) => (y.agreeing ?? 0) - (x.agreeing ?? 0) || y.score - x.score)[0];
          const key = m?.article?.key ?? null;
          // the named article holds the passage: it is the drawn one, or its text holds the probe
          const other = key === null ? undefined : byKey.get(key);
          const holds = key === a.key || other?.words.join(' ').includes(probe) === true;
          (cases[`${kind}${n}`] ??= []).push({
            key: a.key,
            confidence: r.confidence,
            document: m?.document_id ?? null,
            named_document: m?.document_id === d.id,
            named_article: key,
            named_title: m?.article?.title ?? null,
            holds,
            words: m?.article?.words ?? null,
          });
        }
      }
    }
    result.wikipedia[packId] = Object.fromEntries(
      Object.entries(cases).map(([kind, xs]) => {
        const ge50 = xs.filter((x) => x.confidence >= 50);
        const namedAny = xs.filter((x) => x.named_article !== null);
        const wrong = namedAny.filter((x) => x.named_article !== x.key && !x.holds);
        return [
          kind,
          {
            n: xs.length,
            ge50: ge50.length / xs.length,
            ge50_named_document: ge50.filter((x) => x.named_document).length / xs.length,
            ge50_named_article: ge50.filter((x) => x.named_article === x.key).length / xs.length,
            // any confidence: the match names an article, and the drawn one
            named_article: namedAny.length,
            right_article: namedAny.filter((x) => x.named_article === x.key).length,
            wrong_article: wrong.length,
            wrong_article_rate: namedAny.length ? wrong.length / namedAny.length : 0,
            wrong_cases: wrong.map((x) => `${x.key} → ${x.named_article} (${x.named_title})`),
            ge50_without_article: ge50.filter((x) => x.named_article === null).length,
          },
        ];
      }),
    );
  }
}

// ------------------------------------------------------------------ pastiches (negatives)
const pasticheDirs = [
  ['fixture', join(root, 'test/fixtures/texts/pastiches')],
  ['held-out', join(root, 'bench/data/pastiches')],
];
result.pastiches = [];
for (const [set, dir] of args['no-pastiches'] ? [] : pasticheDirs) {
  for (const f of readdirSync(dir).sort()) {
    const words = readFileSync(join(dir, f), 'utf8').split(/\s+/).filter(Boolean);
    for (const n of [150, words.length]) {
      const r = await engine.analyze({ content: words.slice(0, n).join(' '), content_type: 'text' });
      result.pastiches.push({
        set,
        file: f,
        words: Math.min(n, words.length),
        confidence: r.confidence,
        named: named(r),
      });
    }
  }
}
// all the pastiches in one text (confidence must not rise with length)
if (!args['no-pastiches']) {
  const all = pasticheDirs
    .flatMap(([, dir]) => readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')))
    .join('\n\n');
  const r = await engine.analyze({ content: all, content_type: 'text' });
  result.pastiches.push({ set: 'all', file: '(all four)', words: all.split(/\s+/).length, confidence: r.confidence });
}

// ------------------------------------------------------------------ costs against the baseline's packs
const shared = fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (args.base && existsSync(join(args.base, 'index.json'))) {
  const sizes = (dir) => {
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    return index.packs.filter((p) => p.default).reduce((a, p) => a + p.bytes, 0);
  };
  const baseLib = args['base-dist']
    ? {
        createEngine: (await import(pathToFileURL(join(args['base-dist'], 'index.js')).href)).createEngine,
        loadDefaultPacks: (await import(pathToFileURL(join(args['base-dist'], 'node.js')).href)).loadDefaultPacks,
      }
    : { createEngine, loadDefaultPacks };
  const load = async (which) => {
    const lib = which === 'base' ? baseLib : { createEngine, loadDefaultPacks };
    const e = await lib.createEngine();
    const s = performance.now();
    await lib.loadDefaultPacks(e, which === 'base' ? { dir: args.base } : {});
    return { ms: performance.now() - s, engine: e };
  };
  const loads = { new: [], base: [] };
  const engines = {};
  for (let i = 0; i < (args.quick ? 5 : 21); i++) {
    for (const k of i % 2 ? ['base', 'new'] : ['new', 'base']) {
      const r = await load(k);
      loads[k].push(r.ms);
      if (engines[k]) engines[k].dispose?.();
      engines[k] = r.engine;
    }
  }
  // 10,000-word texts of natural English in no pack, a different one each round (so no answer is ever repeated)
  const texts = [];
  if (existsSync(join(shared, 'brown-corpus/documents.jsonl'))) {
    const words = readFileSync(join(shared, 'brown-corpus/documents.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).text)
      .join('\n\n')
      .split(/\s+/);
    for (let at = 0; at + 10_000 <= words.length && texts.length < 40; at += 10_000)
      texts.push(words.slice(at, at + 10_000).join(' '));
  }
  const analyzes = { new: [], base: [] };
  if (texts.length > 0) {
    for (const e of Object.values(engines)) await e.analyze({ content: texts[0], content_type: 'text' }); // warm
    // many rounds: one analyze takes tens of milliseconds, and a shared machine moves a short median by half
    const rounds = args.quick ? 21 : 121;
    for (let i = 0; i < rounds; i++) {
      const content = texts[(i + 1) % texts.length];
      for (const k of i % 2 ? ['base', 'new'] : ['new', 'base']) {
        const s = performance.now();
        await engines[k].analyze({ content, content_type: 'text' });
        analyzes[k].push(performance.now() - s);
      }
    }
  }
  result.costs = {
    default_pack_bytes: { new: sizes(join(root, 'packs')), base: sizes(args.base) },
    load_ms_median: { new: upperMedian(loads.new), base: upperMedian(loads.base) },
    baseline: { packs: args.base, dist: args['base-dist'] ?? '(this build)' },
    load_runs: loads.new.length,
    analyze_runs: analyzes.new.length,
    analyze_10k_ms_median: texts.length ? { new: upperMedian(analyzes.new), base: upperMedian(analyzes.base) } : null,
  };
  const c = result.costs;
  c.ratios = {
    bytes: Math.round((c.default_pack_bytes.new / c.default_pack_bytes.base) * 1000) / 1000,
    load: Math.round((c.load_ms_median.new / c.load_ms_median.base) * 1000) / 1000,
    load_paired: Math.round(upperMedian(loads.new.map((x, i) => x / loads.base[i])) * 1000) / 1000,
    analyze: c.analyze_10k_ms_median
      ? Math.round((c.analyze_10k_ms_median.new / c.analyze_10k_ms_median.base) * 1000) / 1000
      : null,
    // the median of the ratios of the same text in the same round (less moved by the machine's load)
    analyze_paired: analyzes.new.length
      ? Math.round(upperMedian(analyzes.new.map((x, i) => x / analyzes.base[i])) * 1000) / 1000
      : null,
  };
}
result.first_load_ms = Math.round(loadOnce);

console.log(JSON.stringify(result, null, 1));
const out = join(root, `bench/results/${args.out ?? 'eval-pack-documents'}${args.quick ? '-quick' : ''}.json`);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
if (args.check) {
  const fails = [];
  const p = result.passages;
  if (p) {
    if (p.verbatim80.ge50_named_right < CHECK.verbatim80_named) fails.push('verbatim 80 words: the drawn book named');
    if (p.replaced200.ge50 < CHECK.replaced200_ge50) fails.push('1 in 10 replaced, 200 words ≥ 50');
    if (p.replaced80.ge50 < CHECK.replaced80_ge50) fails.push('1 in 10 replaced, 80 words ≥ 50');
    for (const k of Object.keys(p))
      if (p[k].wrong_document_rate > CHECK.wrong_document_rate) fails.push(`${k}: wrong-document rate`);
    for (const k of Object.keys(p)) if (p[k].ge50_unnamed > 0) fails.push(`${k}: an answer ≥ 50 names no document`);
  }
  for (const [pack, kinds] of Object.entries(result.wikipedia ?? {})) {
    if (kinds.verbatim80 && kinds.verbatim80.ge50_named_article < CHECK.wiki_verbatim80_article)
      fails.push(`${pack} verbatim 80 words: the drawn article named`);
    for (const [k, x] of Object.entries(kinds))
      if (x.wrong_article_rate > CHECK.wrong_article_rate) fails.push(`${pack} ${k}: wrong-article rate`);
  }
  for (const b of result.whole_books ?? [])
    if (b.coverage < CHECK.whole_book_coverage) fails.push(`whole book ${b.id} coverage`);
  for (const x of result.pastiches) if (x.confidence >= 50 && !x.named) fails.push(`pastiche ${x.file} ≥ 50 unnamed`);
  if (fails.length) {
    console.log(`MISS ${fails.join('; ')}`);
    process.exit(1);
  }
  console.log('ok   pack documents: floors held');
}
