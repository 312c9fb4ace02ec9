// Do the default packs name the document a passage comes from? Held-out passages of the Gutenberg pack's own books
// (seeded positions, never tuned on), verbatim and with 1 word in 10 replaced, analysed with the default packs loaded:
// the share at confidence ≥ 50 and the share whose portrait match names the right book. Whole packed books: the share
// of their words the Gutenberg pack covers (`search` coverage, every run counted). Pastiches of packed authors written
// for this project (invented people and plot; test/fixtures/texts/pastiches/ and, never tuned on,
// bench/data/pastiches/): their confidence, and whether any answer ≥ 50 lacks a named document. Costs against the
// packs of a baseline commit, measured in the same run (alternating, medians): the default packs' bytes, their load
// time, and analyze of a 10,000-word text (Brown Corpus samples, ../shared/data) with them loaded.
//
//   node bench/eval-pack-documents.mjs --texts DIR [--base DIR] [--quick] [--check]
//     --texts: the Gutenberg pack's texts (node build/packs-prepare.mjs gutenberg …); without it, the passages are skipped
//     --base: a packs folder of the baseline (index.json and its .tpk files), e.g. from `git show BASE:packs/…`
// Writes bench/results/eval-pack-documents.json (-quick with --quick); --check exits 1 under the floors (CHECK).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    texts: { type: 'string' },
    base: { type: 'string' },
    quick: { type: 'boolean' },
    check: { type: 'boolean' },
  },
});
const root = fileURLToPath(new URL('../', import.meta.url));
const { createEngine } = await import('../dist/index.js');
const { loadDefaultPacks } = await import('../dist/node.js');

/** Floors of --check. */
const CHECK = { verbatim80_named: 0.95, edited200_ge50: 0.9, edited80_ge50: 0.6, whole_book_coverage: 0.9 };

let seed = 20261126;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const REPLACEMENTS = [
  'quite',
  'indeed',
  'perhaps',
  'certain',
  'rather',
  'little',
  'often',
  'simply',
  'surely',
  'again',
];
/** 1 word in 10 replaced (the 5th of every 10), by a word it is not. */
const edit = (words) =>
  words.map((w, i) => {
    if (i % 10 !== 5) return w;
    let r = REPLACEMENTS[Math.floor(rnd() * REPLACEMENTS.length)];
    if (r === w.toLowerCase()) r = 'very';
    return r;
  });

const engine = await createEngine();
const t0 = performance.now();
const loaded = await loadDefaultPacks(engine);
const loadOnce = performance.now() - t0;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  quick: args.quick === true,
  packs: loaded.map((p) => ({ id: p.stats.id, file_bytes: p.info.file_bytes, ngrams: p.info.counts.ngrams })),
};
const gutenberg = JSON.parse(readFileSync(join(root, 'packs/gutenberg/manifest.json'), 'utf8'));

/** The named document of an analysis's portrait matches (the one with the most agreeing hits). */
const named = (r) => {
  const m = r.matches.filter((x) => x.kind === 'portrait' && x.document_id);
  m.sort((a, b) => (b.agreeing ?? 0) - (a.agreeing ?? 0) || b.score - a.score);
  return m[0]?.document_id ?? null;
};

