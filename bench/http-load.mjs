// HTTP load run on loopback: the built package (dist/http.js + dist/node.js, what ships) serving
// POST /api/v1/attribution/analyze with the starter dataset (SPDX licence texts) loaded, hit by N
// concurrent keep-alive clients for a fixed number of requests. Bodies are realistic: 2–6 KB of
// English prose (bench/corpus.mjs), a third of them README-like markdown quoting a licence of the
// starter dataset (so the analysis finds matches). Compared in the same run with two baselines:
//   - GET /api/v1/status over the same server and clients (the HTTP stack and a health check:
//     what the adapter costs without an analysis);
//   - the same analyze requests from one client (latency without queueing behind other clients);
//   - engine.analyze() on the same bodies in-process, without HTTP (tinybench, one at a time).
// The server runs in a worker thread and the clients in the main thread, so they do not share an
// event loop. Results: bench/results/http-load.json. Bounded: a few thousand requests, < 60 s.
//
//   node bench/http-load.mjs [--concurrency 16] [--requests 1500] [--quick]
//   TRAINPRINT_DIST=/path/to/dist node bench/http-load.mjs   (another build; default ../dist)
import './help.mjs';
import { Bench } from 'tinybench';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

const DIST = process.env.TRAINPRINT_DIST
  ? pathToFileURL(`${process.env.TRAINPRINT_DIST.replace(/\/+$/, '')}/`)
  : new URL('../dist/', import.meta.url);
const load = (entry) => import(new URL(entry, DIST).href);

