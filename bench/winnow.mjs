// The winnowing kernel alone (the core's `winnow`), this build against a baseline build in one process, alternating
// which runs first each round, at several windows, on the shingle hashes of 10 MB of each corpus of
// bench/fingerprint-whole.mjs (word 5-grams, the default options). Both builds select from the same hashes, copied
// into each core once; their selections are compared at every window first (a difference stops the bench). Time is
// on-core: wall time less the thread's run-queue wait (/proc/thread-self/schedstat, field 2; plain wall time where
// that file is missing). Medians of the rounds, and the median of the per-round ratios.
//
//   node bench/winnow.mjs --baseline <dist of another build> [--rounds 11] [--corpora ja,en] [--windows 2,4,8,16,64]
//     [--write] [--out winnow.json]
//
// It reads the engine's core (`engine.core`, not a public API) to call the kernel.
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { abBuilds, arg, onCore } from './ab-builds.mjs';
import { CORPORA } from './fingerprint-whole.mjs';
import { median, round } from './stats.mjs';

const builds = abBuilds('node bench/winnow.mjs --baseline <dist> [--rounds N] [--corpora ja,en] [--windows 8,16]');
const ROUNDS = Number(arg('rounds', '11'));
const WINDOWS = arg('windows', '2,4,8,16,64').split(',').map(Number);

const engines = [];
for (const [name, dir] of builds) {
  const m = await import(pathToFileURL(join(dir, 'fingerprint.js')).href);
  engines.push({ name, engine: await m.createEngine() });
}

const load = [loadavg()[0]];
const results = {};
for (const corpus of arg('corpora', 'ja,zh,mixed,en').split(',')) {
  const text = CORPORA[corpus](10_000_000);
  const hashes = (await engines[0].engine.fingerprint(text, { workHash: false })).shingles.hashes;
  const m = hashes.length;
  // one room per build for the hashes and the selections, filled once
  const rooms = engines.map(({ engine }) => {
    const core = engine.core;
    const L = core.layout();
    const h = L.take(m * 8);
    const out = L.take(m * 4 + 4);
    L.commit();
    core.u64(h, m).set(hashes);
    return { core, h, out };
  });
  results[corpus] = { shingles: m };
  for (const w of WINDOWS) {
    const picks = rooms.map(({ core, h, out }) => core.u32(out, core.raw.winnow(h, m, w, out)).slice());
    if (picks[0].length !== picks[1].length || picks[0].some((p, i) => p !== picks[1][i]))
      throw new Error(`${corpus}, window ${w}: the builds' selections differ`);
    const ms = rooms.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (let j = 0; j < rooms.length; j++) {
        const i = r % 2 ? rooms.length - 1 - j : j;
        const { core, h, out } = rooms[i];
        const t0 = onCore();
        core.raw.winnow(h, m, w, out);
        ms[i].push(onCore() - t0);
      }
    }
    const ratio = median(ms[0].map((t, r) => t / ms[1][r]));
    results[corpus][`w${w}`] = {
      selected: picks[0].length,
      this_ms: round(median(ms[0]), 2),
      baseline_ms: round(median(ms[1]), 2),
      ratio: round(ratio, 3),
      ratio_range: [
        round(Math.min(...ms[0].map((t, r) => t / ms[1][r])), 3),
        round(Math.max(...ms[0].map((t, r) => t / ms[1][r])), 3),
      ],
    };
    console.log(
      `${corpus.padEnd(6)} w ${String(w).padStart(2)}  ${m} shingles, ${picks[0].length} selected  this ${round(median(ms[0]), 2)} ms  baseline ${round(median(ms[1]), 2)} ms  = ${round(ratio, 3)}×`,
    );
  }
}
load.push(loadavg()[0]);

if (process.argv.includes('--write')) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const file = new URL(`results/${arg('out', 'winnow.json')}`, import.meta.url);
  const out = {
    what: 'the winnowing kernel alone on the shingle hashes of 10 MB of each corpus, ms on-core, medians of alternating rounds',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    load_average: load,
    rounds: ROUNDS,
    builds,
    results,
  };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}
