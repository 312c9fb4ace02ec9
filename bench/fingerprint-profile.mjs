// A CPU profile of whole default `fingerprint()` calls of 10 MB (the corpora of bench/fingerprint-whole.mjs) in a
// fresh process, as the fresh protocol makes one (the engine, a 100 kB warm-up, each result kept until the next
// returns): V8's sampling profiler (node:inspector) runs over the chosen calls only — `first` (call 1: the core's
// growth), `fresh` (calls 2 and 3, what the best of 3 is made of) or `steady` (calls 4–13) — and the samples' self
// time is summed by function, the core's functions named from build/out/core*.wat (V8 reports them by index), in ms
// a call and shares (the inspector's own dispatch of the profiler's stop left out). The profiler's own cost inflates every figure alike; bench/fingerprint-outside.mjs has the
// on-core clocks.
//
//   node --expose-gc bench/fingerprint-profile.mjs [--dist dist] [--corpus en] [--calls fresh] [--top 25]
//     [--write] [--out fingerprint-profile-en-fresh.json]
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg } from './ab-builds.mjs';
import { CORPORA } from './fingerprint-whole.mjs';

const dist = resolve(arg('dist', new URL('../dist', import.meta.url).pathname));
const corpus = arg('corpus', 'en');
const which = arg('calls', 'fresh');
const TOP = Number(arg('top', '25'));
const [from, to] = { first: [0, 1], fresh: [1, 3], steady: [3, 13] }[which] ?? [1, 3];

const text = CORPORA[corpus](10_000_000);
const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
const engine = await createEngine();
let kept = await engine.fingerprint(text.slice(0, 100_000));

/** The core's function names by index (the .wat lists them in index order; the core imports no function). */
function coreNames(simd) {
  const wat = new URL(`../build/out/${simd ? 'core.simd.wat' : 'core.wat'}`, import.meta.url);
  try {
    return readFileSync(wat, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(' (func '))
      .map((l) => l.split(' ')[2].replace(/^\$assembly\//, ''));
  } catch {
    return [];
  }
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const calls = [];
for (let i = 0; i < to; i++) {
  if (i === from) await session.post('Profiler.start');
  const c0 = cpuMs();
  kept = await engine.fingerprint(text);
  if (i >= from) calls.push(cpuMs() - c0);
}
const { profile } = await session.post('Profiler.stop');
if (!kept.fingerprint) throw new Error('no fingerprint');

const names = coreNames(engine.variant !== 'scalar');
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const { callFrame: f } = nodes.get(profile.samples[i]);
  // the inspector's own dispatch of Profiler.stop, after the last call
  if (f.functionName === 'dispatch' && !f.url) continue;
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const core = /^wasm-function\[(\d+)\]/.exec(f.functionName);
  const key = core
    ? `core: ${names[Number(core[1])] ?? f.functionName}`
    : `${f.functionName || '(anonymous)'} (${f.url.split('/').pop() || 'native'}${f.url ? `:${f.lineNumber + 1}` : ''})`;
  self.set(key, (self.get(key) ?? 0) + dt);
}
const n = calls.length;
const rows = [...self]
  .sort((a, b) => b[1] - a[1])
  .slice(0, TOP)
  .map(([name, us]) => ({
    name,
    ms_a_call: Math.round(us / 10 / n) / 100,
    share: Math.round((1000 * us) / total) / 10,
  }));
console.log(
  `${corpus} ${which}: ${n} calls, ${calls.map((c) => c.toFixed(1)).join(', ')} ms of CPU (profiled), ${(total / 1000 / n).toFixed(1)} ms of samples a call`,
);
for (const r of rows) console.log(`${String(r.ms_a_call).padStart(8)} ms ${String(r.share).padStart(5)} %  ${r.name}`);
if (process.argv.includes('--write')) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const file = new URL(`results/${arg('out', `fingerprint-profile-${corpus}-${which}.json`)}`, import.meta.url);
  const out = {
    what: 'self time of a CPU profile (V8 sampling, 100 µs) of whole 10 MB fingerprint() calls, by function',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    load_average: loadavg()[0],
    dist,
    corpus,
    calls: which,
    cpu_ms_profiled: calls,
    rows,
  };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}
