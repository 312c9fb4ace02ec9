// Instructions of a whole process by JavaScript function: the process runs under Valgrind's callgrind (one thread at
// a time, every instruction counted) with V8's perf map (`node --perf-basic-prof`), and each function's own
// instructions, with those of the V8 builtins it calls for its property loads, stores, arithmetic and comparisons (the
// inline caches that baseline-compiled code calls for each of them), are summed by the perf map's name of its code.
// Why: on a shared 2-vCPU machine the CPU time of one process varies by ±10–20 % with the load; the instructions of
// the main thread vary by about 1 %, and a function's share by less, so a change of a few percent in one step of
// `trainprint scan` can be told apart from the noise. Valgrind runs the process about 50 times slower.
//
//   node bench/callgrind-js.mjs [--top 60] [--grep REGEX] -- node dist/cli.js scan --dataset A.tpds in.jsonl --out hits.jsonl --quiet
//
// Prints the main thread's instructions, then the functions with the most, one a line: share, instructions, name; a
// builtin's calls counted with their caller are in its own row too, so the rows overlap (a function's own share is its
// row, not a part of a sum)
// (`JS:^name file:line`: `^` baseline code, `*` optimised, `~` interpreted entries are not split out: an interpreted
// function's bytecodes count in the builtins that run them, which are listed as themselves).
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
if (dash < 0 || dash === argv.length - 1)
  throw new Error('usage: node bench/callgrind-js.mjs [--top N] [--grep RE] -- node …');
const opt = (name) => (argv.indexOf(name) >= 0 && argv.indexOf(name) < dash ? argv[argv.indexOf(name) + 1] : undefined);
const TOP = Number(opt('--top') ?? 60);
const GREP = opt('--grep') ? new RegExp(opt('--grep')) : null;
const [node, ...args] = argv.slice(dash + 1);

const dir = mkdtempSync(join(tmpdir(), 'trainprint-callgrind-'));
try {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(dir, 'cg.out')}`,
      node,
      '--perf-basic-prof',
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'ignore'] },
  );
  if (run.error || run.status !== 0) throw run.error ?? new Error(`valgrind exited with ${run.status ?? run.signal}`);
  // valgrind runs the program in its own process, so V8 names the map by the child's pid: other runs at the same
  // time (other benches, other builds) write maps of their own beside it
  const maps = [`perf-${run.pid}.map`];
  if (!existsSync(join('/tmp', maps[0])))
    throw new Error(`no perf map /tmp/${maps[0]} (node without --perf-basic-prof?)`);
  const pid = maps[0].match(/\d+/)[0];
  const ranges = readFileSync(join('/tmp', maps[0]), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return [Number.parseInt(start, 16), Number.parseInt(size, 16), name.join(' ')];
    })
    .sort((a, b) => a[0] - b[0]);
  rmSync(join('/tmp', maps[0]), { force: true });
  const symbolOf = (address) => {
    let lo = 0,
      hi = ranges.length - 1,
      at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid][0] <= address) (at = mid), (lo = mid + 1);
      else hi = mid - 1;
    }
    return at >= 0 && address < ranges[at][0] + ranges[at][1] ? ranges[at][2] : null;
  };
  // the main thread's file: callgrind writes one per thread, the first (-01) being the main thread
  const main = readdirSync(dir).find((f) => f.endsWith('-01'));
  if (!main) throw new Error(`no main-thread output of pid ${pid}`);
  const names = new Map();
  const nameOf = (token) => {
    const m = token.match(/^\((\d+)\)(?: (.*))?$/);
    if (!m) return token;
    if (m[2]) names.set(m[1], m[2]);
    return names.get(m[1]) ?? '?';
  };
  const own = new Map();
  const calls = new Map();
  let fn = '',
    callee = '',
    call = false,
    total = 0;
  for (const line of readFileSync(join(dir, main), 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) call = true;
    else if (/^[0-9+*-]/.test(line)) {
      const cost = Number(line.split(/\s+/)[1]);
      if (!Number.isFinite(cost)) continue;
      if (call) {
        const key = `${fn}\n${callee}`;
        calls.set(key, (calls.get(key) ?? 0) + cost);
        call = false;
      } else {
        own.set(fn, (own.get(fn) ?? 0) + cost);
        total += cost;
      }
    }
  }
  const jsOf = (name) => {
    const m = name.match(/^0x([0-9a-f]+)/);
    return m ? (symbolOf(Number.parseInt(m[1], 16)) ?? 'code outside the perf map') : null;
  };
  // the builtins a function's code calls for one operation (not calls of other functions, not the runtime)
  const operation =
    /^Builtins_(?!Call|Construct|InterpreterEntry|JSEntry|CEntry|Adaptor|Generator|AsyncFunction|Promise|RunMicrotasks)/;
  const sum = new Map();
  const add = (k, c) => sum.set(k, (sum.get(k) ?? 0) + c);
  for (const [name, c] of own) add(jsOf(name) ?? name, c);
  for (const [key, c] of calls) {
    const [from, to] = key.split('\n');
    const js = jsOf(from);
    if (js && !jsOf(to) && operation.test(to)) {
      add(js, c);
    }
  }
  console.log(`main thread: ${total.toLocaleString('en')} instructions`);
  const rows = [...sum].filter(([k]) => !GREP || GREP.test(k)).sort((a, b) => b[1] - a[1]);
  for (const [k, c] of rows.slice(0, TOP))
    console.log(`${((100 * c) / total).toFixed(2).padStart(6)}% ${c.toLocaleString('en').padStart(14)} ${k}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
