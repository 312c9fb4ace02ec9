// The default reference packs loaded into a fresh engine (`loadDefaultPacks` of trainprint/node, what `trainprint
// analyze` and `serve` do at start), this build against a baseline build in the same run: each build in a fresh
// process with the command line's V8 tiering (src/cli/tiering.ts), the two alternating, the order flipped each round;
// the figure is the CPU of the load (user + system of the process, every thread, from before the call to after it),
// medians over rounds, and this build's CPU over the baseline's per round. Each round checks that both builds loaded
// the same packs with the same provenance and statistics.
//
//   npm run build && node bench/pack-load.mjs --baseline OTHER/dist [--rounds 9] [--out pack-load.json]
//
// Both builds read this checkout's packs/ (the baseline must read the same pack format).
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 9);
const OUT = opt('--out') ?? 'pack-load.json';
const PACKS = resolve(here, '..', 'packs');
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);

const CHILD = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const dist = process.argv[1];
const { createEngine } = await import(dist + '/index.js');
const { loadDefaultPacks } = await import(dist + '/node.js');
const engine = await createEngine();
const t = cpu();
const loaded = await loadDefaultPacks(engine, { dir: process.argv[2] });
const ms = cpu() - t;
const digest = JSON.stringify(loaded.map(({ stats, info }) => [stats, info]));
console.log(JSON.stringify({ ms, packs: loaded.length, digest }));
`;

const samples = Object.fromEntries(builds.map(([name]) => [name, []]));
const loads = [];
const perRound = [];
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadNow());
  const order = r % 2 === 0 ? builds : [...builds].reverse();
  const digests = new Set();
  const row = {};
  for (const [name, dist] of order) {
    const args = ['--interrupt-budget=1000000', '--input-type=module', '-e', CHILD, pathToFileURL(dist).href, PACKS];
    const out = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 }));
    digests.add(out.digest);
    samples[name].push({ ms: out.ms, packs: out.packs });
    row[name] = out.ms;
  }
  if (digests.size !== 1) throw new Error(`round ${r}: the builds loaded the packs differently`);
  perRound.push(row);
}

const summary = Object.fromEntries(
  builds.map(([name]) => [name, { load_cpu_ms: round(median(samples[name].map((s) => s.ms)), 1) }]),
);
const ratio = builds.length > 1 ? round(median(perRound.map((x) => x.this / x.baseline)), 3) : null;
const record = {
  ...recordHeader('pack-load'),
  options: process.argv.slice(2),
  rounds: ROUNDS,
  builds: Object.fromEntries(builds),
  packs: samples.this[0].packs,
  load_1min: loadSpread(loads),
  identical_outputs: builds.length > 1 ? true : null,
  summary,
  cpu_this_over_baseline: ratio,
  samples,
};
console.log(JSON.stringify({ summary, cpu_this_over_baseline: ratio }, null, 2));
console.log(`wrote ${writeRecord(join('bench/results', OUT), record)}`);
