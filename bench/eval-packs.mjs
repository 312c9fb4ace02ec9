// The default reference packs as a new user meets them: a fresh engine with the default packs loaded
// (packs/index.json), 100-word passages of well-known public-domain books analysed (are they matched to the
// Gutenberg pack, attributed to models the knowledge base documents for PG-19 / The Pile, with confidence ≥ 80?),
// 100-word passages of Wikipedia articles the packs hold (likewise, for the Wikipedia packs),
// and ≥ 1,000 clean 100-word passages of text outside the packs (Brown Corpus news and fiction of 1961, arXiv
// abstracts and passages, student short answers) analysed for false matches. Also the packs' load time and the
// analyze latency with them loaded. Reads the development corpora in ../shared/data (never the packs' sources).
// Writes bench/results/eval-packs.json.
//
//   node bench/eval-packs.mjs            (needs dist/: npm run build)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const shared = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const read = (p) => readFileSync(join(shared, p), 'utf8');
const jsonl = (p) =>
  read(p)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

const { createEngine } = await import('../dist/index.js');
const { loadDefaultPacks } = await import('../dist/node.js');

// a seeded PRNG (mulberry32): the same passages on every run
let seed = 20261122;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
/** `n` passages of `words` words from a text, at seeded positions (away from the first and last 5 %). */
const passages = (text, n, words = 100) => {
  const w = text.split(/\s+/).filter(Boolean);
  if (w.length < words * 2) return w.length >= words ? [w.slice(0, words).join(' ')] : [];
  const lo = Math.floor(w.length * 0.05),
    hi = Math.floor(w.length * 0.95) - words;
  return Array.from({ length: n }, () => {
    const at = lo + Math.floor(rnd() * Math.max(1, hi - lo));
    return w.slice(at, at + words).join(' ');
  });
};

const t0 = performance.now();
const engine = await createEngine();
const loaded = await loadDefaultPacks(engine);
const loadMs = performance.now() - t0;
const packIds = new Set(loaded.map((p) => p.stats.id));
console.log(
  `loaded ${loaded.map((p) => `${p.stats.id} (${p.stats.documents} documents)`).join(', ')} in ${loadMs.toFixed(0)} ms`,
);

// ---- famous books: the NLTK Gutenberg selection and the Alice edition of the dev data
const books = readdirSync(join(shared, 'gutenberg-nltk/texts'))
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .map((f) => ({ id: f.replace(/\.txt$/, ''), text: read(join('gutenberg-nltk/texts', f)) }));
const alice = join('gutenberg-editions/alice-in-wonderland-11');
for (const f of readdirSync(join(shared, alice))
  .filter((x) => x.endsWith('.txt'))
  .sort()) {
  books.push({ id: `alice/${f.replace(/\.txt$/, '')}`, text: read(join(alice, f)) });
}
const perBook = [];
const latencies = [];
for (const b of books) {
  let found = 0,
    confident = 0,
    attributed = 0;
  const models = new Set();
  const ps = passages(b.text, 20);
  for (const content of ps) {
    const s = performance.now();
    const r = await engine.analyze({ content, content_type: 'text' });
    latencies.push(performance.now() - s);
    if (r.matches.some((m) => packIds.has(m.dataset_id))) found++;
    if (r.confidence >= 80) confident++;
    if (r.attribution_sources.length) attributed++;
    for (const src of r.attribution_sources) models.add(src.model);
  }
  perBook.push({
    book: b.id,
    passages: ps.length,
    found,
    confidence_ge_80: confident,
    attributed,
    models: [...models].slice(0, 8),
  });
  console.log(`${b.id.padEnd(36)} found ${found}/${ps.length}  confidence ≥ 80: ${confident}/${ps.length}`);
}

