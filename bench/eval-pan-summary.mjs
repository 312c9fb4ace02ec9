// Summary obfuscation, measured on a constructed set: `compare` on PAN-style pairs whose reuse is a summary.
//
// The PAN 2013 summary sub-corpus (05, human summaries of DUC 2006 document sets) is not in the dev data, so
// this builds summary cases the way PAN did, from dev documents: bench/data/summary-proxy.json holds, for each
// case, a passage of a dev source document (name, offset, length) and a summary of it (120-300 words, written for
// this evaluation by an LLM in one of three styles: `abstract`, `extractive`, `abstractive`), in two sets:
// `passages` (48 cases, passages of 6,000-8,200 characters) and `long` (24 cases, 12,000-18,200 characters). The summary is inserted at a line break near the middle of a dev suspicious document from
// 01-no-plagiarism (a different host for each case), which gives the case: the summary in the suspicious
// document, the passage in the source document. Scored with the official PAN measures (bench/pan-measures.mjs).
// Negatives: each suspicious document against the source document of the next case (a long document it did
// not summarise): every detection there is false.
//
// LLM-written summaries are not the DUC human abstracts of PAN 05; the figure is a proxy, reported as one.
//
//   node bench/eval-pan-summary.mjs          (needs a dist/ build; writes bench/results/eval-pan-summary.json)
//   node bench/eval-pan-summary.mjs --check  (no report: exit 1 when plagdet is below CHECK_FLOOR or a negative
//                                             pair has a detection)
//
// `evaluate(compare, root)` is exported so that a runner over the TypeScript sources can use it before dist/ is
// rebuilt.
import './help.mjs';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { isOverlapping, loadCorpus, panMeasures, spansToDetections } from './pan-measures.mjs';
import { round } from './stats.mjs';

const DATA = new URL(process.env.SUMMARY_PROXY_DATA ?? './data/summary-proxy.json', import.meta.url);

/** plagdet floor of --check over all the constructed cases (0.751 when the summary mode was last changed). */
export const CHECK_FLOOR = 0.75;

/** Insert `summary` as its own line at the line break nearest the middle of `host`: { text, offset }. */
export function insertSummary(host, summary) {
  const mid = host.length >> 1;
  const after = host.indexOf('\n', mid),
    before = host.lastIndexOf('\n', mid);
  const at =
    after === -1 && before === -1
      ? host.length
      : after === -1
        ? before + 1
        : before === -1
          ? after + 1
          : after - mid < mid - before
            ? after + 1
            : before + 1;
  const glue = at > 0 && host[at - 1] !== '\n' ? '\n' : '';
  return { text: host.slice(0, at) + glue + summary + '\n' + host.slice(at), offset: at + glue.length };
}

/** The constructed pairs: [{ id, style, susp, src, suspText, srcText, cases }] and their negative pairs. */
export function buildPairs(root) {
  const proxy = JSON.parse(readFileSync(DATA, 'utf8'));
  const hosts = [...new Set(loadCorpus(root, ['01-no-plagiarism'])[0].pairs.map((p) => p.susp))].sort();
  const read = (dir, name) => readFileSync(join(root, dir, name), 'utf8');
  const pairs = proxy.cases.map((c, i) => {
    const host = hosts[(i * 7) % hosts.length];
    const summary = c.summary.trim();
    const { text, offset } = insertSummary(read('susp', host), summary);
    const susp = `${host}+summary-${c.id}`;
    const srcText = read('src', c.source);
    if (srcText.length < c.source_offset + c.source_length) {
      throw new Error(`case ${c.id}: the passage lies outside ${c.source}`);
    }
    return {
      id: c.id,
      style: c.style,
      set: c.set,
      susp,
      src: c.source,
      suspText: text,
      srcText,
      cases: [
        {
          susp,
          susp_off: offset,
          susp_len: summary.length,
          src: c.source,
          src_off: c.source_offset,
          src_len: c.source_length,
        },
      ],
    };
  });
  const negatives = pairs.map((p, i) => {
    const other = pairs[(i + 1) % pairs.length];
    return { id: p.id, susp: p.susp, src: other.src, suspText: p.suspText, srcText: other.srcText, cases: [] };
  });
  return { pairs, negatives, about: proxy.about };
}

