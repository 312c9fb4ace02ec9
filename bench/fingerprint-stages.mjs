// The core's stages of a word fingerprint one by one, this build against a baseline build in one process, alternating
// which runs first each round: UTF-8 encoding into the core, the region search (findRegions), the tokenizer with the
// normaliser (tokenizeRegions: nfkcTokens on each region), shingles, the content id (two XXH64 passes; with the shingles
// as one stage, "shingles", in builds that take them in one pass: shingleTokensAndId), winnowing, OPH
// MinHash (k = 128), SimHash (both as one stage, "oph", in builds that take them in one pass: ophSimhash; the three as
// one stage, "winnow", in builds that take them in one pass of pieces: winnowOphSimhash) and the
// winnowed postings — the raw exports in the order fingerprintCore calls them, with
// the default options, on the corpora of bench/fingerprint-whole.mjs (10 MB each). Time is on-core: wall time less the
// thread's run-queue wait (/proc/thread-self/schedstat, field 2; plain wall time where that file is missing), so a
// loaded machine's waits stay out of a stage of a few milliseconds. Medians of the rounds. No JavaScript around the
// calls (no copies out, no SHA-256); beside them, the whole default `fingerprint()` in the same process, by process CPU
// (every thread: SHA-256 on the thread pool included), gc() before each call (what a fresh process and the steady
// state of a caller's pattern cost is bench/fingerprint-whole.mjs's). The two builds' fingerprints (id, counts, every
// column) are compared on each corpus first; a stage that changed one output stops it.
//
//   node --expose-gc bench/fingerprint-stages.mjs --baseline <dist of another build> [--rounds 7] [--corpora en,ja]
//     [--write] [--out fingerprint-stages.json]
//
// It reads the engine's core (`engine.core`, not a public API) to call the stages one at a time.
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { abBuilds, arg, onCore } from './ab-builds.mjs';
import { CORPORA } from './fingerprint-whole.mjs';
import { median, round } from './stats.mjs';

const builds = abBuilds('node --expose-gc bench/fingerprint-stages.mjs --baseline <dist> [--rounds N] [--write]');
const ROUNDS = Number(arg('rounds', '7'));

const engines = [];
for (const [name, dir] of builds) {
  const m = await import(pathToFileURL(join(dir, 'fingerprint.js')).href);
  const engine = await m.createEngine();
  await engine.fingerprint('日本語 тест é'); // the normaliser's tables into the core
  engines.push({ name, engine, normalize: m.normalize });
}

/**
 * Winnowing (8) and the sketches (OPH at k = 128, SimHash) of the `m` shingle hashes at `spare` as the build takes
 * them, each stage's on-core ms into `t`: in one pass of pieces ("winnow"; OPH and SimHash 0), both sketches in one
 * pass ("oph"; SimHash 0), or each apart. Returns how many were selected.
 */
function winnowAndSketches(raw, spare, m, winPtr, sigPtr, t) {
  let t0 = onCore();
  if (raw.winnowOphSimhash) {
    const w = raw.winnowOphSimhash(spare, m, 8, winPtr, 0n, sigPtr);
    t.winnow = onCore() - t0;
    t.oph = 0;
    t.simhash = 0;
    return w;
  }
  const w = raw.winnow(spare, m, 8, winPtr);
  t.winnow = onCore() - t0;
  t0 = onCore();
  if (raw.ophSimhash) {
    raw.ophSimhash(spare, m, 128, 0n, sigPtr);
    t.oph = onCore() - t0;
    t.simhash = 0;
    return w;
  }
  raw.minhashOph(spare, m, 128, 0n, sigPtr);
  t.oph = onCore() - t0;
  t0 = onCore();
  raw.simhash64(spare, m);
  t.simhash = onCore() - t0;
  return w;
}

