// The core's kernels in place: the whole word fingerprint (`fingerprint()` with `workHash: false`, so SHA-256 on the
// thread pool stays out of the figures) of this build against a baseline build of the package, in one process,
// alternating which runs first each round, on English, Chinese, Japanese, Cyrillic and mixed-script text.
// Every figure is a ratio to the baseline in the same run (median of the per-round ratios, with their range), and the
// two builds' outputs are compared on every corpus first (fingerprint id, token count, shingles, winnowed postings,
// MinHash, SimHash): a kernel that changed one output byte stops the bench.
//
//   node --expose-gc bench/kernels.mjs --baseline <a built checkout's dist/ of the previous kernels> [--rounds 7]
//     [--mb 4] [--simd false] [--candidate <dist>] [--write]
//
// Corpora (bench/corpus.mjs; the English from ../shared/data): English 10 MB of real text; Chinese and Japanese:
// the prose lines of the Vim tutor translations (zh_cn + zh_tw, ja) with their ASCII removed, so the text runs on
// without spaces as Chinese and Japanese prose does; Cyrillic: the Russian and Bulgarian tutors; mixed: the six
// European tutors (Cyrillic, Greek, Latin with diacritics). Time is process CPU (user + system) per call, beside wall
// time; gc() runs before every call so no call pays for another's garbage.
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { english, mixed } from './corpus.mjs';

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

async function timed(engine, text) {
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const fp = await engine.fingerprint(text, OPTS);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000, wall, tokens: fp.token_count };
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const results = {};
for (const [name, text] of Object.entries(corpora)) {
  const bytes = Buffer.byteLength(text);
  checkSame(name, await engines.candidate.fingerprint(text, OPTS), await engines.baseline.fingerprint(text, OPTS));
  const runs = { candidate: [], baseline: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['candidate', 'baseline'] : ['baseline', 'candidate'];
    for (const who of order) runs[who].push(await timed(engines[who], text));
  }
  const ratios = runs.baseline.map((b, i) => b.cpu / runs.candidate[i].cpu);
  const row = { bytes, tokens: runs.candidate[0].tokens };
  for (const who of ['baseline', 'candidate']) {
    const cpu = median(runs[who].map((x) => x.cpu));
    row[who] = {
      cpu_ms_p50: +cpu.toFixed(2),
      cpu_ms_min: +Math.min(...runs[who].map((x) => x.cpu)).toFixed(2),
      wall_ms_p50: +median(runs[who].map((x) => x.wall)).toFixed(2),
      mb_per_s_cpu: +(bytes / 1e3 / cpu).toFixed(1),
    };
  }
  row.speedup = {
    median: +median(ratios).toFixed(3),
    min: +Math.min(...ratios).toFixed(3),
    max: +Math.max(...ratios).toFixed(3),
  };
  results[name] = row;
  console.log(
    `${name.padEnd(9)} ${(bytes / 1e6).toFixed(1)} MB  baseline ${row.baseline.mb_per_s_cpu} MB/s → ` +
      `${row.candidate.mb_per_s_cpu} MB/s (CPU p50)  ×${row.speedup.median} [${row.speedup.min}–${row.speedup.max}]`,
  );
}

if (WRITE) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const out = {
    what: 'fingerprint() with workHash: false, this build vs a baseline build, alternating, process CPU per call',
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
