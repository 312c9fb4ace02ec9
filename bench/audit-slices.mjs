#!/usr/bin/env node
/**
 * What a catalogue audit job's later slices and its end cost in one process, this build against a baseline build
 * (`--baseline DIR`, another dist/), alternating build by build, each measure in a child process of its own: a
 * catalogue of `--works` works (100,000 by default, 60 made-up words each: bench/hostile-attackers.mjs's) under a
 * budget of 2,000 calls against a model that answers at once, its journal in a MemoryStore.
 *
 * - `run_ms`: the audit from nothing (every call made);
 * - `slice_ms`: the audit again from its journal, as every later slice of a job runs it (this build: after a run
 *   stopped at its slice's end under the same `plan_key`, as a job's slices are; a build without it counts the plan
 *   again);
 * - `keep_ms`: its result kept with the account's audits (`storeCatalogueAudit`, the texts' SHA-256 given) in a fresh
 *   MemoryStore: what an item does after its last call, within its time limit.
 *
 *   npm run build && node bench/audit-slices.mjs --baseline ../base/dist [--rounds 3] [--works 100000]
 *     [--out bench/results/audit-slices.json]
 */
import './help.mjs';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pct } from './hostile-client.mjs';
import { madeUpText } from './hostile-attackers.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** One build's three measures, in this process. */
async function measure(dist, n) {
  const { MemoryStore } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const m = await import(pathToFileURL(join(dist, 'memorization.js')).href);
  const works = Array.from({ length: n }, (_, i) => ({ id: `w${i}`, text: madeUpText(60, i + 1) }));
  const model = {
    id: 'm',
    access: 'generations_only',
    generate: async () => 'plain unrelated words of no work at all',
  };
  const store = new MemoryStore();
  const journal = m.storeExtractionJournal(store, {
    account: 'a',
    baseUrl: 'http://m.example/v1',
    model: 'm',
    text: 'c',
  });
  const request = { model, works, budget_calls: 2000, journal };
  let t = performance.now();
  const result = await m.auditCatalogue(store, request);
  const run = performance.now() - t;
  // a slice that ended before its next call, as a job's slices end, keeping its plan under the item's name
  const stop = new AbortController();
  stop.abort(new Error('the end of the slice'));
  await m.auditCatalogue(store, { ...request, plan_key: 'item', stop: stop.signal }).catch(() => undefined);
  t = performance.now();
  const again = await m.auditCatalogue(store, { ...request, plan_key: 'item' });
  const slice = performance.now() - t;
  if (again.audit_sha256 !== result.audit_sha256) throw new Error('the slice gave another record');
  const texts = works.map((w) => createHash('sha256').update(w.text).digest('hex'));
  t = performance.now();
  await m.storeCatalogueAudit(new MemoryStore(), 'acct', result, texts);
  const keep = performance.now() - t;
  return { run_ms: Math.round(run), slice_ms: Math.round(slice), keep_ms: Math.round(keep), calls: result.calls };
}

const child = (dist, n) =>
  new Promise((res, rej) =>
    execFile(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', dist, '--works', String(n)],
      { maxBuffer: 1 << 20 },
      (err, out, errText) => (err ? rej(new Error(errText)) : res(JSON.parse(out))),
    ),
  );

async function main() {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      child: { type: 'string' },
      works: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '3' },
      out: { type: 'string', default: 'bench/results/audit-slices.json' },
    },
  });
  const n = Number(values.works);
  if (values.child) return console.log(JSON.stringify(await measure(values.child, n)));
  if (!values.baseline) throw new Error('--baseline DIR (a dist/ to compare with) is required');
  const builds = { baseline: resolve(values.baseline), this: resolve(ROOT, 'dist') };
  const runs = { baseline: [], this: [] };
  const result = { bench: 'audit-slices', works: n, node: process.version, cpus: cpus().length };
  result.load_average_at_start = loadavg()[0];
  for (let r = 0; r < Number(values.rounds); r++)
    for (const name of r % 2 ? ['this', 'baseline'] : ['baseline', 'this']) {
      runs[name].push(await child(builds[name], n));
      console.log(name, JSON.stringify(runs[name].at(-1)));
    }
  result.load_average_at_end = loadavg()[0];
  const med = (name, k) =>
    pct(
      runs[name].map((x) => x[k]),
      50,
    );
  result.median = Object.fromEntries(
    ['run_ms', 'slice_ms', 'keep_ms'].map((k) => [
      k,
      {
        baseline: med('baseline', k),
        this: med('this', k),
        ratio: Math.round((med('this', k) / med('baseline', k)) * 100) / 100,
      },
    ]),
  );
  result.runs = runs;
  result.baseline = relative(ROOT, builds.baseline);
  const out = resolve(ROOT, values.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result.median), `wrote ${relative(ROOT, out)}`);
}

await main();
