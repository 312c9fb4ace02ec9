// `trainprint serve --workers N` on one PostgreSQL store (a throwaway durable cluster on 127.0.0.1,
// test/pg/cluster.mjs): requests/s and latency of POST /api/v1/attribution/analyze (2–6 KB of English prose,
// a third quoting a licence of the starter dataset) from C concurrent keep-alive clients, for 1 and 2 worker
// processes, alternating (--runs pairs), in the same run. The load generator runs on the same 2 cores, so the
// ratio is what a second process adds when the clients compete with it. Results: bench/results/serve-workers.json.
//
// --words N sends N-word texts instead (e.g. 10,000: a chapter, the size of the analyze latency target), and writes
// bench/results/serve-workers-wN.json.
//
//   node bench/serve-workers.mjs [--runs 3] [--requests 1500] [--concurrency 16] [--workers 2] [--words N]  (needs dist/)
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { english } from './corpus.mjs';
import { startCluster } from '../test/pg/cluster.mjs';
import { upperMedian } from './stats.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 3),
  REQUESTS = arg('requests', 1500),
  CONCURRENCY = arg('concurrency', 16);
const MANY = arg('workers', 2),
  WORDS = arg('words', 0);
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

// bodies: prose of 2–6 KB, every third quoting the MIT licence's grant (a match in the starter dataset)
const prose = english(3_000_000);
const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files';
const words = WORDS > 0 ? prose.split(/\s+/) : null;
const bodies = Array.from({ length: 200 }, (_, i) => {
  const at = (i * 14_983) % (prose.length - 7000);
  const text = words
    ? words.slice((i * 7_919) % (words.length - WORDS), ((i * 7_919) % (words.length - WORDS)) + WORDS).join(' ')
    : prose.slice(at, at + 2000 + ((i * 97) % 4000));
  return JSON.stringify({ content: i % 3 === 0 ? `${text}\n\n${MIT}` : text, content_type: 'text' });
});

const run = (argv) =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, ...argv], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(stderr)) : resolve(stdout),
    );
  });

async function start(store, workers) {
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--packs', 'none', '--starter', '--workers', String(workers), '--store', store],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  for (let i = 0; i < 600 && !/listening on (http:\/\/\S+)/.test(out); i++)
    await new Promise((r) => setTimeout(r, 100));
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`serve did not start:\n${out}`);
  // every worker up: a few rounds of status calls
  for (let i = 0; i < 20; i++) await (await fetch(`${url}/readyz`)).arrayBuffer();
  return {
    url,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

// The load generator is node:http over kept-alive sockets (one per client), not fetch: it shares the two cores
// with the servers, and fetch costs it about three times the CPU per request (its own CPU is reported).
function post(agent, url, key, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/attribution/analyze`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * CPU time (ms) used so far by the serve processes and by PostgreSQL's, from /proc (Linux; null elsewhere): with
 * the load generator's own, where each request's CPU goes.
 */
function processCpu() {
  if (!existsSync('/proc/self/stat')) return null;
  const out = { serve: 0, postgres: 0 };
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, 100 ticks a second
      if (cmd.startsWith('postgres')) out.postgres += ms;
      else if (cmd.includes(cli) && cmd.includes('serve')) out.serve += ms;
    } catch {
      /* the process ended meanwhile */
    }
  }
  return out;
}

async function load(url, key) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const lat = [];
  let next = 0,
    failed = 0;
  const cpu0 = process.cpuUsage();
  const proc0 = processCpu();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const body = bodies[next++ % bodies.length];
        const s = performance.now();
        if ((await post(agent, url, key, body)) !== 200) failed++;
        lat.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const proc1 = processCpu();
  agent.destroy();
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  const loadCpuMs = (cpu.user + cpu.system) / 1000 / REQUESTS;
  const perRequest = (k) => (proc0 && proc1 ? (proc1[k] - proc0[k]) / REQUESTS : null);
  return {
    rps: REQUESTS / seconds,
    p50_ms: q(0.5),
    p99_ms: q(0.99),
    failed,
    load_generator_cpu_ms_per_request: loadCpuMs,
    serve_cpu_ms_per_request: perRequest('serve'),
    postgres_cpu_ms_per_request: perRequest('postgres'),
  };
}

const cluster = await startCluster({ durable: !process.argv.includes('--no-fsync') });
const results = { 1: [], [MANY]: [] };
try {
  const store = `${cluster.url}?schema=bench_workers`;
  const key = JSON.parse(
    await run(['keys', 'create', '--store', store, '--account', 'bench', '--plan', 'enterprise']),
  ).key;
  for (let r = 0; r < RUNS; r++) {
    for (const w of r % 2 ? [MANY, 1] : [1, MANY]) {
      const s = await start(store, w);
      await load(s.url, key); // warm-up: JIT, connections, the store's pool
      const m = await load(s.url, key);
      await s.stop();
      results[w].push(m);
      console.log(
        `run ${r + 1}, ${w} worker process${w > 1 ? 'es' : ''}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50_ms.toFixed(1)} ms, ` +
          `p99 ${m.p99_ms.toFixed(1)} ms, failed ${m.failed}; CPU ms a request: serve ${m.serve_cpu_ms_per_request?.toFixed(2)}, ` +
          `postgres ${m.postgres_cpu_ms_per_request?.toFixed(2)}, load generator ${m.load_generator_cpu_ms_per_request.toFixed(2)}`,
      );
    }
  }
} finally {
  cluster.stop();
}
const summary = (list) => ({
  rps_median: upperMedian(list.map((m) => m.rps)),
  rps_range: [Math.min(...list.map((m) => m.rps)), Math.max(...list.map((m) => m.rps))],
  p99_ms_median: upperMedian(list.map((m) => m.p99_ms)),
  serve_cpu_ms_per_request_median: upperMedian(list.map((m) => m.serve_cpu_ms_per_request)),
  postgres_cpu_ms_per_request_median: upperMedian(list.map((m) => m.postgres_cpu_ms_per_request)),
  runs: list,
});
const one = summary(results[1]),
  many = summary(results[MANY]);
const ratio = many.rps_median / one.rps_median;
console.log(`${MANY} worker processes vs 1: ${ratio.toFixed(2)}× requests/s (medians of ${RUNS} alternating runs)`);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL(`./results/serve-workers${WORDS > 0 ? `-w${WORDS}` : ''}.json`, import.meta.url),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      cores: availableParallelism(),
      method: `serve --workers 1 vs ${MANY} on one durable PostgreSQL cluster (127.0.0.1), starter dataset, ${CONCURRENCY} keep-alive node:http clients in this process on the same cores, ${REQUESTS} analyze requests (${WORDS > 0 ? `${WORDS} words` : '2–6 KB'}) after a warm-up round, ${RUNS} alternating pairs`,
      workers_1: one,
      [`workers_${MANY}`]: many,
      ratio_rps: ratio,
    },
    null,
    2,
  ) + '\n',
);
