// Fingerprinting benchmarks: trainprint (dist/, what ships) against its JS/WASM peers, measured in
// the same run on the same corpus; every figure is reported as a ratio to a peer or baseline.
//
//   npm run build && node --expose-gc bench/fingerprint.mjs [--baseline OTHER/dist] [--quick] [--whole-only]
//     [--corpora en,ja,…] [--rounds N] [--cli-rounds N] [--out fingerprint-whole-cli.json]
//     [--env-variant thp:GLIBC_TUNABLES=glibc.malloc.hugetlb=1]
//
// 1. The whole default fingerprint() in whole processes (bench/fingerprint-whole.mjs): a fresh process per
//    measurement (best of 3 after a 100 kB warm-up) and the steady state, for 10 MB of English, Japanese and Chinese
//    prose, Cyrillic and mixed scripts, against the xxhash-wasm peer in the same process, with process CPU and page
//    faults per call; then `trainprint fingerprint` and `trainprint scan` of the same 10 MB as whole processes (CPU,
//    faults, RSS). --baseline: another build's dist/ (main's before a change, say), alternated with this one in every
//    round, so before → after come from one run; the English fresh protocol again on an engine grown first by
//    reserveMemory, beside plain fresh processes. Results: bench/results/fingerprint-whole.json (--out: another name,
//    for a run of fewer corpora).
// 2. Unless --whole-only: the primitives in one process (tinybench), 10 MB of real English from ../shared/data plus
//    mixed-script and CJK samples (bench/corpus.mjs). Results: bench/results/fingerprint.json (and .md).
// --quick: fewer rounds (English only for part 1), no write unless --write. --rounds N, --cli-rounds N, --peer-only
// en,… (the peer in fresh processes of those corpora only; '' for none), --corpora zh,ja (those only, written to
// results/fingerprint-whole-zh+ja.json): a shorter part 1 on a machine shared with other work.
import './help.mjs';
import { Bench } from 'tinybench';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createRequire } from 'node:module';
import { english, mixed, cjk } from './corpus.mjs';
import { envVariant } from './env-variant.mjs';
import { CORPORA, wholeTables } from './fingerprint-whole.mjs';
import { createEngine, CORE_BUILDS } from '../dist/index.js';

const req = createRequire(import.meta.url);
const version = (n) => {
  for (const base of ['./node_modules/', '../node_modules/']) {
    try {
      return JSON.parse(readFileSync(new URL(`${base}${n}/package.json`, import.meta.url), 'utf8')).version;
    } catch {
      /* next */
    }
  }
  return 'unknown';
};

const QUICK = process.argv.includes('--quick');
const WRITE = !QUICK || process.argv.includes('--write');
const REPS = QUICK ? { fast: 3, mid: 2, slow: 1 } : { fast: 15, mid: 7, slow: 3 };
const results = {};
let sink = 0;

// ---------------------------------------------------------------- 0. the whole fingerprint, in whole processes
{
  const at = process.argv.indexOf('--baseline');
  const builds = [['this', new URL('../dist', import.meta.url).pathname]];
  if (at > 0) builds.push(['baseline', process.argv[at + 1]]);
  // --env-variant NAME:VAR=VALUE[,VAR=VALUE]: this build again, its children run with those environment variables
  // (thp:GLIBC_TUNABLES=glibc.malloc.hugetlb=1, say: glibc's allocator on transparent huge pages), alternated with the
  // plain build in every round
  const variant = process.argv.indexOf('--env-variant');
  if (variant > 0) {
    const [name, env] = envVariant(process.argv[variant + 1]);
    builds.push([name, builds[0][1], env]);
  }
  // --rounds N, --cli-rounds N and --peer-only a,b (the peer in the fresh protocol on those corpora only): a shorter run
  // where the machine is shared with much other work
  const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const peerOnly = opt('--peer-only')?.split(',');
  const whole = await wholeTables(builds, {
    rounds: Number(opt('--rounds') ?? (QUICK ? 1 : 3)),
    corpora: opt('--corpora')?.split(',') ?? (QUICK ? ['en'] : Object.keys(CORPORA)),
    cliRounds: Number(opt('--cli-rounds') ?? (QUICK ? 1 : 3)),
    peer: peerOnly ? (mode, corpus) => mode === 'fresh' && peerOnly.includes(corpus) : () => true,
  });
  if (WRITE) {
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    const meta = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      options: process.argv.slice(2),
    };
    // a run of some corpora only is written beside the full record, named by them
    const only = opt('--corpora') ? `-${opt('--corpora').replaceAll(',', '+')}` : '';
    writeFileSync(
      new URL(`./results/${opt('--out') ?? `fingerprint-whole${only}.json`}`, import.meta.url),
      `${JSON.stringify({ ...meta, builds, ...whole }, null, 2)}\n`,
    );
  }
  if (process.argv.includes('--whole-only')) process.exit(0);
}

