// A worker pool thread's fingerprint of a long text, as a work's registration, a portrait's search or a score's
// chunking asks for it: the per-shingle columns the work names (none; the spans) against every column, which the
// thread computed and sent for every fingerprint before a work could name them (a work that names none still gets
// them all). One pool of one thread (`createWorkerPool` of the built package), the variants alternating call by
// call; per call the process's CPU (every thread), wall time, minor faults, and the bytes the answer carries in its
// per-shingle columns. The answers are compared: the same id, counts, sketches and winnowed postings.
//
// With --expose-gc this thread's collector runs (untimed) before each call, so a call does not pay for the garbage of
// the ones before it.
//
//   npm run build && node --expose-gc bench/offload-columns.mjs [--mb 5] [--calls 9] [--out offload-columns.json]
import './help.mjs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { english } from './corpus.mjs';
import { loadNow, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const CALLS = Number(opt('--calls', 9));
const OUT = opt('--out', 'offload-columns.json');
const { createEngine, resolveOptions, shingleCount } = await import('../dist/index.js');
const { createWorkerPool } = await import('../dist/node.js');

const text = english(Number(opt('--mb', 5)) * 1e6);
const options = resolveOptions({});
const VARIANTS = [
  ['every column (a work naming none)', undefined],
  ['none (registration, portrait search)', {}],
  ['spans (score chunking)', { spans: true }],
];
const work = (columns) => ({ kind: 'fingerprint', text, options, ...(columns ? { columns } : {}) });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const faults = () => process.resourceUsage().minorPageFault;
const columnBytes = (s) =>
  ['hashes', 'starts', 'ends'].reduce((n, k) => n + (Object.keys(s).includes(k) ? s[k].byteLength : 0), 0);

const engine = await createEngine();
const expected = engine.runWork(work({}));
const { shingles: _, ...expectedRest } = expected;
const pool = createWorkerPool({ threads: 1 });
const load_1min_start = loadNow();
const calls = Object.fromEntries(VARIANTS.map(([name]) => [name, []]));
try {
  for (const [, columns] of VARIANTS) await pool.run(work(columns)); // the thread's core grown, its code compiled
  for (let i = 0; i < CALLS; i++) {
    for (const [name, columns] of i % 2 ? [...VARIANTS].reverse() : VARIANTS) {
      globalThis.gc?.(); // untimed: the earlier answers' garbage is not collected inside this call
      const c0 = cpu(),
        f0 = faults(),
        t0 = performance.now();
      const fp = await pool.run(work(columns));
      const call = { cpu_ms: cpu() - c0, wall_ms: performance.now() - t0, faults: faults() - f0 };
      const { shingles, ...rest } = fp;
      if (
        JSON.stringify(rest, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)) !==
        JSON.stringify(expectedRest, (_k, v) => (typeof v === 'bigint' ? `${v}` : v))
      )
        throw new Error(`${name}: another fingerprint than the engine's`);
      if (shingleCount(shingles) !== expected.shingles.hashes.length) throw new Error(`${name}: another count`);
      calls[name].push({ ...call, column_bytes: columnBytes(shingles) });
    }
  }
} finally {
  await pool.close();
  engine.dispose();
}
const [every] = VARIANTS[0];
const table = {};
for (const [name] of VARIANTS) {
  const xs = calls[name];
  const m = (k) => median(xs.map((x) => x[k]));
  table[name] = {
    cpu_ms: round(m('cpu_ms'), 1),
    wall_ms: round(m('wall_ms'), 1),
    faults: Math.round(m('faults')),
    column_mb: round(xs[0].column_bytes / 1e6, 1),
    cpu_over_every_column: round(median(xs.map((x, i) => x.cpu_ms / calls[every][i].cpu_ms)), 3),
  };
  const t = table[name];
  console.log(
    `${name.padEnd(40)} ${t.cpu_ms} ms CPU, ${t.wall_ms} ms wall, ${t.faults} faults, ${t.column_mb} MB of columns; ` +
      `${t.cpu_over_every_column}x the CPU of every column`,
  );
}
console.log(
  `wrote ${writeRecord(join(here, 'results', OUT), {
    ...recordHeader('offload-columns'),
    options: process.argv.slice(2),
    text_bytes: Buffer.byteLength(text),
    calls: CALLS,
    load_1min: { start: load_1min_start, end: loadNow() },
    ...table,
    raw: calls,
  })}`,
);
