// Where a whole default `fingerprint()` of 10 MB spends its time, the core's stages and everything around them, in a
// fresh process as bench/fingerprint-whole.mjs's fresh protocol makes one: the engine, a 100 kB warm-up, then calls of
// the 10 MB text, each result kept until the next returns. Each call is the default word fingerprint's path, step by
// step as src/fingerprint/fingerprint.ts takes it (the layout's takes and the core's growth, the string's UTF-8 into
// the core, the SHA-256 of `work_hash`, the stages, the copies out, the content id's hex, the result object), each
// step timed on-core (wall less run-queue wait, bench/ab-builds.mjs) with its minor page faults; the collector's
// pauses inside the call (PerformanceObserver 'gc') beside them. The whole call, `engine.fingerprint(text)`, is timed
// the same way in the same process, alternating with the steps, so the gap between the two is what the steps leave
// out. Call 1 is the core's first growth; calls 2 and 3 are what the fresh protocol's best of 3 is made of; calls 4..N
// the steady state. The step-by-step call's fingerprint is compared with the whole call's (id, counts, every column).
//
//   node --expose-gc bench/fingerprint-outside.mjs [--dist dist] [--baseline <dist of another build>] [--corpora en,ja]
//     [--processes 5] [--calls 9] [--gc-each] [--apart] [--write] [--out fingerprint-outside.json]
//
// --gc-each: a full collection (`gc()`) before each call, outside its time, so that each call starts from a collected
// heap (what the steady state looks like after a collection of the previous results).
//
// --apart: winnowing and the sketches as two passes (`winnow`, then `ophSimhash`) in a build whose library takes them
// in one pass of pieces (`winnowOphSimhash`), so that the steps show each apart, beside the whole call that does not.
//
// With --baseline the two builds' processes alternate (which goes first, too), so both tables come from one run.
//
// It reads the engine's core (`engine.core`, not a public API) and lays out memory as the library does.
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { arg, onCore } from './ab-builds.mjs';
import { CORPORA } from './fingerprint-whole.mjs';
import { median, round } from './stats.mjs';

const SIZE = 10_000_000;
const WARM = 100_000;
const faults = () => process.resourceUsage().minorPageFault;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The collector's pauses (ms) that end inside [from, to] of performance.now(). */
const gcPauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push([e.startTime, e.duration]);
}).observe({ entryTypes: ['gc'] });
const gcWithin = (from, to) => gcPauses.filter(([s]) => s >= from && s <= to).reduce((a, [, d]) => a + d, 0);

/** --apart (the children get it as `--apart 1`): winnowing and the sketches stepped as two passes. */
const APART = arg('child') ? arg('apart') === '1' : process.argv.includes('--apart');

const hex64 = (v) => BigInt.asUintN(64, v).toString(16).padStart(16, '0');

/**
 * One default word fingerprint of `text`, step by step as fingerprintCore takes it; returns it with each step's
 * on-core ms and faults.
 */
