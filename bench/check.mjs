// `npm run bench:check`: a performance regression check of the exact index that holds on any machine.
// It measures small-scale figures afresh (bench/exact-scale.mjs at two scales, alternating, in fresh
// processes) and compares their ratios, never absolute times, against bench/check-baseline.json:
//   sort_growth     sort ns/key at the larger scale over the smaller (the sort stays linear: ≈ 1)
//   export_growth   export ns/byte, the same way (the export streams in order: ≈ 1)
//   search_growth   search p50 of the 10k-word query, larger over smaller scale
//   analyze_over_search  analyze p50 over search p50 at the larger scale (analyze's own cost)
//   export_peak_over_steady  peak RSS while exporting over steady RSS
//   index_bytes_per_fingerprint  what the dataset reports (deterministic)
//   rss_per_fingerprint  measured process RSS per fingerprint at the larger scale
//   content_index_over_build  the content-word index of a kept-text dataset (its first search less the sort alone,
//                   bench/first-search.mjs) over the dataset's build time, at the larger scale
//   content_index_growth  that index's time per byte, larger scale over smaller (linear: ≈ 1)
// A figure fails when it exceeds its baseline × (1 + tolerance). Medians over --pairs pairs (default 3).
// Then, where the development data lies beside the checkout (../shared/data), the accuracy guards: each evaluation's
// --check run (bench/eval-pan.mjs, eval-pan-summary.mjs, eval-pan-retrieval.mjs, eval-paraphrase.mjs) measures afresh
// and fails under its floors, and the committed reports (bench/results/eval-*.json) are read against the targets
// they record (EVAL_TARGETS below): a report that misses one is listed (as a miss, not a failure: the reports say
// where the product stands).
//   node bench/check.mjs [--pairs 3] [--write] [--evals-only]   (--write: record the fresh figures as the new baseline)
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const PAIRS = Number(arg('pairs', '3'));
const SMALL = 1,
  LARGE = 8;
const baselineFile = new URL('./check-baseline.json', import.meta.url);
if (!existsSync(new URL('../dist/index.js', import.meta.url))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}

const run = (scale) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--expose-gc',
        '--max-old-space-size=4000',
        fileURLToPath(new URL('./exact-scale.mjs', import.meta.url)),
        '--scale',
        String(scale),
        '--iterations',
        '30',
        '--json',
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    )
      .trim()
      .split('\n')
      .pop(),
  );
const firstSearch = (scale) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--expose-gc',
        '--max-old-space-size=4000',
        fileURLToPath(new URL('./first-search.mjs', import.meta.url)),
        '--child',
        fileURLToPath(new URL('../dist/', import.meta.url)),
        String(scale),
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    ),
  );
const indexMs = (r) => r.first_search_ms - r.sort_only_ms;

/** The evaluations' --check runs (each exits 1 under its floors). */
const EVAL_CHECKS = [
  'eval-pan.mjs',
  'eval-pan-summary.mjs',
  'eval-pan-retrieval.mjs',
  'eval-paraphrase.mjs',
  'eval-false-attribution.mjs',
];
/** Targets read from the committed reports: [report, what, path to the figure, at least (true) or at most]. */
const EVAL_TARGETS = [
  [
    'eval-pan.json',
    'compare: random obfuscation plagdet ≥ 0.93',
    'sub_corpora.03-random-obfuscation.plagdet',
    0.93,
    true,
  ],
  ['eval-pan.json', 'compare: pooled 01–04 plagdet ≥ 0.96', 'pooled_01_04.plagdet', 0.96, true],
  [
    'eval-pan.json',
    'compare: false-positive characters on 01 ≤ 563',
    'sub_corpora.01-no-plagiarism.false_positive_chars',
    563,
    false,
  ],
  ['eval-pan-summary.json', 'compare: summaries plagdet ≥ 0.65 (constructed set)', 'all.plagdet', 0.65, true],
  [
    'eval-pan-retrieval.json',
    'analyze: random obfuscation recall ≥ 0.92',
    'sub_corpora.03-random-obfuscation.recall_query_macro',
    0.92,
    true,
  ],
  [
    'eval-pan-retrieval.json',
    'analyze: translation recall ≥ 0.92',
    'sub_corpora.04-translation-obfuscation.recall_query_macro',
    0.92,
    true,
  ],
  [
    'eval-pan-retrieval.json',
    'analyze: verbatim recall ≥ 0.99',
    'sub_corpora.02-no-obfuscation.recall_query_macro',
    0.99,
    true,
  ],
  [
    'eval-pan-retrieval.json',
    'analyze: verified share ≥ 0.97',
    'overall.precision_verified.verified_share',
    0.97,
    true,
  ],
  ['eval-paraphrase.json', 'analyze: LLM paraphrases found ≥ 0.80', 'positives.found', 0.8, true],
  [
    'eval-paraphrase.json',
    'analyze: false matches on same-field passages ≤ 0.01',
    'negatives.false_match_rate',
    0.01,
    false,
  ],
  [
    'eval-false-attribution.json',
    'default packs: natural texts in no dataset at confidence ≥ 50 ≤ 0.5 %',
    'kinds.portrait.parts.test.negatives.ge50.share',
    0.005,
    false,
  ],
  [
    'eval-false-attribution.json',
    'default packs: natural texts at confidence ≥ 90: 0',
    'kinds.portrait.parts.test.negatives.ge90.k',
    0,
    false,
  ],
  [
    'eval-false-attribution.json',
    'exact datasets: natural texts in no dataset at confidence ≥ 50 ≤ 0.5 %',
    'kinds.exact.parts.test.negatives.ge50.share',
    0.005,
    false,
  ],
  [
    'eval-false-attribution.json',
    'every answer ≥ 50 shows a checkable span',
    'kinds.portrait.parts.test.shown_when_confident.share',
    1,
    true,
  ],
  [
    'eval-false-attribution.json',
    'fresh works scored ≥ 50 against meta/llama-7b ≤ 1 %',
    'kinds.portrait.score.test.negatives.share',
    0.01,
    false,
  ],
  ['eval-calibration.json', 'portrait ECE per length bucket ≤ 0.03', 'kinds.portrait.test.1500.ece', 0.03, false],
  ['analyze-budget.json', 'analyze at 52 M fingerprints, no reuse ≤ 2 ms', 'current.no_reuse_p50_ms', 2, false],
  [
    'analyze-budget.json',
    'analyze at 52 M fingerprints, five passages ≤ 10 ms',
    'current.five_passages_p50_ms',
    10,
    false,
  ],
];

