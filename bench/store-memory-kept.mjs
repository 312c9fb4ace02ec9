#!/usr/bin/env node
/**
 * What an open file store keeps in memory: a store of `--analyses` stored analyses (a text of about 2 MB each, as a
 * server keeps them 30 days) and 100,000 small index entries (as a catalogue audit leaves), opened by this build and
 * by a baseline build, each in a fresh process (`--expose-gc`, one collection before the sample), builds alternating,
 * `--rounds` times. Reported per build: the medians of RSS, V8's heap in use and the ArrayBuffers' bytes once the
 * store is open, less the same process's figures before it opened it; the peak RSS of the process (its maxRSS, once
 * the store is open) less its RSS before the open; the open's wall time and CPU time; and one `get` of an analysis
 * checked. `--layout snapshot` compacts the store once after writing it, so that the values lie in its snapshot and
 * the log is empty (`log`, the default: every value in the log).
 *
 *   npm run build && nice node bench/store-memory-kept.mjs --baseline /work/base/dist [--analyses 93] [--rounds 3]
 *     [--layout log|snapshot] [--out bench/results/store-memory-kept.json]
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionsOrUsage } from './cli-args.mjs';
import { loadNow, recordHeader, writeRecord } from './record.mjs';
import { upperMedian } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `usage: nice node bench/store-memory-kept.mjs --baseline DIST [--analyses 93] [--rounds 3] [--layout log|snapshot] [--out bench/results/store-memory-kept.json]`;
const OPTIONS = {
  baseline: { type: 'string' },
  analyses: { type: 'string', default: '93' },
  rounds: { type: 'string', default: '3' },
  layout: { type: 'string', default: 'log' },
  out: { type: 'string', default: 'bench/results/store-memory-kept.json' },
  // a child: open the store in `open` with the build in `dist` and print its memory figures
  open: { type: 'string' },
  dist: { type: 'string' },
};

const mb = (bytes) => Math.round(bytes / 1e5) / 10;

function analysis(i) {
  const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];
  const text = Array.from({ length: 330_000 }, (_, k) => words[(k * 31 + i) % words.length]).join(' ');
  return { id: `a-${i}`, text, result: { matches: [], verdict: 'none' } };
}

async function child(values) {
  const { openFileStore } = await import(pathToFileURL(join(values.dist, 'node.js')).href);
  globalThis.gc();
  const before = process.memoryUsage();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const store = await openFileStore(values.open);
  const openMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  globalThis.gc();
  const after = process.memoryUsage();
  const [[key]] = await store.scan('analysis-record/', { limit: 1 });
  const got = await store.get(key);
  await store.close();
  console.log(
    JSON.stringify({
      rss_mb: mb(after.rss - before.rss),
      heap_used_mb: mb(after.heapUsed - before.heapUsed),
      array_buffers_mb: mb(after.arrayBuffers - before.arrayBuffers),
      peak_rss_mb: mb(peakRss - before.rss),
      open_ms: Math.round(openMs),
      open_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      get_ok: typeof got?.text === 'string' && got.text.length > 1_000_000,
    }),
  );
}

async function main() {
  const values = optionsOrUsage(OPTIONS, USAGE);
  if (values.open) return child(values);
  if (!values.baseline || !['log', 'snapshot'].includes(values.layout)) {
    console.log(USAGE);
    process.exit(2);
  }
  const builds = { this: resolve(ROOT, 'dist'), baseline: resolve(values.baseline) };
  const dir = mkdtempSync(join(tmpdir(), 'store-memory-kept-'));
  const loadAtStart = loadNow();
  try {
    // written by the baseline build, so that the store is one either build reads as it is (the formats are the same)
    const { openFileStore } = await import(pathToFileURL(join(builds.baseline, 'node.js')).href);
    const store = await openFileStore(join(dir, 'store'), { compactEvery: 1_000_000 });
    for (let i = 0; i < Number(values.analyses); i++) await store.put(`analysis-record/${i}`, analysis(i));
    const ops = Array.from({ length: 100_000 }, (_, i) => ({
      type: 'put',
      key: `catalogue-audits/text/${i}`,
      value: 1,
    }));
    for (let i = 0; i < ops.length; i += 1_000) await store.batch(ops.slice(i, i + 1_000));
    await store.close();
    if (values.layout === 'snapshot') {
      const compacting = await openFileStore(join(dir, 'store'), { compactEvery: 1 });
      await compacting.put('compacted', 1);
      await compacting.close();
    }
    const samples = { this: [], baseline: [] };
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const name of round % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this']) {
        const out = execFileSync(
          process.execPath,
          ['--expose-gc', fileURLToPath(import.meta.url), '--open', join(dir, 'store'), '--dist', builds[name]],
          { encoding: 'utf8' },
        );
        samples[name].push(JSON.parse(out.trim().split('\n').at(-1)));
      }
    }
    const figures = (name) => ({
      rss_mb: upperMedian(samples[name].map((s) => s.rss_mb)),
      heap_used_mb: upperMedian(samples[name].map((s) => s.heap_used_mb)),
      array_buffers_mb: upperMedian(samples[name].map((s) => s.array_buffers_mb)),
      peak_rss_mb: upperMedian(samples[name].map((s) => s.peak_rss_mb)),
      open_ms: upperMedian(samples[name].map((s) => s.open_ms)),
      open_cpu_ms: upperMedian(samples[name].map((s) => s.open_cpu_ms)),
      get_ok: samples[name].every((s) => s.get_ok),
      runs: samples[name],
    });
    const mine = figures('this');
    const theirs = figures('baseline');
    const ratio = (key) => (theirs[key] > 0 ? Math.round((mine[key] / theirs[key]) * 100) / 100 : null);
    return {
      ...recordHeader('store-memory-kept'),
      baseline: values.baseline,
      analyses: Number(values.analyses),
      layout: values.layout,
      small_entries: 100_000,
      this: mine,
      baseline_build: theirs,
      // this build's median over the baseline's, same run
      ratios: Object.fromEntries(['rss_mb', 'peak_rss_mb', 'open_ms', 'open_cpu_ms'].map((k) => [k, ratio(k)])),
      load_average_at_start: loadAtStart,
      load_average_at_end: loadNow(),
      out: values.out,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const result = await main();
if (result) {
  const { out, ...record } = result;
  console.log(JSON.stringify(record, null, 2));
  console.log(`wrote ${writeRecord(out, record)}`);
}
