#!/usr/bin/env node
/**
 * The library's primitives before and after they became one of each (one DEFLATE decoder, one exact-run finder),
 * in one process: each side bundled by esbuild from its own tree of src/ — "before" from a commit (`git archive`),
 * "after" from the working tree — and the same inputs timed on both with tinybench, the two sides interleaved task
 * by task, for several rounds (which side runs first alternates): per round each side's median latency and their
 * ratio, and the medians of those over the rounds.
 *
 *   nice node bench/primitives.mjs [--before ced6e74] [--time 400] [--rounds 5] [--only NAME-PART]
 *     [--out bench/results/primitives.json]
 *
 * Inputs (committed fixtures, the same on every run): the zlib stream of a text of 24 KB and one of 466 KB
 * (`inflateZlib`, the one-shot of dataset tables), a raw DEFLATE stream of 2.3 MB pushed in 64 KiB slices with its
 * chunks counted (`StreamInflater`, the document readers' way); for the run finders, pairs of texts made from a book
 * with copied passages among other text (the aligner's `exactRuns` through `verbatimPassages`, the scan's
 * `copySpans`, extraction's `RunIndex.runs`).
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { build } from 'esbuild';
import { Bench } from 'tinybench';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    before: { type: 'string', default: 'ced6e74' },
    time: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '5' },
    only: { type: 'string' },
    out: { type: 'string', default: 'bench/results/primitives.json' },
  },
});

/** The module each side exposes, by the paths of its own tree. */
const ENTRY = {
  before: `export { inflateZlib } from './src/util/inflate.ts';
export { StreamInflater } from './src/formats/inflate-stream.ts';
export * from './bench-runs.ts';`,
  after: `export { inflateZlib, StreamInflater } from './src/util/inflate.ts';
export * from './bench-runs.ts';`,
};

/** What both sides run for the run finders: the same three public uses, by the same paths. */
const RUNS = `import { prepare, TermDict } from './src/align/prepare.ts';
import { exactRuns } from './src/align/verbatim.ts';
import { copySpans } from './src/align/copies.ts';
import { RunIndex } from './src/services/memorization/text.ts';
export { exactRuns, copySpans, RunIndex };
/** Both texts of a pair with one dictionary (shared word ids), as the aligner prepares them. */
export function preparePair(a: string, b: string) {
  const dict = new TermDict();
  return { pa: prepare(a, dict, 3), pb: prepare(b, dict, 3) };
}`;

