// Event-loop stalls of a serving process while long CPU work runs: GET /api/v1/status latency (p50 / p99 /
// max) while one client posts a 10 MB analyze (text, or the same as HTML), a 500,000-character compare or
// a 10 MB work registration or fingerprint (--tasks fingerprint), against
// the built package (dist/, what ships) with the default packs and the starter dataset loaded, as
// `trainprint serve` has them. Two servers in the same run, each in its own worker thread:
//   - before: `createHandler(engine, { sliceMs: Infinity })` and no worker pool — the search of an
//     analysis and a compare run in one go on the request loop (the behaviour before slicing);
//   - after: `createHandler(engine, { offload: pool })` with `serve(…, { workers: pool })` — the pure work
//     on the worker pool, the search in slices of 3 ms (the defaults of `trainprint serve`).
// Status requests are sent open-loop, one every 10 ms over kept-alive connections (as fetch and most
// health checkers send them), and timed from when each was due to be sent (so a stall counts for every
// request it holds up). With --fresh each status request opens a new connection instead. Runs alternate before / after,
// --runs times each; the figures are medians over runs. Results: bench/results/stall.json.
//
//   node bench/stall.mjs [--runs 3] [--mb 10] [--compare-chars 500000] [--fresh]
//                        [--tasks analyze,compare,analyze-html,register,fingerprint] [--out stall-x.json]
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { request as httpRequest, Agent } from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { english } from './corpus.mjs';

const DIST = new URL('../dist/', import.meta.url);
const load = (entry) => import(new URL(entry, DIST).href);

if (!isMainThread) {
  // ---------------------------------------------------------------- a server (worker thread)
  const { createEngine } = await load('index.js');
  const { createHandler, KeyStore } = await load('http.js');
  const { serve, createWorkerPool } = await load('node.js');
  const { loadStarterDataset } = await load('starter.js');
  const engine = await createEngine({ packs: 'default' });
  await loadStarterDataset(engine);
  const keys = new KeyStore(engine.store);
  const { key } = await keys.createKey({ account: 'bench', plan: 'enterprise' });
  const after = workerData.mode === 'after';
  const pool = after ? createWorkerPool() : undefined;
  const handler = createHandler(engine, after ? { keys, offload: pool } : { keys, sliceMs: Infinity });
  const server = await serve(handler, { port: 0, workers: pool });
  parentPort.postMessage({ url: server.url, key, threads: pool?.threads ?? 0 });
  parentPort.on('message', async (m) => {
    if (m === 'close') {
      await server.close();
      engine.dispose();
      parentPort.postMessage('closed');
    }
  });
} else {
  await main();
}