// the peers of part 2 (bench/package.json)
const xxhashFactory = req('xxhash-wasm');
const bloom = req('bloom-filters');
const { Minhash } = req('minhash');
const stringSimilarity = req('string-similarity');

/** One tinybench task with a fixed iteration count; records min / p50 and a rate. */
async function measure(name, fn, { reps = REPS.mid, units, unit, gcEach = false }) {
  globalThis.gc?.();
  // gc() before each task, and before each iteration of allocation-heavy tasks (gcEach), so one iteration's
  // garbage is not collected inside another's timing.
  const bench = new Bench({ iterations: reps, time: 0, warmupIterations: 1, warmupTime: 0 });
  bench.add(name, fn, gcEach ? { beforeEach: () => globalThis.gc?.() } : {});
  await bench.run();
  const r = bench.tasks[0].result;
  if (r.state !== 'completed') throw new Error(`${name}: ${r.state} ${r.error ?? ''}`);
  const out = { min_ms: r.latency.min, p50_ms: r.latency.p50, samples: r.latency.samplesCount ?? reps, units, unit };
  out.rate_p50 = units / (out.p50_ms / 1000);
  out.rate_best = units / (out.min_ms / 1000);
  results[name] = out;
  console.log(`${name.padEnd(72)} p50 ${out.p50_ms.toFixed(2).padStart(9)} ms  ${fmtRate(out.rate_p50, unit)}`);
  return out;
}
const fmtRate = (r, unit) =>
  unit === 'bytes' ? `${(r / 1e6).toFixed(1)} MB/s` : `${(r / 1e6).toFixed(2)} M ${unit}/s`;

// ---------------------------------------------------------------- corpora
const en = english(10_000_000);
const en1 = english(1_000_000);
const mix = mixed(2_000_000);
const cj = cjk(2_000_000);
const bytes = (s) => Buffer.byteLength(s);
const EN = bytes(en);

// ---------------------------------------------------------------- peers' pipeline (peers-bench's definition)
const TOKEN_RE = /[a-z0-9\u0080-\uffff]+/g;
const words = (t) => t.toLowerCase().match(TOKEN_RE) || [];
function shingles5(ws) {
  const out = new Array(Math.max(0, ws.length - 4));
  for (let i = 0; i + 5 <= ws.length; i++) out[i] = `${ws[i]} ${ws[i + 1]} ${ws[i + 2]} ${ws[i + 3]} ${ws[i + 4]}`;
  return out;
}
const xx = await xxhashFactory();

const engine = await createEngine();
console.log(`trainprint core: ${engine.variant}; corpus: English ${EN} B, mixed ${bytes(mix)} B, CJK ${bytes(cj)} B`);

// trainprint's tasks run first and the string-based peers last: the peers leave millions of short
// strings behind, and a large old generation slows whatever is measured after it.