// ------------------------------------------------------------------ held-out passages of packed books
if (args.texts && existsSync(args.texts)) {
  const nBooks = args.quick ? 16 : 48;
  const docs = gutenberg.documents.slice();
  const picked = [];
  while (picked.length < nBooks && docs.length) picked.push(docs.splice(Math.floor(rnd() * docs.length), 1)[0]);
  const cases = { verbatim80: [], edited200: [], edited80: [] };
  for (const d of picked) {
    const words = readFileSync(join(args.texts, d.file), 'utf8').split(/\s+/).filter(Boolean);
    const lo = Math.floor(words.length * 0.05),
      hi = Math.floor(words.length * 0.95) - 200;
    const at = lo + Math.floor(rnd() * Math.max(1, hi - lo));
    const variants = {
      verbatim80: words.slice(at, at + 80),
      edited200: edit(words.slice(at, at + 200)),
      edited80: edit(words.slice(at + 100, at + 180)),
    };
    // a named document other than the one drawn from may hold the same text (another edition in the pack)
    const probe = words.slice(at + 120, at + 150).join(' ');
    for (const [kind, w] of Object.entries(variants)) {
      const r = await engine.analyze({ content: w.join(' '), content_type: 'text' });
      const name = named(r);
      let holds = name === d.id;
      if (name && !holds) {
        const other = gutenberg.documents.find((x) => x.id === name);
        holds = other
          ? readFileSync(join(args.texts, other.file), 'utf8').split(/\s+/).join(' ').includes(probe)
          : false;
      }
      cases[kind].push({ book: d.id, confidence: r.confidence, named: name, holds });
    }
  }
  result.passages = Object.fromEntries(
    Object.entries(cases).map(([kind, xs]) => {
      const ge50 = xs.filter((x) => x.confidence >= 50);
      return [
        kind,
        {
          n: xs.length,
          ge50: ge50.length / xs.length,
          ge50_named_right: ge50.filter((x) => x.named === x.book).length / xs.length,
          ge50_named_holding: ge50.filter((x) => x.holds).length / xs.length,
          named_wrong: xs.filter((x) => x.named !== null && x.named !== x.book).length,
          wrong: xs.filter((x) => x.named !== null && x.named !== x.book).map((x) => `${x.book} → ${x.named}`),
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

// ------------------------------------------------------------------ pastiches (negatives)
const pasticheDirs = [
  ['fixture', join(root, 'test/fixtures/texts/pastiches')],
  ['held-out', join(root, 'bench/data/pastiches')],
];
result.pastiches = [];
for (const [set, dir] of pasticheDirs) {
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
{
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
  const load = async (dir) => {
    const e = await createEngine();
    const s = performance.now();
    await loadDefaultPacks(e, dir === null ? {} : { dir });
    return { ms: performance.now() - s, engine: e };
  };
  const loads = { new: [], base: [] };
  const engines = {};
  for (let i = 0; i < (args.quick ? 3 : 5); i++) {
    for (const [k, dir] of [
      ['new', null],
      ['base', args.base],
    ]) {
      const r = await load(dir);
      loads[k].push(r.ms);
      engines[k] = r.engine;
    }
  }
  let text = '';
  if (existsSync(join(shared, 'brown-corpus/documents.jsonl'))) {
    const brown = readFileSync(join(shared, 'brown-corpus/documents.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).text);
    const words = brown.join('\n\n').split(/\s+/).slice(0, 10_000);
    text = words.join(' ');
  }
  const analyzes = { new: [], base: [] };
  if (text) {
    for (const e of Object.values(engines)) await e.analyze({ content: text, content_type: 'text' }); // warm
    for (let i = 0; i < (args.quick ? 3 : 7); i++) {
      for (const k of i % 2 ? ['base', 'new'] : ['new', 'base']) {
        const s = performance.now();
        await engines[k].analyze({ content: text, content_type: 'text' });
        analyzes[k].push(performance.now() - s);
      }
    }
  }
  result.costs = {
    default_pack_bytes: { new: sizes(join(root, 'packs')), base: sizes(args.base) },
    load_ms_median: { new: median(loads.new), base: median(loads.base) },
    analyze_10k_ms_median: text ? { new: median(analyzes.new), base: median(analyzes.base) } : null,
  };
  const c = result.costs;
  c.ratios = {
    bytes: Math.round((c.default_pack_bytes.new / c.default_pack_bytes.base) * 1000) / 1000,
    load: Math.round((c.load_ms_median.new / c.load_ms_median.base) * 1000) / 1000,
    analyze: c.analyze_10k_ms_median
      ? Math.round((c.analyze_10k_ms_median.new / c.analyze_10k_ms_median.base) * 1000) / 1000
      : null,
  };
}
result.first_load_ms = Math.round(loadOnce);

console.log(JSON.stringify(result, null, 1));
const out = join(root, `bench/results/eval-pack-documents${args.quick ? '-quick' : ''}.json`);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
if (args.check) {
  const fails = [];
  const p = result.passages;
  if (p) {
    if (p.verbatim80.ge50_named_holding < CHECK.verbatim80_named) fails.push('verbatim 80 words named');
    if (p.edited200.ge50 < CHECK.edited200_ge50) fails.push('edited 200 words ≥ 50');
    if (p.edited80.ge50 < CHECK.edited80_ge50) fails.push('edited 80 words ≥ 50');
    for (const k of Object.keys(p)) if (p[k].ge50_unnamed > 0) fails.push(`${k}: an answer ≥ 50 names no document`);
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