function stepwise(engine, normalize, text) {
  const core = engine.core;
  const raw = core.raw;
  const steps = {};
  let t0 = 0;
  let f0 = 0;
  const start = () => {
    f0 = faults();
    t0 = onCore();
  };
  const stop = (name) => {
    const t = onCore() - t0;
    const f = faults() - f0;
    const s = (steps[name] ??= { ms: 0, faults: 0 });
    s.ms += t;
    s.faults += f;
  };
  start();
  const L = core.layout();
  const cap = text.length * 3;
  const inPtr = L.take(cap);
  L.commit();
  stop('layout and growth');
  start();
  const len = core.writeUtf8(text, inPtr, cap);
  stop('UTF-8 into the core');
  start();
  const workHash = createHash('sha256')
    .update(core.u8.subarray(inPtr, inPtr + len))
    .digest('hex');
  stop('SHA-256 (work_hash)');
  start();
  const regCap = Math.min((len >>> 1) + 1, 1024 + (len >>> 5));
  const regPtr = len === text.length ? 0 : L.take(regCap * 32);
  L.commit();
  stop('layout and growth');
  start();
  const nReg = len === text.length ? 0 : raw.findRegions(inPtr, len, regPtr, regCap);
  stop('stage: region search');
  if (nReg > regCap) throw new Error('more regions than the room given');
  start();
  let tokCap = (len >>> 1) + 2 * nReg + 2;
  const take = () => {
    const p = [tokCap * 4, tokCap * 4, tokCap * 8, tokCap * 8, Math.max(nReg, 1) * 8].map((b) => L.take(b));
    L.commit();
    return p;
  };
  let [sP, eP, hP, spare, fP] = take();
  stop('layout and growth');
  let n = -1;
  let from = 0;
  let n0 = 0;
  const fixes = [];
  while (n < 0) {
    start();
    n = raw.tokenizeRegions(inPtr, len, 0n, regPtr, nReg, sP, eP, hP, fP, from, n0);
    stop('stage: tokenizer');
    if (n < 0) {
      // a region the core hands back (U+FFFD): marked as checked (record word [6]; the corpora hold no lone surrogate)
      // and tokenised by the core again, as src/fingerprint/words.ts does, or, from a build that hands it back again,
      // normalised in JavaScript
      start();
      from = raw.failedRegion();
      n0 = core.u32(fP + from * 8, 1)[0];
      const rec = core.u32(regPtr + from * 32, 8);
      if (rec[6] === 0 && text.slice(rec[2], rec[3]).includes('\ufffd')) {
        rec[6] = 1;
        stop('regions handed back: U+FFFD checked here');
        continue;
      }
      const [rawFrom, rawTo, base, end] = rec; // (the view dies with the growth below)
      const folded = normalize(text.slice(base, end));
      const at = L.take(folded.text.length * 3 + 16);
      L.commit();
      const written = core.writeUtf8(folded.text, at, folded.text.length * 3);
      const again = core.u32(regPtr + from * 32, 8);
      again[4] = at;
      again[5] = written;
      fixes.push({ r: from, base, map: folded.map });
      const more = Math.max(0, (written >>> 1) - ((rawTo - rawFrom) >>> 1));
      if (more > 0) {
        tokCap += more;
        [sP, eP, hP, spare, fP] = take();
        from = 0;
        n0 = 0;
      }
      stop('regions normalised in JavaScript');
    }
  }
  start();
  // the shingle hashes in the input's room when they fit, as the library lays them out; with the content id in one
  // pass where the build has shingleTokensAndId
  const shP = n * 8 <= cap ? inPtr : spare;
  let m;
  let idA;
  let idB;
  if (raw.shingleTokensAndId) {
    const idPtr = L.take(16);
    L.commit();
    m = raw.shingleTokensAndId(hP, n, 5, 0n, shP, 0x7470_0001n, 0x7470_0002n, idPtr);
    [idA, idB] = core.u64(idPtr, 2);
    stop('stage: shingles and the content id');
  } else {
    m = raw.shingleTokens(hP, n, 5, 0n, shP);
    stop('stage: shingles and the content id');
    start();
    idA = raw.xxh64Pair(hP, n * 8, 0x7470_0001n, 0x7470_0002n);
    idB = raw.xxh64PairSecond();
    stop('stage: shingles and the content id');
  }
  const winPtr = hP; // the token hashes' room, as the library lays it out
  let w;
  let sigPtr;
  let simhash;
  if (raw.winnowOphSimhash && !APART) {
    // winnowing and the sketches in one pass of pieces, as the library takes them in builds that have it
    start();
    sigPtr = L.take(128 * 4);
    L.commit();
    stop('layout and growth');
    start();
    w = raw.winnowOphSimhash(shP, m, 8, winPtr, 0n, sigPtr);
    simhash = BigInt.asUintN(64, raw.ophSimhashSecond());
    stop('stage: winnowing, OPH MinHash and SimHash');
  } else {
    start();
    w = raw.winnow(shP, m, 8, winPtr);
    stop('stage: winnowing');
    start();
    sigPtr = L.take(128 * 4);
    L.commit();
    stop('layout and growth');
    start();
    if (raw.ophSimhash) {
      raw.ophSimhash(shP, m, 128, 0n, sigPtr);
      simhash = BigInt.asUintN(64, raw.ophSimhashSecond());
    } else {
      raw.minhashOph(shP, m, 128, 0n, sigPtr);
      simhash = BigInt.asUintN(64, raw.simhash64(shP, m));
    }
    stop('stage: OPH MinHash and SimHash');
  }
  start();
  const minhash = core.u32(sigPtr, 128).slice();
  stop('copies out');
  start();
  const after = (winPtr + Math.max(n, 1) * 4 + 15) & ~15;
  const at = after + w * 16 <= hP + tokCap * 8 ? after : L.take(w * 16);
  L.commit();
  stop('layout and growth');
  start();
  raw.winnowPostings(shP, winPtr, w, 5, n, sP, eP, at, at + w * 8, at + w * 12);
  stop('stage: postings');
  start();
  const positions = core.u32(winPtr, w);
  const starts = core.u32(at + w * 8, w);
  const ends = core.u32(at + w * 12, w);
  const firsts = core.u32(fP, Math.max(nReg, 1) * 2);
  for (const f of fixes) {
    const first = firsts[2 * f.r];
    const last = firsts[2 * f.r + 1];
    // from the first posting that can reach the region (positions are sorted), as the library's binary search does
    let i = 0;
    for (let lo = 0, hi = w, key = Math.max(0, first - 4); lo < hi; ) {
      const mid = (lo + hi) >>> 1;
      if (positions[mid] < key) lo = mid + 1;
      else hi = mid;
      i = lo;
    }
    for (; i < w && positions[i] < last; i++) {
      const p = positions[i];
      const q = Math.min(p + 4, n - 1);
      if (p >= first && p < last) starts[i] = f.base + f.map[starts[i]];
      if (q >= first && q < last) ends[i] = f.base + f.map[ends[i]];
    }
  }
  stop('regions normalised in JavaScript');
  start();
  const winnow = {
    hashes: core.u64(at, w).slice(),
    starts: starts.slice(),
    ends: ends.slice(),
    positions: positions.slice(),
  };
  stop('copies out');
  start();
  const fp = {
    version: 1,
    fingerprint: `tp1:${hex64(idA)}${hex64(idB)}`,
    byte_length: len,
    token_count: n,
    shingles: { count: m },
    winnow,
    minhash,
    simhash,
    work_hash: `sha256:${workHash}`,
  };
  stop('id hex and the result object');
  return { fp, steps };
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

async function child(dist, corpus, calls, firstOdd, gcEach) {
  const text = CORPORA[corpus](SIZE);
  const m = await import(pathToFileURL(join(dist, 'index.js')).href);
  const { normalize } = await import(pathToFileURL(join(dist, 'fingerprint.js')).href);
  const engine = await m.createEngine();
  // the normaliser's tables into the core first, as a first text with regions does (the step-by-step call does not)
  await engine.fingerprint('日本語 тест é');
  let kept = await engine.fingerprint(text.slice(0, WARM));
  const out = [];
  for (let i = 0; i < calls; i++) {
    // the two ways alternate which goes first; each result is kept until the next of its kind returns
    const order = (i + firstOdd) % 2 ? ['whole', 'steps'] : ['steps', 'whole'];
    const row = { call: i + 1, first: order[0] };
    for (const way of order) {
      if (gcEach) globalThis.gc();
      const f0 = faults();
      const c0 = cpuMs();
      const w0 = performance.now();
      const t0 = onCore();
      if (way === 'whole') {
        const fp = await engine.fingerprint(text);
        row.whole = { ms: onCore() - t0, cpu_ms: cpuMs() - c0, faults: faults() - f0, window: [w0, performance.now()] };
        kept = [fp, kept?.[1]];
      } else {
        const r = stepwise(engine, normalize, text);
        row.steps = { ms: onCore() - t0, cpu_ms: cpuMs() - c0, faults: faults() - f0, window: [w0, performance.now()] };
        row.steps.each = r.steps;
        kept = [kept?.[0], r.fp];
      }
    }
    const [a, b] = kept;
    if (
      a.fingerprint !== b.fingerprint ||
      a.work_hash !== b.work_hash ||
      a.simhash !== b.simhash ||
      a.byte_length !== b.byte_length ||
      a.token_count !== b.token_count ||
      !same(a.minhash, b.minhash) ||
      ['hashes', 'starts', 'ends', 'positions'].some((k) => !same(a.winnow[k], b.winnow[k]))
    )
      throw new Error(
        `${corpus}: the step-by-step fingerprint differs from the whole call's: ${JSON.stringify([a.fingerprint, b.fingerprint, a.work_hash, b.work_hash, a.byte_length, b.byte_length, a.token_count, b.token_count, String(a.simhash), String(b.simhash), same(a.minhash, b.minhash), ...['hashes', 'starts', 'ends', 'positions'].map((k) => same(a.winnow[k], b.winnow[k]))])}`,
      );
    out.push(row);
  }
  // the observer's entries arrive after the calls: each call's pauses are counted once they are in
  await new Promise((done) => setTimeout(done, 100));
  for (const row of out) {
    for (const side of [row.whole, row.steps]) {
      side.gc_ms = gcWithin(...side.window);
      delete side.window;
    }
  }
  process.stdout.write(`${JSON.stringify({ bytes: Buffer.byteLength(text), variant: engine.variant, calls: out })}\n`);
}

/** Medians over processes of each step of the calls in `which` (call numbers). */
function table(runs, which) {
  const all = runs.flatMap((r) => r.calls.filter((c) => which.includes(c.call)));
  // a process's first call grows the core: each way's first call counts only where it went first
  const firstOnly = which.length === 1 && which[0] === 1;
  const rowsOf = (side) => (firstOnly ? all.filter((c) => c.first === side) : all);
  const rows = rowsOf('steps');
  const names = [...new Set(rows.flatMap((c) => Object.keys(c.steps.each)))];
  const each = Object.fromEntries(
    names.map((k) => [
      k,
      {
        ms: round(median(rows.map((c) => c.steps.each[k]?.ms ?? 0)), 2),
        faults: Math.round(median(rows.map((c) => c.steps.each[k]?.faults ?? 0))),
      },
    ]),
  );
  const stat = (side, key) => round(median(rowsOf(side === 'whole' ? 'whole' : 'steps').map((c) => c[side][key])), 2);
  return {
    calls: which,
    samples: all.length,
    steps: each,
    steps_sum_ms: round(median(rows.map((c) => Object.values(c.steps.each).reduce((s, x) => s + x.ms, 0))), 2),
    stepwise_call: {
      ms: stat('steps', 'ms'),
      cpu_ms: stat('steps', 'cpu_ms'),
      faults: stat('steps', 'faults'),
      gc_ms: stat('steps', 'gc_ms'),
    },
    whole_call: {
      ms: stat('whole', 'ms'),
      cpu_ms: stat('whole', 'cpu_ms'),
      faults: stat('whole', 'faults'),
      gc_ms: stat('whole', 'gc_ms'),
    },
  };
}

const self = fileURLToPath(import.meta.url);
if (arg('child')) {
  await child(resolve(arg('dist')), arg('corpus'), Number(arg('calls')), Number(arg('order')), arg('gc-each') === '1');
} else if (process.argv[1] && resolve(process.argv[1]) === self) {
  const builds = [['this', resolve(arg('dist', new URL('../dist', import.meta.url).pathname))]];
  if (arg('baseline')) builds.push(['baseline', resolve(arg('baseline'))]);
  const processes = Number(arg('processes', '5'));
  const calls = Number(arg('calls', '9'));
  const gcEach = process.argv.includes('--gc-each');
  const load = [loadavg()[0]];
  const results = {};
  for (const corpus of arg('corpora', 'en,ja').split(',')) {
    const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
    for (let p = 0; p < processes; p++) {
      // the builds alternate which goes first
      for (const [name, dist] of p % 2 ? [...builds].reverse() : builds) {
        const r = spawnSync(
          process.execPath,
          [
            ...['--expose-gc', self, '--child', '1', '--dist', dist, '--corpus', corpus],
            ...['--calls', String(calls), '--order', String(p % 2), '--gc-each', gcEach ? '1' : '0'],
            ...['--apart', APART ? '1' : '0'],
          ],
          { encoding: 'utf8', maxBuffer: 1 << 26 },
        );
        if (r.status !== 0) throw new Error(`child ${corpus} (${dist}) failed: ${r.stderr}`);
        runs[name].push(JSON.parse(r.stdout.trim().split('\n').pop()));
      }
    }
    const steady = Array.from({ length: calls - 3 }, (_, i) => i + 4);
    results[corpus] = {};
    for (const [name] of builds) {
      results[corpus][name] = {
        bytes: runs[name][0].bytes,
        first: table(runs[name], [1]),
        fresh: table(runs[name], [2, 3]),
        steady: table(runs[name], steady),
        raw: runs[name].map((r) => r.calls),
      };
      for (const k of ['first', 'fresh', 'steady']) {
        const t = results[corpus][name][k];
        console.log(
          `${corpus} ${name} ${k} (calls ${t.calls.join(',')}): whole ${t.whole_call.ms} ms on-core, ${t.whole_call.cpu_ms} CPU, ${t.whole_call.faults} faults, gc ${t.whole_call.gc_ms} | stepwise ${t.stepwise_call.ms} (steps ${t.steps_sum_ms}), gc ${t.stepwise_call.gc_ms}`,
        );
        for (const [step, x] of Object.entries(t.steps))
          console.log(`   ${String(x.ms).padStart(7)} ms ${String(x.faults).padStart(6)} faults  ${step}`);
      }
    }
  }
  load.push(loadavg()[0]);
  console.log(`load average ${load.map((x) => x.toFixed(1)).join(' → ')}`);
  if (process.argv.includes('--write')) {
    mkdirSync(new URL('results/', import.meta.url), { recursive: true });
    const file = new URL(`results/${arg('out', 'fingerprint-outside.json')}`, import.meta.url);
    const out = {
      what: 'a whole default fingerprint() of 10 MB step by step, on-core ms and minor faults, beside the whole call',
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      load_average: load,
      builds,
      processes,
      calls,
      gc_each: gcEach,
      results,
    };
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${file.pathname}`);
  }
}
