#!/usr/bin/env node
/**
 * kill -9 during queued scans (the target: 20 kills of one of two workers during scans of 100,000 items,
 * every item scanned exactly once, 0 hits lost or duplicated). With the built CLI (dist/cli.js) and a PostgreSQL:
 *
 *   1. a dataset file of the test books (test/fixtures/texts/gutenberg, `index build`), and ITEMS generated outputs
 *      (seeded word salad of the books' words, 1 in 20 with a passage of 50–150 words of a book, a third edited);
 *   2. the reference: `trainprint scan --dataset books.tpds items.jsonl --out local.jsonl` (one process);
 *   3. per scan: `trainprint scan --queue … --enqueue-only`, two `trainprint worker --job ID` processes, and one of
 *      them killed with SIGKILL at a random moment while it scans (then restarted), KILLS times per scan;
 *   4. `jobs export`: byte for byte the reference; items done = items enqueued, none failed, no chunk's items left.
 *
 *   node bench/scan-queue-kill.mjs [--items 100000] [--scans 2] [--kills 10] [--chunk-items 200] [--lease 10]
 *
 * Writes bench/results/scan-queue-kill.json. PostgreSQL: TRAINPRINT_TEST_PG_URL, else a throwaway cluster
 * (test/pg/cluster.mjs). The e2e test (test/e2e/scan-queue.test.ts) runs the same function with a few thousand items.
 */
import './help.mjs';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const BOOKS = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise', 'shakespeare-caesar', 'blake-poems'];

/** A seeded PRNG (mulberry32) in [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `node dist/cli.js …args` → { code, stdout, stderr }. */
function run(args, { cwd, timeout = 600_000 } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, timeout, maxBuffer: 1 << 30 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/**
 * The books as dataset documents (5,000-character pieces) and `items` outputs, written into `dir`
 * (docs.jsonl, items.jsonl). Resolves to how many items carry a planted passage.
 */
export function writeInputs(dir, items, seed = 47) {
  const rnd = prng(seed);
  const docs = [];
  for (const name of BOOKS) {
    const text = readFileSync(join(ROOT, 'test', 'fixtures', 'texts', 'gutenberg', `${name}.txt`), 'utf8');
    for (let i = 0; i * 5000 < text.length; i++)
      docs.push({ id: `${name}-${i}`, text: text.slice(i * 5000, (i + 1) * 5000) });
  }
  writeFileSync(join(dir, 'docs.jsonl'), `${docs.map((d) => JSON.stringify(d)).join('\n')}\n`);
  const vocabulary = [...new Set(docs.flatMap((d) => d.text.split(/\s+/)).filter((w) => /^[a-z]{2,12}$/.test(w)))];
  const words = (n) => Array.from({ length: n }, () => vocabulary[Math.floor(rnd() * vocabulary.length)]).join(' ');
  const lines = [];
  let planted = 0;
  for (let i = 0; i < items; i++) {
    let text = `${words(40 + Math.floor(rnd() * 160))}.`;
    if (i % 20 === 7) {
      const doc = docs[Math.floor(rnd() * docs.length)].text.split(/\s+/).filter(Boolean);
      const n = 50 + Math.floor(rnd() * 100);
      const start = Math.floor(rnd() * Math.max(1, doc.length - n));
      const passage = doc.slice(start, start + n);
      if (i % 60 === 7) for (let k = 5; k < passage.length; k += 17) passage[k] = 'quite'; // edited
      text = `${words(20)} ${passage.join(' ')} ${text}`;
      planted++;
    }
    lines.push(JSON.stringify({ id: `out-${i}`, text }));
  }
  writeFileSync(join(dir, 'items.jsonl'), `${lines.join('\n')}\n`);
  return planted;
}

/** A `worker` child; resolves `ready` once it printed its start line (datasets loaded, queue open). */
function startWorker(url, job, dir, extra) {
  const child = spawn(
    process.execPath,
    [CLI, 'worker', '--queue', url, '--dataset', join(dir, 'books.tpds'), '--job', job, ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const ready = new Promise((resolve) => {
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes(' with datasets ')) resolve();
    });
    child.once('exit', () => resolve());
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, err })));
  return { child, ready, exited, err: () => err };
}

