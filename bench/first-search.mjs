// The first search of an exact dataset that keeps its texts: it sorts the exact index and builds the
// content-word pair index (src/corpus/content-words.ts, content-pairs.ts), once per dataset and again after documents are
// added. This build (dist/) against another (--dist DIR: a baseline checkout's dist/), in alternating pairs
// of fresh processes, the order flipping each pair (the machine is shared: only ratios within one run mean
// anything). Each process builds the bench corpus of bench/index.mjs at --scale N (N × 10 MB of English,
// every 4th word of each copy marked), times `addDataset` and the first `search`, then the same with
// `keep_text: false` (the sort alone) on a fresh engine, and reports its peak RSS.
// Results: bench/results/first-search[-x<scale>].json.
//   node bench/first-search.mjs --dist ../base/dist [--scale 30] [--pairs 3]
// --pool: this build only, `corpus.prepareSearch()` in one thread against `prepareSearch({ offload })` with a
// worker pool of `trainprint/node` (--threads N, default: the cores − 1, as `serve` makes it), alternating;
// the process's CPU time (all threads) beside the wall clock. Results: bench/results/first-search-pool.json.
//   node bench/first-search.mjs --pool [--scale 30] [--pairs 5] [--threads N]
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const here = fileURLToPath(new URL('.', import.meta.url));

// ------------------------------------------------------------------ child: one build and first search
if (process.argv[2] === '--child') {
  const [, , , dist, scaleArg] = process.argv;
  const { english, scaledDocuments } = await import('./corpus.mjs');
  const { createEngine } = await import(join(dist, 'index.js'));
  const en = english(10_000_000);
  const scale = Number(scaleArg);
  const once = async (keepText) => {
    const engine = await createEngine();
    const t0 = performance.now();
    const stats = await engine.addDataset({ id: 'bench', keep_text: keepText }, scaledDocuments(en, scale, 10_000));
    const t1 = performance.now();
    engine.search('the first search sorts the index');
    const t2 = performance.now();
    return { bytes: stats.bytes, fingerprints: stats.fingerprints, build_ms: t1 - t0, first_search_ms: t2 - t1 };
  };
  const kept = await once(true);
  const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  globalThis.gc?.();
  const sortOnly = await once(false);
  process.stdout.write(
    JSON.stringify({
      ...kept,
      sort_only_ms: sortOnly.first_search_ms,
      peak_rss_mb: peak ? Number(peak[1]) / 1024 : null,
    }),
  );
  process.exit(0);
}

// ------------------------------------------------------------------ child: prepareSearch, with or without a pool
if (process.argv[2] === '--prepare-child') {
  const [, , , withPool, scaleArg, threadsArg] = process.argv;
  const { english, scaledDocuments } = await import('./corpus.mjs');
  const { createEngine } = await import('../dist/index.js');
  const { createWorkerPool } = await import('../dist/node.js');
  const engine = await createEngine();
  const stats = await engine.addDataset(
    { id: 'bench' },
    scaledDocuments(english(10_000_000), Number(scaleArg), 10_000),
  );
  const pool = withPool === 'pool' ? createWorkerPool(threadsArg === '0' ? {} : { threads: Number(threadsArg) }) : null;
  if (pool) await pool.run({ kind: 'pairs', text: 'the threads start before the clock does' });
  const c0 = process.cpuUsage(),
    t0 = performance.now();
  await engine.corpus.prepareSearch(pool ? { offload: pool } : {});
  const ms = performance.now() - t0,
    cpu = process.cpuUsage(c0);
  await pool?.close();
  process.stdout.write(
    JSON.stringify({
      bytes: stats.bytes,
      threads: pool?.threads ?? 0,
      prepare_ms: ms,
      cpu_ms: (cpu.user + cpu.system) / 1000,
    }),
  );
  process.exit(0);
}

