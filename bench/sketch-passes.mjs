// Winnowing and the default sketches (OPH MinHash at k = 128 and SimHash) of a 10 MB text's shingle hashes, as two
// passes over the whole column (`winnow`, then `ophSimhash`) against one pass of pieces (`winnowOphSimhash`, 8,192
// hashes a piece: the sketches read what winnowing has just brought into cache), each timed with the column in cache
// (the same call again) and cold (128 MB of other memory read before each call, as a whole call's earlier stages leave
// it). Why: on a guest where a cache line's first read from memory is dear, the sketches' own pass over 13–22 MB of
// hashes cost as much as their work, and only a comparison cold and warm in one process shows it. The two ways'
// selections, signature and SimHash are compared on each corpus first. Medians of alternating calls, on-core time.
//
//   npm run build && node bench/sketch-passes.mjs [--corpora en,zh,ja] [--calls 11] [--out sketch-passes.json]
//
// It reads the engine's core (`engine.core`, not a public API) and lays out memory as the library does.
import './help.mjs';
import { arg, onCore } from './ab-builds.mjs';
import { CORPORA } from './fingerprint-whole.mjs';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';
import { createEngine } from '../dist/index.js';

const corpora = arg('corpora', 'en,zh,ja').split(',');
const CALLS = Number(arg('calls', 11));
const OUT = arg('out', 'sketch-passes.json');
const PIECE = 8192;

const engine = await createEngine();
const core = engine.core;
// 128 MB read (not written: no dirty lines to write back) between cold calls
const other = new Int32Array(32 << 20).fill(1);
const evict = () => {
  let s = 0;
  for (let i = 0; i < other.length; i += 16) s += other[i];
  return s;
};

const record = { ...recordHeader('sketch-passes'), calls: CALLS, piece: PIECE, corpora: {} };
const loads = [loadNow()];
for (const corpus of corpora) {
  const fp = await engine.fingerprint(CORPORA[corpus](10_000_000));
  const hashes = fp.shingles.hashes;
  const m = hashes.length;
  const L = core.layout();
  const h = L.take(m * 8 + 16);
  const win = L.take(m * 4 + 16);
  const sig = L.take(128 * 4);
  L.commit();
  core.u64(h, m).set(hashes);
  const ways = {
    two_passes: () => {
      const w = core.raw.winnow(h, m, 8, win);
      core.raw.ophSimhash(h, m, 128, 0n, sig);
      return w;
    },
    pieces: () => core.raw.winnowOphSimhash(h, m, 8, win, 0n, sig),
  };
  const outputs = Object.values(ways).map((run) => {
    const w = run();
    return JSON.stringify([[...core.u32(win, w)], [...core.u32(sig, 128)], String(core.raw.ophSimhashSecond())]);
  });
  if (outputs[0] !== outputs[1]) throw new Error(`${corpus}: the two ways gave different outputs`);
  const times = { two_passes: { warm: [], cold: [] }, pieces: { warm: [], cold: [] } };
  for (let c = 0; c < CALLS; c++)
    for (const [name, run] of c % 2 ? Object.entries(ways).reverse() : Object.entries(ways))
      for (const state of ['cold', 'warm']) {
        if (state === 'cold') evict();
        else run();
        const t = onCore();
        run();
        times[name][state].push(onCore() - t);
      }
  const row = { shingles: m, ms: {} };
  for (const [name, byState] of Object.entries(times))
    row.ms[name] = { warm: round(median(byState.warm), 2), cold: round(median(byState.cold), 2) };
  row.pieces_over_two_passes_cold = round(row.ms.pieces.cold / row.ms.two_passes.cold, 3);
  row.pieces_over_two_passes_warm = round(row.ms.pieces.warm / row.ms.two_passes.warm, 3);
  record.corpora[corpus] = row;
  console.log(
    `${corpus.padEnd(6)} ${m} shingles | two passes ${row.ms.two_passes.warm} ms warm, ${row.ms.two_passes.cold} cold | ` +
      `pieces ${row.ms.pieces.warm} warm, ${row.ms.pieces.cold} cold | pieces / two passes: cold ` +
      `${row.pieces_over_two_passes_cold}, warm ${row.pieces_over_two_passes_warm}`,
  );
  loads.push(loadNow());
}
record.load = loadSpread(loads);
console.log(`wrote ${writeRecord(`bench/results/${OUT}`, record)}`);
