// A fresh process's first fingerprint of a text that holds a U+FFFD, two builds alternating: the engine, a first
// non-ASCII text (which puts the normaliser's tables into the core, as any process's first such text does), then the
// default fingerprint of 100 kB of English (bench/corpus.mjs) with one U+FFFD in its middle, timed (process CPU,
// every thread, and on-core, bench/ab-builds.mjs) with its minor faults, then the same call again. The core hands
// every region holding U+FFFD back to JavaScript, to be searched for lone surrogates (which its encoder writes as
// U+FFFD); what that costs a process is the first call's difference from the second, and from the other build's.
// Each child also checks that the two calls give the same fingerprint, and the parent that both builds do.
//
//   node bench/first-replacement.mjs --baseline <dist of another build> [--processes 15] [--out first-replacement.json]
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { arg, onCore } from './ab-builds.mjs';
import { english } from './corpus.mjs';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const faults = () => process.resourceUsage().minorPageFault;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One timed call: process CPU, on-core ms, faults, and the fingerprint's id. */
async function timed(engine, text) {
  const f0 = faults();
  const c0 = cpuMs();
  const t0 = onCore();
  const fp = await engine.fingerprint(text);
  return { cpu_ms: cpuMs() - c0, ms: onCore() - t0, faults: faults() - f0, id: fp.fingerprint };
}

async function child(dist) {
  const plain = english(100_000);
  const half = plain.indexOf(' ', plain.length >> 1);
  const text = `${plain.slice(0, half)} \ufffd${plain.slice(half)}`;
  const m = await import(pathToFileURL(join(dist, 'index.js')).href);
  const engine = await m.createEngine();
  await engine.fingerprint('日本語 тест é');
  const first = await timed(engine, text);
  const second = await timed(engine, text);
  if (first.id !== second.id) throw new Error('the two calls differ');
  process.stdout.write(`${JSON.stringify({ first, second })}\n`);
}

const self = fileURLToPath(import.meta.url);
if (arg('child')) await child(resolve(arg('dist')));
else if (process.argv[1] && resolve(process.argv[1]) === self) {
  const builds = [['this', resolve(fileURLToPath(new URL('../dist', import.meta.url)))]];
  if (!arg('baseline')) throw new Error('usage: node bench/first-replacement.mjs --baseline <dist> [--processes N]');
  builds.push(['baseline', resolve(arg('baseline'))]);
  const processes = Number(arg('processes', '15'));
  const runs = { this: [], baseline: [] };
  const loads = [];
  for (let p = 0; p < processes; p++) {
    loads.push(loadNow());
    for (const [name, dist] of p % 2 ? [...builds].reverse() : builds) {
      const r = spawnSync(process.execPath, [self, '--child', '1', '--dist', dist], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`child (${dist}) failed: ${r.stderr}`);
      runs[name].push(JSON.parse(r.stdout.trim().split('\n').pop()));
    }
    if (runs.this.at(-1).first.id !== runs.baseline.at(-1).first.id) throw new Error('the builds differ');
  }
  const summary = {};
  for (const [name] of builds) {
    summary[name] = {};
    for (const call of ['first', 'second'])
      for (const k of ['cpu_ms', 'ms', 'faults'])
        summary[name][`${call}_${k}`] = round(median(runs[name].map((x) => x[call][k])), 2);
    console.log(name, JSON.stringify(summary[name]));
  }
  const ratios = runs.this.map((x, i) => x.first.cpu_ms / runs.baseline[i].first.cpu_ms);
  summary.first_cpu_ratio_median = round(median(ratios), 2);
  console.log(
    `first call, process CPU, this / baseline: median of the processes' ratios ${summary.first_cpu_ratio_median}`,
  );
  const record = {
    ...recordHeader('first-replacement'),
    builds,
    processes,
    load_average: loadSpread(loads),
    summary,
    runs,
  };
  console.log(`wrote ${writeRecord(join('bench/results', arg('out', 'first-replacement.json')), record)}`);
}
