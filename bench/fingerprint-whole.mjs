// The whole default `fingerprint()` as a caller meets it, beside the xxhash-wasm peer, in whole processes
// (run by bench/fingerprint.mjs; see the command there). Three protocols, each with its page faults:
//   fresh   a child process per measurement: the engine, a 100 kB warm-up, then 3 calls of the 10 MB text (best
//           of 3; each result kept until the next call returns, as a caller's variable is), then the peer in the
//           same process (100 kB warm-up, best of 2). Per call: wall time, process CPU (process.cpuUsage: user +
//           system, every thread) and minor page faults (process.resourceUsage().minorPageFault). What a fresh
//           process sees: the core's first growth, results landing on fresh pages. Last, the guest's cost of a
//           page fault: 32 MiB of fresh pages touched a byte a page (faultCost), so that each call's CPU can also be
//           read less its faults (`ours_mb_s_cpu_less_faults`): what the code costs where a first touch is cheap.
//   steady  one child per corpus and build: 2 warm calls, then 7 rounds of ours and the peer alternately (no gc()):
//           medians and bests per call. `steady-collected` (a child of bench/fingerprint-steady.mjs --baseline-collect):
//           the same with gc() before each timed call, untimed.
//   cli     `trainprint fingerprint FILE` of the 10 MB English and `trainprint scan` of the same bytes (as 1 kB JSONL
//           outputs against a small archive), whole processes under GNU time: CPU (user + system), minor faults,
//           max RSS, wall.
// Corpora, 10 MB each: English from ../shared/data (bench/corpus.mjs), Japanese and Chinese prose
// (bench/corpus/prose.*.utf-8, see SOURCE.md), Cyrillic (the Russian and Bulgarian Vim tutors) and mixed scripts
// (bench/corpus.mjs mixed()), each repeated to size. With a baseline build every child alternates builds in the same
// run, so before → after are ratios on one machine at one load.
import './help.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { english, mixed } from './corpus.mjs';
import { faultCost } from './fault-cost.mjs';
import { median, medianRatio, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const SIZE = 10_000_000;
const WARM = 100_000;

const repeatTo = (text, bytes) => {
  const parts = [];
  for (let have = 0; have < bytes; have += Buffer.byteLength(text) + 1) parts.push(text);
  return Buffer.from(parts.join('\n'))
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
};
const corpusFile = (name) => readFileSync(join(here, 'corpus', name), 'utf8');

/** The corpora by name: a function giving about `bytes` UTF-8 bytes of each. */
export const CORPORA = {
  en: (bytes) => english(bytes),
  ja: (bytes) => repeatTo(corpusFile('prose.ja.utf-8'), bytes),
  zh: (bytes) => repeatTo(corpusFile('prose.zh.utf-8'), bytes),
  cyrillic: (bytes) => repeatTo(`${corpusFile('tutor.ru.utf-8')}\n${corpusFile('tutor.bg.utf-8')}`, bytes),
  mixed: (bytes) => repeatTo(mixed(Math.min(bytes, 2_000_000)), bytes),
};

// ---------------------------------------------------------------- the child: one process, one build, one corpus
const now = () => performance.now();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const faults = () => process.resourceUsage().minorPageFault;

/** One call of `fn`, measured: wall, process CPU and minor faults. */
async function timedCall(fn) {
  const f0 = faults(),
    c0 = cpuMs(),
    t0 = now();
  const out = await fn();
  return { out, wall_ms: now() - t0, cpu_ms: cpuMs() - c0, faults: faults() - f0 };
}

/** The peer: what a fresh-process benchmark compares with (lower-case, \p{L}\p{N} words, 5-word strings, XXH64). */
async function makePeer() {
  const req = createRequire(import.meta.url);
  const xx = await req('xxhash-wasm')();
  const WORD = /[\p{L}\p{N}]+/gu;
  return (text) => {
    const ws = text.toLowerCase().match(WORD) ?? [];
    const out = new BigUint64Array(Math.max(0, ws.length - 4));
    for (let i = 0; i + 5 <= ws.length; i++)
      out[i] = xx.h64(`${ws[i]} ${ws[i + 1]} ${ws[i + 2]} ${ws[i + 3]} ${ws[i + 4]}`);
    return out;
  };
}

async function child(mode, dist, corpus, withPeer) {
  const text = CORPORA[corpus](SIZE);
  const warm = text.slice(0, WARM);
  const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const peer = await makePeer();
  const engine = await createEngine();
  const stats = (r) => ({ wall_ms: r.wall_ms, cpu_ms: r.cpu_ms, faults: r.faults });
  if (mode === 'reserved') {
    // the fresh protocol on an engine whose core was grown and mapped first (reserveMemory), ours only
    const reserve = await timedCall(() => engine.reserveMemory(Buffer.byteLength(text)));
    let held = await engine.fingerprint(warm);
    const calls = [];
    for (let i = 0; i < 3; i++) {
      const r = await timedCall(() => engine.fingerprint(text));
      held = r.out;
      calls.push(stats(r));
    }
    process.stdout.write(
      `${JSON.stringify({ bytes: Buffer.byteLength(text), id: held.fingerprint, reserve: stats(reserve), calls })}\n`,
    );
    return;
  }
  let kept = await engine.fingerprint(warm);
  const ours = [],
    theirs = [];
  if (mode === 'fresh') {
    for (let i = 0; i < 3; i++) {
      const r = await timedCall(() => engine.fingerprint(text));
      kept = r.out;
      ours.push(stats(r));
    }
    let held = peer(warm);
    for (let i = 0; i < (withPeer ? 2 : 0); i++) {
      const r = await timedCall(() => peer(text));
      held = r.out;
      theirs.push(stats(r));
    }
    if (held.length < 0) throw new Error('unreachable');
  } else {
    for (let i = 0; i < 2; i++) kept = await engine.fingerprint(text);
    let held;
    // steady-collected: the collector run (gc(), untimed) before each timed call, so that the results dropped before it
    // have been freed and their memory can be reused: the steady state less the collector's timing
    const collect = mode === 'steady-collected';
    if (collect && typeof globalThis.gc !== 'function') throw new Error('steady-collected needs node --expose-gc');
    for (let i = 0; i < 7; i++) {
      if (collect) globalThis.gc();
      const a = await timedCall(() => engine.fingerprint(text));
      kept = a.out;
      ours.push(stats(a));
      if (!withPeer) continue;
      const b = await timedCall(() => peer(text));
      held = b.out;
      theirs.push(stats(b));
    }
    if (held && held.length < 0) throw new Error('unreachable');
  }
  const fault_cost = faultCost();
  process.stdout.write(
    `${JSON.stringify({ bytes: Buffer.byteLength(text), id: kept.fingerprint, variant: engine.variant, ours, theirs, fault_cost })}\n`,
  );
}

// ---------------------------------------------------------------- the parent
const min = (xs) => Math.min(...xs);

function runChild(mode, dist, corpus, withPeer = true, env = undefined) {
  const r = spawnSync(
    process.execPath,
    [
      fileURLToPath(import.meta.url),
      '--child',
      mode,
      '--dist',
      dist,
      '--corpus',
      corpus,
      '--peer',
      withPeer ? '1' : '0',
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24, env: env ? { ...process.env, ...env } : process.env },
  );
  if (r.status !== 0) throw new Error(`child ${mode} ${corpus} (${dist}) failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** Summary of one protocol's runs of one build: ours and the peer per call, MB/s and the ratios. */
function summarise(runs, pick) {
  const bytes = runs[0].bytes;
  const per = (side, key) => runs.map((r) => pick(r[side].map((c) => c[key])));
  const ours = { wall_ms: per('ours', 'wall_ms'), cpu_ms: per('ours', 'cpu_ms'), faults: per('ours', 'faults') };
  // each run's call CPU less its faults at that process's cost of a fault (faultCost): the best call's (by CPU, as the
  // figure is picked) for best-of runs, else the pick of every call's; a process's price moves by about a third from
  // one to the next, and the figure less the faults carries that
  const faultUs = runs.map((r) => r.fault_cost?.us_per_fault ?? null);
  const lessFaults = faultUs.every((x) => x !== null)
    ? runs.map((r, i) => {
        const less = r.ours.map((c) => c.cpu_ms - (c.faults * faultUs[i]) / 1000);
        if (pick !== min) return pick(less);
        const cpu = r.ours.map((c) => c.cpu_ms);
        return less[cpu.indexOf(min(cpu))];
      })
    : null;
  const mine = {
    bytes,
    runs: runs.length,
    ours_wall_ms: round(median(ours.wall_ms), 1),
    ours_cpu_ms: round(median(ours.cpu_ms), 1),
    ours_faults_per_call: Math.round(median(ours.faults)),
    ours_mb_s_wall: round(bytes / 1e3 / median(ours.wall_ms), 1),
    ours_mb_s_cpu: round(bytes / 1e3 / median(ours.cpu_ms), 1),
    ...(lessFaults
      ? {
          fault_us: round(median(faultUs), 2),
          fault_us_range: [min(faultUs), Math.max(...faultUs)],
          fault_us_per_page: round(median(runs.map((r) => r.fault_cost?.us_per_page ?? Number.NaN)), 2),
          ours_cpu_ms_less_faults: round(median(lessFaults), 1),
          ours_mb_s_cpu_less_faults: round(bytes / 1e3 / median(lessFaults), 1),
        }
      : {}),
  };
  // the peer was not run with this corpus and protocol
  if (runs.some((r) => r.theirs.length === 0))
    return { ...mine, peer: 'not run', raw: runs.map((r) => ({ ours: r.ours, fault_cost: r.fault_cost })) };
  const peer = { wall_ms: per('theirs', 'wall_ms'), cpu_ms: per('theirs', 'cpu_ms'), faults: per('theirs', 'faults') };
  const ratioWall = runs.map((_, i) => peer.wall_ms[i] / ours.wall_ms[i]);
  const ratioCpu = runs.map((_, i) => peer.cpu_ms[i] / ours.cpu_ms[i]);
  return {
    ...mine,
    peer_wall_ms: round(median(peer.wall_ms), 1),
    peer_cpu_ms: round(median(peer.cpu_ms), 1),
    peer_faults_per_call: Math.round(median(peer.faults)),
    ratio_to_peer_wall: round(median(ratioWall), 2),
    ratio_to_peer_wall_range: [round(min(ratioWall), 2), round(Math.max(...ratioWall), 2)],
    ratio_to_peer_cpu: round(median(ratioCpu), 2),
    raw: runs.map((r) => ({ ours: r.ours, peer: r.theirs, fault_cost: r.fault_cost })),
  };
}

export const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/**
 * One whole CLI process under GNU time: CPU (user + system), minor faults, max RSS, wall; under `node` (this
 * process's Node unless named) in the environment `env`.
 * @example cliRun('dist', ['fingerprint', 'en.txt']).cpu_s
 */
export function cliRun(dist, args, { node = process.execPath, env = process.env } = {}) {
  const out = join(tmpdir(), `trainprint-bench-time-${process.pid}.txt`);
  const t0 = now();
  execFileSync(TIME, ['-f', '%U %S %R %M %e', '-o', out, node, join(dist, 'cli.js'), ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  const wall = now() - t0;
  const [u, s, minor, rssKb] = readFileSync(out, 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
  rmSync(out, { force: true });
  return { cpu_s: u + s, faults: minor, max_rss_mb: rssKb / 1024, wall_s: wall / 1000 };
}

/** The bench's outputs: `text` in pieces of about 1 kB, each cut at a space. */
export function outputsOf(text) {
  const items = [];
  for (let at = 0, n = 0; at < text.length; n++) {
    let to = Math.min(text.length, at + 1000);
    const space = text.indexOf(' ', to);
    to = space < 0 || space - to > 200 ? to : space;
    items.push({ id: `o${n}`, text: text.slice(at, to) });
    at = to;
  }
  return items;
}

/**
 * The archive `trainprint scan` is timed against: 1 MB of Japanese prose in documents of 1,300 characters (no English
 * output hits them) and 25 documents of 4,000 characters from spaced-out places of the English `text`, so that about
 * 1 % of its 1 kB outputs hit, as in bench/scan.mjs's mix (a hit is aligned; a scan of mostly clean outputs rarely is).
 * `{ english: false }`: the Japanese documents alone, which no English output hits: a scan against them reads, looks
 * up and settles every output but searches none (its floor: what it costs without a search).
 * @example archiveOf(CORPORA.en(10_000_000)).length
 */
export function archiveOf(text, { english = true } = {}) {
  const ja = CORPORA.ja(1_000_000);
  const docs = [];
  for (let at = 0, n = 0; at < ja.length; at += 1300, n++) docs.push({ id: `ja${n}`, text: ja.slice(at, at + 1300) });
  for (let k = 0; english && k < 25; k++) {
    const at = Math.floor(((k + 0.5) * text.length) / 25);
    docs.push({ id: `en${k}`, text: text.slice(at, at + 4000) });
  }
  return docs;
}

/**
 * The archive of {@link archiveOf} as a dataset file a build, each made by that build (a build with another normaliser
 * id refuses another's), in `dir`: { [build name]: path }.
 * `{ english: false }` as in {@link archiveOf}, written as `archive-<build>-no-hits.tpds`.
 * @example const tpdsOf = await archiveFilesOf([['this', 'dist']], CORPORA.en(10_000_000), dir)
 */
export async function archiveFilesOf(builds, text, dir, { english = true } = {}) {
  const docs = archiveOf(text, { english });
  const tpdsOf = {};
  for (const [name, dist] of builds) {
    const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
    const engine = await createEngine();
    await engine.addDataset({ id: 'archive' }, docs);
    tpdsOf[name] = join(dir, `archive-${name}${english ? '' : '-no-hits'}.tpds`);
    writeFileSync(tpdsOf[name], engine.exportDataset('archive'));
    engine.dispose();
  }
  return tpdsOf;
}

async function cliTables(builds, rounds) {
  if (!TIME) return { skipped: 'no /usr/bin/time' };
  if (rounds === 0) return { skipped: 'not asked for' };
  const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-fingerprint-'));
  try {
    const text = CORPORA.en(SIZE);
    const file = join(dir, 'en.txt');
    writeFileSync(file, text);
    // the same bytes as outputs of about 1 kB each, scanned against a small archive (archiveOf: about 1 % of them hit)
    const items = outputsOf(text);
    const jsonl = join(dir, 'en.jsonl');
    writeFileSync(jsonl, `${items.map((x) => JSON.stringify(x)).join('\n')}\n`);
    // each build scans an archive of its own making: a build with another normaliser id refuses the other's
    const tpdsOf = await archiveFilesOf(builds, text, dir);
    const out = {};
    for (const [name] of builds) out[name] = { fingerprint: [], scan: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [...builds].reverse() : builds;
      for (const [name, dist, env] of order) {
        const withEnv = { env: env ? { ...process.env, ...env } : process.env };
        out[name].fingerprint.push(cliRun(dist, ['fingerprint', file], withEnv));
        out[name].scan.push(
          cliRun(
            dist,
            ['scan', '--dataset', tpdsOf[name], jsonl, '--out', join(dir, 'hits.jsonl'), '--quiet'],
            withEnv,
          ),
        );
      }
    }
    const bytes = Buffer.byteLength(text);
    const table = {};
    for (const [name, o] of Object.entries(out)) {
      const m = (k, key) => round(median(o[k].map((x) => x[key])), 3);
      table[name] = {
        bytes,
        fingerprint: {
          cpu_s: m('fingerprint', 'cpu_s'),
          faults: m('fingerprint', 'faults'),
          max_rss_mb: m('fingerprint', 'max_rss_mb'),
          wall_s: m('fingerprint', 'wall_s'),
        },
        scan: {
          cpu_s: m('scan', 'cpu_s'),
          faults: m('scan', 'faults'),
          max_rss_mb: m('scan', 'max_rss_mb'),
          wall_s: m('scan', 'wall_s'),
        },
        // throughput of scan over that of fingerprint on the same bytes = fingerprint time / scan time, per round
        scan_over_fingerprint_cpu: round(medianRatio(o.fingerprint, o.scan, 'cpu_s'), 2),
        scan_over_fingerprint_wall: round(medianRatio(o.fingerprint, o.scan, 'wall_s'), 2),
        raw: o,
      };
    }
    return table;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the three protocols for `builds` ([name, dist dir] pairs, alternating; a third element, an object of
 * environment variables, runs that build's children with them: the same build under another allocator setting, say)
 * and returns the tables.
 * @example await wholeTables([['this', 'dist']], { rounds: 3, corpora: ['en'] })
 */
export async function wholeTables(builds, { rounds, corpora, cliRounds, peer = () => true, log = console.log }) {
  const fresh = {},
    steady = {};
  for (const corpus of corpora) {
    const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
    for (let r = 0; r < rounds; r++) {
      for (const [name, dist, env] of r % 2 ? [...builds].reverse() : builds)
        runs[name].push(runChild('fresh', dist, corpus, peer('fresh', corpus), env));
    }
    fresh[corpus] = Object.fromEntries(Object.entries(runs).map(([n, rs]) => [n, summarise(rs, min)]));
    const st = Object.fromEntries(
      builds.map(([name, dist, env]) => [
        name,
        summarise([runChild('steady', dist, corpus, peer('steady', corpus), env)], median),
      ]),
    );
    steady[corpus] = st;
    for (const [name] of builds) {
      const f = fresh[corpus][name],
        s = st[name];
      // a run without the peer on this corpus (--peer-only) has no ratio to print
      const toPeer = (r) => (r === undefined ? 'no peer' : `${r}x peer`);
      log(
        `${corpus.padEnd(9)} ${name.padEnd(9)} fresh best of 3: ${f.ours_mb_s_wall} MB/s wall, ${f.ours_mb_s_cpu} MB/s CPU, ` +
          `${f.ours_faults_per_call} faults, ${toPeer(f.ratio_to_peer_wall)} (wall) | steady: ${s.ours_mb_s_wall} MB/s wall, ` +
          `${s.ours_mb_s_cpu} CPU, ${s.ours_faults_per_call} faults, ${toPeer(s.ratio_to_peer_wall)} | ` +
          `a fault ${f.fault_us} µs (a 4 KiB page first touched ${f.fault_us_per_page} µs): less the faults ` +
          `${f.ours_mb_s_cpu_less_faults} / ${s.ours_mb_s_cpu_less_faults} MB/s CPU`,
      );
    }
  }
  const reserved = await reservedTable(builds[0][1], rounds, log);
  const cli = await cliTables(builds, cliRounds);
  for (const [name, t] of Object.entries(cli)) {
    if (t?.fingerprint)
      log(
        `cli ${name.padEnd(9)} fingerprint ${t.fingerprint.cpu_s} s CPU, ${t.fingerprint.faults} faults, ${t.fingerprint.max_rss_mb} MB RSS; ` +
          `scan ${t.scan.cpu_s} s CPU; scan/fingerprint ${t.scan_over_fingerprint_cpu} (CPU)`,
      );
  }
  return { fresh, steady, reserved, cli };
}

/**
 * The fresh protocol (English) on an engine grown first by `reserveMemory(10 MB)`, against plain fresh processes of
 * the same build, alternating: the reservation's own cost, and each of the 3 calls' CPU and faults (medians of rounds).
 */
async function reservedTable(dist, rounds, log) {
  const runs = { reserved: [], plain: [] };
  for (let r = 0; r < rounds; r++) {
    runs.reserved.push(runChild('reserved', dist, 'en'));
    runs.plain.push(runChild('fresh', dist, 'en'));
  }
  const perCall = (calls) =>
    [0, 1, 2].map((i) => ({
      cpu_ms: round(median(calls.map((c) => c[i].cpu_ms)), 1),
      faults: Math.round(median(calls.map((c) => c[i].faults))),
    }));
  const table = {
    reserve: {
      cpu_ms: round(median(runs.reserved.map((x) => x.reserve.cpu_ms)), 1),
      faults: Math.round(median(runs.reserved.map((x) => x.reserve.faults))),
    },
    reserved_calls: perCall(runs.reserved.map((x) => x.calls)),
    plain_calls: perCall(runs.plain.map((x) => x.ours)),
    raw: runs,
  };
  const fmtCalls = (cs) => cs.map((c) => `${c.cpu_ms} ms/${c.faults}`).join(', ');
  log(
    `reserved  reserveMemory(10 MB) ${table.reserve.cpu_ms} ms, ${table.reserve.faults} faults; calls ${fmtCalls(table.reserved_calls)} | plain ${fmtCalls(table.plain_calls)}`,
  );
  return table;
}

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && arg('child')) {
  await child(arg('child'), resolve(arg('dist')), arg('corpus'), arg('peer') !== '0');
}
