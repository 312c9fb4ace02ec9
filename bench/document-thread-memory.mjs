#!/usr/bin/env node
/**
 * The resident memory a process keeps after a document thread refused the page of a million text items
 * (`createDocumentPool({ threads: 1 })` of a build's trainprint/node, a process of its own per run): its RSS before
 * the file, and 3 s after the refusal, two ways — `cold`, the process's first document (no thread has read a PDF yet,
 * as a fresh `serve`), and `warm`, after one small PDF was read (pdf.js loaded on a thread that is still there) — for
 * this build and, alternating with it, another (--baseline, a copy of dist/ kept inside the repository).
 *
 *   node bench/document-thread-memory.mjs --baseline .before/dist [--dist dist] [--rounds 2]
 *     [--out bench/results/document-thread-memory.json]
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateSync } from 'node:zlib';
import { latin1, onePage, streamOf, threeWords } from './hostile-pdf.mjs';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: join(ROOT, 'dist') },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/results/document-thread-memory.json' },
    // one run, in the child process: the build's dist and the way
    run: { type: 'string' },
    way: { type: 'string' },
  },
});

const rssMb = () => Math.round(Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024);

if (values.run !== undefined) {
  // the child: one build, one way
  const { createDocumentPool } = await import(pathToFileURL(join(values.run, 'node.js')).href);
  const million = onePage(
    streamOf('/Filter/FlateDecode', deflateSync(latin1(`BT /F1 1 Tf 72 720 Td ${'(a) Tj T*\n'.repeat(1_000_000)} ET`))),
  );
  const pool = createDocumentPool({ threads: 1 });
  if (values.way === 'warm') await pool.extractDocument(onePage(streamOf('/Filter/FlateDecode', threeWords())), 'pdf');
  await sleep(1000);
  const before = rssMb();
  const t0 = performance.now();
  const code = await pool.extractDocument(million, 'pdf').then(
    () => 'read',
    (e) => e.code,
  );
  const refusalMs = Math.round(performance.now() - t0);
  const peak = Number(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+)/)[1]) >> 10;
  await sleep(3000);
  const after = rssMb();
  await pool.close();
  console.log(
    JSON.stringify({ code, refusal_ms: refusalMs, rss_before_mb: before, peak_rss_mb: peak, rss_after_3s_mb: after }),
  );
  process.exit(0);
}

const builds = [['this', resolve(values.dist)]];
if (values.baseline) builds.push(['baseline', resolve(values.baseline)]);
const runs = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const way of ['cold', 'warm']) {
    for (const [build, dist] of builds) {
      const load = loadavg()[0];
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--run', dist, '--way', way], {
        cwd: ROOT,
        timeout: 120_000,
      });
      const r = JSON.parse(out.toString());
      r.rss_after_over_before = Number((r.rss_after_3s_mb / r.rss_before_mb).toFixed(2));
      runs.push({ round, way, build, load_average_before: Number(load.toFixed(2)), ...r });
      console.error(round, way, build, JSON.stringify(r));
    }
  }
}
const medians = {};
for (const way of ['cold', 'warm']) {
  for (const [build] of builds) {
    const mine = runs.filter((r) => r.way === way && r.build === build);
    medians[`${way} ${build}`] = {
      rss_after_over_before: Number(median(mine.map((r) => r.rss_after_over_before)).toFixed(3)),
      growth_after_3s_mb: median(mine.map((r) => r.rss_after_3s_mb - r.rss_before_mb)),
      refusal_ms: median(mine.map((r) => r.refusal_ms)),
    };
  }
}
const result = {
  bench: 'document-thread-memory',
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  builds: Object.fromEntries(builds.map(([b, d]) => [b, relative(ROOT, d)])),
  rounds: Number(values.rounds),
  medians,
  runs,
};
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(medians, null, 2));