// ---------------------------------------------------------------- 1. shingling and the whole fingerprint
const SHINGLES_ONLY = { winnow: false, minhash: false, simhash: false, workHash: false };
const enBytes = new TextEncoder().encode(en);
await measure(
  'trainprint shingleHashes(UTF-8 bytes), word 5-grams, 10 MB',
  () => {
    sink ^= engine.shingleHashes(enBytes).length;
  },
  { reps: REPS.fast, units: EN, unit: 'bytes', gcEach: true },
);
const into = new BigUint64Array(enBytes.length >>> 1);
await measure(
  'trainprint shingleHashes(UTF-8 bytes, into a reused array), word 5-grams, 10 MB',
  () => {
    sink ^= engine.shingleHashes(enBytes, undefined, into).length;
  },
  { reps: REPS.fast, units: EN, unit: 'bytes', gcEach: true },
);
await measure(
  'trainprint fingerprint(string), shingles + spans only, 10 MB',
  async () => {
    sink ^= (await engine.fingerprint(en, SHINGLES_ONLY)).token_count;
  },
  { reps: REPS.fast, units: EN, unit: 'bytes', gcEach: true },
);
await measure(
  'trainprint fingerprint(string), everything (winnow, OPH, SimHash, work_hash), 10 MB',
  async () => {
    sink ^= (await engine.fingerprint(en)).token_count;
  },
  { reps: REPS.fast, units: EN, unit: 'bytes', gcEach: true },
);
await measure(
  'trainprint fingerprint(string), everything, mixed-script 2 MB',
  async () => {
    sink ^= (await engine.fingerprint(mix)).token_count;
  },
  { reps: REPS.mid, units: bytes(mix), unit: 'bytes', gcEach: true },
);
await measure(
  'trainprint fingerprint(string), everything, CJK 2 MB',
  async () => {
    sink ^= (await engine.fingerprint(cj)).token_count;
  },
  { reps: REPS.mid, units: bytes(cj), unit: 'bytes', gcEach: true },
);

// ---------------------------------------------------------------- 2. sketches over the 1 MB document's shingles
const h64 = (await engine.fingerprint(en1, SHINGLES_ONLY)).shingles.hashes;
await measure(
  'trainprint minhash classic k=128, 1 MB (given u64 hashes)',
  () => {
    sink ^= engine.minhash(h64, { k: 128, mode: 'classic' })[0];
  },
  { reps: REPS.fast, units: h64.length, unit: 'shingles' },
);
await measure(
  'trainprint minhash one-permutation k=128, 1 MB (given u64 hashes)',
  () => {
    sink ^= engine.minhash(h64, { k: 128, mode: 'oph' })[0];
  },
  { reps: REPS.fast * 4, units: h64.length, unit: 'shingles' },
);
await measure(
  'trainprint simhash64, 1 MB (given u64 hashes)',
  () => {
    sink ^= Number(engine.simhash(h64) & 1n);
  },
  { reps: REPS.fast * 4, units: h64.length, unit: 'shingles' },
);

// ---------------------------------------------------------------- 3. membership filter, 1 % FPR
const KEYS = 1_000_000; // 1.2 MB filter: cache-resident on this machine (L2 2 MB)
const keys = new BigUint64Array(KEYS);
for (let i = 0, x = 0x9e3779b97f4a7c15n; i < KEYS; i++) {
  x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n);
  keys[i] = x ^ (x >> 29n);
}
const filter = await engine.createFilter({ capacity: KEYS });
await measure(
  'trainprint MembershipFilter add, 1 M keys (1.2 MB, cache-resident)',
  () => {
    filter.add(keys);
  },
  { reps: REPS.fast, units: KEYS, unit: 'keys' },
);
await measure(
  'trainprint MembershipFilter has, 1 M keys (1.2 MB, cache-resident)',
  () => {
    sink ^= filter.has(keys)[0];
  },
  { reps: REPS.fast, units: KEYS, unit: 'keys' },
);

