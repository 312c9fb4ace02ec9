// Forward-pass throughput of the byte-level GPT test model (models/byte-gpt-base, 1.3 M parameters): the
// WebAssembly core (SIMD and scalar builds) and the TypeScript incremental runner against the plain-TS reference
// (src/models/byte-gpt/reference.ts), in the same process, on the same windows of real text (a held-out passage of
// the model's manifest). Each round runs every engine once over one window in a rotated order (the machine is
// shared: alternating rounds, medians over them); every figure is reported as a ratio to the reference.
// The reference computes a whole window in one pass (the same multiply-adds as feeding it token by token with a
// cache), so the ratio is the implementation's, not an algorithm's.
//   node bench/byte-gpt.mjs [--rounds 9] [--tokens 128]
// Results: bench/results/byte-gpt.json
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { ByteGptRunner, readByteGptWeights, referenceLogits, WasmByteGptRunner } from '../dist/models.js';
import { upperMedian } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 9);
const TOKENS = arg('tokens', 128);
const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('models/byte-gpt-base/manifest.json', root), 'utf8'));
const weights = readByteGptWeights(readFileSync(new URL('models/byte-gpt-base/weights.bin', root)), manifest.config);
const text = manifest.held_out.map((d) => d.text).join('\n');
const bytes = [...new TextEncoder().encode(text)];
const windows = Array.from({ length: ROUNDS }, (_, r) => [0, ...bytes.slice(r * TOKENS, (r + 1) * TOKENS - 1)]);

/** Feeds a window token by token through an incremental runner. */
const incremental = (r) => (ids) => {
  r.reset();
  let s = 0;
  for (const t of ids) s += r.push(t)[0];
  return s;
};
const engines = {
  reference: async () => (ids) => referenceLogits(weights, ids)[0],
  typescript: async () => incremental(new ByteGptRunner(weights)),
  'wasm-scalar': async () => incremental(await WasmByteGptRunner.create(weights, { simd: false })),
  'wasm-simd': async () => incremental(await WasmByteGptRunner.create(weights, { simd: true })),
};
const run = {};
for (const [name, make] of Object.entries(engines)) run[name] = await make();

const names = Object.keys(engines);
const times = Object.fromEntries(names.map((n) => [n, []]));
let sink = 0;
for (let round = 0; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]);
  for (const name of order) {
    const bench = new Bench({ iterations: 1, time: 0, warmupIterations: round === 0 ? 1 : 0, warmupTime: 0 });
    bench.add(name, () => {
      sink += run[name](windows[round]);
    });
    await bench.run();
    times[name].push(bench.tasks[0].result.latency.p50);
  }
}
const ref = upperMedian(times.reference);
const results = {};
for (const name of names) {
  const ms = upperMedian(times[name]);
  results[name] = {
    median_ms_per_window: Number(ms.toFixed(2)),
    tokens_per_s: Math.round(TOKENS / (ms / 1000)),
    speedup_vs_reference: Number((ref / ms).toFixed(2)),
    // the ratio in each round, so the spread is visible
    round_ratios: times[name].map((t, i) => Number((times.reference[i] / t).toFixed(2))),
  };
  console.log(
    `${name.padEnd(12)} ${ms.toFixed(1).padStart(8)} ms / ${TOKENS} tokens  ${String(results[name].tokens_per_s).padStart(7)} tokens/s  ×${results[name].speedup_vs_reference} vs the reference`,
  );
}
const out = {
  bench: 'byte-gpt forward pass',
  model: { name: manifest.name, parameters: manifest.parameters, config: manifest.config },
  tokens_per_window: TOKENS,
  rounds: ROUNDS,
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  results,
  sink: Number.isFinite(sink) ? 'finite' : 'not finite',
};
mkdirSync(new URL('bench/results/', root), { recursive: true });
writeFileSync(new URL('bench/results/byte-gpt.json', root), `${JSON.stringify(out, null, 2)}\n`);
