#!/usr/bin/env node
/**
 * The jobs target: one catalogue job of 10,000 `analyze` items through two `trainprint serve` processes
 * (the built CLI, dist/cli.js) on one PostgreSQL store — all done once, progress monotone, the plan's limits exact.
 *
 *   npm run build && node bench/jobs.mjs [--items 10000] [--out bench/results/jobs.json]
 *
 * A throwaway PostgreSQL cluster is started (test/pg/cluster.mjs) unless TRAINPRINT_TEST_PG_URL names one. The items
 * are short analyze requests (a sentence of the MIT licence with the item's number), submitted to the first process
 * as one JSON body on a Pro key (10,000 calls a day, 10,000 items per job: the job fills both limits exactly). Both
 * processes are polled in turn. Checked, and written to the JSON: every item has exactly one result and exactly one
 * stored analysis (an item run twice would store two), `done` never decreased, no lease or item left in the store,
 * one more item is 429 and a job of 10,001 items 413. Measured: the submission's time, the wall time to done, items
 * per second, and `done` over time. Which process ran which chunk is not recorded.
 * Not part of CI (minutes); CI runs test/e2e/jobs-postgres.test.ts with 300 items.
 */
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = resolve(ROOT, 'dist/cli.js');
const { values } = parseArgs({
  options: { items: { type: 'string', default: '10000' }, out: { type: 'string', default: 'bench/results/jobs.json' } },
});
const ITEMS = Number(values.items);

const { startCluster } = await import(pathToFileURL(resolve(ROOT, 'test/pg/cluster.mjs')).href);
const { openPostgresStore } = await import(pathToFileURL(resolve(ROOT, 'dist/node.js')).href);

let cluster = null;
let base = process.env.TRAINPRINT_TEST_PG_URL;
if (!base) {
  cluster = await startCluster();
  base = cluster.url;
}
const url = new URL(base);
url.searchParams.set('schema', `jobs_bench_${Date.now()}`);
const store = url.toString();

const children = [];
function startServe() {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--packs', 'none', '--workers', '1', '--store', store],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start:\n${out}`)), 60_000);
    const look = () => {
      const u = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (u && out.includes('(Ctrl-C stops)')) {
        clearTimeout(timer);
        res({ child, url: u, out: () => out });
      }
    };
    child.stdout.on('data', (d) => {
      out += d;
      look();
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) => rej(new Error(`serve exited ${code}:\n${out}`)));
  });
}

const createKey = (args) =>
  new Promise((res, rej) =>
    execFile(process.execPath, [CLI, 'keys', 'create', '--store', store, ...args], (err, stdout, stderr) =>
      err ? rej(new Error(stderr)) : res(JSON.parse(stdout).key),
    ),
  );

async function call(base, key, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text, headers: res.headers };
}

const item = (i) => ({
  content: `Catalogue title ${i}. Permission is hereby granted, free of charge, to any person obtaining a copy of this software, item ${i}.`,
  content_type: 'text',
});

const result = { bench: 'jobs', items: ITEMS, node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model };
try {
  const servers = await Promise.all([startServe(), startServe()]);
  const key = await createKey(['--account', 'catalogue', '--plan', 'pro']);
  const [a, b] = servers.map((s) => s.url);
  const t0 = performance.now();
  const posted = await call(a, key, 'POST', '/api/v1/jobs', {
    type: 'analyze',
    items: Array.from({ length: ITEMS }, (_, i) => item(i)),
  });
  if (posted.status !== 202) throw new Error(`submission: ${posted.status} ${posted.text.slice(0, 300)}`);
  result.submit_ms = Math.round(performance.now() - t0);
  const { status_url, results_url } = posted.json;
  let last = -1;
  let monotone = true;
  let state = '';
  let polls = 0;
  const curve = [];
  while (state !== 'done') {
    const s = await call(polls % 2 ? a : b, key, 'GET', status_url);
    polls++;
    if (s.json.done < last) monotone = false;
    last = s.json.done;
    state = s.json.state;
    if (polls % 10 === 0) curve.push([Math.round(performance.now() - t0), last]);
    if (state !== 'done') await new Promise((r) => setTimeout(r, 250));
  }
  result.done_ms = Math.round(performance.now() - t0);
  result.items_per_s = Math.round((ITEMS / (result.done_ms - result.submit_ms)) * 1000 * 10) / 10;
  result.monotone = monotone;
  result.polls = polls;
  result.progress = curve;

  const indexes = [];
  const analyses = new Set();
  let failed = 0;
  let next = `${results_url}?limit=1000`;
  while (next) {
    const r = await call(indexes.length % 2 ? a : b, key, 'GET', next);
    for (const line of r.text.split('\n').filter(Boolean)) {
      const l = JSON.parse(line);
      indexes.push(l.index);
      if (l.success) analyses.add(l.result.analysis_id);
      else failed++;
    }
    const link = r.headers.get('link');
    next = link ? /<([^>]+)>/.exec(link)[1] : null;
  }
  result.results = indexes.length;
  result.results_in_order = indexes.every((x, i) => x === i);
  result.failed = failed;
  const db = await openPostgresStore(store);
  try {
    const owned = (await db.scan('analysis-by/')).filter(([, o]) => o === 'catalogue');
    result.analyses_stored = owned.length;
    result.exactly_once =
      owned.length === ITEMS && analyses.size === ITEMS && owned.every(([k]) => analyses.has(k.slice(12)));
    result.leases_left = (await db.scan('job-lease/')).length;
    result.items_left = (await db.scan('job-items/')).length;
  } finally {
    await db.close();
  }
  const usage = await call(b, key, 'GET', status_url);
  result.ratelimit_remaining = Number(usage.headers.get('ratelimit-remaining'));
  const one = await call(b, key, 'POST', '/api/v1/jobs', { type: 'scan', items: [{ id: 'x', text: 'x' }] });
  result.one_more_item_status = one.status;
  const big = await call(a, key, 'POST', '/api/v1/jobs', {
    type: 'scan',
    items: Array.from({ length: 10_001 }, (_, i) => ({ id: `x${i}`, text: 'x' })),
  });
  result.over_cap_status = big.status;
  result.ok =
    result.exactly_once &&
    result.monotone &&
    result.results_in_order &&
    result.results === ITEMS &&
    result.leases_left === 0 &&
    result.items_left === 0 &&
    (ITEMS !== 10_000 || (result.ratelimit_remaining === 0 && one.status === 429 && big.status === 413));
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  if (cluster) await cluster.stop();
}
const out = resolve(ROOT, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
process.exit(result.ok ? 0 : 1);
