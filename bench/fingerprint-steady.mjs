// The steady state of the whole default `fingerprint()` over many processes, two builds alternating: each process is
// bench/fingerprint-whole.mjs's steady child (the engine, 2 warm calls of the 10 MB text, then 7 timed calls, no gc())
// and gives the median of its calls; this script runs N such processes a build, the builds' order flipping each round,
// and reports the median of the per-round ratios of process CPU. Why: one steady process's calls of the same 10 MB
// range over ±25 % on a shared guest, and two builds' single-process medians swap from run to run where their code is
// the same, so the steady column of bench/fingerprint.mjs (one process a build) cannot tell builds apart by a few
// per cent; the ratio over many paired processes can.
//
//   npm run build && node --expose-gc bench/fingerprint-steady.mjs --baseline OTHER/dist [--corpora en,ja,zh,mixed]
//     [--processes 6] [--peer] [--out fingerprint-steady.json] [--baseline-env VAR=VALUE[,VAR=VALUE]]
//     [--baseline-collect]
//
// --baseline-collect runs the baseline's processes with the collector run (gc(), untimed) before each timed call: with
// `--baseline dist`, what the same build's steady call costs once the results dropped before it have been freed.
// --baseline-env runs the baseline's processes with those environment variables: with `--baseline dist` the same build
// under another setting (GLIBC_TUNABLES=glibc.malloc.hugetlb=1: glibc's allocator on transparent huge pages).
// --peer runs the xxhash-wasm peer between the timed calls, as bench/fingerprint.mjs's steady child does (it allocates
// and so moves the collector's work); without it only ours runs.
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envVars } from './env-variant.mjs';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const PROCESSES = Number(opt('--processes') ?? 6);
if (!(Number.isInteger(PROCESSES) && PROCESSES >= 1)) throw new Error('--processes takes a whole number ≥ 1');
const CORPORA = (opt('--corpora') ?? 'en,ja,zh,mixed').split(',');
const PEER = process.argv.includes('--peer');
const OUT = opt('--out') ?? 'fingerprint-steady.json';
if (!opt('--baseline')) throw new Error('--baseline OTHER/dist is needed: the figures are ratios of two builds');
const baselineEnv = opt('--baseline-env') ? envVars(opt('--baseline-env')) : undefined;
const builds = [
  ['this', resolve(here, '..', 'dist')],
  [
    'baseline',
    resolve(opt('--baseline')),
    baselineEnv,
    process.argv.includes('--baseline-collect') ? 'steady-collected' : 'steady',
  ],
];

/** One steady child of bench/fingerprint-whole.mjs: the median CPU ms and faults of its 7 timed calls. */
function steadyProcess(dist, corpus, env, mode = 'steady') {
  const r = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      join(here, 'fingerprint-whole.mjs'),
      ...['--child', mode, '--dist', dist, '--corpus', corpus, '--peer', PEER ? '1' : '0'],
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24, env: env ? { ...process.env, ...env } : process.env },
  );
  if (r.status !== 0) throw new Error(`steady child ${corpus} (${dist}) failed: ${r.stderr}`);
  const child = JSON.parse(r.stdout.trim().split('\n').pop());
  return {
    bytes: child.bytes,
    cpu_ms: median(child.ours.map((c) => c.cpu_ms)),
    faults: median(child.ours.map((c) => c.faults)),
  };
}

const loads = [];
const table = {};
for (const corpus of CORPORA) {
  const runs = { this: [], baseline: [] };
  for (let p = 0; p < PROCESSES; p++) {
    loads.push(loadNow());
    for (const [name, dist, env, mode] of p % 2 ? [...builds].reverse() : builds)
      runs[name].push(steadyProcess(dist, corpus, env, mode));
  }
  const mbs = (xs) => round(xs[0].bytes / 1e6 / (median(xs.map((x) => x.cpu_ms)) / 1000), 1);
  table[corpus] = {
    this_mb_s_cpu: mbs(runs.this),
    baseline_mb_s_cpu: mbs(runs.baseline),
    // each round's pair under the same load: this build's CPU over the baseline's, then the median
    cpu_this_over_baseline: round(median(runs.this.map((x, i) => x.cpu_ms / runs.baseline[i].cpu_ms)), 3),
    faster_rounds: runs.this.filter((x, i) => x.cpu_ms < runs.baseline[i].cpu_ms).length,
    raw: runs,
  };
  const t = table[corpus];
  console.log(
    `${corpus.padEnd(6)} steady over ${PROCESSES} processes a build: this ${t.this_mb_s_cpu} MB/s of CPU, baseline ` +
      `${t.baseline_mb_s_cpu}; this / baseline CPU ${t.cpu_this_over_baseline} (faster in ${t.faster_rounds} of ${PROCESSES})`,
  );
}
writeRecord(join(here, 'results', OUT), {
  ...recordHeader('fingerprint-steady'),
  options: process.argv.slice(2),
  builds,
  processes: PROCESSES,
  peer: PEER,
  load_1min: loadSpread(loads),
  ...table,
});
