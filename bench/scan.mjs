// engine.scan / `trainprint scan` at size, from dist/:
//   recall     planted archive passages of 50–150 words inside generated natural outputs (1 % of the outputs, every
//              third passage with 1–3 of its words replaced): found when a hit names the passage's document and its
//              query span is the passage's — every letter of it, and at most one word of the host text beyond it on
//              either side (alignment ends a passage at a word: a trailing comma stays out, a host word that the
//              source holds there too comes in); the target is ≥ 99 %
//   false      hits in the clean outputs, per 10,000 clean outputs (target ≤ 1)
//   throughput MB/s of the scan against MB/s of `trainprint fingerprint` (engine.fingerprint of the same bytes) in
//              alternating runs (medians): the scan in process (engine.scan, one thread) and scanFiles of
//              trainprint/node on the JSON Lines file (reading, parsing and writing included) with 1 and 2 threads;
//              the target is ≥ 0.5 on one thread
// The archive: the Gutenberg books, WikiText-2, Tiny Shakespeare, the PAN 2013 source documents and the even Brown
// samples (../shared/data); the outputs: windows of 60–300 words of the odd Brown samples and the arXivTection
// passages, which the archive does not hold. Text never leaves this machine: only the statistics are written.
// Results: bench/results/scan.json (scan-quick.json with --quick).
//   node bench/scan.mjs [--outputs 100000] [--rounds 3] [--quick] [--keep DIR]
//        --keep DIR: archive.tpds and outputs.jsonl are copied into DIR (for profiling the same input)
//   node --max-old-space-size=8000 bench/scan.mjs --scale 135 [--outputs 20000]
//        the same outputs against the archive beside an exact dataset of ≥ 50 M fingerprints (bench/corpus.mjs's
//        scaled English, 135 copies, every 4th word of a copy after the first marked; keep_text: false): engine.scan against engine.fingerprint only, in process, alternating;
//        bench/results/scan-scale.json
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../dist/index.js';
import { scanFiles } from '../dist/node.js';
import { hasSharedData, mulberry32, SHARED } from './natural-texts.mjs';
import { median, round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const quick = process.argv.includes('--quick');
const OUTPUTS = Number(arg('outputs', quick ? 10_000 : 100_000));
const ROUNDS = Number(arg('rounds', quick ? 2 : 3));
const MIN_WORDS = 50;
const SCALE = Number(arg('scale', '0'));
const here = fileURLToPath(new URL('.', import.meta.url));
if (!hasSharedData()) {
  console.error('bench/scan.mjs needs the development data in ../shared/data');
  process.exit(1);
}

const read = (p) => readFileSync(join(SHARED, p), 'utf8');
const jsonl = (p) =>
  read(p)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const utf8 = new TextEncoder();

/** Documents of about 4,000 characters of a long text, cut at white space. */
function cut(id, t, chars = 4000) {
  const docs = [];
  for (let at = 0, k = 0; at < t.length; k++) {
    let end = Math.min(t.length, at + chars);
    if (end < t.length) end = t.indexOf(' ', end) === -1 ? t.length : t.indexOf(' ', end);
    docs.push({ id: `${id}#${k}`, text: t.slice(at, end) });
    at = end;
  }
  return docs;
}

// ---------------------------------------------------------------- the archive and the outputs' natural text
const brown = jsonl('brown-corpus/documents.jsonl');
const archive = [
  ...readdirSync(join(SHARED, 'gutenberg-nltk/texts')).flatMap((f) => cut(f, read(`gutenberg-nltk/texts/${f}`))),
  ...jsonl('wikitext-2-raw-test/articles.jsonl').flatMap((a) => cut(a.id, a.text)),
  ...cut('tinyshakespeare', read('tinyshakespeare/input.txt')),
  ...readdirSync(join(SHARED, 'pan13-text-alignment/train-corpus/src')).map((f) => ({
    id: `pan-src/${f}`,
    text: read(`pan13-text-alignment/train-corpus/src/${f}`),
  })),
  ...brown.filter((_, i) => i % 2 === 0).map((d) => ({ id: d.id, text: d.text })),
];
const pool = [
  ...brown.filter((_, i) => i % 2 === 1).map((d) => d.text),
  ...jsonl('arxivtection/passages.jsonl').map((r) => r.verbatim),
]
  .join(' ')
  .split(/\s+/)
  .filter(Boolean);

// ---------------------------------------------------------------- the outputs, 1 % with a planted passage
const EDIT_WORDS = ['really', 'quite', 'indeed', 'perhaps', 'certainly', 'surely', 'also', 'truly'];
const rnd = mulberry32(47);
const archiveWords = archive.map((d) => d.text.split(/\s+/).filter(Boolean));
/** A natural output: a window of 60–300 words of the pool, in paragraphs of 40–120 words. */
function natural() {
  const len = 60 + Math.floor(rnd() * 241);
  const at = Math.floor(rnd() * (pool.length - len));
  const words = pool.slice(at, at + len);
  let text = '';
  for (let k = 0, next = 40 + Math.floor(rnd() * 80); k < words.length; k++) {
    text += (k === 0 ? '' : k === next ? '\n\n' : ' ') + words[k];
    if (k === next) next += 40 + Math.floor(rnd() * 80);
  }
  return text;
}
const items = [];
const planted = [];
for (let i = 0; i < OUTPUTS; i++) {
  let text = natural();
  if (i % 100 === 37) {
    let d, words;
    do {
      d = Math.floor(rnd() * archive.length);
      words = archiveWords[d];
    } while (words.length < 160);
    const len = 50 + Math.floor(rnd() * 101);
    const at = 1 + Math.floor(rnd() * (words.length - len - 1));
    const passage = words.slice(at, at + len);
    const edited = planted.length % 3 === 2;
    if (edited) {
      for (let e = 1 + Math.floor(rnd() * 3); e > 0; e--)
        passage[10 + Math.floor(rnd() * (len - 20))] = EDIT_WORDS[Math.floor(rnd() * EDIT_WORDS.length)];
    }
    const cutAt = text.indexOf(' ', Math.floor(rnd() * text.length));
    const head = cutAt < 0 ? `${text} ` : `${text.slice(0, cutAt)}${rnd() < 0.5 ? '\n\n' : ' '}`;
    const tail = cutAt < 0 ? '' : `${rnd() < 0.5 ? '\n\n' : ' '}${text.slice(cutAt + 1)}`;
    const p = passage.join(' ');
    text = head + p + tail;
    planted.push({
      item: i,
      document_id: archive[d].id,
      query_start: head.length,
      query_end: head.length + p.length,
      words: len,
      edited,
    });
  }
  items.push({ id: `out-${i}`, text });
}
const textBytes = items.reduce((n, x) => n + utf8.encode(x.text).length, 0);

/** exactSpan of test/fixtures/scan-plant.ts (see the comment at the top). */
function exactSpan(text, hit, p) {
  const passage = text.slice(p.query_start, p.query_end);
  const lead = passage.length - passage.replace(/^[^\p{L}\p{N}]+/u, '').length;
  const trail = passage.length - passage.replace(/[^\p{L}\p{N}]+$/u, '').length;
  const start = p.query_start + lead,
    end = p.query_end - trail;
  if (hit.query_start > start || hit.query_end < end) return false;
  const words = (s) =>
    s
      .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
      .split(/\s+/)
      .filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  return words(text.slice(hit.query_start, start)) <= 1 && words(text.slice(end, hit.query_end)) <= 1;
}

// ---------------------------------------------------------------- files, the engine with the archive
const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-scan-'));
const engine = await createEngine();
await engine.addDataset({ id: 'archive' }, archive);
const stats = engine.datasets()[0];
writeFileSync(join(dir, 'archive.tpds'), engine.exportDataset('archive'));
const input = join(dir, 'outputs.jsonl');
writeFileSync(input, `${items.map((x) => JSON.stringify(x)).join('\n')}\n`);
const allBytes = utf8.encode(items.map((x) => x.text).join('\n'));
let scaleStats = null;
if (SCALE > 0) {
  const { english, scaledDocuments } = await import('./corpus.mjs');
  const t = performance.now();
  scaleStats = await engine.addDataset({ id: 'scale', keep_text: false }, scaledDocuments(english(), SCALE));
  console.error(
    `scale: ${scaleStats.fingerprints.toLocaleString('en-US')} fingerprints built in ${Math.round(performance.now() - t)} ms`,
  );
}
await engine.scanItem(items[0]); // the archive's index is sorted by its first search
// memory of one scan thread: a fresh process with an engine, then with the archive imported and searched once
const memoryScript = `
  const { readFileSync } = await import('node:fs');
  const { createEngine } = await import(${JSON.stringify(join(here, '../dist/index.js'))});
  const engine = await createEngine();
  globalThis.gc?.(); const bare = process.memoryUsage().rss;
  await engine.importDataset(readFileSync(${JSON.stringify(join(dir, 'archive.tpds'))}));
  await engine.scanItem({ id: 'x', text: ${JSON.stringify(items[37].text)} });
  globalThis.gc?.(); console.log(JSON.stringify({ bare, loaded: process.memoryUsage().rss }));`;
const mem = SCALE
  ? null
  : JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', memoryScript], { encoding: 'utf8' }),
    );