/** Runs the evaluations' checks and reads the reports; returns the number of failed checks. */
function evalGuards() {
  const data = fileURLToPath(new URL('../../shared/data', import.meta.url));
  let failed = 0;
  if (!existsSync(data)) console.log('no ../shared/data beside the checkout: the evaluation checks are skipped');
  else
    for (const script of EVAL_CHECKS) {
      try {
        const out = execFileSync(
          process.execPath,
          [fileURLToPath(new URL(`./${script}`, import.meta.url)), '--check'],
          {
            encoding: 'utf8',
            maxBuffer: 16 << 20,
          },
        );
        for (const line of out.split('\n')) if (/^(ok|FAIL)/.test(line)) console.log(`${script}: ${line}`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${script} --check\n${e.stdout ?? ''}${e.stderr ?? ''}`);
      }
    }
  const at = (o, path) => path.split('.').reduce((x, k) => (x === undefined || x === null ? x : x[k]), o);
  for (const [file, what, path, limit, atLeast] of EVAL_TARGETS) {
    const url = new URL(`./results/${file}`, import.meta.url);
    const value = existsSync(url) ? at(JSON.parse(readFileSync(url, 'utf8')), path) : undefined;
    const met = typeof value === 'number' && (atLeast ? value >= limit : value <= limit);
    console.log(`${met ? 'met ' : 'miss'} ${what}: ${value ?? 'no figure'} (bench/results/${file})`);
  }
  return failed;
}

if (process.argv.includes('--evals-only')) process.exit(evalGuards() ? 1 : 0);

const samples = {};
const add = (name, value) => (samples[name] ??= []).push(value);
for (let p = 0; p < PAIRS; p++) {
  const [a, b] = p % 2 === 0 ? [run(SMALL), run(LARGE)] : [run(LARGE), run(SMALL)].reverse();
  add('sort_growth', b.sort_ns_per_key / a.sort_ns_per_key);
  add('export_growth', b.export_ns_per_byte / a.export_ns_per_byte);
  add('search_growth', b.search_ms.p50 / a.search_ms.p50);
  add('analyze_over_search', b.analyze_ms.p50 / b.search_ms.p50);
  add('export_peak_over_steady', b.export_peak_over_steady);
  add('index_bytes_per_fingerprint', b.index_bytes_per_fingerprint);
  add('rss_per_fingerprint', b.rss_per_fingerprint);
  const [c, d] =
    p % 2 === 0 ? [firstSearch(SMALL), firstSearch(LARGE)] : [firstSearch(LARGE), firstSearch(SMALL)].reverse();
  add('content_index_over_build', indexMs(d) / d.build_ms);
  add('content_index_growth', indexMs(d) / d.bytes / (indexMs(c) / c.bytes));
  console.log(`pair ${p + 1}: ${b.fingerprints} vs ${a.fingerprints} fingerprints`);
}
const fresh = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, { median: median(v), runs: v }]));

if (process.argv.includes('--write')) {
  const tolerance = {
    sort_growth: 0.5,
    export_growth: 0.5,
    search_growth: 0.5,
    analyze_over_search: 0.75,
    export_peak_over_steady: 0.1,
    index_bytes_per_fingerprint: 0.02,
    rss_per_fingerprint: 0.3,
    content_index_over_build: 0.5,
    content_index_growth: 0.5,
  };
  const figures = Object.fromEntries(Object.entries(fresh).map(([k, v]) => [k, Number(v.median.toFixed(3))]));
  writeFileSync(
    baselineFile,
    JSON.stringify(
      {
        scales: [SMALL, LARGE],
        pairs: PAIRS,
        date: new Date().toISOString().slice(0, 10),
        node: process.version,
        figures,
        tolerance,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`wrote ${fileURLToPath(baselineFile)}`);
  process.exit(0);
}
const baseline = JSON.parse(readFileSync(baselineFile, 'utf8'));
let failed = 0;
for (const [name, want] of Object.entries(baseline.figures)) {
  const got = fresh[name]?.median;
  const limit = want * (1 + baseline.tolerance[name]);
  const ok = got !== undefined && got <= limit;
  if (!ok) failed++;
  const runs = fresh[name]?.runs.map((x) => x.toFixed(2)).join(', ');
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(28)} ${got?.toFixed(3)} (runs ${runs}); baseline ${want}, limit ${limit.toFixed(3)}`,
  );
}
console.log(`${Object.keys(baseline.figures).length - failed} passed, ${failed} failed`);
const evalFailed = evalGuards();
process.exit(failed || evalFailed ? 1 : 0);
