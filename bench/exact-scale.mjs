// The exact index at scale, one process: build (keep_text: false, so only the index is held), the first
// search (the sort), the process RSS per fingerprint against what `stats().index_bytes` reports, search
// and analyze of a 10k-word query with no reuse (the retrieval path: no candidates to align), and a
// streamed export to a file with its peak RSS. Corpus as bench/index.mjs: the 10 MB English in 10 kB
// documents, --scale N copies (every 4th word of a copy marked, so copies share no 5-gram); N = 135 is
// 51-52 M fingerprints (≈ 3 GB of RSS before this change, ≈ 1.2 GB after).
//   node --expose-gc --max-old-space-size=16000 bench/exact-scale.mjs [--scale 135] [--iterations 50] [--dist DIR] [--json]
//        [--held [--runs 3]]  only the build and the first search's sort, on documents made before the timing and
//                       held in memory (the generator's regular expression costs as much as the build), a fresh
//                       engine each run: bench/results/exact-scale-x<N>-held.json
//        [--chromium]   also: the exported file imported into headless Chromium (/usr/bin/chromium, playwright-core;
//                       the page loads dist/ from a server on 127.0.0.1) and the same analyze timed there
// Results: bench/results/exact-scale-x<N>.json (--dist or --json: printed as one JSON line instead). Peaks are the kernel's VmHWM, reset through
// /proc/self/clear_refs (Linux; elsewhere peaks count from the start of the process).
import './help.mjs';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { english, scaledDocuments } from './corpus.mjs';
import { upperMedian } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SCALE = Number(arg('scale', '1'));
const ITERATIONS = Number(arg('iterations', '50'));
// --dist: another build of the package (an earlier commit's dist/) measured the same way
const dist = arg('dist', null);
const { createEngine } = await import(dist ? pathToFileURL(join(resolve(dist), 'index.js')).href : '../dist/index.js');
const MB = 1e6;

const gc = () => {
  globalThis.gc?.();
  globalThis.gc?.();
};
const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) * 1024;
const resetPeak = () => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    /* not Linux */
  }
};

const en = english(10_000_000);
const log = process.argv.includes('--json') ? () => undefined : console.log;
const DOC = 10_000;
const documents = () => scaledDocuments(en, SCALE, DOC);

if (process.argv.includes('--held')) {
  const RUNS = Number(arg('runs', '3'));
  let held = [...documents()];
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const e = await createEngine();
    await e.addDataset({ id: 'warm-up', keep_text: false }, held.slice(0, 100));
    e.search('warm up');
    e.removeDataset('warm-up');
    gc();
    const t0 = performance.now();
    const stats = await e.addDataset({ id: 'held', keep_text: false }, held);
    const buildMs = performance.now() - t0;
    const t1 = performance.now();
    e.search('the first search sorts the index');
    const sortMs = performance.now() - t1;
    const mbs = stats.bytes / MB;
    runs.push({
      bytes: stats.bytes,
      fingerprints: stats.fingerprints,
      build_ms: buildMs,
      sort_ms: sortMs,
      build_mb_per_s: mbs / (buildMs / 1000),
      build_and_sort_mb_per_s: mbs / ((buildMs + sortMs) / 1000),
    });
    log(
      `run ${r + 1}: ${stats.fingerprints} fingerprints; build ${(buildMs / 1000).toFixed(1)} s = ` +
        `${(mbs / (buildMs / 1000)).toFixed(1)} MB/s; with the first search's sort ${(sortMs / 1000).toFixed(1)} s: ` +
        `${(mbs / ((buildMs + sortMs) / 1000)).toFixed(1)} MB/s`,
    );
    e.removeDataset('held');
    gc();
  }
  held = null;
  const median = (k) => upperMedian(runs.map((x) => x[k]));
  const out = {
    bench: 'exact-scale --held',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    scale: SCALE,
    method:
      'documents made first and held in memory (an array of { id, text }); per run a fresh engine, a warm-up ' +
      'build of 100 documents, then addDataset (keep_text: false) and the first search (the sort), timed apart',
    runs,
    median_build_mb_per_s: median('build_mb_per_s'),
    median_build_and_sort_mb_per_s: median('build_and_sort_mb_per_s'),
  };
  if (!process.argv.includes('--json'))
    writeFileSync(
      new URL(`./results/exact-scale-x${SCALE}-held.json`, import.meta.url),
      JSON.stringify(out, null, 2) + '\n',
    );
  else console.log(JSON.stringify(out));
  process.exit(0);
}

