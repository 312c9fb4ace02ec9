// `trainprint fingerprint` and `trainprint scan` as whole processes, this build against a baseline build in the same
// run: process CPU (user + system, GNU time), wall, minor faults and max RSS, medians over alternating rounds (the
// builds' order flips each round), and beside them the bare start-up (`trainprint --help`) and a scan of one output
// (the scan's fixed part). Each round also checks that
// the two builds print the same bytes: the fingerprint's JSON on stdout and the scan's hits file.
//
//   npm run build && node bench/cli-cpu.mjs --baseline OTHER/dist [--rounds 7] [--out cli-cpu.json]
//     [--inputs TEXT,JSONL,ONE.jsonl,ARCHIVE.tpds] [--threads N] [--copies N] [--no-hits [--no-hits-dataset FILE]]
//
// The inputs are bench/fingerprint-whole.mjs's CLI rows: 10 MB of English (bench/corpus.mjs) as one text file, and the
// same bytes as about 1 kB JSON Lines outputs scanned against a small archive (archiveOf: about 1 % of them hit).
// Another workload's files instead: --text FILE --jsonl FILE --one FILE --dataset FILE (the outputs of the text as
// JSON Lines, one of them alone, and a dataset file that both builds read).
// `--inputs TEXT,JSONL,ONE,DATASET` says the same in one option.
// `--threads N` adds both scans with `--threads N` (the scan of one output then is mostly the threads' start: each
// loads the scan's code and its datasets), their hits compared with the one-thread scan's.
// `--copies N` adds one scan of the outputs N times over in one process (`scan_copies`), beside N fingerprint processes
// of the text (the command takes at most 10 MiB, so N times the bytes are N processes): how the scan's fixed part and
// its code's first runs, which a 10 MB scan pays in full, weigh on a longer stream. Its hits are compared across builds.
// `--no-hits` adds the scan of the same outputs against the archive's Japanese documents alone (archiveOf's
// `english: false`; with --inputs, `--no-hits-dataset FILE`), which none of them hits (`scan_no_hits`, checked to
// print no hit): it reads, looks up and settles every output and searches none, so its ratio to the fingerprint is
// what the scan would reach if its searches cost nothing.
// Each round also measures this machine's cost of a page fault in a process of its own (bench/fault-cost.mjs), and
// each command's CPU is given less its faults at that cost too (`cpu_s_less_faults`), with scan / fingerprint on those
// terms: a guest whose first touches are dear (the fingerprint's 20,000 faults) makes the scan's ratio look better than
// the code's work does.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { abRecordHead, loadNow, writeRecord } from './record.mjs';
import { archiveFilesOf, CORPORA, cliRun, outputsOf, TIME } from './fingerprint-whole.mjs';
import { cpuRatios, median, medianRatio, processMedians, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 7);
const THREADS = opt('--threads');
if (THREADS !== undefined && !(Number(THREADS) >= 2)) throw new Error('--threads takes a number ≥ 2');
const COPIES = opt('--copies');
if (COPIES !== undefined && !(Number.isInteger(Number(COPIES)) && Number(COPIES) >= 2))
  throw new Error('--copies takes a whole number ≥ 2');
const OUT = opt('--out') ?? 'cli-cpu.json';
const NO_HITS = process.argv.includes('--no-hits');
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);
if (!TIME) throw new Error('needs GNU time at /usr/bin/time');

// another workload's files instead of the bench's English (all four; the archive read by both builds, so of a
// snapshot format both read): --text FILE --jsonl FILE --one FILE --dataset FILE
const inputs = opt('--inputs')?.split(',');
if (inputs && inputs.length !== 4) throw new Error('--inputs takes TEXT,JSONL,ONE.jsonl,ARCHIVE.tpds');
const given = inputs
  ? { text: inputs[0], jsonl: inputs[1], one: inputs[2], dataset: inputs[3] }
  : { text: opt('--text'), jsonl: opt('--jsonl'), one: opt('--one'), dataset: opt('--dataset') };
const ownFiles = Object.values(given).some(Boolean);
if (ownFiles && !Object.values(given).every(Boolean))
  throw new Error('--text, --jsonl, --one and --dataset go together');

