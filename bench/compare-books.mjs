// compare on whole books: engine.compare(a, b) on pairs of 1.5 MB and 10 MB texts, with the time of
// engine.fingerprint over the same bytes measured in the same process as the baseline (2-core machines are
// noisy: read the ratios), and the peak resident memory of each case (each case runs in its own process).
//
//   node bench/compare-books.mjs                   (dist/; writes bench/results/compare-books.json)
//   node bench/compare-books.mjs --from FILE       (an esbuild bundle of src/index.ts instead of dist/)
//   node bench/compare-books.mjs --quick           (2 iterations a case, no write unless --write)
//
// Texts: the committed Project Gutenberg fixtures (test/fixtures/texts), concatenated and repeated:
//   edited-1.5MB     Persuasion, Thursday, Paradise Lost, Julius Caesar and Alice (current edition) against
//                    the same books with 1 % of the words dropped or misspelt and the 1865 edition of Alice
//   unrelated-1.5MB  Persuasion and Thursday against Paradise Lost, Caesar, Blake and Alice, each repeated
//   edited-10MB      all the books, repeated to 10 MB with the words of 4+ letters of each repetition given
//                    their own suffix (so that no two repetitions share content words), against a copy
//                    with 1 % of the words dropped or misspelt
//   unrelated-10MB   that text against the other books made distinct the same way, to 10 MB
//   identical-10MB   that text against itself (a separate string)
// A bundle that also exports alignSpansScoped and resolveCompareOptions (src/align/compare.ts) adds
// "scopes": every sentence pair scored against seeded regions only, on pairs of 100 k to 500 k characters
// (where ALL_PAIRS_LIMIT switches from one to the other).
import './help.mjs';
import { Bench } from 'tinybench';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { round } from './stats.mjs';

const arg = (name) => {
  const k = process.argv.indexOf(name);
  return k < 0 ? undefined : process.argv[k + 1];
};
const QUICK = process.argv.includes('--quick');
const WRITE = !QUICK || process.argv.includes('--write');
const ITERATIONS = QUICK ? 2 : 5;
const FROM = arg('--from') ? pathToFileURL(arg('--from')).href : new URL('../dist/index.js', import.meta.url).href;
const CASES = ['edited-1.5MB', 'unrelated-1.5MB', 'edited-10MB', 'unrelated-10MB', 'identical-10MB'];

// ---------------------------------------------------------------- texts (deterministic)
const fixture = (p) => readFileSync(new URL(`../test/fixtures/texts/${p}`, import.meta.url), 'utf8');
const BOOKS = {
  persuasion: fixture('gutenberg/austen-persuasion.txt'),
  thursday: fixture('gutenberg/chesterton-thursday.txt'),
  paradise: fixture('gutenberg/milton-paradise.txt'),
  caesar: fixture('gutenberg/shakespeare-caesar.txt'),
  blake: fixture('gutenberg/blake-poems.txt'),
  alice: fixture('gutenberg-editions/alice-11-0.txt'),
  alice1865: fixture('gutenberg-editions/alice-old-30.txt'),
};

/** mulberry32: a seeded generator, so that every run edits the same words. */
function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `rate` of the words dropped (half) or misspelt by reversing them (half). */
function edit(text, seed, rate = 0.01) {
  const rnd = prng(seed);
  return text.replace(/\S+/g, (w) => {
    const r = rnd();
    if (r < rate / 2) return '';
    return r < rate ? [...w].reverse().join('') : w;
  });
}

/** The parts in turn, separated by blank lines, until `n` characters. */
function repeatTo(parts, n) {
  let out = '';
  for (let k = 0; out.length < n; k++) out += parts[k % parts.length] + '\n\n';
  return out.slice(0, n);
}

