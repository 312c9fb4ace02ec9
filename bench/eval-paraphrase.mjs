// LLM paraphrases as retrieval: does `engine.analyze` find the paper a passage was reworded from by a model, and how
// often does it name a paper for a passage of another paper of the same field?
//
// Data: arXivTection (Duarte et al. 2024, DE-COP), the developer half in ../shared/data/arxivtection: passages of 24
// arXiv papers (machine learning and NLP), each with three paraphrases written by an LLM (Claude). Two folds: the
// papers are split in two halves (alternately by title, within each membership label); in each fold one half is an
// exact dataset (one document per paper: its passages in order, a blank line between them), and
//   positives  every paraphrase of every passage of an indexed paper is analysed on its own (analyze({ content }));
//              it is found when an exact match names its paper, and placed when that match's source span overlaps
//              the passage it rewords;
//   negatives  every passage of the other half (the verbatim text and its three paraphrases) is analysed the same way;
//              any exact match is a false match (the papers share a field, none shares a passage).
// Also reported: the share of the paraphrase's characters inside matches of its paper (span recall), the kinds of
// the matches, and analyze's latency.
//
//   node bench/eval-paraphrase.mjs                (needs dist/; writes bench/results/eval-paraphrase.json)
//   node bench/eval-paraphrase.mjs --dist DIR     (another build: DIR/index.js)
//   node bench/eval-paraphrase.mjs --check        (no report: exit 1 below CHECK_FLOORS)
//   node bench/eval-paraphrase.mjs --per-query F  (also writes every query's outcome to F, JSON lines: two builds
//                                                  compared query by query)
import './help.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { round } from './stats.mjs';

const roundOrNull = (x, d = 4) => (x === null || Number.isNaN(x) ? null : round(x, d));

/** The targets: found share of the paraphrases, false-match share of same-field passages. */
export const TARGETS = { found: 0.8, false_match_rate: 0.01 };
/** --check floors (set under the measured figures when the retrieval last changed; see the report). */
export const CHECK_FLOORS = { found: 0.9, false_match_rate: 0.01 };

/** Papers → { id, label, passages: [{ verbatim, paraphrases }] }, by title. */
export function loadPapers(file) {
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const byTitle = new Map();
  for (const r of rows) (byTitle.get(r.paper) ?? byTitle.set(r.paper, []).get(r.paper)).push(r);
  return [...byTitle.keys()].sort().map((title, i) => {
    const rs = byTitle.get(title).sort((a, b) => a.passage_index - b.passage_index);
    return { id: `paper-${String(i).padStart(2, '0')}`, title, label: rs[0].label, passages: rs };
  });
}

/** The two halves: alternate papers of each label. */
export function halves(papers) {
  const out = [[], []];
  for (const label of [0, 1]) {
    const same = papers.filter((p) => p.label === label);
    for (let i = 0; i < same.length; i++) out[i % 2].push(same[i]);
  }
  return out;
}

/** A paper as one document: its passages, a blank line between them, and where each passage starts. */
function documentOf(paper) {
  let text = '';
  const at = [];
  for (const r of paper.passages) {
    if (text) text += '\n\n';
    at.push([text.length, text.length + r.verbatim.length]);
    text += r.verbatim;
  }
  return { text, at };
}

/** Characters of [0, n) covered by the union of [a, b) intervals. */
function coveredChars(n, intervals) {
  const segs = intervals.map(([a, b]) => [Math.max(0, a), Math.min(n, b)]).filter(([a, b]) => b > a);
  segs.sort((x, y) => x[0] - y[0]);
  let c = 0,
    end = 0;
  for (const [a, b] of segs) {
    if (b <= end) continue;
    c += b - Math.max(a, end);
    end = b;
  }
  return c;
}