console.error(
  `archive: ${stats.documents} documents, ${stats.fingerprints.toLocaleString('en-US')} fingerprints, ` +
    `${round(stats.bytes / 1e6, 1)} MB; outputs: ${OUTPUTS.toLocaleString('en-US')} (${planted.length} planted), ` +
    `${round(textBytes / 1e6, 1)} MB of text`,
);

// ---------------------------------------------------------------- throughput, alternating runs
const FP_CHUNK = 32 << 20;
const runs = { fingerprint: [], scan_library: [], scan_files_1: [], scan_files_2: [] };
let firstFiles = null;
let libraryHits = null;
const kinds = {
  async fingerprint() {
    const t = performance.now();
    for (let at = 0; at < allBytes.length; at += FP_CHUNK) engine.fingerprint(allBytes.subarray(at, at + FP_CHUNK));
    return allBytes.length / 1e6 / ((performance.now() - t) / 1000);
  },
  async scan_library() {
    const t = performance.now();
    const got = [];
    for await (const hit of engine.scan(items, { minWords: MIN_WORDS })) got.push(hit);
    const mbs = textBytes / 1e6 / ((performance.now() - t) / 1000);
    libraryHits ??= got;
    return mbs;
  },
  // scanFiles: MB/s once the datasets are loaded (its `ms`); the load of each run is recorded apart
  async scan_files_1() {
    const out = join(dir, 'hits-1.jsonl');
    const t = performance.now();
    const r = await scanFiles({ datasets: [join(dir, 'archive.tpds')], inputs: [input], out, threads: 1 });
    loads.scan_files_1.push(Math.round(performance.now() - t - r.ms));
    firstFiles ??= { out, result: r };
    return r.bytes / 1e6 / (r.ms / 1000);
  },
  async scan_files_2() {
    const t = performance.now();
    const r = await scanFiles({
      datasets: [join(dir, 'archive.tpds')],
      inputs: [input],
      out: join(dir, 'hits-2.jsonl'),
      threads: 2,
    });
    loads.scan_files_2.push(Math.round(performance.now() - t - r.ms));
    return r.bytes / 1e6 / (r.ms / 1000);
  },
};
const loads = { scan_files_1: [], scan_files_2: [] };
// with --scale: the library scan against the fingerprint only (a thread per 1.2 GB dataset is another bench)
const order = SCALE ? ['fingerprint', 'scan_library'] : Object.keys(kinds);
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < order.length; k++) {
    const kind = order[(k + r) % order.length];
    const mbs = await kinds[kind]();
    runs[kind].push(round(mbs, 2));
    console.error(`round ${r + 1}: ${kind} ${round(mbs, 2)} MB/s`);
  }
}

