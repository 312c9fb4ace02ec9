#!/usr/bin/env node
/**
 * The document threads' nice value (`createDocumentPool({ priority })`, 10 by default) against what it trades:
 * bench/hostile-files.mjs on this build, its default priority replaced by each value of --priorities in turn (a copy of
 * dist/ under .before/priority-N/, only the number `DOCUMENT_PRIORITY` changed), in alternating rounds (10, 5, 0, 10,
 * 5, 0 …) so that every value meets the same load. Per value, the medians of the refusal time of each file sent alone
 * and of the other account's p99 beside 20 copies at once; every run kept, with the load average before it.
 *
 *   npm run build && node bench/hostile-files-priority.mjs [--priorities 10,5,0] [--rounds 2]
 *     [--only font-bomb.pdf,flate-bomb.pdf,million-items.pdf,page-references.pdf] [--concurrent 20]
 *     [--out bench/results/hostile-files-priority.json]
 */
import './help.mjs';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { medianOrNull } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    priorities: { type: 'string', default: '10,5,0' },
    rounds: { type: 'string', default: '2' },
    only: { type: 'string', default: 'font-bomb.pdf,flate-bomb.pdf,million-items.pdf,page-references.pdf' },
    concurrent: { type: 'string', default: '20' },
    out: { type: 'string', default: 'bench/results/hostile-files-priority.json' },
  },
});
const priorities = values.priorities.split(',').map(Number);
for (const p of priorities) if (!Number.isInteger(p) || p < 0 || p > 19) throw new Error(`--priorities: ${p}`);

/** A copy of dist/ whose document threads take nice value `priority` by default; its CLI. */
function buildWith(priority) {
  const dist = join(ROOT, `.before/priority-${priority}/dist`);
  rmSync(dist, { recursive: true, force: true });
  cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  const file = join(dist, 'node.js');
  const source = readFileSync(file, 'utf8');
  const found = source.match(/\bDOCUMENT_PRIORITY = \d+;/g) ?? [];
  if (found.length !== 1) throw new Error(`dist/node.js: ${found.length} definitions of DOCUMENT_PRIORITY, not 1`);
  writeFileSync(file, source.replace(/\bDOCUMENT_PRIORITY = \d+;/, `DOCUMENT_PRIORITY = ${priority};`));
  return join(dist, 'cli.js');
}

const dir = mkdtempSync(join(tmpdir(), 'hostile-priority-'));
const runOnce = (cli, out) =>
  new Promise((res, rej) =>
    execFile(
      process.execPath,
      [
        join(ROOT, 'bench/hostile-files.mjs'),
        ...['--cli', cli, '--only', values.only, '--concurrent', values.concurrent, '--out', out],
      ],
      { cwd: ROOT, timeout: 20 * 60_000, maxBuffer: 1 << 26 },
      (err, _stdout, stderr) => (err ? rej(new Error(`${err.message}\n${stderr}`)) : res()),
    ),
  );

// of the rounds that gave a number: a round that did not measure the figure gives none
const median = (xs) => medianOrNull(xs.filter((x) => typeof x === 'number'));

const clis = Object.fromEntries(priorities.map((p) => [p, buildWith(p)]));
const runs = [];
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const priority of priorities) {
      const out = join(dir, `${priority}-${round}.json`);
      const load = loadavg()[0];
      await runOnce(clis[priority], out);
      const result = JSON.parse(readFileSync(out, 'utf8'));
      runs.push({ priority, round, load_average_before: Number(load.toFixed(2)), result });
      console.error(`round ${round}, nice ${priority}: load ${load.toFixed(1)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const files = values.only.split(',');
const medians = {};
for (const priority of priorities) {
  const mine = runs.filter((r) => r.priority === priority);
  medians[priority] = {
    load_averages: mine.map((r) => r.load_average_before),
    alone: Object.fromEntries(
      files.map((f) => [
        f,
        {
          answer_ms: median(mine.map((r) => r.result.files[f]?.answer_ms)),
          answer_ms_each: mine.map((r) => r.result.files[f]?.answer_ms),
          statuses: mine.map((r) => r.result.files[f]?.status),
          status_p99_ms: median(mine.map((r) => r.result.files[f]?.status_p99_ms)),
        },
      ]),
    ),
    concurrent: Object.fromEntries(
      files.map((f) => [
        f,
        {
          other_account_p99_ms: median(mine.map((r) => r.result.concurrent[f]?.other_account_p99_ms)),
          other_account_p99_ms_each: mine.map((r) => r.result.concurrent[f]?.other_account_p99_ms),
          status_p99_ms: median(mine.map((r) => r.result.concurrent[f]?.status_p99_ms)),
          all_answered_ms: median(mine.map((r) => r.result.concurrent[f]?.all_answered_ms)),
        },
      ]),
    ),
  };
}

writeFileSync(
  resolve(ROOT, values.out),
  `${JSON.stringify(
    {
      bench: 'hostile-files-priority',
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model,
      priorities,
      rounds: Number(values.rounds),
      concurrent: Number(values.concurrent),
      only: files,
      medians,
      runs,
    },
    null,
    2,
  )}\n`,
);
console.log(JSON.stringify(medians, null, 2));
