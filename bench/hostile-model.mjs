#!/usr/bin/env node
/**
 * A hostile model service against one real `trainprint serve` (the built CLI, dist/cli.js): an extract job
 * (`POST /api/v1/jobs`, `type: "extract"`, `budget_calls` 20, one call at a time) whose model host answers, in turn,
 * an 8 MiB completion, a good one, an 8 MiB model name, a good one under a 4,000-character name, and a 502 — beside
 * the same job against a well-behaved host (every answer good, model name `m`) as the baseline, in the same run and
 * the same server. For each: the server's RSS (VmRSS from /proc) before the job, its peak while the job runs (sampled
 * every 20 ms), at the job's end and 10 s after; the job's result page in bytes; the requests the host received.
 *
 *   npm run build && nice node bench/hostile-model.mjs [--out bench/results/hostile-model.json]
 *
 * The well-behaved job runs first, twice: the first warms the server (the WebAssembly core keeps the memory it grew
 * to), the second is the baseline; the hostile job follows. Targets: the hostile job's RSS at its end
 * within 1.2× of before it, its result under 1 MB, requests received ≤ budget_calls.
 *
 * Linux only (RSS from /proc). The server runs `--allow-private-model-hosts` so that the model hosts on 127.0.0.1
 * are called (under the default policy they are refused 422 before any call).
 */
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { round } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench/results/hostile-model.json' },
    cli: { type: 'string', default: resolve(ROOT, 'dist/cli.js') },
  },
});
const CLI = resolve(values.cli);
const BUDGET_CALLS = 20;
const EIGHT_MIB = 8 << 20;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

// ------------------------------------------------------------------------------------------------ the work
/** A deterministic synthetic work: 2 chapters of 600 words drawn from a 600-word vocabulary (seeded). */
function syntheticWork(seed = 11) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const vocab = Array.from({ length: 600 }, () =>
    Array.from({ length: 3 + Math.floor(next() * 7) }, () => letters[Math.floor(next() * 26)]).join(''),
  );
  const parts = [];
  for (let c = 0; c < 2; c++) {
    parts.push(`Chapter ${c + 1}`);
    const sentences = [];
    for (let left = 600; left > 0; ) {
      const len = Math.min(left, 8 + Math.floor(next() * 9));
      const w = Array.from({ length: len }, () => vocab[Math.floor(next() * vocab.length)]);
      w[0] = w[0][0].toUpperCase() + w[0].slice(1);
      w[len - 1] += '.';
      sentences.push(w.join(' '));
      left -= len;
    }
    parts.push(sentences.join(' '));
  }
  return parts.join('\n\n');
}

// ------------------------------------------------------------------------------------------------ the model hosts
/**
 * A chat-completions host that echoes the prompt's last 20 words; `hostile` makes it answer, in turn, an 8 MiB
 * completion, a good one, an 8 MiB model name, a good one under a 4,000-character name, and a 502.
 */
async function modelHost(hostile) {
  let requests = 0;
  const big = 'M'.repeat(EIGHT_MIB);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests++;
      const prompt = String(JSON.parse(body).messages.at(-1).content);
      const tail = prompt.split(/\s+/).slice(-20).join(' ');
      const mode = hostile ? requests % 5 : 1;
      const content = mode === 0 ? `${tail} ${'zq '.repeat(EIGHT_MIB / 3)}` : tail;
      const name = mode === 2 ? big : mode === 3 ? 'M'.repeat(4000) : 'm';
      const answer = { model: name, choices: [{ index: 0, message: { role: 'assistant', content } }] };
      res.writeHead(mode === 4 ? 502 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    requests: () => requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

// ------------------------------------------------------------------------------------------------ the server
const dir = mkdtempSync(join(tmpdir(), 'hostile-model-'));
const store = join(dir, 'store');
const cliRun = (args) =>
  new Promise((res, rej) =>
    execFile(process.execPath, [CLI, ...args], (err, stdout, stderr) => (err ? rej(new Error(stderr)) : res(stdout))),
  );

function startServe() {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--packs', 'none', '--store', store, '--allow-private-model-hosts'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start:\n${out}`)), 120_000);
    const look = () => {
      const u = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (u && out.includes('(Ctrl-C stops)')) {
        clearTimeout(timer);
        res({ child, url: u });
      }
    };
    child.stdout.on('data', (d) => ((out += d), look()));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => rej(new Error(`serve exited ${code}:\n${out}`)));
  });
}