if (!isMainThread) {
  // ---------------------------------------------------------------- server (worker thread)
  const { createEngine } = await load('index.js');
  const { createHandler, KeyStore } = await load('http.js');
  const { serve } = await load('node.js');
  const { loadStarterDataset } = await load('starter.js');
  const engine = await createEngine();
  const stats = await loadStarterDataset(engine);
  const keys = new KeyStore(engine.store);
  const { key } = await keys.createKey({ account: 'bench', plan: 'enterprise' }); // no daily limit
  const server = await serve(createHandler(engine, { keys }), { port: 0 });
  parentPort.postMessage({ url: server.url, key, documents: stats.documents });
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
  const QUICK = args.includes('--quick');
  const CONCURRENCY = arg('concurrency', 16);
  const REQUESTS = arg('requests', QUICK ? 200 : 1500);
  const STATUS_REQUESTS = arg('status-requests', QUICK ? 400 : 3000);
  const SERIAL_REQUESTS = arg('serial-requests', QUICK ? 64 : 400);
  const t0 = performance.now();

  // ---------------------------------------------------------------- bodies
  const { english } = await import('./corpus.mjs');
  const licences = createRequire(import.meta.url)('spdx-license-list/full');
  const prose = english(2_000_000);
  const rnd = prng(20_260_501);
  const LICENCE_IDS = [
    'MIT',
    'Apache-2.0',
    'BSD-3-Clause',
    'GPL-3.0-only',
    'MPL-2.0',
    'ISC',
    'LGPL-2.1-only',
    'Unlicense',
  ];
  const bodies = [];
  for (let i = 0; i < 64; i++) {
    const size = 2048 + Math.floor(rnd() * 4096);
    const at = Math.floor(rnd() * (prose.length - size));
    const text = prose.slice(at, at + size);
    if (i % 3 === 0) {
      const id = LICENCE_IDS[i % LICENCE_IDS.length];
      const lic = licences[id].licenseText;
      const quote = lic.slice(0, Math.min(lic.length, 1500 + Math.floor(rnd() * 1500)));
      bodies.push({
        matching: true,
        json: JSON.stringify({
          content: `# project-${i}\n\n${text.slice(0, size / 2)}\n\n## License\n\n${quote}\n`,
          content_type: 'markdown',
          metadata: { work_type: 'code', jurisdiction: 'US' },
        }),
      });
    } else {
      bodies.push({ matching: false, json: JSON.stringify({ content: text, content_type: 'text' }) });
    }
  }
  const bytes = bodies.map((b) => Buffer.byteLength(b.json));

  // ---------------------------------------------------------------- server
  const worker = new Worker(new URL(import.meta.url), { workerData: {} });
  const ready = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const { url, key } = ready;
  console.log(
    `server ${url} (worker thread), starter dataset: ${ready.documents} licences; ${bodies.length} bodies of ${Math.min(...bytes)}–${Math.max(...bytes)} bytes`,
  );

  let sink = 0;
  let matched = 0;
  const analyze = async (i) => {
    const b = bodies[i % bodies.length];
    const res = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: b.json,
    });
    const json = await res.json();
    if (res.status !== 200 || json.success !== true)
      throw new Error(`analyze: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    if (b.matching && json.potential_matches > 0) matched++;
    sink += json.tokens;
  };
  const status = async () => {
    const res = await fetch(`${url}/api/v1/status`);
    const json = await res.json();
    if (res.status !== 200) throw new Error(`status: ${res.status}`);
    sink += json.uptime_seconds >= 0 ? 1 : 0;
  };

  // warm-up (JIT, connections), then the measured runs
  await pool(64, CONCURRENCY, analyze);
  await pool(64, CONCURRENCY, status);
  matched = 0;
  const httpAnalyze = await pool(REQUESTS, CONCURRENCY, analyze);
  const matchedInRun = matched;
  const matchingSent = Array.from({ length: REQUESTS }, (_, i) => bodies[i % bodies.length].matching).filter(
    Boolean,
  ).length;
  const httpStatus = await pool(STATUS_REQUESTS, CONCURRENCY, status);
  const httpSerial = await pool(SERIAL_REQUESTS, 1, analyze); // one client: latency without queueing
  report(`POST /api/v1/attribution/analyze ×${CONCURRENCY}`, httpAnalyze);
  report(`GET /api/v1/status ×${CONCURRENCY}`, httpStatus);
  report('POST /api/v1/attribution/analyze ×1', httpSerial);

  worker.postMessage('close');
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();

  // ---------------------------------------------------------------- baseline: engine.analyze without HTTP
  const { createEngine } = await load('index.js');
  const { loadStarterDataset } = await load('starter.js');
  const engine = await createEngine();
  await loadStarterDataset(engine);
  const parsed = bodies.map((b) => JSON.parse(b.json));
  let k = 0;
  const bench = new Bench({ name: 'engine.analyze', time: QUICK ? 500 : 3000, warmupTime: 200, throws: true });
  bench.add('engine.analyze (in-process, no HTTP)', async () => {
    const r = await engine.analyze(parsed[k++ % parsed.length]);
    sink += r.tokens;
  });
  await bench.run();
  const task = bench.tasks[0];
  if (task.result.state !== 'completed') throw new Error(`engine.analyze: ${task.result.state}`);
  const lat = task.result.latency;
  const direct = {
    requests: lat.samplesCount,
    seconds: round((lat.samplesCount * lat.mean) / 1000, 3),
    rps: round(1000 / lat.mean, 1),
    p50_ms: round(lat.p50, 3),
    p99_ms: round(lat.p99, 3),
    max_ms: round(lat.max, 3),
    errors: 0,
  };
  report('engine.analyze (in-process)', direct);
  engine.dispose();

  if (matchedInRun < matchingSent * 0.9)
    throw new Error(`only ${matchedInRun} of ${matchingSent} licence-quoting bodies matched the starter dataset`);
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    dist: DIST.href.startsWith(new URL('../dist/', import.meta.url).href) ? '../dist' : DIST.pathname,
    method:
      `${CONCURRENCY} concurrent keep-alive fetch clients (main thread) against serve() in a worker thread on 127.0.0.1; ` +
      `fixed request counts after a 64-request warm-up; latency = request sent → JSON body parsed; baseline engine.analyze with tinybench (sequential, same bodies, same starter dataset)`,
    config: {
      concurrency: CONCURRENCY,
      analyze_requests: REQUESTS,
      status_requests: STATUS_REQUESTS,
      serial_requests: SERIAL_REQUESTS,
      bodies: bodies.length,
      body_bytes: {
        min: Math.min(...bytes),
        max: Math.max(...bytes),
        mean: Math.round(bytes.reduce((a, b) => a + b, 0) / bytes.length),
      },
      matching_share: round(bodies.filter((b) => b.matching).length / bodies.length, 3),
    },
    results: {
      http_analyze: httpAnalyze,
      http_status: httpStatus,
      http_analyze_one_client: httpSerial,
      direct_analyze: direct,
    },
    ratios: {
      http_analyze_rps_vs_direct: round(httpAnalyze.rps / direct.rps, 3),
      http_analyze_one_client_p50_vs_direct_p50: round(httpSerial.p50_ms / direct.p50_ms, 2),
      http_overhead_one_client_p50_ms: round(httpSerial.p50_ms - direct.p50_ms, 3),
      http_analyze_rps_vs_http_status: round(httpAnalyze.rps / httpStatus.rps, 3),
    },
    checks: { licence_bodies_matched: matchedInRun, licence_bodies_sent: matchingSent },
    total_seconds: round((performance.now() - t0) / 1000, 1),
  };
  console.log('ratios', out.ratios, `total ${out.total_seconds} s`);
  if (!QUICK || args.includes('--write')) {
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(new URL('./results/http-load.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
    console.log('wrote bench/results/http-load.json');
  }
  if (sink === -1) console.log(sink); // keep the work observable
}

/** `total` calls of `fn(i)` by `concurrency` clients; throughput and latency percentiles. */
async function pool(total, concurrency, fn) {
  const lat = [];
  let next = 0,
    errors = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t = performance.now();
        try {
          await fn(i);
        } catch (e) {
          errors++;
          if (errors === 1) console.error(e);
        }
        lat.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  if (errors > 0) throw new Error(`${errors} of ${total} requests failed`);
  return {
    requests: total,
    seconds: round(seconds, 3),
    rps: round(total / seconds, 1),
    p50_ms: round(q(0.5), 3),
    p90_ms: round(q(0.9), 3),
    p99_ms: round(q(0.99), 3),
    max_ms: round(lat[lat.length - 1], 3),
    errors,
  };
}

function report(name, r) {
  console.log(
    `${name.padEnd(36)} ${String(r.requests).padStart(5)} req  ${r.rps.toFixed(1).padStart(8)} req/s  p50 ${r.p50_ms.toFixed(2).padStart(7)} ms  p99 ${r.p99_ms.toFixed(2).padStart(7)} ms`,
  );
}

function round(x, d) {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