const engine = await createEngine();
await engine.addDataset(
  { id: 'warm-up', keep_text: false },
  (function* () {
    for (let at = 0; at < 1_000_000; at += DOC) yield { id: `w${at}`, text: en.slice(at, at + DOC) };
  })(),
);
engine.search('warm up');
engine.removeDataset('warm-up');
gc();
const before = process.memoryUsage();

const t0 = performance.now();
const built = await engine.addDataset({ id: 'bench', kb_dataset: 'common-crawl', keep_text: false }, documents());
const buildMs = performance.now() - t0;
const t1 = performance.now();
engine.search('the first search sorts the index');
const sortMs = performance.now() - t1;
gc();
const steady = process.memoryUsage();
const stats = engine.datasets().find((d) => d.id === 'bench');
const n = stats.fingerprints;
const rssPerFp = (steady.rss - before.rss) / n;
log(
  `scale ${SCALE}: ${stats.documents} docs, ${(stats.bytes / MB).toFixed(0)} MB, ${n} fingerprints; build ${(buildMs / 1000).toFixed(1)} s; ` +
    `first search (sort) ${sortMs.toFixed(0)} ms = ${((sortMs * 1e6) / n).toFixed(1)} ns/key`,
);
log(
  `RSS ${(before.rss / MB).toFixed(0)} → ${(steady.rss / MB).toFixed(0)} MB: ${rssPerFp.toFixed(1)} B/fingerprint; ` +
    `index_bytes ${(stats.index_bytes / MB).toFixed(0)} MB = ${(stats.index_bytes / n).toFixed(1)} B/fingerprint (was ${(built.index_bytes / n).toFixed(1)} before the sort)`,
);

