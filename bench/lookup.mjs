// Exact-index lookups at scale, kernel only: `lookupSorted` of the built core (build/out) over N sorted u64
// keys, with the prefix table and presence filter the dataset now sizes for N against the old fixed layout
// (2^22 slots, no filter) in the same process, on the same keys and the same query batches, A/B alternating.
// A second binary can be given for the old layout (e.g. the core of an earlier commit, whose lookupSorted
// takes 6 arguments, no filter, and queries in the keys' stored form) so kernel changes are measured too.
// Keys: uniform (what exact datasets store: winnowed fingerprints with their halves swapped); each
// batch: 10k queries, "mixed" = half present / half absent, "absent" = none present (a query with no
// reuse). Every repetition uses a fresh batch, so nothing a batch touched is warm for the next.
//   node bench/lookup.mjs [--keys 51000000] [--reps 15] [--queries 10000] [--baseline-wasm FILE] [--bits B]
//        [--old-bits B] [--tag T]
// Results: bench/results/lookup[-<keys>][-<T>].json
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { median } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const N = Number(arg('keys', '51000000'));
const REPS = Number(arg('reps', '15'));
const Q = Number(arg('queries', '10000'));
const OLD_BITS = Number(arg('old-bits', '22'));
const TAG = arg('tag', null);
const here = new URL('.', import.meta.url);
const newWasm = new URL('../build/out/core.wasm', import.meta.url);
const oldWasm = arg('baseline-wasm', null);

/** The prefix-table bits the dataset picks for n keys (src/datasets/exact.ts prefixBitsFor), unless --bits. */
function scaledBits(n) {
  const given = arg('bits', null);
  if (given !== null) return Number(given);
  return Math.max(4, Math.min(26, Math.ceil(Math.log2(Math.max(n, 1))) - 3));
}

async function instance(file) {
  const { instance } = await WebAssembly.instantiate(readFileSync(file), {
    env: {
      abort: () => {
        throw new Error('abort');
      },
    },
  });
  return instance.exports;
}

// splitmix64 on two u32 lanes, enough for uniform test keys
let s0 = 0x9e3779b9,
  s1 = 0x7f4a7c15;
function next32() {
  s0 = (s0 + 0x6d2b79f5) | 0;
  let t = Math.imul(s0 ^ (s0 >>> 15), 1 | s0);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  s1 = (s1 ^ t) >>> 0;
  return (t ^ (t >>> 14)) >>> 0;
}

/** n sorted keys: random gaps averaging 2^64 / n (as the C reference of the peer benchmark builds them). */
function fillSorted(u32, n) {
  const gap = 2 ** 64 / n;
  let hi = 0,
    lo = 0;
  for (let i = 0; i < n; i++) {
    const step = Math.floor((next32() / 2 ** 32) * 2 * gap * 0.98) + 1;
    lo += step % 2 ** 32;
    hi += Math.floor(step / 2 ** 32) + (lo >= 2 ** 32 ? 1 : 0);
    lo %= 2 ** 32;
    u32[2 * i] = lo;
    u32[2 * i + 1] = hi;
  }
}

class Side {
  constructor(raw, bits, label, filter) {
    this.raw = raw;
    this.bits = bits;
    this.label = label;
    // the core before the presence filter: 6 arguments, queries as the keys are stored (halves swapped)
    this.oldAbi = raw.lookupSorted.length === 6;
    this.words = filter && !this.oldAbi ? Math.ceil(N / 8) : 0;
    const base = raw.arenaBase.value;
    this.keysPtr = base;
    this.prefixPtr = base + N * 8;
    this.filterPtr = (this.prefixPtr + (2 ** bits + 1) * 4 + 15) & ~15;
    this.qPtr = this.filterPtr + this.words * 8;
    this.outPtr = this.qPtr + Q * 8;
    if (raw.reserve(this.outPtr + Q * 8 - base) === 0) throw new Error('out of memory');
  }
  u32(ptr, n) {
    return new Uint32Array(this.raw.memory.buffer, ptr, n);
  }
  build(keys32) {
    this.u32(this.keysPtr, N * 2).set(keys32);
    const t = performance.now();
    this.raw.buildPrefix(this.keysPtr, N, this.bits, this.prefixPtr);
    if (this.words > 0) this.raw.buildFilter(this.keysPtr, N, this.filterPtr, this.words);
    this.prefixMs = performance.now() - t;
  }
  run(queries32) {
    const q = this.u32(this.qPtr, Q * 2);
    q.set(queries32);
    if (!this.oldAbi) for (let i = 0; i < q.length; i += 2) [q[i], q[i + 1]] = [q[i + 1], q[i]];
    const t = performance.now();
    const found = this.oldAbi
      ? this.raw.lookupSorted(this.keysPtr, this.prefixPtr, this.bits, this.qPtr, Q, this.outPtr)
      : this.raw.lookupSorted(
          this.keysPtr,
          this.prefixPtr,
          this.bits,
          this.filterPtr,
          this.words,
          this.qPtr,
          Q,
          this.outPtr,
        );
    return { ms: performance.now() - t, found };
  }
}

