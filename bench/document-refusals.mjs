#!/usr/bin/env node
/**
 * Refused files in a row on one document thread (`createDocumentPool({ threads: 1 })` of a build's trainprint/node):
 * the wall time and the process's CPU time (all its threads) for --files refusals of each kind, one after another,
 * then one good PDF, and the threads the pool started, for this build and, alternating with it, another (--baseline,
 * a copy of dist/ from an earlier commit kept inside the repository so that its imports resolve). A build that
 * replaces its thread after each refusal loads the library and pdf.js again for every file.
 *
 *   node bench/document-refusals.mjs --baseline .before/dist [--dist dist] [--files 20] [--rounds 2]
 *     [--out bench/results/document-refusals.json]
 */
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { onePage, pagesDag, streamOf, threeWords, zlibRepeated } from './hostile-pdf.mjs';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: join(ROOT, 'dist') },
    baseline: { type: 'string' },
    files: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/results/document-refusals.json' },
  },
});
const FILES = Number(values.files);
const builds = [['this', resolve(values.dist)]];
if (values.baseline) builds.push(['baseline', resolve(values.baseline)]);

// the files (bench/hostile-pdf.mjs, as bench/hostile-files.mjs makes them)
const good = onePage(streamOf('/Filter/FlateDecode', threeWords()));
const dag = pagesDag();
const flate = onePage(streamOf('/Filter/FlateDecode', zlibRepeated('(aaaa bbbb cccc dddd) Tj T*\n', 1024)));
// the flate bomb against a budget of 16 MiB inflated (the default is 256 MiB: seconds of inflating per file, which
// would hide the thread's own cost)
const KINDS = {
  'pages-dag.pdf (page count)': [dag, {}],
  'flate-bomb.pdf (16 MiB inflated)': [flate, { maxUncompressedBytes: 16 << 20 }],
};

async function once(dir) {
  const { createDocumentPool } = await import(pathToFileURL(join(dir, 'node.js')).href);
  const out = {};
  for (const [kind, [bytes, limits]] of Object.entries(KINDS)) {
    const pool = createDocumentPool({ threads: 1 });
    try {
      const t = performance.now();
      const cpu = process.cpuUsage();
      const codes = {};
      for (let i = 0; i < FILES; i++) {
        const code = await pool.extractDocument(bytes, 'pdf', limits).then(
          () => 'read',
          (e) => e.code,
        );
        codes[code] = (codes[code] ?? 0) + 1;
      }
      const text = (await pool.extractDocument(good, 'pdf')).text;
      if (text !== 'three words here') throw new Error(`wrong text after the refusals: ${text}`);
      const used = process.cpuUsage(cpu);
      out[kind] = {
        codes,
        wall_ms: Math.round(performance.now() - t),
        cpu_ms: Math.round((used.user + used.system) / 1000),
        threads_started: pool.started ?? null,
      };
    } finally {
      await pool.close();
    }
  }
  return out;
}

const runs = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const [build, dir] of builds) {
    const load = loadavg()[0];
    const r = await once(dir);
    runs.push({ build, round, load_average_at_start: load, ...r });
    console.log(build, round, `load ${load.toFixed(1)}`, JSON.stringify(r));
  }
}
const medians = {};
for (const kind of Object.keys(KINDS)) {
  medians[kind] = {};
  for (const figure of ['wall_ms', 'cpu_ms']) {
    const of = (build) => median(runs.filter((r) => r.build === build).map((r) => r[kind][figure]));
    medians[kind][figure] = { this: of('this'), ...(values.baseline ? { baseline: of('baseline') } : {}) };
    if (values.baseline)
      medians[kind][figure].this_over_baseline = Math.round((of('this') / of('baseline')) * 100) / 100;
  }
}
const result = {
  bench: 'document-refusals',
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  files_per_kind: FILES,
  builds: Object.fromEntries(builds.map(([name, dir]) => [name, relative(ROOT, dir)])),
  medians,
  runs,
};
mkdirSync(dirname(resolve(ROOT, values.out)), { recursive: true });
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(medians, null, 2));
console.log(`wrote ${values.out}`);