/** Evaluate `compare(a, b) → { spans }` (a = suspicious, b = source) on the constructed pairs. */
export function evaluate(compare, root, { log = () => {} } = {}) {
  const { pairs, negatives, about } = buildPairs(root);
  const score = (list) => {
    const cases = [],
      dets = [];
    for (const p of list) {
      cases.push(...p.cases);
      dets.push(...spansToDetections(p, compare(p.suspText, p.srcText).spans));
    }
    const m = panMeasures(cases, dets);
    return {
      pairs: list.length,
      detections: m.detections,
      plagdet: round(m.plagdet, 5),
      recall: round(m.recall, 5),
      precision: round(m.precision, 5),
      granularity: round(m.granularity, 5),
      cases_detected: cases.filter((c) => dets.some((d) => isOverlapping(d, c))).length,
    };
  };
  const report = {
    data: 'bench/data/summary-proxy.json',
    about,
    measure: 'PAN 2013/14 official measures over the constructed summary cases',
    all: null,
    by_set: {},
    by_style: {},
    negatives: null,
  };
  report.all = score(pairs);
  log(`all: ${JSON.stringify(report.all)}`);
  for (const set of [...new Set(pairs.map((p) => p.set))]) {
    report.by_set[set] = score(pairs.filter((p) => p.set === set));
    log(`set ${set}: ${JSON.stringify(report.by_set[set])}`);
  }
  for (const style of [...new Set(pairs.map((p) => p.style))]) {
    report.by_style[style] = score(pairs.filter((p) => p.style === style));
    log(`${style}: ${JSON.stringify(report.by_style[style])}`);
  }
  let falseDets = 0,
    falseChars = 0,
    suspChars = 0;
  for (const n of negatives) {
    const dets = spansToDetections(n, compare(n.suspText, n.srcText).spans);
    falseDets += dets.length;
    falseChars += dets.reduce((s, d) => s + d.susp_len, 0);
    suspChars += n.suspText.length;
  }
  report.negatives = {
    pairs: negatives.length,
    false_detections: falseDets,
    false_positive_char_share: round(falseChars / suspChars, 7),
  };
  log(`negatives: ${JSON.stringify(report.negatives)}`);
  report.published = {
    note: 'plagdet on PAN 2013 sub-corpus 05 (human DUC 2006 summaries), not on this set',
    suchomel_2013_test2: 0.61011,
    sanchez_perez_2014_test2: 0.5607,
    sanchez_perez_2015_train: 0.6304,
  };
  return report;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const root = fileURLToPath(new URL('../../shared/data/pan13-text-alignment/train-corpus', import.meta.url));
  // --dist FILE: another build of the package (e.g. an esbuild bundle of src/ under test)
  const dist = process.argv.includes('--dist') ? process.argv[process.argv.indexOf('--dist') + 1] : '../dist/index.js';
  const { createEngine } = await import(dist.startsWith('.') ? dist : 'file://' + dist);
  const engine = await createEngine();
  const check = process.argv.includes('--check');
  const report = evaluate((a, b) => engine.compare(a, b), root, { log: check ? () => {} : console.log });
  if (check) {
    const ok = report.all.plagdet >= CHECK_FLOOR && report.negatives.false_detections === 0;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} summary cases: plagdet ${report.all.plagdet} (floor ${CHECK_FLOOR}), ` +
        `detections on negative pairs ${report.negatives.false_detections}`,
    );
    process.exit(ok ? 0 : 1);
  }
  report.runtime = { node: process.version, date: new Date().toISOString().slice(0, 10), build: dist };
  if (!process.argv.includes('--no-write')) {
    const out = new URL('./results/eval-pan-summary.json', import.meta.url);
    mkdirSync(new URL('.', out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    console.log('wrote bench/results/eval-pan-summary.json');
  }
}
