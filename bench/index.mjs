// Dataset benchmarks: exact index build throughput and search latency, trainprint (dist/) in one run.
// Corpus: 10 MB of real English from ../shared/data (bench/corpus.mjs), cut into 10 kB documents;
// queries: 10k-word texts with reused passages spliced in. Results: bench/results/index.json.
// --scale N multiplies the corpus by repetition with perturbation (each copy re-seeded by word swaps),
// to approach the 50 M-fingerprint setting of the issue (N = 135 ≈ 50 M fingerprints; needs ~3 GB RAM).
import { Bench } from 'tinybench';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { english } from './corpus.mjs';
import { createEngine } from '../dist/index.js';

const argScale = process.argv.indexOf('--scale');
const SCALE = argScale > 0 ? Number(process.argv[argScale + 1]) : 1;
const en = english(10_000_000);
const DOC = 10_000;

function* documents() {
  for (let copy = 0; copy < SCALE; copy++) {
    for (let at = 0, n = 0; at < en.length; at += DOC, n++) {
      let text = en.slice(at, at + DOC);
      // copies after the first swap adjacent words every ~7 words, so their fingerprints differ
      if (copy > 0) text = text.replace(/(\S+) (\S+)/g, (m, a, b, off) => ((off + copy) % 7 === 0 ? `${b} ${a}` : m));
      yield { id: `c${copy}-d${n}`, text };
    }
  }
}

const engine = await createEngine();
globalThis.gc?.();
const t0 = performance.now();
const stats = await engine.addDataset({ id: 'bench' }, documents());
const buildMs = performance.now() - t0;
const t1 = performance.now();
engine.search('warm up the index: sort and prefix table');
const sortMs = performance.now() - t1;
const corpusBytes = stats.bytes;
console.log(`build: ${stats.documents} docs, ${(corpusBytes / 1e6).toFixed(1)} MB, ${stats.fingerprints} fingerprints in ${buildMs.toFixed(0)} ms ` +
  `(${(corpusBytes / 1e6 / (buildMs / 1000)).toFixed(1)} MB/s); first-search sort ${sortMs.toFixed(0)} ms; index ${(stats.index_bytes / 1e6).toFixed(1)} MB`);

// 10k-word query: unrelated text (from the end of the English corpus, not indexed when SCALE = 1 … it is: use
// a shuffled word salad instead) with 5 reused passages of 60 words spliced in.
const words = en.slice(0, 2_000_000).split(/\s+/);
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const salad = Array.from({ length: 10_000 }, () => words[Math.floor(rnd() * words.length)]);
for (let k = 0; k < 5; k++) {
  const at = Math.floor(rnd() * (words.length - 100));
  salad.splice(1000 + k * 1800, 0, ...words.slice(at, at + 60));
}
const query = salad.join(' ');
const found = engine.search(query);
console.log(`query: ${found.query_tokens} tokens, ${found.matches.length} matches, longest ${found.coverage.bench.longest_run} tokens`);

const bench = new Bench({ iterations: 50, time: 0, warmupIterations: 3, warmupTime: 0 });
bench.add('search 10k-word query', () => { engine.search(query); });
await bench.run();
const lat = bench.tasks[0].result.latency;
const fpOnly = new Bench({ iterations: 50, time: 0, warmupIterations: 3, warmupTime: 0 });
fpOnly.add('fingerprint the same query (baseline)', async () => { await engine.fingerprint(query, { minhash: false, simhash: false, workHash: false, winnow: false }); });
await fpOnly.run();
const base = fpOnly.tasks[0].result.latency;
console.log(`search p50 ${lat.p50.toFixed(2)} ms, p99 ${lat.p99.toFixed(2)} ms; fingerprinting alone p50 ${base.p50.toFixed(2)} ms (${(lat.p50 / base.p50).toFixed(2)}× of search)`);

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL(`./results/index${SCALE > 1 ? `-x${SCALE}` : ''}.json`, import.meta.url), JSON.stringify({
  date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, scale: SCALE,
  build: { documents: stats.documents, corpus_bytes: corpusBytes, fingerprints: stats.fingerprints, ms: buildMs, mb_per_s: corpusBytes / 1e6 / (buildMs / 1000), first_search_sort_ms: sortMs, index_bytes: stats.index_bytes, index_bytes_per_fingerprint: stats.index_bytes / stats.fingerprints, index_share_of_corpus: stats.index_bytes / corpusBytes },
  query: { tokens: found.query_tokens, matches: found.matches.length },
  search_ms: { p50: lat.p50, p99: lat.p99, min: lat.min },
  fingerprint_only_ms: { p50: base.p50 },
}, null, 2) + '\n');