const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-cli-'));
try {
  const text = ownFiles ? readFileSync(given.text, 'utf8') : CORPORA.en(10_000_000);
  const file = ownFiles ? resolve(given.text) : join(dir, 'en.txt');
  if (!ownFiles) writeFileSync(file, text);
  const jsonl = ownFiles ? resolve(given.jsonl) : join(dir, 'en.jsonl');
  const lines = ownFiles ? [] : outputsOf(text).map((x) => JSON.stringify(x));
  if (!ownFiles) writeFileSync(jsonl, `${lines.join('\n')}\n`);
  // one output alone: the scan's fixed part (Node, the library, the dataset's import)
  const oneLine = ownFiles ? resolve(given.one) : join(dir, 'one.jsonl');
  if (!ownFiles) writeFileSync(oneLine, `${lines[0]}\n`);
  // the outputs N times over, in one file (the same lines again: the scan reads each as a new item)
  const copiesFile = join(dir, 'copies.jsonl');
  if (COPIES !== undefined) writeFileSync(copiesFile, readFileSync(jsonl).toString('utf8').repeat(Number(COPIES)));
  // each build scans an archive of its own making (a build with another normaliser id refuses the other's)
  const tpdsOf = ownFiles
    ? Object.fromEntries(builds.map(([name]) => [name, resolve(given.dataset)]))
    : await archiveFilesOf(builds, text, dir);
  const commands = {
    start: () => ['--help'],
    fingerprint: () => ['fingerprint', file],
    scan: (name) => ['scan', '--dataset', tpdsOf[name], jsonl, '--out', join(dir, `hits-${name}.jsonl`), '--quiet'],
    scan_one_output: (name) => [
      'scan',
      '--dataset',
      tpdsOf[name],
      oneLine,
      '--out',
      join(dir, 'one-hits.jsonl'),
      '--quiet',
    ],
  };
  if (THREADS !== undefined) {
    const threads = ['--threads', THREADS];
    commands.scan_threads = (name) =>
      [...commands.scan(name), ...threads].map((a) => a.replace(/hits-(\w+)\.jsonl$/, 'hits-threads-$1.jsonl'));
    commands.scan_one_output_threads = (name) => [...commands.scan_one_output(name), ...threads];
  }
  if (NO_HITS) {
    if (ownFiles && !opt('--no-hits-dataset')) throw new Error('--no-hits with --inputs needs --no-hits-dataset FILE');
    const noHitsOf = ownFiles
      ? Object.fromEntries(builds.map(([name]) => [name, resolve(opt('--no-hits-dataset'))]))
      : await archiveFilesOf(builds, text, dir, { english: false });
    commands.scan_no_hits = (name) => [
      ...['scan', '--dataset', noHitsOf[name], jsonl],
      ...['--out', join(dir, `hits-none-${name}.jsonl`), '--quiet'],
    ];
  }
  if (COPIES !== undefined)
    commands.scan_copies = (name) => [
      ...['scan', '--dataset', tpdsOf[name], copiesFile],
      ...['--out', join(dir, `hits-copies-${name}.jsonl`), '--quiet'],
    ];
  const runs = Object.fromEntries(
    builds.map(([name]) => [name, Object.fromEntries(Object.keys(commands).map((c) => [c, []]))]),
  );
  const loads = [];
  const faultUs = [];
  let identical = true;
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(loadNow());
    faultUs.push(
      JSON.parse(execFileSync(process.execPath, [join(here, 'fault-cost.mjs')], { encoding: 'utf8' })).us_per_fault,
    );
    const printed = {};
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      for (const [command, args] of Object.entries(commands)) runs[name][command].push(cliRun(dist, args(name)));
      printed[name] = [
        execFileSync(process.execPath, [join(dist, 'cli.js'), 'fingerprint', file]),
        readFileSync(join(dir, `hits-${name}.jsonl`)),
      ];
      if (THREADS !== undefined)
        identical &&= readFileSync(join(dir, `hits-threads-${name}.jsonl`)).equals(printed[name][1]);
    }
    if (COPIES !== undefined)
      for (const [name] of builds) printed[name].push(readFileSync(join(dir, `hits-copies-${name}.jsonl`)));
    // a scan whose outputs hit nothing must print nothing: else it searched, and its row is no floor
    if (NO_HITS)
      for (const [name] of builds)
        if (readFileSync(join(dir, `hits-none-${name}.jsonl`)).length > 0)
          throw new Error(`scan_no_hits of ${name} reported hits: its archive holds some output's words`);
    if (builds.length > 1) identical &&= printed.this.every((b, i) => b.equals(printed.baseline[i]));
  }
  const table = {};
  // each run's CPU less its faults at the round's cost of a fault
  for (const byCommand of Object.values(runs))
    for (const rs of Object.values(byCommand))
      rs.forEach((x, r) => {
        x.cpu_s_less_faults = x.cpu_s - (x.faults * faultUs[r]) / 1e6;
      });
  for (const [name, byCommand] of Object.entries(runs)) {
    table[name] = Object.fromEntries(
      Object.entries(byCommand).map(([command, rs]) => [
        command,
        { ...processMedians(rs), cpu_s_less_faults: round(median(rs.map((x) => x.cpu_s_less_faults)), 3) },
      ]),
    );
    table[name].scan_over_fingerprint_cpu_less_faults = round(
      medianRatio(byCommand.fingerprint, byCommand.scan, 'cpu_s_less_faults'),
      2,
    );
    // throughput of scan over that of fingerprint on the same bytes = fingerprint CPU / scan CPU, per round
    table[name].scan_over_fingerprint_cpu = round(medianRatio(byCommand.fingerprint, byCommand.scan, 'cpu_s'), 2);
    if (NO_HITS)
      table[name].scan_no_hits_over_fingerprint_cpu = round(
        medianRatio(byCommand.fingerprint, byCommand.scan_no_hits, 'cpu_s'),
        2,
      );
    // N fingerprint processes (N × the CPU of one, in the same round) over one scan of N times the outputs
    if (COPIES !== undefined)
      table[name].scan_copies_over_fingerprints_cpu = round(
        median(byCommand.scan_copies.map((s, i) => (Number(COPIES) * byCommand.fingerprint[i].cpu_s) / s.cpu_s)),
        2,
      );
    table[name].raw = byCommand;
  }
  // each figure of this build as a ratio to the baseline's, per round (CPU), then the median
  const ratios = cpuRatios(runs, Object.keys(commands));
  const record = {
    ...abRecordHead('cli-cpu', { builds, rounds: ROUNDS, loads, identical, ratios }),
    copies: COPIES === undefined ? null : Number(COPIES),
    fault_us: { median: round(median(faultUs), 2), min: Math.min(...faultUs), max: Math.max(...faultUs) },
    ...table,
  };
  for (const [name] of builds)
    console.log(
      `${name.padEnd(9)} start ${table[name].start.cpu_s} s CPU | fingerprint ${table[name].fingerprint.cpu_s} s CPU ` +
        `(${table[name].fingerprint.wall_s} s wall) | scan ${table[name].scan.cpu_s} s CPU | scan/fingerprint ` +
        `${table[name].scan_over_fingerprint_cpu} | scan of one output ${table[name].scan_one_output.cpu_s} s CPU | ` +
        `less the faults (${record.fault_us.median} µs each): fingerprint ${table[name].fingerprint.cpu_s_less_faults} s, ` +
        `scan ${table[name].scan.cpu_s_less_faults} s, scan/fingerprint ${table[name].scan_over_fingerprint_cpu_less_faults}`,
    );
  if (THREADS !== undefined)
    for (const [name] of builds)
      console.log(
        `${name.padEnd(9)} --threads ${THREADS}: scan ${table[name].scan_threads.cpu_s} s CPU ` +
          `(${table[name].scan_threads.wall_s} s wall) | scan of one output ${table[name].scan_one_output_threads.cpu_s} s CPU`,
      );
  if (NO_HITS)
    for (const [name] of builds)
      console.log(
        `${name.padEnd(9)} --no-hits: scan ${table[name].scan_no_hits.cpu_s} s CPU (no output searched) | ` +
          `scan/fingerprint ${table[name].scan_no_hits_over_fingerprint_cpu}`,
      );
  if (COPIES !== undefined)
    for (const [name] of builds)
      console.log(
        `${name.padEnd(9)} --copies ${COPIES}: scan ${table[name].scan_copies.cpu_s} s CPU against ${COPIES} fingerprint ` +
          `processes | scan/fingerprint ${table[name].scan_copies_over_fingerprints_cpu}`,
      );
  console.log(
    `ratios ${JSON.stringify(ratios)}; identical outputs: ${record.identical_outputs}; load ${record.load_1min.median}`,
  );
  writeRecord(join(here, 'results', OUT), record);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