/**
 * One queued scan of `dir`/items.jsonl with two workers, `kills` of which one is killed with SIGKILL while it
 * scans (and restarted); resolves to what happened and whether the export equals `reference` byte for byte.
 */
export async function killScan({
  url,
  dir,
  kills,
  chunkItems,
  lease,
  reference,
  seed = 1,
  killAfterMs = [300, 2300],
  pauseOther = false,
}) {
  const rnd = prng(seed);
  const queueArgs = ['--lease-seconds', String(lease)];
  const t0 = performance.now();
  const enq = await run([
    'scan',
    '--queue',
    url,
    '--dataset',
    join(dir, 'books.tpds'),
    join(dir, 'items.jsonl'),
    '--enqueue-only',
    '--chunk-items',
    String(chunkItems),
    ...queueArgs,
  ]);
  if (enq.code !== 0) throw new Error(`enqueue failed (${enq.code}): ${enq.stderr}`);
  const job = enq.stdout.trim().split('\n').at(-1);
  const enqueueMs = performance.now() - t0;
  // the job as every process on the store reads it (the built library: what ships)
  const { openPostgresStore, openScanQueue } = await import(pathToFileURL(join(ROOT, 'dist', 'node.js')).href);
  const queue = await openScanQueue(url);
  const progress = async () => {
    const j = await queue.jobs.status(job, { owner: '' });
    return { done: j.done, total: j.total, failed: j.failed };
  };
  const t1 = performance.now();
  const workers = [startWorker(url, job, dir, queueArgs), startWorker(url, job, dir, queueArgs)];
  const killed = [];
  let restarts = 0;
  let paused = false;
  try {
    if (pauseOther) {
      // the second worker is stopped (SIGSTOP) a moment after it starts, perhaps holding a chunk, until the kills are
      // done: the kills then land while the first one scans whatever the machine's speed, and a worker that slept
      // past its lease (a long pause, a network split) comes back to a chunk that was redone meanwhile
      await workers[1].ready;
      await new Promise((r) => setTimeout(r, 100 + rnd() * 200));
      workers[1].child.kill('SIGSTOP');
      paused = true;
    }
    while (killed.length < kills) {
      const p = await progress();
      if (p.done === p.total || p.failed > 0) break;
      const victim = pauseOther ? 0 : Math.floor(rnd() * 2);
      const w = workers[victim];
      await w.ready;
      // a random moment of its scanning: killAfterMs[0]..killAfterMs[1] after it started taking chunks
      await new Promise((r) => setTimeout(r, killAfterMs[0] + rnd() * (killAfterMs[1] - killAfterMs[0])));
      const before = await progress();
      if (before.done === before.total) break;
      if (w.child.exitCode !== null || w.child.signalCode !== null) {
        // it stopped by itself: the job is done (it exits 0 then), or something broke
        const e = await w.exited;
        if (e.code !== 0) throw new Error(`a worker exited with ${e.code ?? e.signal}: ${e.err}`);
        if ((await progress()).done === before.total) break;
        throw new Error(`a worker exited (0) before the job was done: ${e.err}`);
      }
      w.child.kill('SIGKILL');
      await w.exited;
      killed.push({ at_ms: Math.round(performance.now() - t1), items_done: before.done, of: before.total });
      workers[victim] = startWorker(url, job, dir, queueArgs);
      restarts++;
    }
    if (paused) workers[1].child.kill('SIGCONT');
    paused = false;
    const ends = await Promise.all(workers.map((w) => w.exited));
    for (const e of ends) if (e.code !== 0) throw new Error(`a worker exited with ${e.code ?? e.signal}: ${e.err}`);
  } finally {
    if (paused) workers[1].child.kill('SIGCONT');
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  const scanMs = performance.now() - t1;
  const end = await progress();
  const status = await run(['jobs', 'status', job, '--queue', url, '--json']);
  if (status.code !== 0) throw new Error(`status failed (${status.code}): ${status.stderr}`);
  const st = JSON.parse(status.stdout);
  const out = join(dir, `export-${job}.jsonl`);
  const exp = await run(['jobs', 'export', job, '--queue', url, '--out', out, '--quiet']);
  if (exp.code !== 0) throw new Error(`export failed: ${exp.stderr}`);
  const exported = readFileSync(out, 'utf8');
  // a chunk's items are deleted with its completion: none may be left once the job is done
  await queue.close();
  const store = await openPostgresStore(url);
  const itemsLeft = (await store.scan(`job-items/${job}/`)).length;
  await store.close();
  const lines = exported.split('\n').filter(Boolean);
  const keys = new Set(lines);
  return {
    job,
    kills: killed.length,
    restarts,
    killed,
    // kills that landed while the job had items left (each took the chunk it was scanning with it)
    kills_mid_job: killed.filter((k) => k.items_done < k.of).length,
    items_done: end.done,
    items_failed: end.failed,
    status: st,
    hits: lines.length,
    duplicate_hit_lines: lines.length - keys.size,
    export_equals_local_scan: exported === reference,
    chunk_items_left: itemsLeft,
    enqueue_ms: Math.round(enqueueMs),
    scan_ms: Math.round(scanMs),
  };
}

/** Builds the dataset and the reference scan in `dir`; resolves to the reference export and its timing. */
export async function prepare(dir, items) {
  const planted = writeInputs(dir, items);
  const build = await run([
    'index',
    'build',
    '--dataset',
    'books',
    '--out',
    join(dir, 'books.tpds'),
    '--threads',
    '1',
    '--quiet',
    join(dir, 'docs.jsonl'),
  ]);
  if (build.code !== 0) throw new Error(`index build failed: ${build.stderr}`);
  const t = performance.now();
  const local = await run([
    'scan',
    '--dataset',
    join(dir, 'books.tpds'),
    join(dir, 'items.jsonl'),
    '--out',
    join(dir, 'local.jsonl'),
    '--quiet',
  ]);
  if (local.code !== 0) throw new Error(`local scan failed (${local.code}): ${local.stderr}`);
  return {
    planted,
    reference: readFileSync(join(dir, 'local.jsonl'), 'utf8'),
    local_ms: Math.round(performance.now() - t),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      items: { type: 'string', default: '100000' },
      scans: { type: 'string', default: '2' },
      kills: { type: 'string', default: '10' },
      'chunk-items': { type: 'string', default: '200' },
      lease: { type: 'string', default: '10' },
    },
  });
  const { startCluster } = await import('../test/pg/cluster.mjs');
  let base = process.env.TRAINPRINT_TEST_PG_URL;
  const cluster = base ? undefined : await startCluster();
  base ??= cluster.url;
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-kill-'));
  try {
    const items = Number(values.items);
    const prep = await prepare(dir, items);
    console.error(`reference: ${items} items (${prep.planted} with a passage), local scan ${prep.local_ms} ms`);
    const scans = [];
    for (let s = 0; s < Number(values.scans); s++) {
      const url = new URL(base);
      url.searchParams.set('schema', `kill_bench_${process.pid}_${s}`);
      const r = await killScan({
        url: url.toString(),
        dir,
        kills: Number(values.kills),
        chunkItems: Number(values['chunk-items']),
        lease: Number(values.lease),
        reference: prep.reference,
        seed: 100 + s,
      });
      console.error(JSON.stringify({ scan: s, ...r, killed: undefined }));
      scans.push(r);
    }
    const result = {
      bench: 'scan-queue-kill',
      date: new Date().toISOString(),
      node: process.version,
      cpus: (await import('node:os')).cpus().length,
      items,
      planted_passages: prep.planted,
      chunk_items: Number(values['chunk-items']),
      lease_seconds: Number(values.lease),
      local_scan_ms: prep.local_ms,
      reference_hits: prep.reference.split('\n').filter(Boolean).length,
      kills_total: scans.reduce((n, r) => n + r.kills, 0),
      every_export_equals_local_scan: scans.every((r) => r.export_equals_local_scan),
      scans,
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'scan-queue-kill.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify({ ...result, scans: undefined }, null, 2));
    if (!result.every_export_equals_local_scan) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    cluster?.stop();
  }
}