async function main() {
  const args = process.argv.slice(2);
  const arg = (name, d) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  const RUNS = arg('runs', 3);
  const MB = arg('mb', 10);
  const COMPARE_CHARS = arg('compare-chars', 500_000);
  const INTERVAL_MS = 10;
  const FRESH = args.includes('--fresh');
  const t = args.indexOf('--tasks');
  const TASKS = t >= 0 ? args[t + 1].split(',') : ['analyze', 'compare', 'analyze-html', 'register'];
  const t0 = performance.now();
  const loadBefore = loadavg();

  // a 10 MB analysis: real English prose (bench/corpus.mjs), as large as analyze accepts
  const content = english(MB * 1_000_000);
  const analyzeBody = JSON.stringify({ content, content_type: 'text' });
  // a compare of two 500,000-character texts sharing their first half
  const prose = english(2 * COMPARE_CHARS);
  const a = prose.slice(0, COMPARE_CHARS);
  const b = a.slice(0, COMPARE_CHARS / 2) + prose.slice(COMPARE_CHARS, COMPARE_CHARS + COMPARE_CHARS / 2);
  const compareBody = JSON.stringify({ a, b });
  const escaped = content.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const html = `<html><body>\n<p>${escaped.split(/\n\s*\n/).join('</p>\n<p>')}</p>\n</body></html>`.slice(
    0,
    10 * 1024 * 1024 - 64,
  );

  const servers = {};
  for (const mode of ['before', 'after']) {
    const worker = new Worker(new URL(import.meta.url), { workerData: { mode } });
    const ready = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    servers[mode] = { worker, ...ready };
  }
  const ready = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(`servers ready in ${ready} s (pool threads: ${servers.after.threads})`);

  const allTasks = {
    analyze: { path: '/api/v1/attribution/analyze', body: analyzeBody },
    compare: { path: '/api/v1/attribution/compare', body: compareBody },
    // the same prose as HTML (escaped, one <p> per blank-line paragraph), kept under the 10 MiB limit
    'analyze-html': {
      path: '/api/v1/attribution/analyze',
      body: JSON.stringify({ content: html, content_type: 'html' }),
    },
    // registration of the 10 MB text: extraction and fingerprint of the work
    register: { path: '/api/v1/content/register', body: JSON.stringify({ content, content_type: 'text' }) },
    // the fingerprint of the 10 MB text (its id, counts, sketches and work hash)
    fingerprint: { path: '/api/v1/attribution/fingerprint', body: JSON.stringify({ content, content_type: 'text' }) },
  };
  const tasks = Object.fromEntries(
    TASKS.map((t) => {
      if (!allTasks[t]) throw new Error(`--tasks: no task ${t} (${Object.keys(allTasks).join(', ')})`);
      return [t, allTasks[t]];
    }),
  );
  // warm each server once per task (first-search index builds, JIT, pool start)
  for (const mode of ['before', 'after']) for (const t of Object.values(tasks)) await post(servers[mode], t);

  const runs = Object.fromEntries(Object.keys(tasks).map((task) => [task, { before: [], after: [] }]));
  for (let r = 0; r < RUNS; r++) {
    for (const task of Object.keys(tasks)) {
      for (const mode of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
        const m = await measure(servers[mode], tasks[task], INTERVAL_MS, FRESH);
        runs[task][mode].push(m);
        console.log(
          `run ${r + 1} ${task} ${mode}: ${m.task_ms.toFixed(0)} ms, ` +
            `status n=${m.status_n} (${m.status_errors} failed) ` +
            `p50 ${m.p50_ms.toFixed(1)} p99 ${m.p99_ms.toFixed(1)} max ${m.max_ms.toFixed(1)} ms`,
        );
      }
    }
  }
  for (const s of Object.values(servers)) {
    s.worker.postMessage('close');
    await new Promise((resolve) => s.worker.once('message', resolve));
    await s.worker.terminate();
  }

  const summary = {};
  for (const [task, byMode] of Object.entries(runs)) {
    summary[task] = {};
    for (const [mode, list] of Object.entries(byMode)) {
      summary[task][mode] = {
        status_p50_ms: round(median(list.map((m) => m.p50_ms))),
        status_p99_ms: round(median(list.map((m) => m.p99_ms))),
        status_max_ms: round(median(list.map((m) => m.max_ms))),
        task_ms: round(median(list.map((m) => m.task_ms))),
        status_requests: Math.round(median(list.map((m) => m.status_n))),
        status_failed: list.reduce((n, m) => n + m.status_errors, 0),
      };
    }
    const { before, after } = summary[task];
    summary[task].p99_before_over_after = round(before.status_p99_ms / after.status_p99_ms);
    const p99s = byMode.after.map((m) => m.p99_ms);
    summary[task].after_p99_range_ms = [round(Math.min(...p99s)), round(Math.max(...p99s))];
    summary[task].task_after_over_before = round(after.task_ms / before.task_ms);
  }
  const result = {
    bench: 'stall',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    setup: {
      datasets: 'default packs + starter (as trainprint serve)',
      analyze_bytes: Buffer.byteLength(content),
      tasks: Object.keys(tasks),
      compare_chars: [a.length, b.length],
      status_interval_ms: INTERVAL_MS,
      status_connections: FRESH ? 'a new connection per request' : 'kept alive',
      runs_per_mode: RUNS,
      pool_threads: servers.after.threads,
      // other processes on the machine take cores from both servers: the 1- and 5-minute load averages
      // when the runs started and ended (on a 2-core machine, above 2 means they waited for a core)
      load_average: { start: loadBefore.slice(0, 2).map(round), end: loadavg().slice(0, 2).map(round) },
      before: 'createHandler(engine, { sliceMs: Infinity }), no worker pool',
      after: 'createHandler(engine, { offload: pool }), serve(…, { workers: pool }), sliceMs 3 (default)',
    },
    summary,
    runs,
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const named = args.indexOf('--out');
  const out = named >= 0 ? args[named + 1] : FRESH ? 'stall-fresh.json' : 'stall.json';
  writeFileSync(new URL(`./results/${out}`, import.meta.url), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(summary, null, 2));
  console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s → bench/results/${out}`);
}

/** POST a task and wait for the whole answer; the status must be 200. */
async function post(server, task) {
  const res = await fetch(server.url + task.path, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    body: task.body,
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${task.path}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/**
 * One task with status requests sent every `interval` ms from when its body has been sent until its answer
 * has arrived. Each status latency runs from when the request was due, not when the loop got to send it.
 */
async function measure(server, task, interval, fresh) {
  const agent = new Agent({ keepAlive: !fresh, maxSockets: 256 });
  const latencies = [];
  let errors = 0;
  const pending = new Set();
  let stop = false;
  const start = performance.now();
  const answer = post(server, task).finally(() => {
    stop = true;
  });
  // status requests from the first due time on, until the answer is in
  let due = start + interval;
  while (!stop) {
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (stop) break;
    const sentDue = due;
    const p = status(server.url, agent).then(
      () => latencies.push(performance.now() - sentDue),
      (e) => {
        errors++;
        if (errors === 1) console.error(`status request failed: ${e.message}`);
      },
    );
    pending.add(p);
    p.finally(() => pending.delete(p));
    due += interval;
    // a stalled server: do not send faster than the client can (catch up from now)
    if (due < performance.now() - interval) due = performance.now();
  }
  await answer;
  const taskMs = performance.now() - start;
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((x, y) => x - y);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return {
    task_ms: taskMs,
    status_n: latencies.length,
    status_errors: errors,
    p50_ms: q(0.5),
    p99_ms: q(0.99),
    max_ms: latencies.at(-1) ?? NaN,
  };
}

function status(url, agent) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/v1/status`, { agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function round(x) {
  return Math.round(x * 100) / 100;
}
