// score() per call, as the interval check of test/unit/score.test.ts makes it: seeded works of 5–40 chunks of 200
// words, each chunk copied from one of three indexed Project Gutenberg books with probability p or taken from a book
// outside them, scored against a model trained on the indexed dataset. Each build (this one, and --baseline when
// given) loads in this process with its own engine and registers the same works; the rounds alternate the builds
// (which goes first changes every round) and time each round's scores by the process's CPU (user + system), so the
// load of a shared machine weighs on both alike. Every score of the first round is compared, as JSON without its
// `work_id` (each engine numbers its own registrations), with the baseline's: `differing` must be 0.
//   node bench/score.mjs [--baseline DIR] [--dist DIR] [--works 40] [--rounds 5] [--out bench/results/score.json]
//        (DIR: a build of the package, e.g. --baseline /work/base-ed4e/dist)
import './help.mjs';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { mulberry32 } from './natural-texts.mjs';
import { median, round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const here = dirname(fileURLToPath(import.meta.url));
const WORKS = Number(arg('works', '40'));
const ROUNDS = Number(arg('rounds', '5'));
const OUT = arg('out', 'bench/results/score.json');
const builds = [{ name: 'this', dir: resolve(arg('dist', join(here, '../dist'))) }];
if (arg('baseline')) builds.push({ name: 'baseline', dir: resolve(arg('baseline')) });

const TEXTS = join(here, '../test/fixtures/texts');
const INDEXED = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise'];
const OUTSIDE = ['shakespeare-caesar', 'blake-poems', 'alice'];
const text = (name) =>
  readFileSync(
    name === 'alice' ? join(TEXTS, 'gutenberg-editions/alice-11-0.txt') : join(TEXTS, 'gutenberg', `${name}.txt`),
    'utf8',
  );
const WORD_TOKENS = {
  shingle: { unit: 'word', size: 1 },
  winnow: false,
  minhash: false,
  simhash: false,
  workHash: false,
};

/** The works' texts, drawn as the interval check draws them (seed 2024), from one build's word tokens. */
function drawWorks(tokens) {
  const rnd = mulberry32(2024); // the draws of test/reference/core.ts's prng
  const piece = (name, at, n) => {
    const t = tokens.get(name);
    return t.text.slice(t.starts[at], t.ends[at + n - 1]);
  };
  const works = [];
  for (let w = 0; w < WORKS; w++) {
    const k = 5 + Math.floor(rnd() * 36);
    const p = 0.05 + 0.9 * rnd();
    const parts = [];
    for (let c = 0; c < k; c++) {
      const copy = rnd() < p;
      const name = copy ? INDEXED[Math.floor(rnd() * INDEXED.length)] : OUTSIDE[Math.floor(rnd() * OUTSIDE.length)];
      parts.push(piece(name, Math.floor(rnd() * (tokens.get(name).starts.length - 250)), 200));
    }
    works.push(parts.join('\n\n'));
  }
  return works;
}

/** One build's engine with the indexed books and the works registered; `score(i)` scores work i. */
async function prepare({ dir }) {
  const lib = await import(pathToFileURL(join(dir, 'index.js')).href);
  const engine = await lib.createEngine();
  await engine.addDataset(
    { id: 'pg', kb_dataset: 'project-gutenberg' },
    INDEXED.map((id) => ({ id, text: text(id) })),
  );
  const tokens = new Map();
  for (const name of [...INDEXED, ...OUTSIDE]) {
    const t = text(name);
    const fp = await engine.fingerprint(t, WORD_TOKENS);
    tokens.set(name, { starts: fp.shingles.starts, ends: fp.shingles.ends, text: t });
  }
  const hashes = [];
  for (const [i, content] of drawWorks(tokens).entries())
    hashes.push((await engine.registerWork({ content, owner: `bench-${i}` })).work_hash);
  const score = (i) => engine.score({ work_hash: hashes[i], target_model: 'meta/llama-7b', jurisdiction: 'US' });
  return { score, chars: drawWorks(tokens).reduce((t, w) => t + w.length, 0) };
}

const comparable = (s) => JSON.stringify({ ...s, work_id: undefined });
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

for (const b of builds) Object.assign(b, await prepare(b));
// a warm-up of each build (its first alignment decodes the synonym table)
for (const b of builds) for (let i = 0; i < Math.min(3, WORKS); i++) await b.score(i);
const loads = [];
const perRound = Object.fromEntries(builds.map((b) => [b.name, []]));
const answers = Object.fromEntries(builds.map((b) => [b.name, []]));
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadNow());
  for (const b of r % 2 ? builds.slice().reverse() : builds) {
    const t0 = cpuMs();
    for (let i = 0; i < WORKS; i++) {
      const s = await b.score(i);
      if (r === 0) answers[b.name].push(comparable(s));
    }
    perRound[b.name].push((cpuMs() - t0) / WORKS);
  }
}
const result = Object.fromEntries(
  builds.map((b) => [
    b.name,
    {
      dir: b.dir,
      ms_per_call: round(median(perRound[b.name]), 2),
      mb_per_s: round(b.chars / WORKS / 1e6 / (median(perRound[b.name]) / 1000), 2),
      rounds_ms: perRound[b.name].map((x) => round(x, 2)),
    },
  ]),
);
const record = {
  ...recordHeader('score'),
  works: WORKS,
  rounds: ROUNDS,
  mean_work_chars: Math.round(builds[0].chars / WORKS),
  load: loadSpread(loads),
  ...result,
  ...(builds.length > 1
    ? {
        ratio_this_to_baseline: round(result.this.ms_per_call / result.baseline.ms_per_call, 2),
        differing: answers.this.filter((a, i) => a !== answers.baseline[i]).length,
      }
    : {}),
};
console.log(JSON.stringify(record, null, 2));
console.log(`wrote ${writeRecord(OUT, record)}`);
if (record.differing > 0) process.exitCode = 1;
