// The first search of an exact dataset that keeps its texts: it sorts the exact index and builds the
// content-word pair index (src/corpus/content-words.ts), once per dataset and again after documents are
// added. This build (dist/) against another (--dist DIR: a baseline checkout's dist/), in alternating pairs
// of fresh processes, the order flipping each pair (the machine is shared: only ratios within one run mean
// anything). Each process builds the bench corpus of bench/index.mjs at --scale N (N × 10 MB of English,
// every 4th word of each copy marked), times `addDataset` and the first `search`, then the same with
// `keep_text: false` (the sort alone) on a fresh engine, and reports its peak RSS.
// Results: bench/results/first-search[-x<scale>].json.
//   node bench/first-search.mjs --dist ../base/dist [--scale 30] [--pairs 3]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const here = fileURLToPath(new URL('.', import.meta.url));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

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
  process.stdout.write(JSON.stringify({
    ...kept, sort_only_ms: sortOnly.first_search_ms, peak_rss_mb: peak ? Number(peak[1]) / 1024 : null,
  }));
  process.exit(0);
}

// ------------------------------------------------------------------ parent: alternating pairs
const scale = Number(arg('scale', '30'));
const pairs = Number(arg('pairs', '3'));
const baseDist = arg('dist', null);
if (!baseDist) throw new Error('--dist DIR (the baseline build to compare with) is required');
const builds = { this: resolve(here, '../dist'), baseline: resolve(baseDist) };
const runs = { this: [], baseline: [] };
const child = (dist) => JSON.parse(execFileSync(process.execPath, [
  '--expose-gc', '--max-old-space-size=16000', fileURLToPath(import.meta.url), '--child', dist, String(scale),
], { encoding: 'utf8', maxBuffer: 1 << 20 }));
for (let p = 0; p < pairs; p++) {
  const order = p % 2 === 0 ? ['baseline', 'this'] : ['this', 'baseline'];
  for (const which of order) {
    const r = child(builds[which]);
    runs[which].push(r);
    console.log(`pair ${p + 1} ${which.padEnd(8)} build ${(r.build_ms / 1000).toFixed(1)} s, first search ` +
      `${(r.first_search_ms / 1000).toFixed(2)} s (sort alone ${(r.sort_only_ms / 1000).toFixed(2)} s), peak RSS ${r.peak_rss_mb?.toFixed(0)} MB`);
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
  note: 'first search = sort of the exact index + content-word pair index (texts kept); content_word_index_ms = ' +
    'first search less the first search of the same dataset built with keep_text: false in the same process',
  runs,
};
mkdirSync(join(here, 'results'), { recursive: true });
const file = join(here, 'results', scale === 30 ? 'first-search.json' : `first-search-x${scale}.json`);
writeFileSync(file, JSON.stringify(report, null, 1) + '\n');
console.log(`first search: ${(report.this.first_search_ms / 1000).toFixed(2)} s against ${(report.baseline_build.first_search_ms / 1000).toFixed(2)} s, ` +
  `${report.first_search_speedup.median.toFixed(2)}× (${report.first_search_speedup.min.toFixed(2)}–${report.first_search_speedup.max.toFixed(2)}); ${file}`);
