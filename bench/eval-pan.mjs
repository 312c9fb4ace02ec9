// PAN text-alignment evaluation of `engine.compare` on the dev corpus (../shared/data/pan13-text-alignment):
// runs compare(suspicious, source) on every pair of 01–04, scores the spans with the official PAN measures
// (bench/pan-measures.mjs) per sub-corpus and pooled over 01–04, counts false detections on 01, times each
// pair, and writes bench/results/eval-pan.json with the published anchors beside our numbers.
//
//   node bench/eval-pan.mjs            (needs a dist/ build whose engine has compare)
//   node bench/eval-pan.mjs --check    (quick: the first 15 pairs of each sub-corpus against floors, no report)
//
// --check exits 1 when a sub-corpus scores below its floor (CHECK_FLOORS) or 01-no-plagiarism has a
// detection. test/unit/compare.test.ts checks PAN-style pairs cut from the committed books; this the real ones.
//
// `evaluate(compare, root)` and `writeReport` are exported so that a runner over the TypeScript sources
// (e.g. an esbuild bundle of src/align/compare.ts) can write the same report before dist/ is rebuilt;
// `runtime.build` records which code produced it.
import './help.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ANCHORS, loadCorpus, microMeasures, panMeasures, spansToDetections } from './pan-measures.mjs';
import { round } from './stats.mjs';

/** plagdet floors of --check over the first CHECK_PAIRS pairs of each sub-corpus (01: no detection at all). */
export const CHECK_PAIRS = 15;
export const CHECK_FLOORS = {
  '02-no-obfuscation': 0.9,
  '03-random-obfuscation': 0.85,
  '04-translation-obfuscation': 0.85,
};

/** The --check run: [{ name, plagdet, detections, ok }] over the first CHECK_PAIRS pairs of 01–04. */
export function check(compare, root) {
  const out = [];
  for (const sub of loadCorpus(root)) {
    const cases = [],
      dets = [];
    for (const pair of sub.pairs.slice(0, CHECK_PAIRS)) {
      cases.push(...pair.cases);
      dets.push(...spansToDetections(pair, compare(pair.suspText, pair.srcText).spans));
    }
    const m = panMeasures(cases, dets);
    const floor = CHECK_FLOORS[sub.name];
    const ok = floor === undefined ? dets.length === 0 : m.plagdet > floor;
    out.push({ name: sub.name, plagdet: round(m.plagdet, 5), detections: dets.length, floor: floor ?? null, ok });
  }
  return out;
}

/**
 * Evaluate `compare(a, b) → { spans }` (a = suspicious, b = source) on the corpus at `root`.
 * Returns the report object (also what eval-pan.json holds).
 */
