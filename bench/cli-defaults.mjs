// The one-shot commands a new user runs first, as whole processes, this build against a baseline build in the same
// run: `trainprint analyze README.md` (the starter dataset and the default reference packs) and `trainprint demo`
// (the starter: two passages compared, then a README analyzed), under GNU time: process CPU (user + system), wall,
// minor faults and max RSS, medians over alternating rounds (the builds' order flips each round), and each build's
// CPU over the baseline's, per round. Each round also checks that the two builds print the same: the analysis JSON
// (less its random `analysis_id` and its `created_at`) and the demo's lines.
//
//   npm run build && node bench/cli-defaults.mjs --baseline OTHER/dist [--rounds 7] [--out cli-defaults.json]
//
// The baseline's dist/ must sit in a folder whose node_modules resolves the package's dependencies (the CLI imports
// them), and read the packs from its own ../packs (a copy of the repository's packs/ or a link to it).
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliRun, TIME } from './fingerprint-whole.mjs';
import { abRecordHead, loadNow, writeRecord } from './record.mjs';
import { cpuRatios, processMedians } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 7);
const OUT = opt('--out') ?? 'cli-defaults.json';
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);
if (!TIME) throw new Error('needs GNU time at /usr/bin/time');
const readme = resolve(here, '..', 'README.md');

const commands = {
  analyze_readme: ['analyze', readme, '--quiet'],
  demo: ['demo'],
};
/** What a command prints, less what differs from run to run (the analysis's id and time). */
function printed(dist, args) {
  const out = execFileSync(process.execPath, [resolve(dist, 'cli.js'), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return out
    .replace(/"?analysis_id"?: ?"an_[0-9a-f]+"/g, 'analysis_id')
    .replace(/"created_at": "[0-9T:.Z-]+"/g, 'created_at');
}

const runs = Object.fromEntries(
  builds.map(([name]) => [name, Object.fromEntries(Object.keys(commands).map((c) => [c, []]))]),
);
const loads = [];
let identical = true;
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadNow());
  for (const [name, dist] of r % 2 ? [...builds].reverse() : builds)
    for (const [command, args] of Object.entries(commands)) runs[name][command].push(cliRun(dist, args));
  if (builds.length > 1)
    for (const args of Object.values(commands))
      identical &&= printed(builds[0][1], args) === printed(builds[1][1], args);
}
const table = {};
for (const [name, byCommand] of Object.entries(runs))
  table[name] = Object.fromEntries(
    Object.entries(byCommand).map(([command, rs]) => [command, { ...processMedians(rs), raw: rs }]),
  );
const ratios = cpuRatios(runs, Object.keys(commands));
const record = { ...abRecordHead('cli-defaults', { builds, rounds: ROUNDS, loads, identical, ratios }), ...table };
for (const [name] of builds)
  console.log(
    `${name.padEnd(9)} ` +
      Object.keys(commands)
        .map((c) => `${c} ${table[name][c].cpu_s} s CPU, ${table[name][c].max_rss_mb} MB`)
        .join(' | '),
  );
console.log(`ratios ${JSON.stringify(ratios)}; identical outputs: ${record.identical_outputs}`);
console.log(`wrote ${writeRecord(resolve(here, 'results', OUT), record)}`);