// ---------------------------------------------------------------- recall and false blocks (the first file scan)
const hits = firstFiles
  ? readFileSync(firstFiles.out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : libraryHits;
const byItem = new Map();
for (const h of hits) (byItem.get(h.id) ?? byItem.set(h.id, []).get(h.id)).push(h);
const plantedItems = new Set(planted.map((p) => `out-${p.item}`));
let found = 0,
  foundEdited = 0,
  named = 0;
const missed = [];
for (const p of planted) {
  const own = (byItem.get(`out-${p.item}`) ?? []).filter((h) => h.document_id === p.document_id);
  if (own.length > 0) named++;
  if (own.some((h) => exactSpan(items[p.item].text, h, p))) {
    found++;
    if (p.edited) foundEdited++;
  } else missed.push({ item: p.item, words: p.words, edited: p.edited, hits: own.length });
}
const clean = OUTPUTS - planted.length;
const falseHits = hits.filter((h) => !plantedItems.has(h.id));
const falseItems = new Set(falseHits.map((h) => h.id)).size;
// in the planted outputs: hits that are not the planted passage
const strayHits = hits.filter(
  (h) =>
    plantedItems.has(h.id) &&
    !planted.some(
      (p) => `out-${p.item}` === h.id && p.document_id === h.document_id && exactSpan(items[p.item].text, h, p),
    ),
).length;
const ratio = (k) => round(median(runs[k]) / median(runs.fingerprint), 3);
const result = {
  bench: 'scan',
  date: new Date().toISOString(),
  node: process.version,
  cores: cpus().length,
  quick,
  archive: {
    documents: stats.documents,
    fingerprints: stats.fingerprints,
    mb: round(stats.bytes / 1e6, 2),
    sources: 'gutenberg-nltk, wikitext-2-raw-test, tinyshakespeare, pan13 source documents, even Brown samples',
  },
  outputs: {
    count: OUTPUTS,
    planted: planted.length,
    planted_edited: planted.filter((p) => p.edited).length,
    mb: round(textBytes / 1e6, 2),
    words: '60–300 words of odd Brown samples and arXivTection passages; passages of 50–150 words',
  },
  min_words: MIN_WORDS,
  recall: {
    found_exact_span: found,
    recall: round(found / planted.length, 4),
    recall_edited: round(foundEdited / planted.filter((p) => p.edited).length, 4),
    document_named: round(named / planted.length, 4),
    missed: missed.slice(0, 20),
    target: 0.99,
  },
  false_blocks: {
    clean_outputs: clean,
    hits: falseHits.length,
    outputs_with_hits: falseItems,
    per_10000_clean: round((falseHits.length / clean) * 10_000, 3),
    stray_hits_in_planted_outputs: strayHits,
    target_per_10000: 1,
  },
  throughput: {
    rounds: ROUNDS,
    mb_s_median: Object.fromEntries(order.map((k) => [k, median(runs[k])])),
    runs,
    ratio_to_fingerprint: {
      scan_library: ratio('scan_library'),
      scan_files_1: ratio('scan_files_1'),
      scan_files_2: ratio('scan_files_2'),
    },
    // the same ratio paired by round (each round's scan against that round's fingerprint, then the median): the
    // machine's slow and fast spells, which the medians of each kind take at different rounds, cancel out
    ratio_to_fingerprint_by_round: Object.fromEntries(
      order
        .filter((k) => k !== 'fingerprint')
        .map((k) => [k, round(median(runs[k].map((x, r) => x / runs.fingerprint[r])), 3)]),
    ),
    threads_2_over_1: round(median(runs.scan_files_2) / median(runs.scan_files_1), 3),
    load_ms: loads,
    load_note:
      'scanFiles: engine start and dataset load (per thread, in parallel) before the first item, not in its MB/s',
    items_per_s_one_thread: Math.round((OUTPUTS / textBytes) * median(runs.scan_files_1) * 1e6),
    target_one_thread: 0.5,
    fingerprint:
      "engine.fingerprint of the outputs' texts joined by newlines, in pieces of 32 MiB (trainprint fingerprint FILE)",
  },
  memory: mem && {
    process_with_engine_mb: round(mem.bare / 1e6, 1),
    engine_with_archive_mb: round((mem.loaded - mem.bare) / 1e6, 1),
    process_with_archive_mb: round(mem.loaded / 1e6, 1),
    archive_file_mb: round(readFileSync(join(dir, 'archive.tpds')).length / 1e6, 2),
    note: 'RSS of a fresh process with an engine, and what importing the archive (and its first search) adds: each scan thread holds one engine with the datasets',
  },
};
if (SCALE) {
  const t = result.throughput;
  for (const k of ['scan_files_1', 'scan_files_2']) delete t.ratio_to_fingerprint[k];
  for (const k of ['threads_2_over_1', 'load_ms', 'load_note', 'items_per_s_one_thread']) delete t[k];
  t.items_per_s_library = Math.round((OUTPUTS / textBytes) * median(runs.scan_library) * 1e6);
  result.scale = {
    copies: SCALE,
    dataset: 'scale',
    fingerprints: scaleStats.fingerprints,
    documents: scaleStats.documents,
    keep_text: false,
    note: 'searched beside the archive in every scan; copies 2.. have every 4th word marked, so their 5-grams are in no output; copy 1 is the English as it is (Project Gutenberg texts the archive holds too), so planted passages are found there as well: the stray hits in planted outputs are those, the same passage in the other dataset (seed chains: keep_text false)',
  };
  result.recall.note = 'from the first library scan (engine.scan), not a file scan';
}
const keep = arg('keep', null);
if (keep) {
  mkdirSync(keep, { recursive: true });
  for (const f of ['archive.tpds', 'outputs.jsonl']) copyFileSync(join(dir, f), join(keep, f));
}
rmSync(dir, { recursive: true, force: true });
const file = join(here, 'results', SCALE ? 'scan-scale.json' : quick ? 'scan-quick.json' : 'scan.json');
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(
  JSON.stringify({
    recall: result.recall.recall,
    false_per_10000: result.false_blocks.per_10000_clean,
    ratio: result.throughput.ratio_to_fingerprint,
    ratio_by_round: result.throughput.ratio_to_fingerprint_by_round,
    threads_2_over_1: result.throughput.threads_2_over_1,
  }),
);