// ---- Wikipedia: passages of articles the packs hold. WikiText-2's test articles (dev data) are WikiText-103's test
// articles, which pack:wikipedia-wikitext holds; the other Wikipedia packs' prepared source texts are read from
// pack-texts/ when `node build/packs-prepare.mjs` has made them on this machine (skipped otherwise).
const wikiSources = [
  {
    id: 'wikitext-2-test (in pack:wikipedia-wikitext)',
    texts: jsonl('wikitext-2-raw-test/articles.jsonl').map((a) => a.text),
  },
];
for (const pack of ['wikipedia-articles', 'wikipedia-core']) {
  const dir = fileURLToPath(new URL(`../pack-texts/${pack}/`, import.meta.url));
  if (!existsSync(dir)) continue;
  wikiSources.push({
    id: `pack-texts/${pack} (in pack:${pack})`,
    texts: readdirSync(dir)
      .sort()
      .map((f) => readFileSync(join(dir, f), 'utf8')),
  });
}
const wikipedia = [];
for (const src of wikiSources) {
  // 100 passages a source, spread over its texts
  const picked = src.texts.flatMap((t) => passages(t, Math.ceil(100 / src.texts.length))).slice(0, 100);
  let found = 0,
    confident = 0,
    attributed = 0;
  const models = new Set();
  for (const content of picked) {
    const r = await engine.analyze({ content, content_type: 'text' });
    if (r.matches.some((m) => m.dataset_id.startsWith('pack:wikipedia'))) found++;
    if (r.confidence >= 80) confident++;
    if (r.attribution_sources.length) attributed++;
    for (const a of r.attribution_sources) models.add(a.model);
  }
  wikipedia.push({
    source: src.id,
    passages: picked.length,
    found,
    confidence_ge_80: confident,
    attributed,
    models: [...models].slice(0, 8),
  });
  console.log(`${src.id.padEnd(48)} found ${found}/${picked.length}  confidence ≥ 80: ${confident}/${picked.length}`);
}

// ---- clean passages from outside the packs
const clean = [
  ...jsonl('brown-corpus/documents.jsonl').flatMap((d) =>
    passages(d.text, 4).map((p) => ({ source: 'brown', text: p })),
  ),
  ...jsonl('arxivtection/passages.jsonl')
    .filter((d) => typeof d.verbatim === 'string')
    .flatMap((d) => passages(d.verbatim, 1).map((p) => ({ source: 'arxiv', text: p }))),
];
const short = join(shared, 'clough-stevenson-short-answers/texts');
if (existsSync(short)) {
  for (const f of readdirSync(short).sort())
    clean.push({ source: 'short-answers', text: readFileSync(join(short, f), 'utf8') });
}
let falseMatch = 0;
const falseBySource = {};
const examples = [];
for (const c of clean) {
  const s = performance.now();
  const r = await engine.analyze({ content: c.text, content_type: 'text' });
  latencies.push(performance.now() - s);
  if (r.matches.some((m) => packIds.has(m.dataset_id))) {
    falseMatch++;
    falseBySource[c.source] = (falseBySource[c.source] ?? 0) + 1;
    if (examples.length < 5)
      examples.push({ source: c.source, text: c.text.slice(0, 160), matches: r.matches.slice(0, 2) });
  }
}
const bySource = clean.reduce((a, c) => ((a[c.source] = (a[c.source] ?? 0) + 1), a), {});
latencies.sort((a, b) => a - b);
const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
const total = perBook.reduce((a, b) => a + b.passages, 0);
const result = {
  date: new Date().toISOString(),
  node: process.version,
  packs: loaded.map((x) => ({ id: x.stats.id, documents: x.stats.documents, index_bytes: x.stats.index_bytes })),
  load_ms: Math.round(loadMs),
  famous: {
    passages: total,
    found: perBook.reduce((a, b) => a + b.found, 0),
    confidence_ge_80: perBook.reduce((a, b) => a + b.confidence_ge_80, 0),
    per_book: perBook,
  },
  wikipedia,
  clean: {
    passages: clean.length,
    by_source: bySource,
    false_matches: falseMatch,
    false_by_source: falseBySource,
    rate: falseMatch / clean.length,
    examples,
  },
  analyze_ms: { p50: Number(p(0.5).toFixed(2)), p95: Number(p(0.95).toFixed(2)) },
};
console.log(
  `famous: found ${result.famous.found}/${total}, confidence ≥ 80 ${result.famous.confidence_ge_80}/${total}`,
);
console.log(
  `clean: ${falseMatch} false matches in ${clean.length} passages (${(100 * result.clean.rate).toFixed(2)} %) ${JSON.stringify(falseBySource)}`,
);
console.log(
  `analyze with the packs loaded: p50 ${result.analyze_ms.p50} ms, p95 ${result.analyze_ms.p95} ms; load ${result.load_ms} ms`,
);
const out = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'eval-packs.json'), JSON.stringify(result, null, 2) + '\n');
