// The default reference packs as a new user meets them: a fresh engine with the default packs loaded
// (packs/index.json), 100-word passages of well-known public-domain books analysed (are they matched to the
// Gutenberg pack, attributed to models the knowledge base documents for PG-19 / The Pile, with confidence ≥ 80?),
// 100-word passages of Wikipedia articles the packs hold (likewise, for the Wikipedia packs),
// and ≥ 1,000 clean 100-word passages of text outside the packs (Brown Corpus news and fiction of 1961, arXiv
// abstracts and passages, student short answers) analysed for false matches. Also the packs' load time and the
// analyze latency with them loaded. Reads the development corpora in ../shared/data (never the packs' sources).
//
//   per edit kind  every passage of a book or article is also analysed edited (bench/edits.mjs: 1 word in 10
//                  replaced, re-punctuated, modernised spelling, OCR-like noise), apart for the books the Gutenberg
//                  pack holds (found, ≥ 50, the book named among the documents of the best match) and for the
//                  period books it does not hold (Blake's poems, Julius Caesar: none may reach 50, edited or not)
//   per genre      the clean passages by Brown Corpus category (and arXiv, short answers): pack matches, ≥ 50, max
//
//   node bench/eval-packs.mjs [--quick] [--check] [--packs DIR] [--out NAME]   (needs dist/: npm run build)
//     --packs: a packs folder whose default packs are loaded (e.g. the English ones alone); --out: the result's name
//     --quick: 6 passages a book, 40 a Wikipedia source, 1 a Brown sample (CI); writes eval-packs-quick.json
//     --check: exit 1 under the floors (CHECK below)
// Writes bench/results/eval-packs.json.
import './help.mjs';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KNOWN_QUOTATIONS } from './attribution-cases.mjs';
import { changedWords, editKinds } from './edits.mjs';
import { genreName, mulberry32 } from './natural-texts.mjs';
import { round } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    check: { type: 'boolean' },
    // a packs folder (index.json and its files) whose default packs are loaded instead of this checkout's
    packs: { type: 'string' },
    // the result's name under bench/results/ (default eval-packs, -quick with --quick)
    out: { type: 'string' },
  },
});
const QUICK = args.quick === true;
/**
 * Floors of --check. Natural text outside the packs: no passage at ≥ 50 in any genre, pack matches on at most 1 %.
 * Period books the packs do not hold: none at ≥ 50, whatever the edit. Packed books: verbatim 100-word passages at
 * ≥ 50 naming the book (the targets for 80 words: ≥ 95 % at ≥ 50, the right book for ≥ 98 %), 1 word in 10 replaced
 * ≥ 60 % at ≥ 50 (the target for 80 words); re-punctuated, modernised and OCR-like copies ≥ 90 % at ≥ 50 (the full
 * run of 2026-11-26: 100 of 100 each, Wilson 95 % interval 0.96–1; a quick run draws 30, so one miss is 0.97).
 * Wikipedia passages the packs hold: the same floors, verbatim ≥ 95 % and 1 word in 10 replaced ≥ 60 % at ≥ 50.
 */
