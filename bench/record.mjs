// What a bench record opens with — when, on what and on which code it was measured — and how it is written, shared
// by the scripts so that every record names its machine the same way. A figure read months later is weighed against
// the load and the machine it came from (a shared 2-core machine's load moves whole-process times by more than the
// changes measured), and against the commit it measured.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, round } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * This checkout's commit, `-dirty` after it when the tree holds uncommitted changes (`git describe --dirty`); null
 * outside a git checkout. A/B scripts name the builds they load beside it: a dist/ may be older than its checkout.
 * @example checkoutCommit() // '2f3fd1d9', or '2f3fd1d9-dirty'
 */
export function checkoutCommit() {
  try {
    const args = ['describe', '--always', '--dirty', '--abbrev=8', '--exclude=*'];
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/**
 * The record's header: the bench's name, the date, the commit, Node's version, the CPU model and its core count.
 * @example const record = { ...recordHeader('store-threshold'), rounds: 7, load_average_at_start: loadNow() }
 */
export function recordHeader(bench) {
  const cores = cpus();
  return {
    bench,
    date: new Date().toISOString(),
    commit: checkoutCommit(),
    node: process.version,
    cpu: cores[0]?.model,
    cores: cores.length,
  };
}

/**
 * The 1-minute load average now.
 * @example const loads = []; for (let r = 0; r < rounds; r++) loads.push(loadNow())
 */
export const loadNow = () => loadavg()[0];

/**
 * The spread of load samples taken during a run (one a round): median, least and most, to 2 decimals.
 * @example loadSpread([1.2, 0.9, 1.5]) // { median: 1.2, min: 0.9, max: 1.5 }
 */
export function loadSpread(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: round(median(s), 2), min: round(s[0], 2), max: round(s.at(-1), 2) };
}

/**
 * Writes `record` as indented JSON to `path` (relative to the repository root, or absolute), making its folder;
 * returns the path relative to the root, for the script's last line.
 * @example console.log(`wrote ${writeRecord('bench/results/x.json', record)}`)
 */
export function writeRecord(path, record) {
  const full = resolve(ROOT, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, `${JSON.stringify(record, null, 2)}\n`);
  return relative(ROOT, full);
}

/**
 * The head of an A/B record of whole processes (bench/cli-cpu.mjs, bench/cli-defaults.mjs): {@link recordHeader}, the
 * command line's options, the builds, the rounds, the load over them, whether the builds printed the same (null with
 * one build) and each command's CPU ratio.
 * @example abRecordHead('cli-defaults', { builds, rounds: 7, loads, identical: true, ratios })
 */
export function abRecordHead(bench, { builds, rounds, loads, identical, ratios }) {
  return {
    ...recordHeader(bench),
    options: process.argv.slice(2),
    builds,
    rounds,
    load_1min: loadSpread(loads),
    identical_outputs: builds.length > 1 ? identical : null,
    ratios,
  };
}
