// bench/exact-scale.mjs for several builds of the package, alternating: each round runs every build once, in a
// separate process each (`--dist DIR --json`), the order rotating from round to round, so that a machine's load
// falls on all of them alike. Reported: per build the median over the rounds of `search` and `analyze` p50 (and
// min), and per round each build's analyze and search p50 as a ratio to the first build's in the same round.
//   node bench/exact-scale-pairs.mjs --builds this=dist,before=../prev/dist[,…] [--scale 135] [--rounds 3]
//        [--iterations 100]
// Results: bench/results/exact-scale-x<N>-pairs.json
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { upperMedian } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SCALE = arg('scale', '135');
const ROUNDS = Number(arg('rounds', '3'));
const ITERATIONS = arg('iterations', '100');
const builds = arg('builds', 'this=dist')
  .split(',')
  .map((b) => b.split('='));
const bench = fileURLToPath(new URL('./exact-scale.mjs', import.meta.url));

const runs = [];
for (let round = 0; round < ROUNDS; round++) {
  const got = {};
  for (let k = 0; k < builds.length; k++) {
    const [name, dir] = builds[(k + round) % builds.length];
    const args = ['--expose-gc', '--max-old-space-size=16000', bench, '--scale', SCALE];
    const line = execFileSync(process.execPath, [...args, '--iterations', ITERATIONS, '--dist', dir, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const r = JSON.parse(line.trim().split('\n').pop());
    got[name] = { search_ms: r.search_ms, analyze_ms: r.analyze_ms, load: loadavg()[0], order: k };
    console.log(
      `round ${round + 1} ${name}: search p50 ${r.search_ms.p50.toFixed(2)} ms, analyze p50 ${r.analyze_ms.p50.toFixed(2)} ms ` +
        `(min ${r.analyze_ms.min.toFixed(2)}), ${r.fingerprints} fingerprints, load ${loadavg()[0].toFixed(1)}`,
    );
    got.fingerprints = r.fingerprints;
  }
  runs.push(got);
}

const [base] = builds[0];
const out = {
  bench: 'exact-scale-pairs',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model,
  cpus: cpus().length,
  memory_gb: Math.round(totalmem() / 1e9),
  scale: Number(SCALE),
  fingerprints: runs[0]?.fingerprints,
  iterations: Number(ITERATIONS),
  method:
    'bench/exact-scale.mjs --dist DIR --json per build, one process each, the builds alternating with the order ' +
    'rotating per round; medians over the rounds of each build’s p50, and per round ratios to the first build',
  builds: Object.fromEntries(builds),
  runs,
  medians: Object.fromEntries(
    builds.map(([name]) => [
      name,
      {
        search_p50_ms: upperMedian(runs.map((r) => r[name].search_ms.p50)),
        analyze_p50_ms: upperMedian(runs.map((r) => r[name].analyze_ms.p50)),
        analyze_min_ms: upperMedian(runs.map((r) => r[name].analyze_ms.min)),
        analyze_p50_over_first: upperMedian(runs.map((r) => r[name].analyze_ms.p50 / r[base].analyze_ms.p50)),
        search_p50_over_first: upperMedian(runs.map((r) => r[name].search_ms.p50 / r[base].search_ms.p50)),
      },
    ]),
  ),
};
writeFileSync(
  new URL(`./results/exact-scale-x${SCALE}-pairs.json`, import.meta.url),
  JSON.stringify(out, null, 2) + '\n',
);
console.log(JSON.stringify(out.medians, null, 2));