/** Repetitions of the joined parts until `n` characters, words of 4+ letters suffixed per repetition. */
function distinctTo(parts, n, salt) {
  const whole = parts.join('\n\n');
  let out = '';
  for (let k = 0; out.length < n; k++) {
    const tag = salt + String.fromCharCode(97 + (k % 26)) + String.fromCharCode(97 + (Math.floor(k / 26) % 26));
    out += whole.replace(/[A-Za-z]{4,}/g, (w) => w + tag) + '\n\n';
  }
  return out.slice(0, n);
}

function textsOf(name) {
  const B = BOOKS;
  const MB15 = 1_500_000,
    MB10 = 10_000_000;
  switch (name) {
    case 'edited-1.5MB':
      return [
        repeatTo([B.persuasion, B.thursday, B.paradise, B.caesar, B.alice], MB15),
        edit(repeatTo([B.persuasion, B.thursday, B.paradise, B.caesar, B.alice1865], MB15), 7),
      ];
    case 'unrelated-1.5MB':
      return [repeatTo([B.persuasion, B.thursday], MB15), repeatTo([B.paradise, B.caesar, B.blake, B.alice1865], MB15)];
    case 'edited-10MB': {
      const a = distinctTo([B.persuasion, B.thursday, B.paradise, B.caesar, B.blake, B.alice], MB10, '');
      return [a, edit(a, 11)];
    }
    case 'unrelated-10MB':
      return [
        distinctTo([B.persuasion, B.thursday, B.paradise, B.caesar, B.blake, B.alice], MB10, ''),
        distinctTo([B.alice1865, B.caesar, B.paradise, B.persuasion, B.thursday], MB10, 'zq'),
      ];
    case 'identical-10MB': {
      const a = distinctTo([B.persuasion, B.thursday, B.paradise, B.caesar, B.blake, B.alice], MB10, '');
      return [a, (' ' + a).slice(1)];
    }
    default:
      throw new Error(`no case ${name}`);
  }
}

/** "wrong result!": each case's spans must say what its texts are. */
function checkResult(name, r) {
  const ok = name.startsWith('identical')
    ? r.similarity === 1 && r.spans.length === 1
    : name.startsWith('edited')
      ? r.similarity > 0.95
      : r.similarity < 0.01;
  if (!ok) throw new Error(`${name}: wrong result (similarity ${r.similarity}, ${r.spans.length} spans)`);
}

// ---------------------------------------------------------------- one case, in its own process
async function measure(name, fn) {
  globalThis.gc?.();
  const bench = new Bench({ iterations: ITERATIONS, time: 0, warmupIterations: 1, warmupTime: 0, throws: true });
  bench.add(name, fn, { beforeEach: () => globalThis.gc?.() });
  await bench.run();
  const r = bench.tasks[0].result;
  if (r.state !== 'completed') throw new Error(`${name}: ${r.state} ${r.error ?? ''}`);
  const { p50, min, max, samplesCount } = r.latency;
  return { p50_ms: round(p50, 1), min_ms: round(min, 1), max_ms: round(max, 1), samples: samplesCount };
}

const mb = (bytes) => round(bytes / 1e6, 1);

async function runCase(name) {
  const { createEngine } = await import(FROM);
  const engine = await createEngine();
  const [a, b] = textsOf(name);
  let sink = 0;
  globalThis.gc?.();
  const rssInputs = process.memoryUsage().rss;
  const compare = await measure(`compare ${name}`, () => {
    const r = engine.compare(a, b);
    checkResult(name, r);
    sink += r.spans.length;
  });
  const last = engine.compare(a, b);
  const fingerprint = await measure(`fingerprint ${name}`, () => {
    sink += engine.fingerprint(a).byteLength + engine.fingerprint(b).byteLength;
  });
  return {
    chars: [a.length, b.length],
    bytes: [Buffer.byteLength(a), Buffer.byteLength(b)],
    compare,
    fingerprint_both: fingerprint,
    ratio_compare_to_fingerprint: round(compare.p50_ms / fingerprint.p50_ms, 2),
    similarity: round(last.similarity, 4),
    spans: last.spans.length,
    rss_inputs_mb: mb(rssInputs),
    rss_peak_mb: mb(process.resourceUsage().maxRSS * 1024),
    sink,
  };
}