// ---------------------------------------------------------------- 4. pairwise similarity of two 100 KB texts
const docA = en.slice(2_000_000, 2_100_000),
  docB = en.slice(2_050_000, 2_150_000);
await measure(
  'trainprint fingerprint both + similarity, 100 KB vs 100 KB',
  async () => {
    const s = engine.similarity(await engine.fingerprint(docA), await engine.fingerprint(docB));
    sink ^= s.jaccard > 0.5 ? 1 : 0;
  },
  { reps: REPS.fast, units: docA.length + docB.length, unit: 'bytes', gcEach: true },
);

// ---------------------------------------------------------------- 5. start-up
await createEngine(); // module compiled and cached
await measure(
  'trainprint createEngine() with the module compiled',
  async () => {
    sink ^= (await createEngine()).variant.length;
  },
  { reps: REPS.fast * 4, units: 1, unit: 'engines' },
);

// ---------------------------------------------------------------- 6. the peers, same corpus, same run
await measure(
  'peer: xxhash-wasm h64 string pipeline (words → 5-gram strings → h64), 10 MB',
  () => {
    const s = shingles5(words(en));
    let a = 0n;
    for (let i = 0; i < s.length; i++) a ^= xx.h64(s[i]);
    sink ^= Number(a & 1n);
  },
  { reps: REPS.slow, units: EN, unit: 'bytes', gcEach: true },
);
await measure(
  'peer: xxhash-wasm h64 string pipeline, CJK 2 MB',
  () => {
    const s = shingles5(words(cj));
    let a = 0n;
    for (let i = 0; i < s.length; i++) a ^= xx.h64(s[i]);
    sink ^= Number(a & 1n);
  },
  { reps: REPS.mid, units: bytes(cj), unit: 'bytes', gcEach: true },
);
const sh1 = shingles5(words(en1));
const h32 = sh1.map((x) => xx.h32(x) >>> 0);
const mhFactory = new bloom.MinHashFactory(128, 2 ** 32 - 1);
await measure(
  'peer: bloom-filters MinHash(128).add loop, 1 MB (given u32 hashes)',
  () => {
    const m = mhFactory.create();
    for (let i = 0; i < h32.length; i++) m.add(h32[i]);
    sink ^= m._signature[0] & 1;
  },
  { reps: REPS.mid, units: h32.length, unit: 'shingles', gcEach: true },
);
const MH_SUB = 20_000;
await measure(
  `peer: minhash Minhash(numPerm 128).update(string), first ${MH_SUB} shingles`,
  () => {
    const m = new Minhash({ numPerm: 128 });
    for (let i = 0; i < MH_SUB; i++) m.update(sh1[i]);
    sink ^= m.hashvalues[0] & 1;
  },
  { reps: REPS.slow, units: MH_SUB, unit: 'shingles', gcEach: true },
);
const BF_N = 100_000;
const bfKeys = sh1.slice(0, BF_N);
let bf;
await measure(
  `peer: bloom-filters BloomFilter(1%) add, ${BF_N} shingle strings`,
  () => {
    bf = bloom.BloomFilter.create(BF_N, 0.01);
    for (const k of bfKeys) bf.add(k);
  },
  { reps: REPS.slow, units: BF_N, unit: 'keys', gcEach: true },
);
await measure(
  `peer: bloom-filters BloomFilter(1%) has, ${BF_N} shingle strings`,
  () => {
    let c = 0;
    for (const k of bfKeys) c += bf.has(k) ? 1 : 0;
    sink ^= c;
  },
  { reps: REPS.slow, units: BF_N, unit: 'keys', gcEach: true },
);
await measure(
  'peer: string-similarity compareTwoStrings, 100 KB vs 100 KB',
  () => {
    sink ^= stringSimilarity.compareTwoStrings(docA, docB) > 0.5 ? 1 : 0;
  },
  { reps: REPS.mid, units: docA.length + docB.length, unit: 'bytes', gcEach: true },
);