export function evaluate(compare, root, { log = () => {} } = {}) {
  const subs = loadCorpus(root);
  const report = {
    corpus: root.replace(/.*\/shared\//, 'shared/'),
    measure:
      'PAN 2013/14 official: macro-averaged character recall/precision over cases/detections (both documents), granularity, plagdet = F1 / log2(1 + G)',
    sub_corpora: {},
    pooled_01_04: null,
  };
  const allCases = [],
    allDets = [],
    times = [];
  for (const sub of subs) {
    const cases = [],
      dets = [],
      t = [];
    let suspChars = 0;
    for (const pair of sub.pairs) {
      const t0 = performance.now();
      const res = compare(pair.suspText, pair.srcText);
      t.push(performance.now() - t0);
      cases.push(...pair.cases);
      dets.push(...spansToDetections(pair, res.spans));
      suspChars += pair.suspText.length;
    }
    t.sort((x, y) => x - y);
    times.push(...t);
    const m = panMeasures(cases, dets);
    const micro = microMeasures(cases, dets);
    const entry = {
      pairs: sub.pairs.length,
      cases: cases.length,
      detections: m.detections,
      plagdet: round(m.plagdet, 5),
      recall: round(m.recall, 5),
      precision: round(m.precision, 5),
      granularity: round(m.granularity, 5),
      micro_recall: round(micro.recall, 5),
      micro_precision: round(micro.precision, 5),
      ms_per_pair_p50: round(t[t.length >> 1], 2),
      ms_per_pair_p90: round(t[Math.floor(t.length * 0.9)], 2),
    };
    if (sub.name.startsWith('01')) {
      entry.false_detections = dets.length;
      entry.false_detections_per_100_pairs = round((100 * dets.length) / sub.pairs.length, 3);
      entry.pairs_with_a_false_detection = new Set(dets.map((d) => d.susp + d.src)).size;
      // suspicious-document characters inside false detections, as a share of all the pairs' suspicious text
      entry.false_positive_chars = dets.reduce((n, d) => n + d.susp_len, 0);
      entry.false_positive_char_share = round(entry.false_positive_chars / Math.max(1, suspChars), 7);
    }
    entry.published = ANCHORS[sub.name] ?? null;
    report.sub_corpora[sub.name] = entry;
    allCases.push(...cases);
    allDets.push(...dets);
    log(
      `${sub.name}: ${JSON.stringify({ plagdet: entry.plagdet, R: entry.recall, P: entry.precision, G: entry.granularity, dets: entry.detections, p50_ms: entry.ms_per_pair_p50 })}`,
    );
  }
  const m = panMeasures(allCases, allDets);
  times.sort((x, y) => x - y);
  report.pooled_01_04 = {
    pairs: times.length,
    cases: m.cases,
    detections: m.detections,
    plagdet: round(m.plagdet, 5),
    recall: round(m.recall, 5),
    precision: round(m.precision, 5),
    granularity: round(m.granularity, 5),
    ms_per_pair_p50: round(times[times.length >> 1], 2),
    ms_per_pair_p90: round(times[Math.floor(times.length * 0.9)], 2),
    ms_total: round(
      times.reduce((s, x) => s + x, 0),
      0,
    ),
    published_entire_corpus_01_05: ANCHORS.entire_corpus_01_05,
  };
  report.anchors_note = ANCHORS.note;
  log(
    `pooled 01-04: ${JSON.stringify({ plagdet: report.pooled_01_04.plagdet, R: report.pooled_01_04.recall, P: report.pooled_01_04.precision, G: report.pooled_01_04.granularity })}`,
  );
  return report;
}

export function writeReport(report, file) {
  mkdirSync(new URL('.', file), { recursive: true });
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
}

const isMain =
  process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && /eval-pan\.mjs$/.test(process.argv[1]);
if (isMain) {
  const root = fileURLToPath(new URL('../../shared/data/pan13-text-alignment/train-corpus', import.meta.url));
  const { createEngine } = await import('../dist/index.js');
  const engine = await createEngine();
  if (typeof engine.compare !== 'function') {
    console.error(
      'dist/ has no engine.compare yet: rebuild the package after wiring src/align/compare.ts into the engine',
    );
    process.exit(1);
  }
  if (process.argv.includes('--check')) {
    const rows = check((a, b) => engine.compare(a, b), root);
    for (const r of rows) {
      const floor = r.floor ?? 'none: no detection';
      const status = r.ok ? 'ok  ' : 'FAIL';
      console.log(`${status} ${r.name}: plagdet ${r.plagdet} (floor ${floor}), detections ${r.detections}`);
    }
    process.exit(rows.length === 4 && rows.every((r) => r.ok) ? 0 : 1);
  }
  const report = evaluate((a, b) => engine.compare(a, b), root, { log: console.log });
  report.runtime = {
    node: process.version,
    variant: engine.variant,
    date: new Date().toISOString().slice(0, 10),
    build: 'dist/',
  };
  writeReport(report, new URL('./results/eval-pan.json', import.meta.url));
  console.log('wrote bench/results/eval-pan.json');
}