/** Every sentence pair scored against seeded regions only, on both kinds of pair, 100 k to 500 k characters. */
async function runScopes() {
  const m = await import(FROM);
  if (typeof m.alignSpansScoped !== 'function') return null;
  const engine = await m.createEngine();
  const core = engine.assertLive();
  const o = m.resolveCompareOptions(undefined);
  const out = {};
  for (const n of [100_000, 300_000, 500_000]) {
    const B = BOOKS;
    const pairs = {
      edited: [
        repeatTo([B.persuasion, B.thursday, B.alice], n),
        edit(repeatTo([B.persuasion, B.thursday, B.alice1865], n), 7),
      ],
      unrelated: [repeatTo([B.persuasion, B.thursday], n), repeatTo([B.paradise, B.caesar, B.blake, B.alice1865], n)],
    };
    for (const [kind, [a, b]] of Object.entries(pairs)) {
      const all = await measure(`all-pairs ${kind} ${n}`, () => m.alignSpansScoped(core, a, b, o, 'all-pairs'));
      const regions = await measure(`regions ${kind} ${n}`, () => m.alignSpansScoped(core, a, b, o, 'regions'));
      const spansOf = (scope) => JSON.stringify(m.alignSpansScoped(core, a, b, o, scope));
      const same = spansOf('all-pairs') === spansOf('regions');
      out[`${kind} ${n / 1000}k`] = { all_pairs_p50_ms: all.p50_ms, regions_p50_ms: regions.p50_ms, same_spans: same };
    }
  }
  return out;
}

// ---------------------------------------------------------------- parent: one child process per case
const child = arg('--case');
if (child) {
  const result = child === 'scopes' ? await runScopes() : await runCase(child);
  console.log(JSON.stringify(result));
} else {
  const self = fileURLToPath(import.meta.url);
  const passOn = [...(arg('--from') ? ['--from', arg('--from')] : []), ...(QUICK ? ['--quick'] : [])];
  const results = {};
  for (const name of [...CASES, 'scopes']) {
    const args = ['--expose-gc', self, '--case', name, ...passOn];
    const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
    results[name] = JSON.parse(out.trim().split('\n').pop());
    const r = results[name];
    if (name === 'scopes') console.log('scopes', JSON.stringify(r));
    else {
      console.log(
        `${name.padEnd(16)} compare p50 ${String(r.compare.p50_ms).padStart(8)} ms  ` +
          `fingerprint(a)+fingerprint(b) ${String(r.fingerprint_both.p50_ms).padStart(7)} ms  ` +
          `ratio ${r.ratio_compare_to_fingerprint}  peak RSS ${r.rss_peak_mb} MB (inputs ${r.rss_inputs_mb})  ` +
          `similarity ${r.similarity}, ${r.spans} spans`,
      );
    }
  }
  if (WRITE) {
    const doc = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      build: arg('--from') ? `esbuild bundle of src (${arg('--from')})` : 'dist/',
      method:
        `tinybench, ${ITERATIONS} iterations after 1 warm-up, gc() before each (outside the timing); ` +
        'each case in its own process (node --expose-gc); rss_inputs_mb: resident memory with the texts and ' +
        'the engine loaded, before compare; rss_peak_mb: the process peak; baseline: engine.fingerprint(a) + ' +
        'engine.fingerprint(b), default options, same process',
      targets: {
        '1.5MB pairs': 'p50 ≤ 2000 ms',
        '10MB pairs': 'p50 ≤ 10000 ms',
        identical: 'similarity 1, one span',
      },
      results,
    };
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(new URL('./results/compare-books.json', import.meta.url), JSON.stringify(doc, null, 2) + '\n');
    console.log('\nwrote bench/results/compare-books.json');
  }
}