const CHECK = {
  clean_ge50: 0,
  clean_match_rate: 0.01,
  unpacked_ge50: 0,
  packed_ge50: { verbatim: 0.95, replaced: 0.6, repunctuated: 0.9, modernised: 0.9, ocr: 0.9 },
  packed_verbatim_named: 0.98,
  wikipedia_ge50: { verbatim: 0.95, replaced: 0.6 },
};

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
/** The edits (bench/edits.mjs) on a generator of their own: the passages drawn stay those of earlier runs. */
const EDITS = editKinds(mulberry32(20261126));
/** The books the Gutenberg pack holds, by their file in the dev data: the pack's document id. */
const PACKED = {
  'austen-persuasion': 'pg105',
  'chesterton-thursday': 'pg1695',
  'milton-paradise': 'pg26',
  'alice/11-0': 'pg11',
  'alice/old-alice30': 'pg11',
};
/** Every document the best portrait match of an analysis names: its document and those holding the same text. */
const namedAll = (r) => {
  const m = r.matches.filter((x) => x.kind === 'portrait' && x.document_id);
  m.sort((a, b) => (b.agreeing ?? 0) - (a.agreeing ?? 0) || b.score - a.score);
  return m[0] ? [m[0].document_id, ...(m[0].also_in ?? []).map((a) => a.document_id)] : [];
};
/** Wilson 95 % interval of k in n. */
function wilson(k, n) {
  if (n === 0) return [0, 1];
  const z = 1.959964,
    p = k / n,
    d = 1 + (z * z) / n,
    c = (p + (z * z) / (2 * n)) / d,
    h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [round(Math.max(0, c - h), 4), round(Math.min(1, c + h), 4)];
}
/** One edit kind's tally: passages, found in the packs (any match), ≥ 50, ≥ 80, named right (where known), max. */
const tally = () => ({ n: 0, found: 0, ge50: 0, ge80: 0, named_right: 0, max: 0, changed_words: 0 });
function record(t, r, { matched, expect = null, changed = 0 }) {
  t.n++;
  if (matched) t.found++;
  if (r.confidence >= 50) t.ge50++;
  if (r.confidence >= 80) t.ge80++;
  if (expect && r.confidence >= 50 && namedAll(r).includes(expect)) t.named_right++;
  t.max = Math.max(t.max, r.confidence);
  t.changed_words += changed;
}
const finish = (byKind) =>
  Object.fromEntries(
    Object.entries(byKind).map(([k, t]) => [
      k,
      {
        ...t,
        changed_words: Math.round((t.changed_words / Math.max(1, t.n)) * 10) / 10,
        ge50_share: t.n ? round(t.ge50 / t.n, 4) : null,
        ge50_ci_95: wilson(t.ge50, t.n),
        named_right_share: t.n ? round(t.named_right / t.n, 4) : null,
      },
    ]),
  );

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
const loaded = await loadDefaultPacks(engine, args.packs ? { dir: args.packs } : {});
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
/** Per edit kind: passages of the books the Gutenberg pack holds, and of the period books it does not hold. */
const bookEdits = { packed: {}, unpacked: {} };
for (const b of books) {
  let found = 0,
    confident = 0,
    attributed = 0;
  const models = new Set();
  const ps = passages(b.text, QUICK ? 6 : 20);
  const expect = PACKED[b.id] ?? null;
  const edits = bookEdits[expect ? 'packed' : 'unpacked'];
  for (const content of ps) {
    const s = performance.now();
    const r = await engine.analyze({ content, content_type: 'text' });
    latencies.push(performance.now() - s);
    const matched = r.matches.some((m) => packIds.has(m.dataset_id));
    if (matched) found++;
    if (r.confidence >= 80) confident++;
    if (r.attribution_sources.length) attributed++;
    for (const src of r.attribution_sources) models.add(src.model);
    record((edits.verbatim ??= tally()), r, { matched, expect });
    const words = content.split(' ');
    for (const [kind, f] of Object.entries(EDITS)) {
      if (kind === 'verbatim') continue;
      const edited = f(words);
      const e = await engine.analyze({ content: edited.join(' '), content_type: 'text' });
      const hit = e.matches.some((m) => packIds.has(m.dataset_id));
      record((edits[kind] ??= tally()), e, { matched: hit, expect, changed: changedWords(words, edited) });
    }
  }
  perBook.push({
    book: b.id,
    packed: expect,
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
  const n = QUICK ? 40 : 100;
  const picked = src.texts.flatMap((t) => passages(t, Math.ceil(n / src.texts.length))).slice(0, n);
  let found = 0,
    confident = 0,
    attributed = 0;
  const models = new Set();
  const edits = {};
  const inWikipedia = (r) => r.matches.some((m) => m.dataset_id.startsWith('pack:wikipedia'));
  for (const content of picked) {
    const r = await engine.analyze({ content, content_type: 'text' });
    if (inWikipedia(r)) found++;
    if (r.confidence >= 80) confident++;
    if (r.attribution_sources.length) attributed++;
    for (const a of r.attribution_sources) models.add(a.model);
    record((edits.verbatim ??= tally()), r, { matched: inWikipedia(r) });
    const words = content.split(' ');
    // modernised spelling is a book's edit: Wikipedia's house style is modern already
    for (const kind of ['replaced', 'repunctuated', 'ocr']) {
      const edited = EDITS[kind](words);
      const e = await engine.analyze({ content: edited.join(' '), content_type: 'text' });
      record((edits[kind] ??= tally()), e, { matched: inWikipedia(e), changed: changedWords(words, edited) });
    }
  }
  wikipedia.push({
    source: src.id,
    passages: picked.length,
    found,
    confidence_ge_80: confident,
    attributed,
    models: [...models].slice(0, 8),
    by_edit: finish(edits),
  });
  console.log(`${src.id.padEnd(48)} found ${found}/${picked.length}  confidence ≥ 80: ${confident}/${picked.length}`);
}

// ---- clean passages from outside the packs
const drawn = [
  ...jsonl('brown-corpus/documents.jsonl').flatMap((d) =>
    passages(d.text, QUICK ? 1 : 4).map((p) => ({ source: 'brown', genre: d.category, doc: d.id, text: p })),
  ),
  ...jsonl('arxivtection/passages.jsonl')
    .filter((d) => typeof d.verbatim === 'string')
    .flatMap((d) => passages(d.verbatim, 1).map((p) => ({ source: 'arxiv', genre: 'science', text: p }))),
];
const short = join(shared, 'clough-stevenson-short-answers/texts');
if (existsSync(short)) {
  for (const f of readdirSync(short).sort())
    drawn.push({ source: 'short-answers', genre: 'answer', text: readFileSync(join(short, f), 'utf8') });
}
const clean = drawn.filter((c) => !(c.doc in KNOWN_QUOTATIONS));
const quoted = drawn.filter((c) => c.doc in KNOWN_QUOTATIONS);
// texts that quote one a pack holds (bench/attribution-cases.mjs, read from their matched spans): not negatives,
// reported on their own
const quotations = {};
for (const c of quoted) {
  const r = await engine.analyze({ content: c.text, content_type: 'text' });
  const q = (quotations[c.doc] ??= { ...KNOWN_QUOTATIONS[c.doc], passages: 0, pack_matches: 0, ge50: 0 });
  q.passages++;
  if (r.matches.some((m) => packIds.has(m.dataset_id))) q.pack_matches++;
  if (r.confidence >= 50) q.ge50++;
}
let falseMatch = 0;
const falseBySource = {};
const examples = [];
const byGenre = {};
const confidentClean = [];
for (const c of clean) {
  const s = performance.now();
  const r = await engine.analyze({ content: c.text, content_type: 'text' });
  latencies.push(performance.now() - s);
  const matched = r.matches.some((m) => packIds.has(m.dataset_id));
  const g = (byGenre[genreName(c)] ??= { n: 0, pack_matches: 0, ge50: 0, max: 0 });
  g.n++;
  if (matched) g.pack_matches++;
  if (r.confidence >= 50) {
    g.ge50++;
    // what the answer rests on: the words of the passage its matches cover, and the documents they name
    confidentClean.push({
      source: c.source,
      genre: genreName(c),
      doc: c.doc,
      confidence: r.confidence,
      matches: r.matches.slice(0, 3).map((m) => ({
        dataset_id: m.dataset_id,
        document_id: m.document_id,
        title: m.document?.title,
        agreeing: m.agreeing,
        tokens: m.tokens,
        text: c.text.slice(m.query_start, m.query_end),
      })),
    });
  }
  g.max = Math.max(g.max, r.confidence);
  if (matched) {
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
  quick: QUICK,
  packs: loaded.map((x) => ({ id: x.stats.id, documents: x.stats.documents, index_bytes: x.stats.index_bytes })),
  load_ms: Math.round(loadMs),
  famous: {
    passages: total,
    found: perBook.reduce((a, b) => a + b.found, 0),
    confidence_ge_80: perBook.reduce((a, b) => a + b.confidence_ge_80, 0),
    per_book: perBook,
    // 100-word passages, verbatim and edited (bench/edits.mjs): books the Gutenberg pack holds (named_right: the
    // book among the documents the best match names, at ≥ 50) and period books it does not hold
    by_edit: { packed: finish(bookEdits.packed), unpacked: finish(bookEdits.unpacked) },
  },
  wikipedia,
  clean: {
    passages: clean.length,
    by_source: bySource,
    false_matches: falseMatch,
    false_by_source: falseBySource,
    rate: falseMatch / clean.length,
    by_genre: Object.fromEntries(Object.entries(byGenre).sort(([a], [b]) => (a < b ? -1 : 1))),
    confident: confidentClean,
    quotations,
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
for (const [set, kinds] of Object.entries(result.famous.by_edit))
  console.log(
    `books ${set}: ${Object.entries(kinds)
      .map(([k, t]) => `${k} ≥ 50 ${t.ge50}/${t.n}${set === 'packed' ? ` named ${t.named_right}` : ` max ${t.max}`}`)
      .join(', ')}`,
  );
for (const w of wikipedia)
  console.log(
    `${w.source}: ${Object.entries(w.by_edit)
      .map(([k, t]) => `${k} ≥ 50 ${t.ge50}/${t.n}`)
      .join(', ')}`,
  );
console.log(
  `clean by genre (≥ 50): ${Object.entries(result.clean.by_genre)
    .map(([g, t]) => `${g} ${t.ge50}/${t.n}`)
    .join(', ')}`,
);
writeFileSync(
  join(out, `${args.out ?? 'eval-packs'}${QUICK ? '-quick' : ''}.json`),
  `${JSON.stringify(result, null, 2)}\n`,
);

if (args.check) {
  const fails = [];
  for (const [g, t] of Object.entries(result.clean.by_genre))
    if (t.ge50 > CHECK.clean_ge50) fails.push(`clean ${g}: ${t.ge50} passages ≥ 50`);
  if (result.clean.rate > CHECK.clean_match_rate) fails.push(`clean: pack matches on ${round(result.clean.rate, 4)}`);
  for (const [k, t] of Object.entries(result.famous.by_edit.unpacked))
    if (t.ge50 > CHECK.unpacked_ge50) fails.push(`books not in the pack, ${k}: ${t.ge50} passages ≥ 50`);
  const packed = result.famous.by_edit.packed;
  for (const [k, floor] of Object.entries(CHECK.packed_ge50))
    if (!packed[k] || packed[k].ge50_share < floor) fails.push(`packed books, ${k}: ≥ 50 ${packed[k]?.ge50_share}`);
  if (packed.verbatim.named_right_share < CHECK.packed_verbatim_named)
    fails.push(`packed books, verbatim: the book named ${packed.verbatim.named_right_share}`);
  for (const w of wikipedia)
    for (const [k, floor] of Object.entries(CHECK.wikipedia_ge50))
      if (w.by_edit[k].ge50_share < floor) fails.push(`${w.source}, ${k}: ≥ 50 ${w.by_edit[k].ge50_share}`);
  if (fails.length) {
    for (const f of fails) console.log(`FAIL packs: ${f}`);
    process.exit(1);
  }
  console.log('ok   packs: every floor held (per genre and per edit kind)');
}