// ---------------------------------------------------------------- 7. alternating pairs for the CJK ratio
// The tasks above run one after the other, so a burst of other work on a shared machine lands on one side of a
// ratio. Here each round times trainprint (median of 3 calls) and the peer (one call) back to back, gc() before
// each call, and the ratio is taken per round: median and range over the rounds.
const ROUNDS = QUICK ? 5 : 15;
const timeOnce = async (fn) => {
  globalThis.gc?.();
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const cjkOurs = async () => {
  sink ^= (await engine.fingerprint(cj)).token_count;
};
const cjkPeer = () => {
  const s = shingles5(words(cj));
  let a = 0n;
  for (let i = 0; i < s.length; i++) a ^= xx.h64(s[i]);
  sink ^= Number(a & 1n);
};
const roundRatios = [];
for (let k = 0; k < ROUNDS; k++) {
  const ours = [await timeOnce(cjkOurs), await timeOnce(cjkOurs), await timeOnce(cjkOurs)].sort((a, b) => a - b)[1];
  roundRatios.push((await timeOnce(cjkPeer)) / ours);
}
roundRatios.sort((a, b) => a - b);
const alternating = {
  fingerprint_cjk_vs_xxhash_pipeline_cjk: {
    rounds: ROUNDS,
    median: roundRatios[roundRatios.length >> 1],
    min: roundRatios[0],
    max: roundRatios[roundRatios.length - 1],
  },
};
console.log(
  `\nalternating rounds (${ROUNDS}): CJK fingerprint() / xxhash-wasm pipeline median ` +
    `${alternating.fingerprint_cjk_vs_xxhash_pipeline_cjk.median.toFixed(2)}× (${roundRatios[0].toFixed(2)}–${roundRatios[ROUNDS - 1].toFixed(2)})`,
);

// ---------------------------------------------------------------- ratios and targets
const r = (name) => results[name];
const rate = (name) => r(name).rate_p50;
const PEER_PIPE = 'peer: xxhash-wasm h64 string pipeline (words → 5-gram strings → h64), 10 MB';
const ratios = {
  shingleHashes_vs_xxhash_pipeline:
    rate('trainprint shingleHashes(UTF-8 bytes), word 5-grams, 10 MB') / rate(PEER_PIPE),
  shingleHashes_into_vs_xxhash_pipeline:
    rate('trainprint shingleHashes(UTF-8 bytes, into a reused array), word 5-grams, 10 MB') / rate(PEER_PIPE),
  fingerprint_all_vs_xxhash_pipeline:
    rate('trainprint fingerprint(string), everything (winnow, OPH, SimHash, work_hash), 10 MB') / rate(PEER_PIPE),
  fingerprint_cjk_vs_xxhash_pipeline_cjk:
    rate('trainprint fingerprint(string), everything, CJK 2 MB') /
    rate('peer: xxhash-wasm h64 string pipeline, CJK 2 MB'),
  minhash128_vs_bloom_filters:
    rate('trainprint minhash classic k=128, 1 MB (given u64 hashes)') /
    rate('peer: bloom-filters MinHash(128).add loop, 1 MB (given u32 hashes)'),
  minhash128_vs_minhash_pkg:
    rate('trainprint minhash classic k=128, 1 MB (given u64 hashes)') /
    rate(`peer: minhash Minhash(numPerm 128).update(string), first ${MH_SUB} shingles`),
  oph_vs_bloom_filters:
    rate('trainprint minhash one-permutation k=128, 1 MB (given u64 hashes)') /
    rate('peer: bloom-filters MinHash(128).add loop, 1 MB (given u32 hashes)'),
  filter_add_vs_bloom_filters:
    rate('trainprint MembershipFilter add, 1 M keys (1.2 MB, cache-resident)') /
    rate(`peer: bloom-filters BloomFilter(1%) add, ${BF_N} shingle strings`),
  filter_has_vs_bloom_filters:
    rate('trainprint MembershipFilter has, 1 M keys (1.2 MB, cache-resident)') /
    rate(`peer: bloom-filters BloomFilter(1%) has, ${BF_N} shingle strings`),
  similarity_100k_vs_string_similarity:
    r('peer: string-similarity compareTwoStrings, 100 KB vs 100 KB').p50_ms /
    r('trainprint fingerprint both + similarity, 100 KB vs 100 KB').p50_ms,
};
const targets = [
  [
    'shingling core ≥ 200 MB/s (bytes → hashes into a typed array)',
    rate('trainprint shingleHashes(UTF-8 bytes, into a reused array), word 5-grams, 10 MB') / 1e6,
    200,
  ],
  ['shingling core ≥ 30× xxhash-wasm pipeline', ratios.shingleHashes_into_vs_xxhash_pipeline, 30],
  [
    'whole fingerprint() ≥ 80 MB/s',
    rate('trainprint fingerprint(string), everything (winnow, OPH, SimHash, work_hash), 10 MB') / 1e6,
    80,
  ],
  ['whole fingerprint() ≥ 12× xxhash-wasm pipeline', ratios.fingerprint_all_vs_xxhash_pipeline, 12],
  ['MinHash-128 ≥ 8 M shingles/s', rate('trainprint minhash classic k=128, 1 MB (given u64 hashes)') / 1e6, 8],
  ['MinHash-128 ≥ 13× bloom-filters', ratios.minhash128_vs_bloom_filters, 13],
  ['one-permutation ≥ 300 M/s', rate('trainprint minhash one-permutation k=128, 1 MB (given u64 hashes)') / 1e6, 300],
  ['filter insert ≥ 60 M/s', rate('trainprint MembershipFilter add, 1 M keys (1.2 MB, cache-resident)') / 1e6, 60],
  ['filter query ≥ 60 M/s', rate('trainprint MembershipFilter has, 1 M keys (1.2 MB, cache-resident)') / 1e6, 60],
  [
    'createEngine() < 20 ms (module compiled)',
    r('trainprint createEngine() with the module compiled').p50_ms,
    20,
    'max',
  ],
  ['each WASM binary < 64 KB', Math.max(CORE_BUILDS.scalar.bytes, CORE_BUILDS.simd.bytes) / 1024, 64, 'max'],
  ['CJK fingerprint() ≥ 50 MB/s', rate('trainprint fingerprint(string), everything, CJK 2 MB') / 1e6, 50],
  [
    'CJK fingerprint() ≥ 5× xxhash-wasm pipeline (alternating rounds, median)',
    alternating.fingerprint_cjk_vs_xxhash_pipeline_cjk.median,
    5,
  ],
].map(([name, value, bound, kind = 'min']) => ({
  name,
  value: +value.toFixed(3),
  bound,
  pass: kind === 'min' ? value >= bound : value < bound,
}));

console.log('\nratios (p50, same run):');
for (const [k, v] of Object.entries(ratios)) console.log(`  ${k.padEnd(44)} ${v.toFixed(1)}×`);
console.log('\ntargets:');
for (const t of targets) console.log(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.name.padEnd(48)} ${t.value}`);

if (WRITE) {
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const doc = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    core_variant: engine.variant,
    wasm_bytes: CORE_BUILDS,
    packages: Object.fromEntries(
      ['bloom-filters', 'minhash', 'string-similarity', 'xxhash-wasm', 'tinybench'].map((n) => [n, version(n)]),
    ),
    method: `tinybench, fixed iterations (fast ${REPS.fast}, mid ${REPS.mid}, slow ${REPS.slow}), 1 warm-up, gc() before each iteration (outside the timing); MB = 10^6 bytes; rates from p50`,
    results,
    ratios,
    alternating,
    targets,
  };
  writeFileSync(new URL('./results/fingerprint.json', import.meta.url), JSON.stringify(doc, null, 2) + '\n');
  console.log('\nwrote bench/results/fingerprint.json');
}
if (sink === 0.5) console.log(sink);