// ------------------------------------------------------------------ parent: alternating pairs
if (process.argv.includes('--pool')) {
  const scale = Number(arg('scale', '30')),
    pairs = Number(arg('pairs', '5')),
    threads = arg('threads', '0');
  const child = (mode) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--max-old-space-size=16000', fileURLToPath(import.meta.url), '--prepare-child', mode, String(scale), threads],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      ),
    );
  const runs = { one: [], pool: [] };
  for (let p = 0; p < pairs; p++) {
    for (const mode of p % 2 === 0 ? ['one', 'pool'] : ['pool', 'one']) {
      const r = child(mode);
      runs[mode].push(r);
      console.log(
        `pair ${p + 1} ${mode.padEnd(4)} prepareSearch ${(r.prepare_ms / 1000).toFixed(2)} s, CPU ` +
          `${(r.cpu_ms / 1000).toFixed(2)} s${r.threads ? ` (${r.threads} pool threads)` : ''}`,
      );
    }
  }
  const ratios = runs.one.map((r, i) => r.prepare_ms / runs.pool[i].prepare_ms);
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    scale,
    bytes: runs.one[0].bytes,
    pool_threads: runs.pool[0].threads,
    pairs,
    one_thread: {
      prepare_ms: median(runs.one.map((r) => r.prepare_ms)),
      cpu_ms: median(runs.one.map((r) => r.cpu_ms)),
    },
    with_pool: {
      prepare_ms: median(runs.pool.map((r) => r.prepare_ms)),
      cpu_ms: median(runs.pool.map((r) => r.cpu_ms)),
    },
    speedup: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
    note:
      'corpus.prepareSearch() (sort, near-duplicate table, content-word index) in one thread against ' +
      'prepareSearch({ offload: createWorkerPool() }); cpu_ms: the whole process, every thread',
    runs,
  };
  mkdirSync(join(here, 'results'), { recursive: true });
  const file = join(here, 'results', 'first-search-pool.json');
  writeFileSync(file, JSON.stringify(report, null, 1) + '\n');
  console.log(
    `prepareSearch with ${report.pool_threads} pool thread(s): ${report.speedup.median.toFixed(2)}× ` +
      `(${report.speedup.min.toFixed(2)}–${report.speedup.max.toFixed(2)}); ${file}`,
  );
  process.exit(0);
}

const scale = Number(arg('scale', '30'));
const pairs = Number(arg('pairs', '3'));
const baseDist = arg('dist', null);
if (!baseDist) throw new Error('--dist DIR (the baseline build to compare with) is required');
const builds = { this: resolve(here, '../dist'), baseline: resolve(baseDist) };
const runs = { this: [], baseline: [] };
const child = (dist) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=16000', fileURLToPath(import.meta.url), '--child', dist, String(scale)],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    ),
  );
for (let p = 0; p < pairs; p++) {
  const order = p % 2 === 0 ? ['baseline', 'this'] : ['this', 'baseline'];
  for (const which of order) {
    const r = child(builds[which]);
    runs[which].push(r);
    console.log(
      `pair ${p + 1} ${which.padEnd(8)} build ${(r.build_ms / 1000).toFixed(1)} s, first search ` +
        `${(r.first_search_ms / 1000).toFixed(2)} s (sort alone ${(r.sort_only_ms / 1000).toFixed(2)} s), peak RSS ${r.peak_rss_mb?.toFixed(0)} MB`,
    );
  }
}
const summary = (rs) => ({
  first_search_ms: median(rs.map((r) => r.first_search_ms)),
  first_search_mb_per_s: rs[0].bytes / 1e6 / (median(rs.map((r) => r.first_search_ms)) / 1000),
  content_word_index_ms: median(rs.map((r) => r.first_search_ms - r.sort_only_ms)),
  build_ms: median(rs.map((r) => r.build_ms)),
  peak_rss_mb: median(rs.map((r) => r.peak_rss_mb ?? 0)),
});
const ratios = runs.this.map((r, i) => runs.baseline[i].first_search_ms / r.first_search_ms);
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  scale,
  bytes: runs.this[0].bytes,
  fingerprints: runs.this[0].fingerprints,
  baseline: baseDist,
  pairs,
  this: summary(runs.this),
  baseline_build: summary(runs.baseline),
  first_search_speedup: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
  note:
    'first search = sort of the exact index + content-word pair index (texts kept); content_word_index_ms = ' +
    'first search less the first search of the same dataset built with keep_text: false in the same process',
  runs,
};
mkdirSync(join(here, 'results'), { recursive: true });
const file = join(here, 'results', scale === 30 ? 'first-search.json' : `first-search-x${scale}.json`);
writeFileSync(file, JSON.stringify(report, null, 1) + '\n');
console.log(
  `first search: ${(report.this.first_search_ms / 1000).toFixed(2)} s against ${(report.baseline_build.first_search_ms / 1000).toFixed(2)} s, ` +
    `${report.first_search_speedup.median.toFixed(2)}× (${report.first_search_speedup.min.toFixed(2)}–${report.first_search_speedup.max.toFixed(2)}); ${file}`,
);
