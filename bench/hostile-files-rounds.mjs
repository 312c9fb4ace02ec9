#!/usr/bin/env node
/**
 * bench/hostile-files.mjs for two builds in alternating rounds (before, after, before, after …), so that both meet the
 * same load on a shared machine: the medians of the concurrent runs' figures per build and their ratio, and every run.
 *
 *   node bench/hostile-files-rounds.mjs --before OLD/dist/cli.js [--after dist/cli.js] --only spine-repeat.epub
 *     [--rounds 2] [--concurrent 20] [--out bench/results/hostile-files-rounds.json]
 *
 * `--before` is another build's CLI: a copy of dist/ made at an earlier commit, kept inside the repository so that its
 * imports resolve (e.g. `git stash; npx tsup; cp -r dist .before/dist; git stash pop; npx tsup`). Each run is its own
 * `serve` process; the load average is read before each.
 */
import './help.mjs';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { medianOrNull } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: resolve(ROOT, 'dist/cli.js') },
    only: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    concurrent: { type: 'string', default: '20' },
    out: { type: 'string', default: 'bench/results/hostile-files-rounds.json' },
  },
});
if (values.before === undefined || values.only === undefined) throw new Error('--before and --only are required');
const builds = { before: resolve(values.before), after: resolve(values.after) };
const dir = mkdtempSync(join(tmpdir(), 'hostile-rounds-'));
const runOnce = (cli, out) =>
  new Promise((res, rej) =>
    execFile(
      process.execPath,
      [
        join(ROOT, 'bench/hostile-files.mjs'),
        '--cli',
        cli,
        '--only',
        values.only,
        '--concurrent',
        values.concurrent,
        '--out',
        out,
      ],
      { cwd: ROOT, timeout: 20 * 60_000, maxBuffer: 1 << 26 },
      (err, _stdout, stderr) => (err ? rej(new Error(`${err.message}\n${stderr}`)) : res()),
    ),
  );

const runs = [];
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [build, cli] of Object.entries(builds)) {
      const out = join(dir, `${build}-${round}.json`);
      const load = loadavg()[0];
      await runOnce(cli, out);
      const r = JSON.parse(readFileSync(out, 'utf8'));
      runs.push({
        build,
        round,
        load_average_at_start: load,
        baseline: r.baseline,
        alone: r.files,
        concurrent: r.concurrent,
      });
      console.log(build, round, `load ${load.toFixed(1)}`, JSON.stringify(r.concurrent));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// of the rounds that gave a number: a round that did not measure the figure gives none
const median = (xs) => medianOrNull(xs.filter((x) => typeof x === 'number'));
const FIGURES = [
  'other_account_p50_ms',
  'other_account_calls',
  'other_account_p99_ms',
  'status_p99_ms',
  'all_answered_ms',
  'peak_growth_mb',
];
const medians = {};
for (const file of values.only.split(',')) {
  medians[file] = {};
  for (const figure of FIGURES) {
    const of = (build) => median(runs.filter((r) => r.build === build).map((r) => r.concurrent[file]?.[figure]));
    const before = of('before');
    const after = of('after');
    medians[file][figure] = {
      before_median: before,
      after_median: after,
      after_over_before: before ? Math.round((after / before) * 100) / 100 : null,
    };
  }
}
// each file sent alone: the server's peak memory growth while it ran, and its resident memory 3 s after over before
const ALONE_FIGURES = ['peak_growth_mb', 'rss_after_over_before', 'answer_ms', 'status_p99_ms'];
const aloneMedians = {};
for (const file of values.only.split(',')) {
  aloneMedians[file] = {};
  for (const figure of ALONE_FIGURES) {
    const of = (build) => median(runs.filter((r) => r.build === build).map((r) => r.alone[file]?.[figure]));
    const before = of('before');
    const after = of('after');
    aloneMedians[file][figure] = {
      before_median: before,
      after_median: after,
      after_over_before: before ? Math.round((after / before) * 100) / 100 : null,
    };
  }
}
// another account's small analyses with nothing else running (each run's baseline): what the machine's load leaves
const alone = (build) =>
  median(runs.filter((r) => r.build === build).map((r) => r.baseline?.other_account_p99_ms ?? null));
const baselineMedians = { other_account_p99_ms: { before_median: alone('before'), after_median: alone('after') } };
const result = {
  bench: 'hostile-files-rounds',
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  builds: { before: relative(ROOT, builds.before), after: relative(ROOT, builds.after) },
  only: values.only.split(','),
  rounds: Number(values.rounds),
  concurrent: Number(values.concurrent),
  alone_medians: aloneMedians,
  concurrent_medians: medians,
  baseline_medians: baselineMedians,
  runs,
};
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify({ aloneMedians, medians, baselineMedians }, null, 2));
console.log(`wrote ${values.out}`);
