#!/usr/bin/env node
/**
 * bench/whole-works.mjs --part extraction --quick for two builds in alternating rounds (before, after, before, after
 * …), so that both meet the same load: per format the words in order, the word count and the extraction's median time
 * of each run, then the medians over the runs per build and their ratio.
 *
 *   node bench/extraction-builds.mjs --before .before/dist [--after dist] [--rounds 3]
 *     [--out bench/results/extraction-builds.json]
 *
 * `--before` is another build's dist/ kept inside the repository (e.g. a copy of dist/ from an earlier commit).
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { medianOrNull } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: 'dist' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/results/extraction-builds.json' },
  },
});
if (values.before === undefined) throw new Error('--before DIR is required');
const builds = { before: values.before, after: values.after };
const dir = mkdtempSync(join(tmpdir(), 'extraction-builds-'));
const runs = [];
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [build, dist] of Object.entries(builds)) {
      const out = join(dir, `${build}-${round}.json`);
      const load = loadavg()[0];
      execFileSync(
        process.execPath,
        ['--expose-gc', 'bench/whole-works.mjs', '--part', 'extraction', '--quick', '--dist', dist, '--out', out],
        { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 },
      );
      const { formats } = JSON.parse(readFileSync(out, 'utf8')).extraction;
      const row = { build, round, load_average_at_start: Math.round(load * 10) / 10, formats: {} };
      for (const [format, f] of Object.entries(formats)) {
        row.formats[format] = {
          words_in_order_share: f.words_in_order_share,
          words: f.extracted_words,
          word_count_error: f.word_count_error,
          extract_ms: f.extract_ms.median,
          ratio_to_peer: f.ratio_to_peer,
        };
      }
      runs.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
// of the rounds that gave a number: a round that did not measure the figure gives none
const median = (xs) => medianOrNull(xs.filter((x) => typeof x === 'number'));
const medians = {};
for (const format of Object.keys(runs[0].formats)) {
  const of = (build, key) => median(runs.filter((r) => r.build === build).map((r) => r.formats[format][key]));
  const before = of('before', 'extract_ms');
  const after = of('after', 'extract_ms');
  medians[format] = {
    words_in_order_share: { before: of('before', 'words_in_order_share'), after: of('after', 'words_in_order_share') },
    words: { before: of('before', 'words'), after: of('after', 'words') },
    extract_ms: {
      before_median: before,
      after_median: after,
      after_over_before: Math.round((after / before) * 100) / 100,
    },
    // the time over the peer tool's (unzip -p, pdftotext) in the same run: the load of the moment divided out
    ratio_to_peer: { before_median: of('before', 'ratio_to_peer'), after_median: of('after', 'ratio_to_peer') },
  };
}
const result = {
  bench: 'extraction-builds',
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  builds,
  rounds: Number(values.rounds),
  method:
    'bench/whole-works.mjs --part extraction --quick per build in alternating rounds (each run 2 timed calls a ' +
    'format, their median; ratio_to_peer: over unzip -p or pdftotext in the same run); medians over the runs',
  medians,
  runs,
};
writeFileSync(resolve(ROOT, values.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(medians, null, 2));
console.log(`wrote ${values.out}`);
