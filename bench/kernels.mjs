// The core's kernels in place, this build against a baseline build of the package in one process, alternating which
// runs first each round, on English, Chinese, Japanese, Cyrillic and mixed-script text: the whole word fingerprint
// (`fingerprint()` with `workHash: false`, so SHA-256 on the thread pool stays out of the figures), the tokenizer with
// the shingles (`shingleHashes()`: encoding, region search, normaliser, tokens, shingle hashes) and OPH MinHash
// (`minhash(hashes, { mode: 'oph' })` of the text's shingle hashes). Every figure is a ratio to the baseline in the
// same run (median of the per-round ratios, with their range), and the two builds' outputs are compared on every
// corpus first (fingerprint id, token count, shingles, winnowed postings, MinHash, SimHash, the OPH signature): a
// kernel that changed one output byte stops the bench.
//
//   node --expose-gc bench/kernels.mjs --baseline <a built checkout's dist/ of the previous kernels> [--rounds 7]
//     [--mb 4] [--simd false] [--candidate <dist>] [--write]
//
// Corpora of --mb MB each (bench/corpus.mjs; the English is real text from ../shared/data); Chinese and Japanese:
// the prose lines of the Vim tutor translations (zh_cn + zh_tw, ja) with their ASCII removed, so the text runs on
// without spaces as Chinese and Japanese prose does; Cyrillic: the Russian and Bulgarian tutors; mixed: the six
// European tutors (Cyrillic, Greek, Latin with diacritics). Time is process CPU (user + system) per call, beside wall
// time; gc() runs before every call so no call pays for another's garbage.
import './help.mjs';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { english, mixed } from './corpus.mjs';
import { median } from './stats.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const baselineDir = arg('baseline');
if (!baselineDir) {
  console.error(
    'usage: node --expose-gc bench/kernels.mjs --baseline <dist of the previous build> [--rounds N] [--mb N]',
  );
  process.exit(2);
}
const candidateDir = arg('candidate', new URL('../dist/', import.meta.url).pathname);
const ROUNDS = Number(arg('rounds', '7'));
const MB = Number(arg('mb', '4'));
const SIMD = arg('simd', 'auto') === 'false' ? false : 'auto';
const WRITE = process.argv.includes('--write');
const load = (dir) => import(pathToFileURL(resolve(dir, 'fingerprint.js')).href);

const tutor = (lang) => readFileSync(new URL(`corpus/tutor.${lang}.utf-8`, import.meta.url), 'utf8');
/** Lines that are mostly CJK, their ASCII removed (commands, spaces): prose without spaces. */
function prose(langs, bytes) {
  const lines = langs
    .flatMap((l) => tutor(l).split('\n'))
    .map((l) => l.replace(/\p{ASCII}+/gu, ''))
    .filter((l) => l.length >= 8);
  const para = lines.join('');
  let out = '';
  while (Buffer.byteLength(out) < bytes) out += para + '\n';
  return out;
}
function repeatTo(text, bytes) {
  let out = '';
  while (Buffer.byteLength(out) < bytes) out += text + '\n';
  return out;
}
const corpora = {
  english: english(MB * 1_000_000),
  chinese: prose(['zh_cn', 'zh_tw'], MB * 1_000_000),
  japanese: prose(['ja'], MB * 1_000_000),
  cyrillic: repeatTo(['ru', 'bg'].map(tutor).join('\n'), MB * 1_000_000),
  mixed: mixed(MB * 1_000_000),
};

const [cand, base] = await Promise.all([load(candidateDir), load(baselineDir)]);
const engines = {
  candidate: await cand.createEngine({ simd: SIMD }),
  baseline: await base.createEngine({ simd: SIMD }),
};
const OPTS = { workHash: false };
const OPH = { mode: 'oph', k: 128 };

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
function checkSame(name, a, b) {
  const diff = [];
  if (a.fingerprint !== b.fingerprint) diff.push('fingerprint');
  if (a.token_count !== b.token_count) diff.push('token_count');
  for (const k of ['hashes', 'starts', 'ends']) if (!same(a.shingles[k], b.shingles[k])) diff.push(`shingles.${k}`);
  for (const k of ['hashes', 'starts', 'ends', 'positions'])
    if (!same(a.winnow[k], b.winnow[k])) diff.push(`winnow.${k}`);
  if (!same(a.minhash, b.minhash)) diff.push('minhash');
  if (a.simhash !== b.simhash) diff.push('simhash');
  if (diff.length > 0) throw new Error(`${name}: the builds differ in ${diff.join(', ')}`);
}

