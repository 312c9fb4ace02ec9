// Store throughput: the PostgreSQL store against the file store (the baseline: the durable store it
// replaces when one process is not enough) and the memory store, on the built package (dist/node.js),
// in the same run. Both durable stores acknowledge a write only once it is on disk: the file store
// fsyncs, the PostgreSQL cluster runs with its defaults (fsync on, synchronous_commit on).
//   put_serial          awaited puts, one at a time
//   put_64              64 puts in flight (group commit in the file store; one lock holder at a time in PostgreSQL)
//   tx_serial           read-increment-write transactions, one at a time
//   increment_64        store.increment with 64 in flight (the usage counters of the HTTP service)
//   increment_64_2pools the same from two store objects on one schema (two processes' pools)
// PostgreSQL: TRAINPRINT_BENCH_PG_URL, else a throwaway cluster (test/pg/cluster.mjs) on 127.0.0.1.
// Results: bench/results/store.json. Bounded: fixed operation counts, < 60 s.
//
//   node bench/store.mjs [--quick]
import './help.mjs';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const DIST = new URL('../dist/', import.meta.url);
const { MemoryStore } = await import(new URL('index.js', DIST).href);
const { openFileStore, openPostgresStore } = await import(new URL('node.js', DIST).href);
const { startCluster } = await import(new URL('../test/pg/cluster.mjs', import.meta.url).href);

const QUICK = process.argv.includes('--quick');
const N = QUICK ? { serial: 200, inflight: 1000, tx: 100 } : { serial: 1000, inflight: 4000, tx: 500 };

async function timed(ops, body) {
  const t0 = performance.now();
  await body();
  const seconds = (performance.now() - t0) / 1000;
  return { ops, seconds: Number(seconds.toFixed(3)), ops_per_s: Math.round(ops / seconds) };
}

async function inFlight(total, width, op) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < total) await op(next++);
    }),
  );
}

async function measure(open) {
  const s = await open();
  const r = {};
  const value = (i) => ({ i, text: 'x'.repeat(200) });
  r.put_serial = await timed(N.serial, async () => {
    for (let i = 0; i < N.serial; i++) await s.put(`p/${i}`, value(i));
  });
  r.put_64 = await timed(N.inflight, () => inFlight(N.inflight, 64, (i) => s.put(`q/${i}`, value(i))));
  r.tx_serial = await timed(N.tx, async () => {
    for (let i = 0; i < N.tx; i++) {
      await s.transaction(async (tx) => tx.put('counter', ((await tx.get('counter')) ?? 0) + 1));
    }
  });
  r.increment_64 = await timed(N.inflight, () => inFlight(N.inflight, 64, () => s.increment('usage/a', 1)));
  if ((await s.get('usage/a')) !== N.inflight) throw new Error('increment lost counts');
  await s.close();
  return r;
}

const date = new Date().toISOString();
const given = process.env.TRAINPRINT_BENCH_PG_URL;
const cluster = given ? undefined : await startCluster({ durable: true });
const pgUrl = given ?? cluster.url;
const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-store-'));
let files = 0;
try {
  const memory = await measure(async () => new MemoryStore());
  const file = await measure(() => openFileStore(join(dir, `s${files++}`)));
  const schema = `bench_${process.pid}`;
  const postgres = await measure(() => openPostgresStore(pgUrl, { schema }));
  // two pools on one schema, as two server processes would have
  const [a, b] = await Promise.all([openPostgresStore(pgUrl, { schema }), openPostgresStore(pgUrl, { schema })]);
  const spread = (i) => (i % 2 ? a : b).increment('usage/b', 1);
  postgres.increment_64_2pools = await timed(N.inflight, () => inFlight(N.inflight, 64, spread));
  if ((await a.get('usage/b')) !== N.inflight) throw new Error('increment lost counts across pools');
  await a.transaction(async (tx) => {
    for (const [k] of await tx.scan('')) tx.delete(k);
  });
  await Promise.all([a.close(), b.close()]);

  const ratio = (x) =>
    Object.fromEntries(
      Object.entries(x)
        .filter(([k]) => k in file)
        .map(([k, v]) => [k, Number((v.ops_per_s / file[k].ops_per_s).toFixed(2))]),
    );
  const out = {
    date,
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    method:
      'fixed operation counts per store, same process and run; PostgreSQL 127.0.0.1 TCP, fsync and ' +
      'synchronous_commit on; file store fsyncs before acknowledging; values ~220 bytes msgpack',
    config: { ...N, quick: QUICK, postgres: given ? 'TRAINPRINT_BENCH_PG_URL' : 'test/pg/cluster.mjs, durable' },
    results: { memory, file, postgres },
    ratio_to_file_store: { memory: ratio(memory), postgres: ratio(postgres) },
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/store.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify({ results: out.results, ratio_to_file_store: out.ratio_to_file_store }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
  cluster?.stop();
}
