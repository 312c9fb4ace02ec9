// `scanFiles` (what `trainprint scan` runs on one thread) inside one process, this build against a baseline build in
// the same run: the process CPU (user + system, all threads: `process.cpuUsage()`) of the scan alone — its datasets
// loaded, then its items read, looked up, searched and written — without Node's start and the library's load, whose
// ±0.1 s at a shared machine's load hides a change of the scan's own work in whole-process figures
// (bench/cli-cpu.mjs). A fresh process per round and build (the code runs cold, as in the CLI), the builds' order
// flipping each round; medians, and the hits files compared byte for byte each round. Beside it, apart, the CPU of
// importing trainprint/node and the library before the scan (`load_cpu_s`): what the scan loads at its start.
//
//   npm run build && node bench/scan-files-cpu.mjs --baseline OTHER/dist [--rounds 9] [--out scan-files-cpu.json]
//
// The inputs are bench/cli-cpu.mjs's: 10 MB of English as about 1 kB JSON Lines outputs against a small archive.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { archiveFilesOf, CORPORA, outputsOf } from './fingerprint-whole.mjs';
import { oneShotFlags } from './one-shot-flags.mjs';
import { median, medianRatio, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);

// the child: one scanFiles of the given build, its CPU printed as JSON
if (process.argv[2] === '--child') {
  const [, , , dist, tpds, jsonl, out] = process.argv;
  const started = process.cpuUsage(); // Node's start
  const { scanFiles } = await import(pathToFileURL(join(dist, 'node.js')).href);
  const t0 = process.cpuUsage();
  let loaded = null; // CPU when the first item is done: the datasets loaded (and the first batch looked up)
  const r = await scanFiles({
    datasets: [tpds],
    inputs: [jsonl],
    out,
    onProgress: (p) => {
      if (loaded === null && p.items > 0) loaded = process.cpuUsage(t0);
    },
  });
  const all = process.cpuUsage(t0);
  const s = (u) => (u.user + u.system) / 1e6;
  // load_s: trainprint/node and the library it imports, compiled and their top levels run (what a scan loads)
  const load_s = s(t0) - s(started);
  const line = {
    load_s,
    scan_s: s(all),
    first_item_s: s(loaded),
    items_s: s(all) - s(loaded),
    items: r.items,
    hits: r.hits,
  };
  console.log(JSON.stringify(line));
  process.exit(0);
}

const ROUNDS = Number(opt('--rounds') ?? 9);
const OUT = opt('--out') ?? 'scan-files-cpu.json';
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);

const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-scan-files-'));
try {
  const text = CORPORA.en(10_000_000);
  const jsonl = join(dir, 'en.jsonl');
  writeFileSync(
    jsonl,
    `${outputsOf(text)
      .map((x) => JSON.stringify(x))
      .join('\n')}\n`,
  );
  // each build scans an archive of its own making (a build with another normaliser id refuses the other's)
  const tpdsOf = await archiveFilesOf(builds, text, dir);
  const runs = Object.fromEntries(builds.map(([name]) => [name, []]));
  const loads = [];
  let identical = true;
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(loadNow());
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = join(dir, `hits-${name}.jsonl`);
      rmSync(out, { force: true });
      rmSync(`${out}.checkpoint`, { force: true });
      // V8's tiering as the CLI sets it for a one-shot command (src/cli/tiering.ts)
      const child = [...oneShotFlags(), fileURLToPath(import.meta.url), '--child', dist, tpdsOf[name], jsonl, out];
      runs[name].push(JSON.parse(execFileSync(process.execPath, child, { encoding: 'utf8' }).trim().split('\n').pop()));
    }
    if (builds.length > 1)
      identical &&= readFileSync(join(dir, 'hits-this.jsonl')).equals(readFileSync(join(dir, 'hits-baseline.jsonl')));
  }
  const table = Object.fromEntries(
    builds.map(([name]) => [
      name,
      {
        scan_cpu_s: round(median(runs[name].map((x) => x.scan_s)), 3),
        scan_cpu_range_s: [
          round(Math.min(...runs[name].map((x) => x.scan_s)), 3),
          round(Math.max(...runs[name].map((x) => x.scan_s)), 3),
        ],
        first_item_cpu_s: round(median(runs[name].map((x) => x.first_item_s)), 3),
        // the modules' load before the scan: trainprint/node and the library
        load_cpu_s: round(median(runs[name].map((x) => x.load_s)), 3),
        // the items after the first: read, looked up, searched, their hits written
        rest_cpu_s: round(median(runs[name].map((x) => x.items_s)), 3),
        items: runs[name][0].items,
        hits: runs[name][0].hits,
        raw: runs[name],
      },
    ]),
  );
  const perRound = (key) => (builds.length > 1 ? round(medianRatio(runs.this, runs.baseline, key), 3) : null);
  const ratio = perRound('scan_s');
  const record = {
    ...recordHeader('scan-files-cpu'),
    options: process.argv.slice(2),
    builds,
    rounds: ROUNDS,
    load_1min: loadSpread(loads),
    identical_hits: builds.length > 1 ? identical : null,
    scan_cpu_this_over_baseline: ratio,
    rest_cpu_this_over_baseline: perRound('items_s'),
    first_item_cpu_this_over_baseline: perRound('first_item_s'),
    load_cpu_this_over_baseline: perRound('load_s'),
    ...table,
  };
  for (const [name] of builds)
    console.log(
      `${name.padEnd(9)} scanFiles ${table[name].scan_cpu_s} s CPU (${table[name].scan_cpu_range_s.join('–')}) | ` +
        `to the first item ${table[name].first_item_cpu_s} s, the rest ${table[name].rest_cpu_s} s | ` +
        `the modules' load before it ${table[name].load_cpu_s} s | ` +
        `${table[name].items} items, ${table[name].hits} hits`,
    );
  console.log(
    `this / baseline, per round: ${ratio} (the rest: ${record.rest_cpu_this_over_baseline}; the modules' load: ${record.load_cpu_this_over_baseline}); identical hits: ${record.identical_hits}; load ${record.load_1min.median}`,
  );
  writeRecord(join(here, 'results', OUT), record);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