/** One fingerprint's stages on `e`, each timed (ms on-core), with the token and region counts. */
function stages({ engine, normalize }, text) {
  const core = engine.core;
  const raw = core.raw;
  const L = core.layout();
  const t = {};
  let t0 = onCore();
  const cap = text.length * 3;
  const inPtr = L.take(cap);
  L.commit();
  const len = core.writeUtf8(text, inPtr, cap);
  t.encode = onCore() - t0;
  const regCap = Math.min((len >>> 1) + 1, 1024 + (len >>> 5));
  const regPtr = L.take(regCap * 32);
  L.commit();
  t0 = onCore();
  const nReg = raw.findRegions(inPtr, len, regPtr, regCap);
  t.regions = onCore() - t0;
  if (nReg > regCap) throw new Error('more regions than the room given');
  const tokCap = (len >>> 1) + 2 * nReg + 2;
  const [sP, eP, hP, spare, fP] = [tokCap * 4, tokCap * 4, tokCap * 8, tokCap * 8, Math.max(nReg, 1) * 8].map((b) =>
    L.take(b),
  );
  L.commit();
  t0 = onCore();
  let n = -1;
  let from = 0;
  let n0 = 0;
  while (n < 0) {
    // builds with the ASCII hash paths tokenise a text without regions as one stretch; those before, by tokenize
    n =
      nReg === 0 && !raw.xxh64Pair
        ? raw.tokenize(inPtr, len, 0n, sP, eP, hP)
        : raw.tokenizeRegions(inPtr, len, 0n, regPtr, nReg, sP, eP, hP, fP, from, n0);
    if (n < 0) {
      // a region the core hands back (a U+FFFD in the text): marked as checked (record word [6]: the bench's texts
      // hold no lone surrogate) and tokenised by the core again, as src/fingerprint/words.ts does, or, from a build
      // that hands it back again, normalised here
      from = raw.failedRegion();
      n0 = core.u32(fP + from * 8, 1)[0];
      const rec = core.u32(regPtr + from * 32, 8);
      if (rec[6] === 0 && text.slice(rec[2], rec[3]).includes('\ufffd')) {
        rec[6] = 1;
        continue;
      }
      const folded = normalize(text.slice(rec[2], rec[3])).text;
      const at = L.take(folded.length * 3 + 16);
      L.commit();
      const written = core.writeUtf8(folded, at, folded.length * 3);
      const again = core.u32(regPtr + from * 32, 8);
      again[4] = at;
      again[5] = written;
    }
  }
  t.tokens = onCore() - t0;
  const idPtr = L.take(16);
  L.commit();
  t0 = onCore();
  // builds with the shingles and the content id in one pass (shingleTokensAndId) time both as shingles: id 0 there
  const m = raw.shingleTokensAndId
    ? raw.shingleTokensAndId(hP, n, 5, 0n, spare, 0x7470_0001n, 0x7470_0002n, idPtr)
    : raw.shingleTokens(hP, n, 5, 0n, spare);
  t.shingles = onCore() - t0;
  t0 = onCore();
  // both halves of the id in one pass where the build has xxh64Pair, else two
  if (raw.shingleTokensAndId) t.id = 0;
  else if (raw.xxh64Pair) raw.xxh64Pair(hP, n * 8, 0x7470_0001n, 0x7470_0002n);
  else {
    raw.xxh64(hP, n * 8, 0x7470_0001n);
    raw.xxh64(hP, n * 8, 0x7470_0002n);
  }
  if (!raw.shingleTokensAndId) t.id = onCore() - t0;
  const winPtr = L.take(Math.max(m, 1) * 4);
  const sigPtr = L.take(128 * 4);
  L.commit();
  const w = winnowAndSketches(raw, spare, m, winPtr, sigPtr, t);
  const at = L.take(w * 16);
  L.commit();
  t0 = onCore();
  raw.winnowPostings(spare, winPtr, w, 5, n, sP, eP, at, at + w * 8, at + w * 12);
  t.postings = onCore() - t0;
  return { t, tokens: n, regions: nReg };
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

const results = {};
for (const corpus of arg('corpora')?.split(',') ?? Object.keys(CORPORA)) {
  const text = CORPORA[corpus](10_000_000);
  const bytes = Buffer.byteLength(text);
  const [a, b] = await Promise.all(engines.map(({ engine }) => engine.fingerprint(text, { workHash: false })));
  const differ =
    a.fingerprint !== b.fingerprint ||
    a.simhash !== b.simhash ||
    !same(a.minhash, b.minhash) ||
    ['hashes', 'starts', 'ends'].some((k) => !same(a.shingles[k], b.shingles[k])) ||
    ['hashes', 'starts', 'ends', 'positions'].some((k) => !same(a.winnow[k], b.winnow[k]));
  if (differ) throw new Error(`${corpus}: the builds' fingerprints differ`);
  const runs = engines.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < engines.length; j++) {
      const i = r % 2 ? engines.length - 1 - j : j;
      globalThis.gc?.();
      runs[i].push(stages(engines[i], text));
    }
  }
  // the whole default call beside the stages: process CPU (every thread: SHA-256 on the pool included), gc() first
  const whole = engines.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < engines.length; j++) {
      const i = r % 2 ? engines.length - 1 - j : j;
      globalThis.gc?.();
      const c0 = process.cpuUsage();
      await engines[i].engine.fingerprint(text);
      const c = process.cpuUsage(c0);
      whole[i].push((c.user + c.system) / 1000);
    }
  }
  results[corpus] = { bytes };
  engines.forEach(({ name }, i) => {
    const keys = Object.keys(runs[i][0].t);
    const ms = Object.fromEntries(keys.map((k) => [k, round(median(runs[i].map((x) => x.t[k])), 2)]));
    const total = median(runs[i].map((x) => keys.reduce((s, k) => s + x.t[k], 0)));
    results[corpus][name] = {
      tokens: runs[i][0].tokens,
      regions: runs[i][0].regions,
      ms_on_core: ms,
      total_ms: round(total, 2),
      mb_per_s: round(bytes / 1e3 / total, 1),
      whole_call_cpu_ms: round(median(whole[i]), 2),
      whole_call_mb_per_s_cpu: round(bytes / 1e3 / median(whole[i]), 1),
    };
    console.log(
      `${corpus.padEnd(9)} ${name.padEnd(9)} ${keys.map((k) => `${k} ${ms[k]}`).join('  ')} | ${round(total, 1)} ms = ${round(bytes / 1e3 / total, 1)} MB/s | whole call ${round(bytes / 1e3 / median(whole[i]), 1)} MB/s of CPU`,
    );
  });
}

if (process.argv.includes('--write')) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const file = new URL(`results/${arg('out', 'fingerprint-stages.json')}`, import.meta.url);
  const out = {
    what: "the core's stages of a word fingerprint, ms on-core (wall less run-queue wait), medians of alternating rounds",
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    rounds: ROUNDS,
    builds,
    results,
  };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}