// ------------------------------------------------------------------------------------------------ one job
/** Runs one extract job against `host`, sampling the server's RSS; the job's outcome, sizes and RSS. */
async function extractJob(srv, key, host, text) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const pid = srv.child.pid;
  await sleep(2000);
  const before = rssMB(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 20);
  const t = performance.now();
  const item = { text, model: { base_url: host.baseUrl, model: 'm', api: 'chat' }, budget_calls: BUDGET_CALLS };
  const posted = await fetch(`${srv.url}/api/v1/jobs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ type: 'extract', items: [{ ...item, concurrency: 1 }] }),
  });
  const job = await posted.json();
  if (posted.status !== 202) throw new Error(`submit answered ${posted.status}: ${JSON.stringify(job)}`);
  let state;
  for (;;) {
    state = await (await fetch(`${srv.url}${job.status_url}`, { headers })).json();
    if (['done', 'failed', 'cancelled'].includes(state.state)) break;
    await sleep(50);
  }
  const ms = performance.now() - t;
  const page = await (await fetch(`${srv.url}${job.results_url}?limit=100`, { headers })).text();
  clearInterval(sampler);
  peak = Math.max(peak, rssMB(pid));
  const atEnd = rssMB(pid);
  await sleep(10_000);
  const after = rssMB(pid);
  const x = JSON.parse(page.split('\n')[0]);
  return {
    state: state.state,
    item_state: x.state ?? x.status,
    job_ms: Math.round(ms),
    calls: x.result?.calls,
    longest_reported_model: Math.max(0, ...(x.result?.reported_models ?? []).map((m) => m.length)),
    result_bytes: Buffer.byteLength(page),
    requests_received: host.requests(),
    rss_mb: {
      before: round(before, 1),
      peak: round(peak, 1),
      at_end: round(atEnd, 1),
      after_10s: round(after, 1),
      peak_over_before: round(peak / before, 2),
      after_10s_over_before: round(after / before, 2),
    },
  };
}

// ------------------------------------------------------------------------------------------------ the run
const key = JSON.parse(await cliRun(['keys', 'create', '--store', store, '--account', 'bench', '--plan', 'pro'])).key;
const srv = await startServe();
const text = syntheticWork();
const result = {
  bench: 'hostile-model',
  cli: relative(ROOT, CLI),
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  load_average_at_start: loadavg()[0],
  budget_calls: BUDGET_CALLS,
  rss_mb_fresh: round(rssMB(srv.child.pid), 1),
};
try {
  for (const [name, hostile] of [
    ['warm_up', false],
    ['well_behaved', false],
    ['hostile', true],
  ]) {
    const host = await modelHost(hostile);
    try {
      result[name] = await extractJob(srv, key, host, text);
    } finally {
      await host.close();
    }
    console.log(name, JSON.stringify(result[name]));
  }
  const [h, w] = [result.hostile, result.well_behaved];
  result.hostile_over_well_behaved = {
    peak_rss: round(h.rss_mb.peak / w.rss_mb.peak, 2),
    rss_after_10s: round(h.rss_mb.after_10s / w.rss_mb.after_10s, 2),
    result_bytes: round(h.result_bytes / w.result_bytes, 2),
  };
  result.targets = {
    text: "hostile job's RSS 10 s after it within 1.2× of before it; result < 1 MB; requests received ≤ budget_calls",
    rss_within_1_2x: h.rss_mb.after_10s_over_before <= 1.2,
    result_under_1mb: h.result_bytes < 1_000_000,
    requests_within_budget: h.requests_received <= BUDGET_CALLS,
  };
  result.load_average_at_end = loadavg()[0];
} finally {
  srv.child.kill('SIGTERM');
  await new Promise((r) => srv.child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
const out = resolve(ROOT, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${relative(ROOT, out)}`);