async function bundle(tree, side) {
  writeFileSync(join(tree, 'bench-entry.ts'), ENTRY[side]);
  writeFileSync(join(tree, 'bench-runs.ts'), RUNS);
  const outfile = join(tree, `bench-${side}.mjs`);
  await build({
    entryPoints: [join(tree, 'bench-entry.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}

const scratch = mkdtempSync(join(tmpdir(), 'primitives-'));
try {
  const beforeTree = join(scratch, 'before');
  mkdirSync(beforeTree);
  execFileSync('sh', ['-c', `git archive ${opts.before} src | tar -x -C ${beforeTree}`], { cwd: ROOT });
  const afterTree = join(scratch, 'after');
  mkdirSync(afterTree);
  execFileSync('sh', ['-c', `git ls-files -co --exclude-standard src | tar -cf - -T - | tar -x -C ${afterTree}`], {
    cwd: ROOT,
  });
  const sides = { before: await bundle(beforeTree, 'before'), after: await bundle(afterTree, 'after') };
  await run(sides);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

async function run(sides) {
  const book = (name) => readFileSync(join(ROOT, 'test/fixtures/texts/gutenberg', `${name}.txt`), 'utf8');
  const text = book('austen-persuasion');
  const enc = new TextEncoder();
  const small = deflateSync(enc.encode(text.slice(0, 24_000)), { level: 9 });
  const large = deflateSync(enc.encode(text), { level: 9 });
  const stream = deflateRawSync(enc.encode(text.repeat(5)), { level: 6 });
  const pushAll = (lib) => {
    const inflater = new lib.StreamInflater();
    let n = 0;
    const count = (chunk) => {
      n += chunk.length;
    };
    for (let i = 0; i < stream.length; i += 65536) {
      const end = Math.min(stream.length, i + 65536);
      inflater.push(stream.subarray(i, end), end === stream.length, count);
    }
    return n;
  };
  const pairs = runPairs(text, book('chesterton-thursday'));
  const tasks = {
    'inflateZlib 24 KB': (lib) => lib.inflateZlib(small),
    'inflateZlib 466 KB': (lib) => lib.inflateZlib(large),
    'StreamInflater 2.3 MB in 64 KiB slices': pushAll,
    'aligner exactRuns (K 8), 20 pairs': (lib) => {
      for (const p of pairs) {
        const { pa, pb } = p.prepared(lib);
        lib.exactRuns(pa, pb, 8);
      }
    },
    'copySpans, 20 pairs': (lib) => {
      for (const p of pairs) lib.copySpans(p.query, p.doc, [p.window], p.regions);
    },
    'RunIndex build + runs (≥ 4), 20 pairs': (lib) => {
      for (const p of pairs) new lib.RunIndex(p.docTokens).runs(p.queryTokens, 4);
    },
  };
  const results = [];
  for (const [name, fn] of Object.entries(tasks)) {
    if (opts.only !== undefined && !name.includes(opts.only)) continue;
    const rounds = { before: [], after: [], ratio: [], minRatio: [] };
    for (let round = 0; round < Number(opts.rounds); round++) {
      // the sides alternate which runs first, round by round
      const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      const bench = new Bench({ time: Number(opts.time), warmupTime: 100 });
      for (const side of order) bench.add(side, () => fn(sides[side]));
      await bench.run();
      const latency = (side) => bench.tasks.find((t) => t.name === side).result.latency;
      rounds.before.push(latency('before').p50);
      rounds.after.push(latency('after').p50);
      rounds.ratio.push(latency('after').p50 / latency('before').p50);
      rounds.minRatio.push(latency('after').min / latency('before').min);
    }
    const row = {
      task: name,
      before_ms: median(rounds.before),
      after_ms: median(rounds.after),
      ratio: median(rounds.ratio),
      ratios_by_round: rounds.ratio.map((r) => Number(r.toFixed(3))),
      // the fastest call of each side: the least touched by other processes on a shared machine
      min_ratio: median(rounds.minRatio),
    };
    results.push(row);
    console.log(
      `${name.padEnd(44)} before ${row.before_ms.toFixed(3)} ms  after ${row.after_ms.toFixed(3)} ms  ×${row.ratio.toFixed(3)} (rounds ${row.ratios_by_round.join(', ')}; min ×${row.min_ratio.toFixed(3)})`,
    );
  }
  const out = {
    bench: 'bench/primitives.mjs',
    before: opts.before,
    after: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
    node: process.version,
    cpus: cpus().length,
    load: loadavg(),
    time_ms_per_side_and_round: Number(opts.time),
    rounds: Number(opts.rounds),
    statistic:
      'tinybench p50 latency per call in each round; before_ms/after_ms/ratio: medians over the rounds; min_ratio: median over the rounds of the ratio of the fastest calls',
    results,
  };
  writeFileSync(resolve(ROOT, opts.out), `${JSON.stringify(out, null, 2)}\n`);
}

/**
 * 20 pairs of a query and a document: the document a slice of one book, the query other text with two passages of
 * the document copied in (one word in 30 replaced in the second), as a scan and an extraction meet them.
 */
function runPairs(source, other) {
  const words = source.split(/\s+/).filter(Boolean);
  const filler = other.split(/\s+/).filter(Boolean);
  const pairs = [];
  for (let k = 0; k < 20; k++) {
    const d0 = 1000 + k * 3000;
    const docWords = words.slice(d0, d0 + 2000);
    const copyA = docWords.slice(200, 320);
    const copyB = docWords.slice(900, 1020).map((w, i) => (i % 30 === 17 ? 'replaced' : w));
    const f0 = k * 1500;
    const queryWords = [
      ...filler.slice(f0, f0 + 300),
      ...copyA,
      ...filler.slice(f0 + 300, f0 + 700),
      ...copyB,
      ...filler.slice(f0 + 700, f0 + 900),
    ];
    const query = queryWords.join(' ');
    const doc = docWords.join(' ');
    // the regions a seed stage would give: the copied passages' spans in both texts
    const span = (text, phrase) => {
      const at = text.indexOf(phrase);
      return [at, at + phrase.length];
    };
    const [qa0, qa1] = span(query, copyA.join(' '));
    const [sa0, sa1] = span(doc, copyA.join(' '));
    const regions = [{ query_start: qa0, query_end: qa1, source_start: sa0, source_end: sa1 }];
    const prepared = new Map();
    const prep = (lib) => {
      if (!prepared.has(lib)) prepared.set(lib, lib.preparePair(query, doc));
      return prepared.get(lib);
    };
    pairs.push({
      query,
      doc,
      window: { q0: 0, q1: query.length, s0: 0, s1: doc.length },
      regions,
      queryTokens: queryWords.map((w) => w.toLowerCase()),
      docTokens: docWords.map((w) => w.toLowerCase()),
      prepared: prep,
    });
  }
  return pairs;
}
