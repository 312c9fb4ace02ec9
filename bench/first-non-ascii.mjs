// The first non-ASCII fingerprint of a fresh process: each round starts one Node process per build (this dist/ and
// --baseline's, in an order that flips each round), which makes an engine, fingerprints an ASCII text twice and then
// a text of Cyrillic, Latin with accents and Japanese twice, and reports the process CPU (process.cpuUsage: user +
// system, every thread, so the engine's compiler threads count) of each call. Medians over the rounds; each round
// also checks that both builds give the non-ASCII text the same fingerprint (its id and winnowed hashes).
// `--compare` then adds two `compare()` calls of non-ASCII texts in the same process (a passage of French and Russian
// against an edited copy of it among other words; their spans checked equal across builds): the first reads the
// TypeScript normaliser's tables, which the core has decoded for the fingerprints before it.
//
//   npm run build && node bench/first-non-ascii.mjs --baseline OTHER/dist [--rounds 9] [--compare]
//     [--out first-non-ascii.json]
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { median, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const ROUNDS = Number(opt('--rounds') ?? 9);
const OUT = opt('--out') ?? 'first-non-ascii.json';
const COMPARE = process.argv.includes('--compare');
const builds = [['this', resolve(here, '..', 'dist')]];
if (opt('--baseline')) builds.push(['baseline', resolve(opt('--baseline'))]);

// The child: one engine, four calls, the CPU of each in ms, and the non-ASCII result's digest.
const CHILD = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const t0 = cpu();
const { createEngine } = await import(process.argv[1]);
const e = await createEngine();
const texts = [
  'plain ascii words here for the warm up of everything ok',
  'plain ascii words here for the warm up of everything again',
  'Привет мир это тест — café naïve 日本語の文章です «quoted»',
  'Привет мир это тест — café naïve 日本語の文章ですね «quoted»',
];
const calls = [];
let last;
for (const text of texts) {
  const t = cpu();
  last = await e.fingerprint(text);
  calls.push(cpu() - t);
}
let spans = [];
if (process.argv[2] === 'compare') {
  const a = 'Le petit prince s’assit sur une pierre et leva les yeux vers le ciel. Здравствуй, мир: это длинный текст о путешествии через горы и реки, где каждый день приносит что-то новое. Élève, café, naïveté.';
  const b = 'Ein anderer Anfang. Le petit prince s’assit sur une grosse pierre et leva les yeux vers le ciel. Здравствуй, мир: это длинный текст о путешествии через горы и реки, где каждый день приносит нечто новое. Ende.';
  for (const [x, y] of [[a, b], [b, a]]) {
    const t = cpu();
    spans.push(e.compare(x, y).spans ?? null);
    calls.push(cpu() - t);
  }
}
const digest = JSON.stringify([last.id, Array.from(last.winnowed?.hashes ?? last.hashes ?? []).map(String), spans]);
console.log(JSON.stringify({ start: t0, calls, total: cpu(), digest }));
`;

const samples = Object.fromEntries(builds.map(([name]) => [name, []]));
const loads = [];
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadNow());
  const order = r % 2 === 0 ? builds : [...builds].reverse();
  const digests = new Set();
  for (const [name, dist] of order) {
    const url = pathToFileURL(join(dist, 'fingerprint.js')).href;
    const args = ['--input-type=module', '-e', CHILD, url, ...(COMPARE ? ['compare'] : [])];
    const out = execFileSync(process.execPath, args, { encoding: 'utf8' });
    const row = JSON.parse(out);
    digests.add(row.digest);
    samples[name].push(row);
  }
  if (digests.size !== 1)
    throw new Error(`round ${r}: the builds fingerprint or compare the non-ASCII texts differently`);
}

const CALLS = [
  'ascii_first',
  'ascii_second',
  'non_ascii_first',
  'non_ascii_second',
  ...(COMPARE ? ['compare_first', 'compare_second'] : []),
];
const summary = {};
for (const [name] of builds) {
  const rows = samples[name];
  summary[name] = {
    ...Object.fromEntries(CALLS.map((c, i) => [`${c}_cpu_ms`, round(median(rows.map((x) => x.calls[i])), 2)])),
    process_cpu_ms: round(median(rows.map((x) => x.total)), 2),
  };
}
if (summary.baseline) {
  summary.ratio_baseline_over_this = Object.fromEntries(
    Object.keys(summary.this).map((k) => [k, round(summary.baseline[k] / summary.this[k], 2)]),
  );
}
const record = {
  ...recordHeader('first-non-ascii'),
  rounds: ROUNDS,
  compare: COMPARE,
  builds: Object.fromEntries(builds),
  load_average: loadSpread(loads),
  summary,
  samples: Object.fromEntries(builds.map(([n]) => [n, samples[n].map(({ digest, ...rest }) => rest)])),
};
console.log(JSON.stringify(summary, null, 2));
console.log(`wrote ${writeRecord(join('bench/results', OUT), record)}`);
