// A dataset file's import as a scan pays it, this build against a baseline build in the same run, the builds' order
// flipping each round; medians of the per-round ratios, by CPU (a shared machine's load stretches wall time):
//   import     `engine.importDataset` of the file alone, in a fresh process per round and build, with the CLI's
//              interrupt budget (src/cli/tiering.ts), so the import's code runs as cold as in `trainprint scan`:
//              process CPU (user + system, all threads) and minor page faults around the call, the file handed over
//              (`adopt: true`) as the CLI hands it
//   one        `trainprint scan --dataset FILE ONE.jsonl` as a whole process (GNU time): the scan's fixed part
//   scan       `trainprint scan --dataset FILE OUTPUTS.jsonl` as a whole process (with --jsonl)
// Each round compares the two builds' hits files byte for byte. The file must be one both builds import (the same
// normaliser id): `node bench/scan-cli.mjs --only mix --rounds 0 --keep DIR` writes the mix workload.
//
//   npm run build && node bench/scan-import.mjs --baseline OTHER/dist --tpds DIR/mix.tpds --one ONE.jsonl
//        [--jsonl DIR/mix-0.jsonl] [--rounds 7] [--out scan-import.json]
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cliRun, TIME } from './fingerprint-whole.mjs';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { oneShotFlags } from './one-shot-flags.mjs';
import { median, medianRatio, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);

// the child: one import of the given build, its CPU and faults printed as JSON
if (process.argv[2] === '--child') {
  const [, , , dist, tpds] = process.argv;
  const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const engine = await createEngine();
  const bytes = readFileSync(tpds);
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = process.cpuUsage();
  // handed over, as the CLI hands its files (a build without the option ignores it)
  const stats = await engine.importDataset(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    adopt: true,
  });
  const t = process.cpuUsage(t0);
  const faults = process.resourceUsage().minorPageFault - f0;
  console.log(JSON.stringify({ import_ms: (t.user + t.system) / 1e3, faults, fingerprints: stats.fingerprints }));
  process.exit(0);
}

const TPDS = opt('--tpds');
const ONE = opt('--one');
const JSONL = opt('--jsonl');
if (!TPDS || !ONE) throw new Error('needs --tpds FILE and --one ONE.jsonl (see --help)');
if (!TIME) throw new Error('needs GNU time at /usr/bin/time');
const ROUNDS = Number(opt('--rounds') ?? 7);
const OUT = opt('--out') ?? 'scan-import.json';
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);

const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-scan-import-'));
try {
  const hitsOf = (name, what) => join(dir, `${what}-${name}.jsonl`);
  const measures = {
    import: (dist) => {
      const args = [...oneShotFlags(), fileURLToPath(import.meta.url), '--child', dist, TPDS];
      const r = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }));
      return { cpu_s: r.import_ms / 1e3, faults: r.faults };
    },
    one: (dist, name) => cliRun(dist, ['scan', '--dataset', TPDS, ONE, '--out', hitsOf(name, 'one'), '--quiet']),
    ...(JSONL
      ? { scan: (dist, name) => cliRun(dist, ['scan', '--dataset', TPDS, JSONL, '--out', hitsOf(name, 'scan')]) }
      : {}),
  };
  const runs = Object.fromEntries(
    builds.map(([name]) => [name, Object.fromEntries(Object.keys(measures).map((m) => [m, []]))]),
  );
  const loads = [];
  let identical = true;
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(loadNow());
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds)
      for (const [m, run] of Object.entries(measures)) runs[name][m].push(run(dist, name));
    if (builds.length > 1)
      for (const what of JSONL ? ['one', 'scan'] : ['one'])
        identical &&= readFileSync(hitsOf('this', what)).equals(readFileSync(hitsOf('baseline', what)));
  }
  const table = {};
  for (const [name, byMeasure] of Object.entries(runs))
    table[name] = Object.fromEntries(
      Object.entries(byMeasure).map(([m, rs]) => [
        m,
        { cpu_s: round(median(rs.map((x) => x.cpu_s)), 4), faults: median(rs.map((x) => x.faults)), raw: rs },
      ]),
    );
  const ratios = {};
  if (builds.length > 1)
    for (const m of Object.keys(measures))
      ratios[`${m}_cpu_this_over_baseline`] = round(medianRatio(runs.this[m], runs.baseline[m], 'cpu_s'), 3);
  const record = {
    ...recordHeader('scan-import'),
    options: process.argv.slice(2),
    builds,
    rounds: ROUNDS,
    load_1min: loadSpread(loads),
    identical_hits: builds.length > 1 ? identical : null,
    ratios,
    ...table,
  };
  for (const [name] of builds)
    console.log(
      `${name.padEnd(9)} ${Object.entries(table[name])
        .map(([m, x]) => `${m} ${x.cpu_s} s CPU, ${x.faults} faults`)
        .join(' | ')}`,
    );
  console.log(
    `ratios ${JSON.stringify(ratios)}; identical hits: ${record.identical_hits}; load ${record.load_1min.median}`,
  );
  writeRecord(join(here, 'results', OUT), record);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