const keys32 = new Uint32Array(N * 2);
fillSorted(keys32, N);
const sides = [
  new Side(
    await instance(oldWasm ?? newWasm),
    OLD_BITS,
    `${oldWasm ? 'baseline core' : 'this core'}, 2^${OLD_BITS} slots, no filter`,
    false,
  ),
  new Side(await instance(newWasm), scaledBits(N), `this core, 2^${scaledBits(N)} slots, filter`, true),
];
for (const s of sides) s.build(keys32);

/** A batch of Q queries: `present` of them keys of the index (at random positions), the rest random. */
function batch(present) {
  const out = new Uint32Array(Q * 2);
  for (let j = 0; j < Q; j++) {
    if (j < present) {
      const i = Math.floor((next32() / 2 ** 32) * N);
      out[2 * j] = keys32[2 * i];
      out[2 * j + 1] = keys32[2 * i + 1];
    } else {
      out[2 * j] = next32();
      out[2 * j + 1] = next32();
    }
  }
  return out;
}

const results = {};
for (const [kind, present, fresh] of [
  ['mixed', Q / 2, true],
  ['absent', 0, true],
  ['repeat', Q / 2, false],
]) {
  const same = batch(present);
  const times = sides.map(() => []);
  const ratios = [];
  for (let r = -2; r < REPS; r++) {
    // two warm-up rounds
    const q = fresh ? batch(present) : same;
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    const got = [];
    for (const k of order) got[k] = sides[k].run(q);
    if (got[0].found !== got[1].found) throw new Error(`layouts disagree: ${got[0].found} vs ${got[1].found} found`);
    if (r < 0) continue;
    times[0].push(got[0].ms);
    times[1].push(got[1].ms);
    ratios.push(got[0].ms / got[1].ms);
  }
  results[kind] = sides.map((s, k) => ({
    layout: s.label,
    bits: s.bits,
    keys_per_slot: N / 2 ** s.bits,
    prefix_bytes_per_key: ((2 ** s.bits + 1) * 4) / N,
    filter_bytes_per_key: (s.words * 8) / N,
    ms_p50: median(times[k]),
    ms_min: Math.min(...times[k]),
    ms_max: Math.max(...times[k]),
    ns_per_query_p50: (median(times[k]) * 1e6) / Q,
  }));
  results[kind].push({ old_over_new_p50: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) });
  for (const x of results[kind].slice(0, 2)) {
    console.log(
      `${kind.padEnd(6)} ${x.layout.padEnd(34)} ${x.ms_p50.toFixed(3)} ms p50 (${x.ms_min.toFixed(3)}–${x.ms_max.toFixed(3)}) ` +
        `per ${Q} queries, ${x.keys_per_slot.toFixed(2)} keys/slot, prefix ${x.prefix_bytes_per_key.toFixed(2)} B/key, ` +
        `filter ${x.filter_bytes_per_key.toFixed(2)} B/key`,
    );
  }
  const r = results[kind][2];
  console.log(
    `${kind.padEnd(6)} old / new: ${r.old_over_new_p50.toFixed(2)}× (pairs ${r.min.toFixed(2)}–${r.max.toFixed(2)})`,
  );
}
mkdirSync(new URL('./results/', here), { recursive: true });
writeFileSync(
  new URL(`./results/lookup${N === 51_000_000 ? '' : `-${N}`}${TAG ? `-${TAG}` : ''}.json`, here),
  JSON.stringify(
    {
      bench: 'lookup',
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      keys: N,
      queries: Q,
      reps: REPS,
      baseline_wasm: oldWasm ? 'given' : 'same binary',
      prefix_build_ms: sides.map((s) => s.prefixMs),
      ...results,
    },
    null,
    2,
  ) + '\n',
);