/** Process CPU (and wall time) of one call of `fn` on `engine`, after a gc(). */
async function timed(fn, engine) {
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn(engine);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000, wall };
}

const round = (x, d = 2) => +x.toFixed(d);

/** Alternating rounds of `fn` on the two builds: medians, MB/s of `bytes`, and the median of per-round ratios. */
async function compare(fn, bytes) {
  const runs = { candidate: [], baseline: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['candidate', 'baseline'] : ['baseline', 'candidate'];
    for (const who of order) runs[who].push(await timed(fn, engines[who]));
  }
  const ratios = runs.baseline.map((b, i) => b.cpu / runs.candidate[i].cpu);
  const row = {};
  for (const who of ['baseline', 'candidate']) {
    const cpu = median(runs[who].map((x) => x.cpu));
    row[who] = {
      cpu_ms_p50: round(cpu),
      cpu_ms_min: round(Math.min(...runs[who].map((x) => x.cpu))),
      wall_ms_p50: round(median(runs[who].map((x) => x.wall))),
      mb_per_s_cpu: round(bytes / 1e3 / cpu, 1),
    };
  }
  row.speedup = {
    median: round(median(ratios), 3),
    min: round(Math.min(...ratios), 3),
    max: round(Math.max(...ratios), 3),
  };
  return row;
}

// What is timed on each corpus: the whole call; the tokenizer with the shingles (shingleHashes: encoding, region
// search, normaliser, tokens, shingle hashes — no spans, sketches or copies of them); OPH MinHash (k = 128) of the
// text's shingle hashes.
const results = {};
for (const [name, text] of Object.entries(corpora)) {
  const bytes = Buffer.byteLength(text);
  const a = await engines.candidate.fingerprint(text, OPTS);
  checkSame(name, a, await engines.baseline.fingerprint(text, OPTS));
  const hashes = a.shingles.hashes;
  if (!same(engines.candidate.minhash(hashes, OPH), engines.baseline.minhash(hashes, OPH)))
    throw new Error(`${name}: minhash differs`);
  const row = { bytes, tokens: a.token_count, shingles: hashes.length };
  row.fingerprint = await compare((e) => e.fingerprint(text, OPTS), bytes);
  row.tokenize_shingles = await compare((e) => e.shingleHashes(text), bytes);
  row.minhash_oph = await compare((e) => e.minhash(hashes, OPH), bytes);
  results[name] = row;
  for (const k of ['fingerprint', 'tokenize_shingles', 'minhash_oph']) {
    const r = row[k];
    console.log(
      `${name.padEnd(9)} ${k.padEnd(18)} ${(bytes / 1e6).toFixed(1)} MB  ${r.baseline.cpu_ms_p50} → ${r.candidate.cpu_ms_p50} ms CPU ` +
        `(${r.baseline.mb_per_s_cpu} → ${r.candidate.mb_per_s_cpu} MB/s)  ×${r.speedup.median} [${r.speedup.min}–${r.speedup.max}]`,
    );
  }
}

if (WRITE) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const out = {
    what: 'fingerprint() with workHash: false, shingleHashes() and minhash() of its shingles: this build vs a baseline build, alternating, process CPU per call',
    node: process.version,
    cpu: cpus()[0]?.model,
    simd: SIMD,
    rounds: ROUNDS,
    date: new Date().toISOString(),
    core: { candidate: cand.CORE_BUILDS, baseline: base.CORE_BUILDS },
    results,
  };
  const file = new URL(`results/kernels${SIMD === false ? '-scalar' : ''}.json`, import.meta.url);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}
