// An exact dataset kept in PostgreSQL (createPostgresDataset, trainprint/node) against the same dataset in
// memory (the baseline), on the built package (dist/), in one run.
//
// Corpus: 10 MB of real English (bench/corpus.mjs) cut into 10 kB documents, `--scale` times over with every
// copy perturbed (scaledDocuments): 135 copies ≈ 50 M winnowed fingerprints. Both datasets are built from the
// same documents by the client (fingerprinted by the engine, appended in batches of INSERT … SELECT FROM
// unnest, one transaction each; posting indexes built once at the end), without texts (keep_text false: the
// lookups are measured, not the alignment).
// Query: 10,000 words, half of them 100 passages of 50 words copied from copy 0, half a salad of corpus words.
//   query_10k      one search of the whole query (its ~10 k shingles looked up in one statement):
//                  engine.search (memory) vs engine.searchAsync (PostgreSQL), alternating runs, same result
//   lookup_10k     the PostgreSQL statement alone for the query's distinct shingle hashes (storage.lookup)
//   single_10k     the query's shingles one by one: 10,000 one-shingle searches per run, p50 of each run
// Server: a throwaway cluster (test/pg/cluster.mjs) with shared_buffers 1GB, fsync off, on 127.0.0.1; its
// folder is deleted at the end. Results: bench/results/pg-dataset[-xN].json.
//
//   node --expose-gc bench/pg-dataset.mjs [--scale N] [--runs N]
import './help.mjs';
import { mkdirSync, writeFileSync, statfsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { english, scaledDocuments } from './corpus.mjs';
import { median } from './stats.mjs';

const DIST = new URL('../dist/', import.meta.url);
const { createEngine } = await import(new URL('index.js', DIST).href);
const { createPostgresDataset } = await import(new URL('node.js', DIST).href);
const { startCluster } = await import(new URL('../test/pg/cluster.mjs', import.meta.url).href);

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SCALE = arg('--scale', 135);
const RUNS = arg('--runs', 7);
const SETTINGS = {
  shared_buffers: '1GB',
  work_mem: '64MB',
  maintenance_work_mem: '512MB',
  max_wal_size: '4GB',
  checkpoint_timeout: '30min',
  synchronous_commit: 'off',
};

const en = english(10_000_000);
const range = (xs) => [Math.min(...xs), Math.max(...xs)];
const round = (x, d = 3) => Number(x.toFixed(d));
const summary = (xs) => ({
  median: round(median(xs)),
  range: range(xs).map((x) => round(x)),
  runs: xs.map((x) => round(x)),
});
const mb = (b) => round(b / 1e6, 1);

// ---------------------------------------------------------------- the query
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const words = en.split(/\s+/).filter(Boolean);
const parts = [];
for (let k = 0; k < 100; k++) {
  const at = Math.floor(rnd() * (words.length - 60));
  parts.push(words.slice(at, at + 50).join(' '));
  parts.push(Array.from({ length: 50 }, () => words[Math.floor(rnd() * words.length)]).join(' '));
}
const query = parts.join('\n');

const cluster = await startCluster({ settings: SETTINGS });
const out = { date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, cores: cpus().length };
try {
  // ---------------------------------------------------------------- load into PostgreSQL (first: memory stays small)
  const pgds = await createPostgresDataset({ url: cluster.url, id: 'bench', keep_text: false, partitions: 16 });
  let appendMs = 0,
    finishMs = 0,
    batches = 0;
  const calls = { lookup: 0, documents: 0 }; // ms spent in the two statements of searches (reset per phase)
  const clock = (what, p) => {
    const t = performance.now();
    return p.finally(() => {
      calls[what] += performance.now() - t;
    });
  };
  // the storage as the engine sees it, with its load calls and the two statements of a search timed
  const timed = {
    id: pgds.id,
    label: pgds.label,
    info: () => pgds.info(),
    lookup: (q) => clock('lookup', pgds.lookup(q)),
    documents: (r) => clock('documents', pgds.documents(r)),
    append: async (b) => {
      const t = performance.now();
      await pgds.append(b);
      appendMs += performance.now() - t;
      batches++;
    },
    finishLoad: async () => {
      const t = performance.now();
      const i = await pgds.finishLoad();
      finishMs += performance.now() - t;
      return i;
    },
  };
  const stored = await createEngine();
  await stored.attachDataset(timed);
  const t0 = performance.now();
  const pgStats = await stored.addDataset({ id: 'bench' }, scaledDocuments(en, SCALE));
  const loadMs = performance.now() - t0;
  const perSecond = Math.round(pgStats.fingerprints / (appendMs / 1000));
  console.log(
    `PostgreSQL: ${pgStats.documents} documents, ${pgStats.fingerprints} fingerprints in ` +
      `${(loadMs / 1000).toFixed(0)} s (appends ${(appendMs / 1000).toFixed(0)} s in ${batches} batches = ` +
      `${perSecond} rows/s; ` +
      `indexes + ANALYZE ${(finishMs / 1000).toFixed(0)} s)`,
  );
  const sizes = await sizesOf(pgds);
  console.log(`on disk: ${JSON.stringify(sizes)}`);

  // ---------------------------------------------------------------- the same in memory (the baseline)
  globalThis.gc?.();
  const memory = await createEngine();
  const m0 = performance.now();
  const memStats = await memory.addDataset({ id: 'bench', keep_text: false }, scaledDocuments(en, SCALE));
  memory.search('sort the index now: the first search sorts it');
  const memMs = performance.now() - m0;
  if (memStats.fingerprints !== pgStats.fingerprints) throw new Error('the two datasets differ');
  console.log(`memory: built and sorted in ${(memMs / 1000).toFixed(0)} s, index ${mb(memStats.index_bytes)} MB`);

  // ---------------------------------------------------------------- query_10k: alternating runs, same result
  const options = { candidates: 0 };
  const want = JSON.stringify(memory.search(query, options));
  if (JSON.stringify(await stored.searchAsync(query, options)) !== want) {
    throw new Error('wrong result: the searches differ');
  }
  const found = JSON.parse(want);
  const fp = await memory.fingerprint(query, { minhash: false, simhash: false, workHash: false, winnow: false });
  const q10 = { memory: [], postgres: [] };
  calls.lookup = calls.documents = 0;
  for (let r = 0; r < RUNS; r++) {
    let t = performance.now();
    memory.search(query, options);
    q10.memory.push(performance.now() - t);
    t = performance.now();
    const got = await stored.searchAsync(query, options);
    q10.postgres.push(performance.now() - t);
    if (got.matches.length !== found.matches.length) throw new Error('wrong result');
  }
  const q10Calls = { lookup_ms: round(calls.lookup / RUNS), documents_ms: round(calls.documents / RUNS) };
  // lookup_10k: the statement alone, for the query's distinct shingle hashes
  const distinct = BigUint64Array.from(new Set(fp.shingles.hashes));
  const lookup = { pairs: new Uint32Array(0), pairCap: 65, bands: new Float64Array(0), shingles: distinct };
  const rows = (await pgds.lookup(lookup)).shingles.at.length;
  const l10 = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    await pgds.lookup(lookup);
    l10.push(performance.now() - t);
  }
  console.log(
    `query_10k: ${fp.shingles.hashes.length} shingles (${distinct.length} distinct, ${rows} postings), ` +
      `${found.matches.length} matches; memory ${median(q10.memory).toFixed(1)} ms, ` +
      `PostgreSQL ${median(q10.postgres).toFixed(1)} ms ` +
      `(statement alone ${median(l10).toFixed(1)} ms)`,
  );

  // ---------------------------------------------------------------- single_10k: one-shingle searches
  const wordsOnly = {
    shingle: { unit: 'word', size: 1 },
    minhash: false,
    simhash: false,
    workHash: false,
    winnow: false,
  };
  const tokens = await memory.fingerprint(query, wordsOnly);
  const singles = [];
  for (let i = 0; i + 5 <= tokens.shingles.starts.length && singles.length < 10_000; i++) {
    singles.push(query.slice(tokens.shingles.starts[i], tokens.shingles.ends[i + 4]));
  }
  for (const s of singles.slice(0, 500)) {
    const same = JSON.stringify(await stored.searchAsync(s, options)) === JSON.stringify(memory.search(s, options));
    if (!same) throw new Error('wrong result (single)');
  }
  const s10 = { memory: [], postgres: [] };
  const lat = new Float64Array(singles.length);
  for (let r = 0; r < Math.max(5, Math.ceil(RUNS / 2)); r++) {
    for (let i = 0; i < singles.length; i++) {
      const t = performance.now();
      memory.search(singles[i], options);
      lat[i] = performance.now() - t;
    }
    s10.memory.push(median(lat));
    for (let i = 0; i < singles.length; i++) {
      const t = performance.now();
      await stored.searchAsync(singles[i], options);
      lat[i] = performance.now() - t;
    }
    s10.postgres.push(median(lat));
  }
  const us = (xs) => (median(xs) * 1000).toFixed(0);
  console.log(`single_10k: p50 memory ${us(s10.memory)} µs, PostgreSQL ${us(s10.postgres)} µs`);

  const ratio = (pg, m) => round(median(pg) / median(m), 1);
  Object.assign(out, {
    method:
      'both datasets built from the same documents by the client in one run; alternating runs, medians and ' +
      'ranges (ms); results compared before timing; PostgreSQL 15 throwaway cluster on 127.0.0.1 (TCP), fsync off',
    config: {
      scale: SCALE,
      runs: RUNS,
      settings: SETTINGS,
      partitions: 16,
      keep_text: false,
      memory_gb: round(totalmem() / 2 ** 30, 1),
    },
    dataset: {
      documents: pgStats.documents,
      fingerprints: pgStats.fingerprints,
      corpus_bytes: pgStats.bytes,
    },
    load: {
      total_s: round(loadMs / 1000, 1),
      append_s: round(appendMs / 1000, 1),
      batches,
      rows_per_s: Math.round(pgStats.fingerprints / (appendMs / 1000)),
      index_and_analyze_s: round(finishMs / 1000, 1),
      note: 'total includes fingerprinting the documents in the client (one thread) between appends',
    },
    size: {
      ...sizes,
      memory_index_bytes: memStats.index_bytes,
      memory_bytes_per_fingerprint: round(memStats.index_bytes / memStats.fingerprints, 1),
    },
    memory_build_s: round(memMs / 1000, 1),
    query_10k: {
      shingles: fp.shingles.hashes.length,
      distinct_hashes: distinct.length,
      postings_found: rows,
      matches: found.matches.length,
      memory_ms: summary(q10.memory),
      postgres_ms: summary(q10.postgres),
      ratio_postgres_to_memory: ratio(q10.postgres, q10.memory),
      postgres_statement_alone_ms: summary(l10),
      postgres_mean_per_search_ms: {
        ...q10Calls,
        note: 'the two statements of each search (lookup, documents), mean over the runs',
      },
    },
    single_10k: {
      queries: singles.length,
      memory_p50_ms: summary(s10.memory),
      postgres_p50_ms: summary(s10.postgres),
      ratio_postgres_to_memory: ratio(s10.postgres, s10.memory),
    },
  });
  memory.dispose();
  stored.dispose();
  await pgds.close();
} finally {
  cluster.stop();
}
const free = statfsSync('/tmp');
out.disk_free_after_gb = round((free.bavail * free.bsize) / 2 ** 30, 1);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL(`./results/pg-dataset${SCALE === 135 ? '' : `-x${SCALE}`}.json`, import.meta.url);
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${file.pathname}`);

/** Bytes the posting tables take: heap and indexes of the fingerprint partitions, per row; the documents table. */
async function sizesOf(ds) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    const t = (name) => `"${ds.schema}"."${ds.tables}_${name}"`;
    const r = await client.query(`SELECT sum(pg_table_size(inhrelid))::bigint AS heap,
        sum(pg_indexes_size(inhrelid))::bigint AS idx, (SELECT count(*) FROM ${t('fingerprints')}) AS n,
        pg_total_relation_size('${t('documents')}') AS docs, pg_total_relation_size('${t('bands')}') AS bands,
        pg_database_size(current_database()) AS db
      FROM pg_inherits WHERE inhparent = '${t('fingerprints')}'::regclass`);
    const { heap, idx, n, docs, bands, db } = r.rows[0];
    return {
      fingerprint_rows: Number(n),
      fingerprints_heap_bytes: Number(heap),
      fingerprints_index_bytes: Number(idx),
      bytes_per_fingerprint: round((Number(heap) + Number(idx)) / Number(n), 1),
      heap_bytes_per_fingerprint: round(Number(heap) / Number(n), 1),
      index_bytes_per_fingerprint: round(Number(idx) / Number(n), 1),
      documents_table_bytes: Number(docs),
      bands_table_bytes: Number(bands),
      database_bytes: Number(db),
    };
  } finally {
    await client.end();
  }
}
