// The CLI with Node's compile cache (src/cli/compile-cache.ts, Node 22.1 and later) against the same build and Node
// with the cache turned off (NODE_DISABLE_COMPILE_CACHE=1), as whole processes: process CPU (user + system, GNU time),
// wall, minor faults and max RSS, medians over alternating rounds (the two orders flip each round), and the cached
// run's CPU over the uncached one's, per round. The cache lives in a folder of the run's own, filled by one run of
// each command before the rounds (what a user's second run of a command reads). Each round checks that both print the
// same: the fingerprint's JSON, the demo's lines, the analysis (less its id and time) and the scan's hits.
//
//   npm run build && node bench/cli-compile-cache.mjs --node /path/to/node22 [--rounds 7] [--out cli-compile-cache.json]
//
// The commands: `--help`, `demo`, `analyze README.md --quiet`, `fingerprint` of 10 MB of English (bench/corpus.mjs),
// and `scan` of one 1 kB output and of the same 10 MB as outputs against bench/fingerprint-whole.mjs's archive.
// Under a Node without `module.enableCompileCache` (Node 20) both sides are the same process: a check of the noise.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { archiveFilesOf, CORPORA, cliRun, outputsOf, TIME } from './fingerprint-whole.mjs';
import { abRecordHead, loadNow, writeRecord } from './record.mjs';
import { cpuRatios, processMedians } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 7);
const OUT = opt('--out') ?? 'cli-compile-cache.json';
const NODE = resolve(opt('--node') ?? process.execPath);
if (!TIME) throw new Error('needs GNU time at /usr/bin/time');
const dist = resolve(here, '..', 'dist');
const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();

const dir = mkdtempSync(join(tmpdir(), 'trainprint-bench-compile-cache-'));
try {
  const { NODE_COMPILE_CACHE, NODE_DISABLE_COMPILE_CACHE, ...env } = process.env;
  // 'this': the cache on, in a folder of this run's (the CLI's own call, with TMPDIR pointing here); 'baseline': off
  const envs = {
    this: { ...env, TMPDIR: join(dir, 'tmp') },
    baseline: { ...env, TMPDIR: join(dir, 'tmp'), NODE_DISABLE_COMPILE_CACHE: '1' },
  };
  execFileSync('mkdir', ['-p', envs.this.TMPDIR]);
  const text = CORPORA.en(10_000_000);
  const file = join(dir, 'en.txt');
  writeFileSync(file, text);
  const lines = outputsOf(text).map((x) => JSON.stringify(x));
  const jsonl = join(dir, 'en.jsonl');
  writeFileSync(jsonl, `${lines.join('\n')}\n`);
  const one = join(dir, 'one.jsonl');
  writeFileSync(one, `${lines[0]}\n`);
  const { this: archive } = await archiveFilesOf([['this', dist]], text, dir);
  const readme = resolve(here, '..', 'README.md');
  const commands = {
    start: () => ['--help'],
    demo: () => ['demo'],
    analyze_readme: () => ['analyze', readme, '--quiet'],
    fingerprint: () => ['fingerprint', file],
    scan_one_output: (name) => ['scan', '--dataset', archive, one, '--out', join(dir, `one-${name}.jsonl`), '--quiet'],
    scan: (name) => ['scan', '--dataset', archive, jsonl, '--out', join(dir, `hits-${name}.jsonl`), '--quiet'],
  };
  /** What a command prints (and, for a scan, writes), less what differs from run to run (an analysis's id and time). */
  const printed = (name, command) => {
    const out = execFileSync(NODE, [join(dist, 'cli.js'), ...commands[command](name)], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: envs[name],
    })
      .replace(/"?analysis_id"?: ?"an_[0-9a-f]+"/g, 'analysis_id')
      .replace(/"created_at": "[0-9T:.Z-]+"/g, 'created_at');
    return command.startsWith('scan')
      ? readFileSync(join(dir, `${command === 'scan' ? 'hits' : 'one'}-${name}.jsonl`), 'utf8')
      : out;
  };
  // fill the cache: one run of each command, as a user's first run does
  for (const command of Object.keys(commands)) printed('this', command);
  const runs = { this: {}, baseline: {} };
  for (const name of Object.keys(runs)) for (const command of Object.keys(commands)) runs[name][command] = [];
  const loads = [];
  let identical = true;
  const builds = [
    ['this', `${dist} (${nodeVersion}, compile cache on)`],
    ['baseline', `${dist} (${nodeVersion}, NODE_DISABLE_COMPILE_CACHE=1)`],
  ];
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(loadNow());
    for (const [name] of r % 2 ? [...builds].reverse() : builds)
      for (const [command, args] of Object.entries(commands))
        runs[name][command].push(cliRun(dist, args(name), { node: NODE, env: envs[name] }));
    for (const command of Object.keys(commands))
      identical &&= printed('this', command) === printed('baseline', command);
  }
  const table = {};
  for (const [name, byCommand] of Object.entries(runs))
    table[name] = Object.fromEntries(
      Object.entries(byCommand).map(([command, rs]) => [command, { ...processMedians(rs), raw: rs }]),
    );
  const ratios = cpuRatios(runs, Object.keys(commands));
  const record = {
    ...abRecordHead('cli-compile-cache', { builds, rounds: ROUNDS, loads, identical, ratios }),
    measured_node: nodeVersion,
    ...table,
  };
  for (const [name] of builds)
    console.log(
      `${name.padEnd(9)} ` +
        Object.keys(commands)
          .map((c) => `${c} ${table[name][c].cpu_s} s`)
          .join(' | '),
    );
  console.log(`ratios ${JSON.stringify(ratios)}; identical outputs: ${record.identical_outputs}`);
  console.log(`wrote ${writeRecord(resolve(here, 'results', OUT), record)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
