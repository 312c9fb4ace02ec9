#!/usr/bin/env node
/**
 * What the worker pool's thread holds once its work is done, and what a new thread costs. Each run is a process of its
 * own with `createWorkerPool({ threads: 1, idleMs })` of a build's trainprint/node:
 *
 * - the first task of the pool (a compare of two short texts: the thread started, the library loaded and the core
 *   compiled before it is answered, what a task pays after its thread ended idle) against the second (a warm thread);
 * - then the work a large request gives the thread — a 20 MB JSON body parsed and checked, a 2 MB text's fingerprint
 *   and content-word pairs — and the process's RSS 1 s after it (the thread idle), and again once `idleMs` and 2 s
 *   more have passed: this build has ended the thread by then; a build without the idle end (--baseline) keeps it,
 *   and the difference of the two builds' RSS then is what the ended thread gave back. A full collection of this
 *   thread's heap comes before each sample (the process runs with --expose-gc), so that what differs is the thread's.
 *
 * Runs alternate between the builds (this one, then --baseline, each round), and the figures are medians.
 *
 *   node bench/worker-pool-idle.mjs [--dist dist] [--baseline ../base/dist] [--rounds 3] [--idle-ms 3000]
 *     [--out bench/results/worker-pool-idle.json]
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionsOrUsage } from './cli-args.mjs';
import { madeUpText } from './hostile-attackers.mjs';
import { recordHeader, writeRecord } from './record.mjs';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE =
  'usage: node bench/worker-pool-idle.mjs [--dist DIR] [--baseline DIR] [--rounds N] [--idle-ms MS] [--out FILE]';
const values = optionsOrUsage(
  {
    dist: { type: 'string', default: join(ROOT, 'dist') },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'idle-ms': { type: 'string', default: '3000' },
    out: { type: 'string', default: 'bench/results/worker-pool-idle.json' },
    // one run, in the child process: the build's dist
    run: { type: 'string' },
  },
  USAGE,
);
const idleMs = Number(values['idle-ms']);

const rssMb = () => Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;
const threadCount = () => Number(readFileSync('/proc/self/status', 'utf8').match(/Threads:\s+(\d+)/)[1]);
/** The RSS once this thread's garbage is collected (the pool's thread is left as it is). */
const settledRss = () => {
  globalThis.gc();
  return Math.round(rssMb());
};

if (values.run !== undefined) {
  const { resolveOptions } = await import(pathToFileURL(join(values.run, 'index.js')).href);
  const { createWorkerPool } = await import(pathToFileURL(join(values.run, 'node.js')).href);
  const { ROUTES } = await import(pathToFileURL(join(values.run, 'http.js')).href);
  const schema = ROUTES.find((r) => r.operationId === 'analyze').requestSchema;
  const text = madeUpText(330_000, 7); // about 2 MB
  const body = new TextEncoder().encode(JSON.stringify({ content: madeUpText(3_300_000, 8), content_type: 'text' }));
  const small = { kind: 'compare', a: 'one two three four five six', b: 'two three four five six seven' };
  const before = settledRss();
  const threadsBefore = threadCount();
  const pool = createWorkerPool({ threads: 1, idleMs });
  let t = performance.now();
  await pool.run(small);
  const coldMs = performance.now() - t;
  t = performance.now();
  await pool.run(small);
  const warmMs = performance.now() - t;
  await pool.parseJson(body, schema);
  await pool.run({ kind: 'fingerprint', text, options: resolveOptions({}) });
  await pool.run({ kind: 'pairs', text });
  await sleep(1000);
  const idle = settledRss();
  const threadsIdle = threadCount() - threadsBefore;
  await sleep(idleMs + 2000);
  const later = settledRss();
  const threadsLater = threadCount() - threadsBefore;
  await pool.close();
  console.log(
    JSON.stringify({
      first_task_ms: Math.round(coldMs * 10) / 10,
      second_task_ms: Math.round(warmMs * 10) / 10,
      rss_before_mb: before,
      rss_thread_idle_mb: idle,
      rss_after_idle_ms_mb: later,
      threads_added_idle: threadsIdle,
      threads_added_later: threadsLater,
    }),
  );
  process.exit(0);
}

const runOnce = (dist) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--expose-gc', fileURLToPath(import.meta.url), '--run', dist, '--idle-ms', `${idleMs}`],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .pop(),
  );

const builds = { this: resolve(values.dist), ...(values.baseline ? { baseline: resolve(values.baseline) } : {}) };
const runs = Object.fromEntries(Object.keys(builds).map((b) => [b, []]));
const load = [loadavg()[0]];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, dist] of Object.entries(builds)) {
    const r = runOnce(dist);
    runs[name].push(r);
    console.error(`${name} round ${round + 1}: ${JSON.stringify(r)}`);
  }
  load.push(loadavg()[0]);
}
const summary = Object.fromEntries(
  Object.entries(runs).map(([name, rs]) => {
    const m = (k) => median(rs.map((r) => r[k]));
    return [
      name,
      {
        first_task_ms: m('first_task_ms'),
        second_task_ms: m('second_task_ms'),
        first_over_second: Math.round((m('first_task_ms') / m('second_task_ms')) * 10) / 10,
        rss_before_mb: m('rss_before_mb'),
        rss_thread_idle_mb: m('rss_thread_idle_mb'),
        rss_after_idle_ms_mb: m('rss_after_idle_ms_mb'),
        threads_added_later: m('threads_added_later'),
      },
    ];
  }),
);
if (summary.baseline) {
  // what the ended thread gave back: the same process, the same work, the same wait, with and without the idle end
  summary.rss_after_idle_ms_this_less_baseline_mb =
    summary.this.rss_after_idle_ms_mb - summary.baseline.rss_after_idle_ms_mb;
}
const result = {
  ...recordHeader('worker-pool-idle'),
  load_average: load.map((l) => Math.round(l * 10) / 10),
  idle_ms: idleMs,
  builds: Object.fromEntries(Object.entries(builds).map(([k, v]) => [k, relative(ROOT, v)])),
  rounds: Number(values.rounds),
  summary,
  runs,
};
writeRecord(values.out, result);
console.log(JSON.stringify(summary, null, 2));