/** What the per-query output keeps of a match. */
const outcomeOf = (m) => ({
  document: m.document_id,
  reuse: m.reuse ?? 'seed',
  similarity: m.similarity,
  query: [m.query_start, m.query_end],
  source: [m.source_start, m.source_end],
});

const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : null;

/**
 * Run both folds with `engine` (createEngine() of the build under test). Returns the report object.
 * opts.limit: at most that many positive and negative queries per fold (a quick check); opts.perQuery: called with
 * each query's outcome ({ fold, role, paper, passage, k, found, covered, chars, confidence, matches }).
 */
export async function evaluate(engine, file, { limit = 0, log = () => {}, perQuery = null } = {}) {
  const papers = loadPapers(file);
  const [h0, h1] = halves(papers);
  const pos = { n: 0, found: 0, placed: 0, covered: 0, chars: 0, wrong: 0, kinds: {} };
  const neg = { n: 0, matched: 0, verbatimN: 0, verbatimMatched: 0, paraphraseN: 0, paraphraseMatched: 0 };
  const times = [];
  const missed = [];
  for (const [fold, [indexed, other]] of [
    [h0, h1],
    [h1, h0],
  ].entries()) {
    const id = `arxiv-fold-${fold}`;
    const docs = new Map(indexed.map((p) => [p.id, documentOf(p)]));
    for (const d of engine.datasets()) engine.removeDataset(d.id);
    await engine.addDataset(
      { id },
      indexed.map((p) => ({ id: p.id, text: docs.get(p.id).text })),
    );
    let confidence = 0; // the last analysis's overall confidence (the per-query output)
    const analyse = async (content) => {
      const t0 = performance.now();
      const r = await engine.analyze({ content, content_type: 'text' });
      times.push(performance.now() - t0);
      confidence = r.confidence;
      return r.matches.filter((m) => m.kind === 'exact' && m.document_id !== null);
    };
    let q = 0;
    for (const p of indexed) {
      const { at } = docs.get(p.id);
      for (const [k, r] of p.passages.entries()) {
        for (const para of r.paraphrases) {
          if (limit && q >= limit) break;
          q++;
          const ms = await analyse(para);
          const own = ms.filter((m) => m.document_id === p.id);
          const [s0, s1] = at[k];
          pos.n++;
          pos.chars += para.length;
          if (own.length) pos.found++;
          else if (missed.length < 12) missed.push({ paper: p.id, passage: k, paraphrase: para.slice(0, 160) });
          if (own.some((m) => m.source_start < s1 && s0 < m.source_end)) pos.placed++;
          if (ms.some((m) => m.document_id !== p.id)) pos.wrong++;
          pos.covered += coveredChars(
            para.length,
            own.map((m) => [m.query_start, m.query_end]),
          );
          for (const m of own) pos.kinds[m.reuse ?? 'seed'] = (pos.kinds[m.reuse ?? 'seed'] ?? 0) + 1;
          perQuery?.({
            fold,
            role: 'paraphrase',
            paper: p.id,
            passage: k,
            k: r.paraphrases.indexOf(para),
            found: own.length > 0,
            covered: coveredChars(
              para.length,
              own.map((m) => [m.query_start, m.query_end]),
            ),
            chars: para.length,
            confidence,
            matches: ms.map(outcomeOf),
          });
        }
      }
    }
    let nq = 0;
    for (const p of other) {
      for (const r of p.passages) {
        for (const [kind, text] of [['verbatim', r.verbatim], ...r.paraphrases.map((x) => ['paraphrase', x])]) {
          if (limit && nq >= limit) break;
          nq++;
          const got = await analyse(text);
          const hit = got.length > 0;
          perQuery?.({
            fold,
            role: `negative-${kind}`,
            paper: p.id,
            passage: r.passage_index,
            found: hit,
            confidence,
            matches: got.map(outcomeOf),
          });
          neg.n++;
          neg[`${kind}N`]++;
          if (hit) {
            neg.matched++;
            neg[`${kind}Matched`]++;
          }
        }
      }
    }
    log(`fold ${fold}: ${indexed.length} papers indexed, ${q} paraphrases, ${nq} negative passages`);
  }
  times.sort((a, b) => a - b);
  return {
    what: 'LLM paraphrases of indexed arXiv passages found by engine.analyze; passages of other papers of the field as negatives',
    data: {
      source: 'arXivTection (Duarte et al. 2024, DE-COP), developer half: 24 papers, 3 LLM paraphrases per passage',
      papers: papers.length,
      folds: 2,
      split: 'papers by title, alternately within each membership label; each fold indexes one half',
    },
    measures: {
      found: 'share of paraphrases with an exact match naming the paper they reword',
      placed: 'share with such a match whose source span overlaps the reworded passage',
      span_recall: 'characters of the paraphrases inside matches naming their paper / all their characters',
      wrong_paper: 'share of paraphrases with a match naming another paper',
      false_match_rate: 'share of passages of non-indexed papers (verbatim and paraphrased) with any exact match',
    },
    targets: TARGETS,
    positives: {
      queries: pos.n,
      found: roundOrNull(pos.found / pos.n),
      placed: roundOrNull(pos.placed / pos.n),
      span_recall: roundOrNull(pos.covered / pos.chars),
      wrong_paper: roundOrNull(pos.wrong / pos.n),
      reuse_kinds: pos.kinds,
    },
    negatives: {
      queries: neg.n,
      false_match_rate: roundOrNull(neg.matched / neg.n),
      false_matches: neg.matched,
      verbatim: { queries: neg.verbatimN, matched: neg.verbatimMatched },
      paraphrase: { queries: neg.paraphraseN, matched: neg.paraphraseMatched },
    },
    latency: {
      analyze_ms_p50: roundOrNull(quantile(times, 0.5), 2),
      analyze_ms_p90: roundOrNull(quantile(times, 0.9), 2),
    },
    missed_examples: missed,
  };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const argv = process.argv.slice(2);
  const opt = (name) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const file = fileURLToPath(new URL('../../shared/data/arxivtection/passages.jsonl', import.meta.url));
  const dist = opt('dist') ? resolve(opt('dist')) : fileURLToPath(new URL('../dist', import.meta.url));
  const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const engine = await createEngine();
  const t0 = performance.now();
  const perQueryFile = opt('per-query') ? resolve(opt('per-query')) : null;
  const lines = [];
  const report = await evaluate(engine, file, {
    log: console.log,
    perQuery: perQueryFile ? (o) => lines.push(JSON.stringify(o)) : null,
  });
  if (perQueryFile) writeFileSync(perQueryFile, lines.join('\n') + '\n');
  const ok =
    report.positives.found >= CHECK_FLOORS.found && report.negatives.false_match_rate <= CHECK_FLOORS.false_match_rate;
  console.log(
    `found ${report.positives.found} (target ${TARGETS.found}), placed ${report.positives.placed}, span recall ${report.positives.span_recall}, ` +
      `wrong paper ${report.positives.wrong_paper}; false matches ${report.negatives.false_matches}/${report.negatives.queries} ` +
      `(${report.negatives.false_match_rate}, target ≤ ${TARGETS.false_match_rate}); analyze p50 ${report.latency.analyze_ms_p50} ms`,
  );
  if (argv.includes('--check')) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} LLM paraphrases: floors ${JSON.stringify(CHECK_FLOORS)}`);
    process.exit(ok ? 0 : 1);
  }
  report.runtime = {
    node: process.version,
    date: new Date().toISOString().slice(0, 10),
    build: dist,
    wall_s: roundOrNull((performance.now() - t0) / 1000, 1),
  };
  const out = opt('out')
    ? resolve(opt('out'))
    : fileURLToPath(new URL('./results/eval-paraphrase.json', import.meta.url));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  console.log(`wrote ${out}`);
}
