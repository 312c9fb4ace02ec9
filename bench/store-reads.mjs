#!/usr/bin/env node
/**
 * What the file store's reads cost: `get` of a stored analysis (a text of 20–400 KB beside its result) and `scan` of
 * a page of them, on this build's file store (large values read back from disk, checked against their CRC-32) and on
 * a baseline build's (every value in memory), in the same process, rounds alternating between the two. Each figure
 * is CPU time (user + system, process.cpuUsage) and wall time per call, the median over the rounds, and the ratio of
 * this build's to the baseline's. The files are in the page cache (the store wrote them just before): the cost
 * measured is the system calls and the copy, not a disk's latency.
 *
 *   npm run build && nice node bench/store-reads.mjs --baseline /work/base/dist [--rounds 9] [--analyses 200]
 *     [--out bench/results/store-reads.json]
 */
import './help.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionsOrUsage } from './cli-args.mjs';
import { loadNow, recordHeader, writeRecord } from './record.mjs';
import { upperMedian } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `usage: nice node bench/store-reads.mjs --baseline DIST [--rounds 9] [--analyses 200] [--out bench/results/store-reads.json]
(DIST: a baseline build's dist folder; this build's dist/ is measured against it)`;

const OPTIONS = {
  baseline: { type: 'string' },
  rounds: { type: 'string', default: '9' },
  analyses: { type: 'string', default: '200' },
  out: { type: 'string', default: 'bench/results/store-reads.json' },
};

/** A made-up analysis: its text and a result of some hundred members, the same for a seed. */
function analysis(i) {
  const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];
  const n = 3_000 + ((i * 7_919) % 60_000);
  const text = Array.from({ length: n }, (_, k) => words[(k * 31 + i) % words.length]).join(' ');
  const matches = Array.from({ length: 100 }, (_, k) => ({ work: `work-${k}`, score: (k * 37) % 100, start: k * 10 }));
  return { id: `a-${i}`, created: 1_700_000_000_000 + i, text, result: { matches, verdict: 'none' } };
}

/** CPU (µs) and wall (µs) per call of `body` over `calls` calls. */
async function perCall(calls, body) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await body(i);
  const wall = ((performance.now() - t0) * 1000) / calls;
  const cpu = process.cpuUsage(cpu0);
  return { cpu_us: (cpu.user + cpu.system) / calls, wall_us: wall };
}

async function main() {
  const values = optionsOrUsage(OPTIONS, USAGE);
  if (!values.baseline) {
    console.log(USAGE);
    process.exit(2);
  }
  const builds = {
    this: resolve(ROOT, 'dist'),
    baseline: resolve(values.baseline),
  };
  const count = Number(values.analyses);
  const rounds = Number(values.rounds);
  const dir = mkdtempSync(join(tmpdir(), 'store-reads-'));
  const stores = {};
  try {
    for (const [name, dist] of Object.entries(builds)) {
      const { openFileStore } = await import(pathToFileURL(join(dist, 'node.js')).href);
      const store = await openFileStore(join(dir, name), { compactEvery: count / 2 });
      for (let i = 0; i < count; i++) await store.put(`analysis-record/${String(i).padStart(5, '0')}`, analysis(i));
      for (let i = 0; i < 2_000; i++) await store.put(`usage/${i}`, i);
      stores[name] = store;
    }
    const keys = Array.from({ length: count }, (_, i) => `analysis-record/${String(i).padStart(5, '0')}`);
    const samples = { this: { get: [], scan: [] }, baseline: { get: [], scan: [] } };
    for (let round = 0; round < rounds; round++) {
      // alternate which build goes first, so that neither always runs on a warmer machine
      const order = round % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this'];
      for (const name of order) {
        const s = stores[name];
        samples[name].get.push(await perCall(count, (i) => s.get(keys[(i * 61) % count])));
        samples[name].scan.push(
          await perCall(count / 20, (i) => s.scan('analysis-record/', { after: keys[(i * 20) % count], limit: 20 })),
        );
      }
    }
    const figure = (name, op) => ({
      cpu_us: Math.round(upperMedian(samples[name][op].map((x) => x.cpu_us))),
      wall_us: Math.round(upperMedian(samples[name][op].map((x) => x.wall_us))),
    });
    const result = {
      ...recordHeader('store-reads'),
      baseline: values.baseline,
      analyses: count,
      rounds,
      load_average_at_start: undefined,
      get: { this: figure('this', 'get'), baseline: figure('baseline', 'get') },
      scan_page_of_20: { this: figure('this', 'scan'), baseline: figure('baseline', 'scan') },
      load_average_at_end: loadNow(),
    };
    for (const op of ['get', 'scan_page_of_20']) {
      result[op].cpu_ratio = Math.round((result[op].this.cpu_us / result[op].baseline.cpu_us) * 100) / 100;
      result[op].wall_ratio = Math.round((result[op].this.wall_us / result[op].baseline.wall_us) * 100) / 100;
    }
    return result;
  } finally {
    for (const s of Object.values(stores)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadAtStart = loadNow();
const result = await main();
result.load_average_at_start = loadAtStart;
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${writeRecord(optionsOrUsage(OPTIONS, USAGE).out, result)}`);
