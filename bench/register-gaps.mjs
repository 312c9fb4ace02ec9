// How long a `serve` thread is held while 10 MB works are registered through it: a server with its worker pool on the
// main thread of a child process (as `trainprint serve` runs), a client on a worker thread of that process posting six
// 10 MB registrations of English text one after another (each a new work; after a 2 MB one that warms the server up,
// untimed), and beside them a 1 ms interval on the server's thread whose late ticks are the thread's holds (a gap
// between two ticks is how long no timer could run). Each child gives its gaps longest first and the work hashes it
// answered; this script runs --rounds children a build, alternating the builds, and reports the medians of each rank
// of gap. The two builds' work hashes are compared (the same registrations, the same answers). On a 2-core machine the
// client, the pool's thread and the server's share two cores, so part of each gap is the server's thread waiting for
// a core (a CPU profile shows it idle there).
//
//   npm run build && node bench/register-gaps.mjs [--baseline <dist of another build>] [--rounds 5]
//     [--out register-gaps.json]
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const opt = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);

if (process.argv.includes('--child')) {
  // ---------------------------------------------------------------- one server and its client (a child process)
  const dist = opt('--child');
  const load = (entry) => import(pathToFileURL(join(dist, entry)).href);
  const { createEngine } = await load('index.js');
  const { createHandler, KeyStore } = await load('http.js');
  const { serve, createWorkerPool } = await load('node.js');
  const { CORPORA } = await import('./fingerprint-whole.mjs');
  const engine = await createEngine();
  const keys = new KeyStore(engine.store);
  const { key } = await keys.createKey({ account: 'bench', plan: 'enterprise' });
  const pool = createWorkerPool();
  const server = await serve(createHandler(engine, { keys, offload: pool }), { port: 0, workers: pool });
  const english = CORPORA.en(10_000_000);
  // six new works: the same 10 MB, each shifted and marked so that its work hash is its own
  const bodies = [0, 1, 2, 3, 4, 5].map((i) =>
    JSON.stringify({ content: `${english.slice(i * 1000)} registration ${i}`, content_type: 'text' }),
  );
  const gaps = [];
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  const client = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      const out = [];
      // a 2 MB registration first, untimed: the server's first request loads its code and starts the pool's thread
      await (await fetch(new URL('/api/v1/content/register', workerData.url), {
        method: 'POST', headers: { authorization: 'Bearer ' + workerData.key, 'content-type': 'application/json' },
        body: JSON.stringify({ content: workerData.bodies[0].slice(20, 2_000_000) + ' warm-up', content_type: 'text' }),
      })).json();
      parentPort.postMessage('go');
      for (const body of workerData.bodies) {
        const t = performance.now();
        const r = await fetch(new URL('/api/v1/content/register', workerData.url), {
          method: 'POST', headers: { authorization: 'Bearer ' + workerData.key, 'content-type': 'application/json' }, body,
        });
        const j = await r.json();
        out.push({ status: r.status, ms: performance.now() - t, work_hash: j.work_hash ?? null });
      }
      parentPort.postMessage(out);
    })();`,
    { eval: true, workerData: { url: server.url, key, bodies } },
  );
  await new Promise((go) => client.once('message', go));
  gaps.length = 0; // the warm-up's gaps are not counted
  last = performance.now();
  const answers = await new Promise((done) => client.once('message', done));
  clearInterval(tick);
  await client.terminate();
  await server.close();
  gaps.sort((a, b) => b - a);
  process.stdout.write(`${JSON.stringify({ gaps_ms: gaps.slice(0, 12).map((g) => round(g, 1)), answers })}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------- the rounds (this process)
const here = fileURLToPath(new URL('.', import.meta.url));
const builds = [['this', resolve(here, '../dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);
const ROUNDS = Number(opt('--rounds', 5));
const OUT = opt('--out', 'register-gaps.json');
const loads = [loadNow()];
const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dist], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (child.status !== 0) throw new Error(`${name}: the child failed\n${child.stderr}`);
    const run = JSON.parse(child.stdout.trim().split('\n').pop());
    if (run.answers.some((a) => a.status !== 201)) throw new Error(`${name}: ${JSON.stringify(run.answers)}`);
    runs[name].push(run);
    console.log(`round ${r + 1} ${name}: gaps ${run.gaps_ms.slice(0, 6).join(' ')} ms`);
  }
  loads.push(loadNow());
}
const hashes = (name) => runs[name].map((run) => run.answers.map((a) => a.work_hash).join(','));
if (builds.length > 1 && hashes('this').some((h, i) => h !== hashes('baseline')[i]))
  throw new Error('the two builds answered different work hashes');
const summary = {};
for (const [name] of builds) {
  const rank = (k) => round(median(runs[name].map((run) => run.gaps_ms[k])), 1);
  summary[name] = {
    longest_gap_ms: rank(0),
    second_gap_ms: rank(1),
    sixth_gap_ms: rank(5),
    request_ms: round(median(runs[name].flatMap((run) => run.answers.slice(1).map((a) => a.ms))), 1),
  };
  console.log(`${name}: ${JSON.stringify(summary[name])}`);
}
const record = {
  ...recordHeader('register-gaps'),
  builds,
  rounds: ROUNDS,
  load: loadSpread(loads),
  summary,
  runs,
};
console.log(`wrote ${writeRecord(`bench/results/${OUT}`, record)}`);
