// The no-reuse query of bench/exact-scale.mjs against several builds of the package in ONE process: each build's
// engine holds the same exact dataset (keep_text: false, the corpus of bench/index.mjs), and the calls alternate
// build by build, the order rotating per round, so that a loaded machine's stalls fall on every build alike
// (separate processes measured minutes apart see different loads). Per build: wall-clock p50/p25/min and the
// process CPU time per call (user + system, all threads), p50; per round each build's call as a ratio to the
// first build's, median.
//   node --expose-gc --max-old-space-size=16000 bench/exact-scale-interleaved.mjs
//        --builds before=DIR,after=dist[,…] [--scale 135] [--rounds 300]
// Results: bench/results/exact-scale-x<N>-interleaved.json
import './help.mjs';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { english, scaledDocuments } from './corpus.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SCALE = Number(arg('scale', '135'));
const ROUNDS = Number(arg('rounds', '300'));
const builds = arg('builds', 'this=dist')
  .split(',')
  .map((b) => b.split('='));
const en = english(10_000_000);

const engines = [];
for (const [name, dir] of builds) {
  const { createEngine } = await import(pathToFileURL(join(resolve(dir), 'index.js')).href);
  const engine = await createEngine();
  const t0 = performance.now();
  const stats = await engine.addDataset(
    { id: 'bench', kb_dataset: 'common-crawl', keep_text: false },
    scaledDocuments(en, SCALE, 10_000),
  );
  engine.search('the first search sorts the index');
  console.log(`${name}: ${stats.fingerprints} fingerprints in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  engines.push(engine);
  globalThis.gc?.();
}

// the query of bench/exact-scale.mjs: 10k shuffled corpus words, no reused passage
const words = en.slice(0, 2_000_000).split(/\s+/);
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const query = Array.from({ length: 10_000 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
const request = { content: query, content_type: 'text', metadata: { jurisdiction: 'US', work_type: 'article' } };
const calls = {
  search: (e) => e.search(query),
  analyze: (e) => e.analyze(request),
};

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)];
const measures = {};
for (const [what, call] of Object.entries(calls)) {
  for (let i = 0; i < 10; i++) for (const e of engines) await call(e);
  const wall = engines.map(() => []);
  const cpu = engines.map(() => []);
  const load = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < engines.length; k++) {
      const j = (k + r) % engines.length;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await call(engines[j]);
      wall[j].push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[j].push((c.user + c.system) / 1000);
    }
    if (r % 50 === 0) load.push(loadavg()[0]);
  }
  measures[what] = Object.fromEntries(
    builds.map(([name], j) => [
      name,
      {
        wall_p50_ms: quantile(wall[j], 0.5),
        wall_p25_ms: quantile(wall[j], 0.25),
        wall_min_ms: Math.min(...wall[j]),
        cpu_p50_ms: quantile(cpu[j], 0.5),
        wall_over_first: quantile(
          wall[j].map((x, r) => x / wall[0][r]),
          0.5,
        ),
        cpu_over_first: quantile(
          cpu[j].map((x, r) => x / cpu[0][r]),
          0.5,
        ),
      },
    ]),
  );
  measures[what].load_average = load;
  for (const [name] of builds) {
    const m = measures[what][name];
    console.log(
      `${what} ${name}: wall p50 ${m.wall_p50_ms.toFixed(2)} ms (p25 ${m.wall_p25_ms.toFixed(2)}, min ` +
        `${m.wall_min_ms.toFixed(2)}), CPU p50 ${m.cpu_p50_ms.toFixed(2)} ms; over ${builds[0][0]}: wall ` +
        `${m.wall_over_first.toFixed(3)}, CPU ${m.cpu_over_first.toFixed(3)}`,
    );
  }
}

const out = {
  bench: 'exact-scale-interleaved',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model,
  cpus: cpus().length,
  memory_gb: Math.round(totalmem() / 1e9),
  scale: SCALE,
  rounds: ROUNDS,
  method:
    'one process, one engine per build holding the same dataset; per round one call on each build, the order ' +
    'rotating; ratios are medians of the per-round ratios to the first build',
  builds: Object.fromEntries(builds),
  ...measures,
};
writeFileSync(
  new URL(`./results/exact-scale-x${SCALE}-interleaved.json`, import.meta.url),
  JSON.stringify(out, null, 2) + '\n',
);
