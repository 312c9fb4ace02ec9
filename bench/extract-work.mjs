// The client's own CPU during a book-scale extraction (engine.memorization.extractWork of the built package): a
// synthetic book of --words words in chapters of 5,000 (the probes' strata), a model in this process that answers
// after --latency ms (a timer, no CPU) and has "memorised" words 20 %..35 % (chapters 5..7 of 100,000 words) (it continues a prompt that ends there
// with the book's next words, one word in 41 changed; elsewhere unrelated words), --concurrency calls in flight.
// The figure is a ratio measured in the same run: process CPU time (user + system) over wall time, for the
// extraction and, as the baseline, for the same number of calls to the same model with nothing done between them
// (what waiting on 8 timers costs). Target: extraction CPU ≤ 10 % of wall time at 200 ms a call, 8 in flight.
// Also reports nv_recall against the held share, the calls and the budget. The model is a chat model (the
// extraction tries its prompt templates, best-of-N); each round runs the extraction without a journal and with a
// file journal (trainprint/node openExtractionJournal: a JSON line appended and fsync'd per call), alternately.
//   node bench/extract-work.mjs [--words 100000] [--latency 200] [--concurrency 8] [--budget 2000] [--runs 2]
//   (npm run build first; writes bench/results/extract-work.json)
import './help.mjs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { createEngine } from '../dist/index.js';
import { openExtractionJournal } from '../dist/node.js';
import { lowerMedian } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1] : fallback);
};
const WORDS = arg('words', 100_000);
const LATENCY = arg('latency', 200);
const CONCURRENCY = arg('concurrency', 8);
const BUDGET = arg('budget', 2000);
const RUNS = arg('runs', 2);
const CHAPTER = 5000;

// a 32-bit LCG computed exactly (Math.imul): a float LCG past 2^53 loses bits and cycles, repeating the book
let seed = 12345;
const next = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const SYL = ['ka', 'lo', 'mi', 'ren', 'tu', 'sha', 'vel', 'dor', 'ine', 'pa', 'qu', 'sel', 'mar', 'tho', 'bri', 'gan'];
const vocab = [
  ...new Set(
    Array.from({ length: 4000 }, () => Array.from({ length: 3 }, () => SYL[Math.floor(next() * 16)]).join('')),
  ),
];
const words = Array.from({ length: WORDS }, () => vocab[Math.floor(next() * vocab.length)]);
const parts = [];
const sections = [];
let offset = 0;
for (let c = 0; c * CHAPTER < WORDS; c++) {
  const body = words.slice(c * CHAPTER, (c + 1) * CHAPTER).join(' ');
  const start = offset;
  parts.push(body);
  offset += body.length;
  sections.push({ start, end: offset, title: `Chapter ${c + 1}` });
  offset += 2; // the blank line
}
const text = parts.join('\n\n');
const held = [Math.round(0.2 * WORDS), Math.round(0.35 * WORDS)]; // chapters 5..7 of 100,000 words
const at8 = new Map();
for (let i = 8; i <= words.length; i++) {
  const k = words.slice(i - 8, i).join(' ');
  if (!at8.has(k)) at8.set(k, i);
}
const other = ['zu', 'fex', 'wob', 'nix', 'jor', 'yum', 'cly', 'ost'];
const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** The model: `respond` decides the answer (or not, for the baseline); every call waits LATENCY ms. */
function model(respond) {
  return {
    id: 'bench-memorising-model',
    access: 'generations_only',
    chat: true,
    async generate(prompt, { maxTokens }) {
      await wait(LATENCY);
      return respond ? answer(prompt, maxTokens) : 'zu fex wob';
    },
  };
}

function answer(prompt, maxTokens) {
  const count = Math.floor(maxTokens * 0.75);
  const tail = prompt.trim().split(/\s+/).slice(-8).join(' ');
  const q = at8.get(tail);
  const out = [];
  if (q !== undefined && q >= held[0] && q < held[1])
    for (let i = q; i < Math.min(held[1], q + count); i++) out.push(i % 41 === 7 ? 'xqz' : words[i]);
  while (out.length < count) out.push(other[Math.floor(next() * other.length)]);
  return out.join(' ');
}

/** CPU (ms) and wall (ms) of `fn`. */
async function measure(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { value, wall_ms: wall, cpu_ms: (c.user + c.system) / 1000 };
}

const engine = await createEngine();
const runs = [];
const scratch = mkdtempSync(join(tmpdir(), 'extract-work-bench-'));
for (let r = 0; r < RUNS * 2; r++) {
  const mode = r % 2 === 0 ? 'no journal' : 'file journal';
  const journal = mode === 'file journal' ? await openExtractionJournal(join(scratch, `run-${r}.journal`)) : null;
  const x = await measure(async () => {
    try {
      return await engine.memorization.extractWork({
        text,
        sections,
        model: model(true),
        budget_calls: BUDGET,
        concurrency: CONCURRENCY,
        ...(journal ? { journal } : {}),
      });
    } finally {
      await journal?.close();
    }
  });
  const calls = x.value.calls;
  // the baseline: the same number of calls, CONCURRENCY in flight, nothing between them
  const b = await measure(async () => {
    const m = model(false);
    let left = calls;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await m.generate('x', { maxTokens: 256, temperature: 0 });
      }),
    );
  });
  runs.push({
    mode,
    calls,
    hits: x.value.hits,
    refusals: x.value.refusals,
    stopped: x.value.stopped,
    nv_recall: x.value.nv_recall,
    wall_ms: Math.round(x.wall_ms),
    cpu_ms: Math.round(x.cpu_ms),
    cpu_share: Number((x.cpu_ms / x.wall_ms).toFixed(4)),
    baseline_wall_ms: Math.round(b.wall_ms),
    baseline_cpu_share: Number((b.cpu_ms / b.wall_ms).toFixed(4)),
  });
  console.error(JSON.stringify(runs[runs.length - 1]));
}
engine.dispose();
rmSync(scratch, { recursive: true, force: true });
const result = {
  bench: 'extract-work',
  words: WORDS,
  sections: sections.length,
  held_share: Number(((held[1] - held[0]) / WORDS).toFixed(4)),
  latency_ms: LATENCY,
  concurrency: CONCURRENCY,
  budget_calls: BUDGET,
  runs,
  median_cpu_share: lowerMedian(runs.filter((r) => r.mode === 'no journal').map((r) => r.cpu_share)),
  median_cpu_share_file_journal: lowerMedian(runs.filter((r) => r.mode === 'file journal').map((r) => r.cpu_share)),
  median_baseline_cpu_share: lowerMedian(runs.map((r) => r.baseline_cpu_share)),
  target_cpu_share: 0.1,
};
const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'extract-work.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
