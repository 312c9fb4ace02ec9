// The body check of a JSON request just under 1 MiB: compileValidator (src/http/validate.ts, with its length
// pre-check) against the validator on the whole schema, as before it. Alternating A/B in one process, medians.
//   node bench/validate-lengths.mjs [--rounds 15]
// src/ is bundled with esbuild into a temporary folder: compileValidator is not exported by the package.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { upperMedian } from './stats.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 15;
const dir = mkdtempSync(join(tmpdir(), 'validate-lengths-'));
const out = join(dir, 'bundle.mjs');
// the entry on standard input: esbuild resolves its imports from the working directory (the repository)
const entry = `export { compileValidator } from './src/http/validate.ts';
export { lengthPlan } from './src/http/validate-lengths.ts';
export { REQUESTS } from './src/services/requests.ts';
export { Validator } from '@cfworker/json-schema';`;
execFileSync(
  'npx',
  ['esbuild', '--bundle', '--loader=ts', '--platform=node', '--format=esm', `--outfile=${out}`, '--log-level=error'],
  {
    input: entry,
    stdio: ['pipe', 'inherit', 'inherit'],
  },
);
const { compileValidator, lengthPlan, REQUESTS, Validator } = await import(pathToFileURL(out).href);

const schema = REQUESTS.compare.served;
if (!lengthPlan(schema)) throw new Error('the compare schema has no length plan: nothing to measure');
// two texts of 500,000 UTF-16 units (the served bound), one with a code point outside the BMP every 50 characters
const line = `${'the quick brown fox jumps over the lazy dog 😀 '.repeat(10)}\n`;
const body = { a: line.repeat(Math.ceil(500_000 / line.length)).slice(0, 499_990), b: 'x'.repeat(499_990) };
const whole = new Validator(schema, '2020-12', true);
const before = (v) => whole.validate(v).valid;
const check = compileValidator(schema, 'body');
const after = (v) => check(v) === v;
if (!before(body) || !after(body)) throw new Error('the body should be valid');

function time(f, n = 20) {
  const t = performance.now();
  for (let i = 0; i < n; i++) f(body);
  return (performance.now() - t) / n;
}
time(before, 5);
time(after, 5);
const a = [];
const b = [];
for (let r = 0; r < rounds; r++) {
  if (r % 2 === 0) {
    a.push(time(before));
    b.push(time(after));
  } else {
    b.push(time(after));
    a.push(time(before));
  }
}
const result = {
  bench: 'validate-lengths',
  body: 'POST /api/v1/attribution/compare, a and b 499,990 UTF-16 units each (a with 😀 every ~47 characters)',
  rounds,
  load: loadavg().map((x) => Number(x.toFixed(1))),
  cpus: cpus().length,
  node: process.version,
  wholeSchemaMs: Number(upperMedian(a).toFixed(3)),
  withPrecheckMs: Number(upperMedian(b).toFixed(3)),
  ratio: Number((upperMedian(b) / upperMedian(a)).toFixed(5)),
  ratiosByRound: a.map((x, i) => Number((b[i] / x).toFixed(5))),
};
console.log(JSON.stringify(result, null, 2));