// 10k words of shuffled corpus words: no passage of the index, nothing to align
const words = en.slice(0, 2_000_000).split(/\s+/);
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const query = Array.from({ length: 10_000 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
const request = { content: query, content_type: 'text', metadata: { jurisdiction: 'US', work_type: 'article' } };
const found = engine.search(query);
const analyzed = await engine.analyze(request);
const timed = async (name, fn) => {
  const b = new Bench({ iterations: ITERATIONS, time: 0, warmupIterations: 5, warmupTime: 0 });
  b.add(name, fn);
  await b.run();
  const l = b.tasks[0].result.latency;
  return { p50: l.p50, p99: l.p99, min: l.min };
};
const search = await timed('search', () => {
  engine.search(query);
});
const analyze = await timed('analyze', async () => {
  await engine.analyze(request);
});
log(
  `10k-word query, no reuse (${found.query_tokens} tokens, ${found.matches.length} matches, ${analyzed.attribution_sources.length} ` +
    `attribution sources): search p50 ${search.p50.toFixed(2)} ms (min ${search.min.toFixed(2)}), analyze p50 ${analyze.p50.toFixed(2)} ms ` +
    `(min ${analyze.min.toFixed(2)}, p99 ${analyze.p99.toFixed(2)})`,
);

gc();
const exportSteady = process.memoryUsage().rss;
const file = join(tmpdir(), `tp-exact-scale-${process.pid}.tpds`);
resetPeak();
const t2 = performance.now();
const stream = engine.exportDatasetStream('bench');
const fd = openSync(file, 'w');
const buffer = new Uint8Array(1 << 20);
let fill = 0,
  at = 0;
const flush = () => {
  writeSync(fd, buffer, 0, fill, at);
  at += fill;
  fill = 0;
};
for (const piece of stream.pieces()) {
  if (fill + piece.length > buffer.length) flush();
  if (piece.length >= buffer.length) {
    writeSync(fd, piece, 0, piece.length, at);
    at += piece.length;
  } else {
    buffer.set(piece, fill);
    fill += piece.length;
  }
}
flush();
const patch = stream.patch();
writeSync(fd, patch.bytes, 0, patch.bytes.length, patch.offset);
closeSync(fd);
const exportMs = performance.now() - t2;
const exportPeak = peakRss();
const chromium = process.argv.includes('--chromium') ? await inChromium(file, request) : null;
rmSync(file, { force: true });
log(
  `export (streamed, to a file): ${(stream.length / MB).toFixed(0)} MB in ${(exportMs / 1000).toFixed(2)} s = ` +
    `${((exportMs * 1e6) / stream.length).toFixed(1)} ns/byte; peak RSS ${(exportPeak / MB).toFixed(0)} MB = ${(exportPeak / exportSteady).toFixed(2)}× steady`,
);

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const out = {
  bench: 'exact-scale',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model,
  scale: SCALE,
  build: dist ? 'given' : 'this',
  documents: stats.documents,
  corpus_bytes: stats.bytes,
  fingerprints: n,
  build_ms: buildMs,
  sort_ms: sortMs,
  sort_ns_per_key: (sortMs * 1e6) / n,
  rss_before: before.rss,
  rss_steady: steady.rss,
  rss_per_fingerprint: rssPerFp,
  index_bytes: stats.index_bytes,
  index_bytes_per_fingerprint: stats.index_bytes / n,
  heap_used_delta: steady.heapUsed - before.heapUsed,
  array_buffers_delta: steady.arrayBuffers - before.arrayBuffers,
  query_tokens: found.query_tokens,
  matches: found.matches.length,
  attribution_sources: analyzed.attribution_sources.length,
  search_ms: search,
  analyze_ms: analyze,
  export_bytes: stream.length,
  export_ms: exportMs,
  export_ns_per_byte: (exportMs * 1e6) / stream.length,
  export_steady_rss: exportSteady,
  export_peak_rss: exportPeak,
  export_peak_over_steady: exportPeak / exportSteady,
  ...(chromium ? { chromium: { ...chromium, analyze_p50_over_node: chromium.analyze_ms.p50 / analyze.p50 } } : {}),
};
const resultFile = new URL(`./results/exact-scale-x${SCALE}.json`, import.meta.url);
if (!dist && !process.argv.includes('--json')) writeFileSync(resultFile, JSON.stringify(out, null, 2) + '\n');
else console.log(JSON.stringify(out));

/**
 * The exported snapshot `file` imported into headless Chromium, then `request` analysed there as above (5 warm-up
 * calls, ITERATIONS timed): the page imports dist/index.js from a server on 127.0.0.1 that also serves the file.
 */
async function inChromium(file, request) {
  const { createServer } = await import('node:http');
  const { createReadStream, mkdtempSync, statSync } = await import('node:fs');
  const { chromium: pw } = await import('playwright-core');
  const root = new URL('..', import.meta.url);
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
    import { createEngine } from '/dist/index.js';
    try {
      const engine = await createEngine();
      const t0 = performance.now();
      let bytes = new Uint8Array(await (await fetch('/snapshot')).arrayBuffer());
      const t1 = performance.now();
      const stats = await engine.importDataset(bytes);
      bytes = null;
      const t2 = performance.now();
      const request = await (await fetch('/request')).json();
      const first = await engine.analyze(request);
      for (let i = 0; i < 5; i++) await engine.analyze(request);
      const ms = [];
      for (let i = 0; i < ${ITERATIONS}; i++) {
        const t = performance.now();
        await engine.analyze(request);
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      const sms = [];
      for (let i = 0; i < ${ITERATIONS}; i++) {
        const t = performance.now();
        engine.search(request.content);
        sms.push(performance.now() - t);
      }
      sms.sort((a, b) => a - b);
      window.__result = {
        search_ms: { p50: sms[sms.length >> 1], min: sms[0] },
        fingerprints: stats.fingerprints, fetch_ms: t1 - t0, import_ms: t2 - t1, matches: first.matches.length,
        attribution_sources: first.attribution_sources.length,
        analyze_ms: { p50: ms[ms.length >> 1], p99: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))], min: ms[0] },
        user_agent: navigator.userAgent,
      };
    } catch (e) { window.__result = { error: String(e && e.stack || e) }; }
  </script>`;
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else if (path === '/request')
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request));
    else if (path === '/snapshot') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
      createReadStream(file).pipe(res);
    } else if (/^\/dist\/[\w.-]+\.js$/.test(path)) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      createReadStream(new URL(`.${path}`, root))
        .on('error', () => res.end())
        .pipe(res);
    } else res.writeHead(404).end();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const userDataDir = mkdtempSync(join(tmpdir(), 'tp-exact-scale-chromium-'));
  const context = await pw.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const tab = context.pages()[0] ?? (await context.newPage());
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 600_000 });
    const result = await tab.evaluate(() => window.__result);
    if (result.error) throw new Error(`chromium: ${result.error}`);
    log(
      `Chromium (${result.user_agent.match(/Chrome\/[\d.]+/)?.[0]}): import ${(result.import_ms / 1000).toFixed(1)} s, ` +
        `analyze p50 ${result.analyze_ms.p50.toFixed(2)} ms (min ${result.analyze_ms.min.toFixed(2)}, p99 ${result.analyze_ms.p99.toFixed(2)})`,
    );
    return result;
  } finally {
    await context.close();
    server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
