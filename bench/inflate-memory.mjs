#!/usr/bin/env node
/**
 * A process's resident memory around decompression bombs read on a document pool's thread (`createDocumentPool`
 * of trainprint/node, one thread), for two builds and three ways of running: the thread kept after the bombs (as
 * `serve` keeps it), the thread ended after them (`close()`: its isolate freed), and the thread kept with glibc's
 * `MALLOC_MMAP_THRESHOLD_=131072` in the environment. Each measurement is a fresh process: one small PDF read first
 * (pdf.js loaded), 1 s of rest, RSS; then the flate bomb of bench/hostile-files.mjs (1 GiB from 1 MiB of zlib data,
 * refused at the 256 MiB budget) twice, RSS polled every 20 ms (the peak); 3 s of rest, RSS again. The builds and
 * ways alternate round by round; medians per cell.
 *
 *   node bench/inflate-memory.mjs --before .before/dist [--after dist] [--rounds 3]
 *     [--out bench/results/inflate-memory.json]
 *
 * `--before` is another build's dist/ kept inside the repository (e.g. a copy of dist/ made at an earlier commit).
 * Linux only (RSS from /proc).
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === '--child') {
  // one measurement: argv build dir, bombs, 'keep' | 'end'
  const [, , , dist, bombs, mode] = process.argv;
  const { createDocumentPool } = await import(pathToFileURL(resolve(dist, 'node.js')).href);
  const { onePage, streamOf, threeWords, zlibRepeated } = await import('./hostile-pdf.mjs');
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const pool = createDocumentPool({ threads: 1 });
  const bomb = onePage(streamOf('/Filter/FlateDecode', zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 1024)));
  const small = await pool.extractDocument(onePage(streamOf('/Filter/FlateDecode', threeWords())), 'pdf', {});
  if (small.words !== 3) throw new Error(`the small PDF gave ${small.words} words`);
  await sleep(1000);
  const before = rss();
  let peak = before;
  const poll = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const refusals = [];
  for (let i = 0; i < Number(bombs); i++) {
    const t = performance.now();
    const code = await pool.extractDocument(bomb, 'pdf', {}).then(
      () => 'read',
      (e) => e.code,
    );
    refusals.push({ code, ms: Math.round(performance.now() - t) });
  }
  if (mode === 'end') await pool.close();
  await sleep(3000);
  clearInterval(poll);
  const after = rss();
  if (mode !== 'end') await pool.close();
  console.log(JSON.stringify({ before, peak, after, refusals }));
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: 'dist' },
    rounds: { type: 'string', default: '3' },
    bombs: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/results/inflate-memory.json' },
  },
});
if (values.before === undefined) throw new Error('--before DIR is required');
const builds = { before: resolve(values.before), after: resolve(values.after) };
const WAYS = {
  'thread kept': { mode: 'keep', env: {} },
  'thread ended': { mode: 'end', env: {} },
  'thread kept, MALLOC_MMAP_THRESHOLD_=131072': { mode: 'keep', env: { MALLOC_MMAP_THRESHOLD_: '131072' } },
};
const runs = [];
const loadStart = loadavg()[0];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const [way, { mode, env }] of Object.entries(WAYS)) {
    for (const [build, dist] of Object.entries(builds)) {
      const out = execFileSync(process.execPath, [SELF, '--child', dist, values.bombs, mode], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 300_000,
      });
      const r = JSON.parse(out.trim().split('\n').at(-1));
      const row = {
        build,
        way,
        round,
        load_average: Math.round(loadavg()[0] * 10) / 10,
        rss_before_mb: Math.round(r.before),
        peak_growth_mb: Math.round(r.peak - r.before),
        rss_after_3s_mb: Math.round(r.after),
        rss_after_over_before: Math.round((r.after / r.before) * 100) / 100,
        refusals: r.refusals,
      };
      runs.push(row);
      console.log(JSON.stringify(row));
    }
  }
}
const medians = {};
for (const way of Object.keys(WAYS)) {
  medians[way] = {};
  for (const build of Object.keys(builds)) {
    const rows = runs.filter((r) => r.way === way && r.build === build);
    medians[way][build] = {
      peak_growth_mb: median(rows.map((r) => r.peak_growth_mb)),
      rss_after_over_before: median(rows.map((r) => r.rss_after_over_before)),
      refusal_ms: median(rows.flatMap((r) => r.refusals.map((x) => x.ms))),
    };
  }
}
const result = {
  bench: 'inflate-memory',
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  load_average: [Math.round(loadStart * 10) / 10, Math.round(loadavg()[0] * 10) / 10],
  builds: { before: relative(ROOT, builds.before), after: relative(ROOT, builds.after) },
  bombs_per_run: Number(values.bombs),
  rounds: Number(values.rounds),
  medians,
  runs,
};
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(medians, null, 2));
console.log(`wrote ${values.out}`);
