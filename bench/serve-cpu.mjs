// What `trainprint serve` spends on a large request, as whole server processes: two builds (--baseline), or this
// build under other environment variables (--env-variant: glibc's allocator on transparent huge pages, say), or both,
// alternating. Each round starts a fresh server of each variant (in memory, the default packs loaded, as `trainprint
// serve` runs, with its worker pool), sends one request of each route to warm it (untimed), then REQUESTS requests of
// each route one after another, and reads the server process's CPU (user + system, every thread) and minor page
// faults from /proc before and after each route's requests, and its peak RSS (VmHWM) at the end. The answers of every
// variant are compared each round (the same fingerprint, the same registered work, the same analysis less its ids and
// times). Linux only (/proc).
//   fingerprint  POST /api/v1/attribution/fingerprint of --mb MB of English (default 5)
//   register     POST /api/v1/content/register of the same text
//   analyze      POST /api/v1/attribution/analyze of --analyze-mb MB of English (default 1)
//
//   npm run build && node bench/serve-cpu.mjs [--baseline OTHER/dist] [--env-variant NAME:VAR=VALUE[,VAR=VALUE]]
//     [--routes fingerprint,register,analyze] [--rounds 5] [--requests 4] [--out serve-cpu.json]
import './help.mjs';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { english } from './corpus.mjs';
import { envVariant } from './env-variant.mjs';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const ROUNDS = Number(opt('--rounds', 5));
const REQUESTS = Number(opt('--requests', 4));
const ROUTES = opt('--routes', 'fingerprint,register,analyze').split(',');
const OUT = opt('--out', 'serve-cpu.json');
const TICK_MS = 10; // /proc/<pid>/stat counts CPU in USER_HZ ticks (100 a second on Linux)

const variants = [['this', resolve(here, '..', 'dist'), {}]];
if (opt('--baseline')) variants.push(['baseline', resolve(opt('--baseline')), {}]);
if (opt('--env-variant')) {
  const [name, env] = envVariant(opt('--env-variant'));
  variants.push([name, variants[0][1], env]);
}
if (variants.length < 2) throw new Error('--baseline OTHER/dist or --env-variant NAME:VAR=VALUE is needed');

const text = english(Number(opt('--mb', 5)) * 1e6);
const analyzed = english(Number(opt('--analyze-mb', 1)) * 1e6);
const BODIES = {
  fingerprint: ['/api/v1/attribution/fingerprint', { content: text, content_type: 'text' }, (a) => a.fingerprint],
  register: ['/api/v1/content/register', { content: text, content_type: 'text' }, (a) => a.fingerprint],
  analyze: [
    '/api/v1/attribution/analyze',
    { content: analyzed, content_type: 'text' },
    (a) => JSON.stringify(a, (k, v) => (/(^|_)(id|at)$|^created|time|elapsed/.test(k) ? undefined : v)),
  ],
};

/** The server's CPU (ms, every thread) and minor faults so far, from /proc/<pid>/stat. */
function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
  return { cpu_ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS, faults: Number(fields[7]) };
}

/** The server's peak resident memory in MB (VmHWM). */
const peakRssMb = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** A server of `<dist>/cli.js serve` on a free port with `env` added; resolves when it prints its key. */
function startServer(dist, env) {
  const child = spawn(process.execPath, [join(dist, 'cli.js'), 'serve', '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it listened: ${out}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /development key[^:]*: (\S+)/.exec(out)?.[1];
      if (url && key) resolve({ child, url, key });
    });
  });
}

async function post(server, path, body) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    body,
  });
  const answer = await res.json();
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

const bodies = Object.fromEntries(ROUTES.map((r) => [r, JSON.stringify(BODIES[r][1])]));
const runs = Object.fromEntries(variants.map(([name]) => [name, Object.fromEntries(ROUTES.map((r) => [r, []]))]));
const rss = Object.fromEntries(variants.map(([name]) => [name, []]));
const loads = [];
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadNow());
  const seen = {};
  for (const [name, dist, env] of r % 2 ? [...variants].reverse() : variants) {
    const server = await startServer(dist, env);
    try {
      // one untimed request of each route first: a pool thread's first large call grows its core, once a thread
      for (const route of ROUTES) await post(server, BODIES[route][0], bodies[route]);
      for (const route of ROUTES) {
        const before = procStat(server.child.pid);
        let answer;
        for (let i = 0; i < REQUESTS; i++) answer = await post(server, BODIES[route][0], bodies[route]);
        const after = procStat(server.child.pid);
        const said = BODIES[route][2](answer);
        if (route in seen && seen[route] !== said)
          throw new Error(`${name} answered ${route} otherwise than another variant`);
        seen[route] = said;
        runs[name][route].push({
          cpu_ms_per_request: (after.cpu_ms - before.cpu_ms) / REQUESTS,
          faults_per_request: (after.faults - before.faults) / REQUESTS,
        });
      }
      rss[name].push(peakRssMb(server.child.pid));
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  }
}

const table = {};
const [first] = variants[0];
for (const route of ROUTES) {
  table[route] = {};
  for (const [name] of variants) {
    const xs = runs[name][route];
    const cpu = median(xs.map((x) => x.cpu_ms_per_request));
    table[route][name] = {
      cpu_ms_per_request: round(cpu, 1),
      faults_per_request: Math.round(median(xs.map((x) => x.faults_per_request))),
      // each round's pair under the same load: this variant's CPU over the first's, then the median
      cpu_over_this: round(
        median(xs.map((x, i) => x.cpu_ms_per_request / runs[first][route][i].cpu_ms_per_request)),
        3,
      ),
    };
    const t = table[route][name];
    console.log(
      `${route.padEnd(12)} ${name.padEnd(10)} ${t.cpu_ms_per_request} ms of server CPU a request, ${t.faults_per_request} faults; ` +
        `${t.cpu_over_this}x this build's CPU`,
    );
  }
}
const peak = Object.fromEntries(variants.map(([name]) => [name, round(median(rss[name]), 1)]));
console.log(`peak RSS (MB): ${JSON.stringify(peak)}`);
const path = writeRecord(join(here, 'results', OUT), {
  ...recordHeader('serve-cpu'),
  options: process.argv.slice(2),
  rounds: ROUNDS,
  requests: REQUESTS,
  bytes: { text: Buffer.byteLength(text), analyzed: Buffer.byteLength(analyzed) },
  load_1min: loadSpread(loads),
  variants: variants.map(([name, dist, env]) => ({ name, dist, env })),
  ...table,
  peak_rss_mb: peak,
  raw: { runs, rss },
});
console.log(`wrote ${path}`);
