// Calibration of the dataset-level confidence of `analyze` (src/services/analyze/calibration.ts) on the dev
// data, following the protocol docs/analyze.md states:
//
//   labelled dev queries   the retrieval evaluation's queries (bench/eval-retrieval.mjs, same seed):
//                          members = queries holding passages of indexed documents under the
//                          transforms (verbatim 12–200 words, 5/10/20 % word edits, re-wrap / case /
//                          punctuation / Unicode noise, mosaics, the other editions); non-members =
//                          clean same-genre passages and whole documents (no 8-word run shared with
//                          the index). LLM paraphrases of indexed passages are members too (the
//                          alignment finds some). PAN 2013 text alignment (exact kind only): the
//                          suspicious documents with reuse are members, those without non-members.
//   balanced classes       the larger class is subsampled (seeded) to the size of the smaller.
//   fit / test             a seeded half of each class fits σ(a + b·min(strength, cap)) per dataset
//                          kind (Platt scaling, small ridge on b); the other half is scored.
//   measures               10 equal-width bins of confidence: ECE = Σ (n_bin / n) |acc − conf|, and
//                          the Brier score; reported on the test half (and the fit half).
//
//   node bench/eval-calibration.mjs [--write]     (needs dist/; --write regenerates
//                                                   src/services/analyze/calibration.generated.ts)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32, prepare, shuffle } from './eval-retrieval.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const WRITE = process.argv.includes('--write');
const SEED = 7;
const STRENGTH_CAP = 30;
const RIDGE = 1e-3;
const BINS = 10;
const KINDS = { exact: 'dev-exact', portrait: 'dev-portrait' };
const PAN_DATASET = 'dev-pan';

const sigmoid = (z) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** Same algorithm as src/stats/logistic.ts (kept here so the bench reads only the built package). */
function fitLogistic(x, y, ridge) {
  let a = 0,
    b = 0,
    h00 = 0,
    h01 = 0,
    h11 = 0;
  for (let iter = 0; iter < 100; iter++) {
    let g0 = 0,
      g1 = -ridge * b;
    h00 = 0;
    h01 = 0;
    h11 = ridge;
    for (let i = 0; i < x.length; i++) {
      const p = sigmoid(a + b * x[i]);
      g0 += y[i] - p;
      g1 += (y[i] - p) * x[i];
      const w = p * (1 - p);
      h00 += w;
      h01 += w * x[i];
      h11 += w * x[i] * x[i];
    }
    const det = h00 * h11 - h01 * h01;
    if (!(det > 0)) break;
    const da = (h11 * g0 - h01 * g1) / det,
      db = (h00 * g1 - h01 * g0) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  const det = h00 * h11 - h01 * h01;
  return { a, b, cov: [h11 / det, -h01 / det, h00 / det] };
}

function reliability(conf, y) {
  const bins = Array.from({ length: BINS }, (_, i) => ({ lo: i / BINS, hi: (i + 1) / BINS, n: 0, conf: 0, acc: 0 }));
  let brier = 0;
  for (let i = 0; i < conf.length; i++) {
    const k = Math.min(BINS - 1, Math.floor(conf[i] * BINS));
    bins[k].n++;
    bins[k].conf += conf[i];
    bins[k].acc += y[i];
    brier += (conf[i] - y[i]) ** 2;
  }
  let ece = 0;
  for (const b of bins) {
    if (b.n) {
      b.conf /= b.n;
      b.acc /= b.n;
      ece += (b.n / conf.length) * Math.abs(b.acc - b.conf);
    }
  }
  return {
    ece,
    brier: brier / conf.length,
    bins: bins.map((b) => ({ range: [b.lo, b.hi], n: b.n, mean_confidence: round(b.conf), accuracy: round(b.acc) })),
  };
}
function auc(score, y) {
  const pos = [],
    neg = [];
  score.forEach((s, i) => {
    (y[i] ? pos : neg).push(s);
  });
  let w = 0;
  for (const p of pos) for (const n of neg) w += p > n ? 1 : p === n ? 0.5 : 0;
  return w / (pos.length * neg.length);
}
const round = (x, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

const log = (s) => console.error(s);
const { engine, buckets } = await prepare({ log });
const members = [],
  nonMembers = [];
for (const b of buckets) {
  for (const q of b.queries) (b.negative ? nonMembers : members).push({ query: q.query, bucket: b.name });
}
// PAN 2013 text alignment (training corpus): every source document as one more exact dataset; the
// suspicious documents with reuse (verbatim, random obfuscation, cyclic translation) are members, those
// without any case non-members. Exact datasets only (the obfuscated reuse is what alignment adds).
const panRoot = join(here, '../../shared/data/pan13-text-alignment/train-corpus');
if (existsSync(panRoot)) {
  const { loadCorpus } = await import('./pan-measures.mjs');
  const srcDir = join(panRoot, 'src');
  const sources = readdirSync(srcDir)
    .sort()
    .map((f) => ({ id: f, text: readFileSync(join(srcDir, f), 'utf8') }));
  await engine.addDataset({ id: PAN_DATASET }, sources);
  const docs = new Map();
  for (const sub of loadCorpus(panRoot)) {
    for (const p of sub.pairs) {
      const d = docs.get(p.susp) ?? { query: p.suspText, types: new Set() };
      if (p.cases.length > 0) d.types.add(sub.name);
      docs.set(p.susp, d);
    }
  }
  for (const [, d] of [...docs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bucket = d.types.size === 0 ? 'pan-no-reuse' : `pan-${[...d.types].sort().at(-1).slice(3)}`;
    (d.types.size === 0 ? nonMembers : members).push({ query: d.query, bucket, only: { exact: PAN_DATASET } });
  }
}

const rnd = mulberry32(SEED);
const n = Math.min(members.length, nonMembers.length);
const pos = shuffle(members, rnd).slice(0, n),
  neg = shuffle(nonMembers, rnd).slice(0, n);
const half = Math.floor(n / 2);
const fitAll = [...pos.slice(0, half).map((q) => ({ ...q, y: 1 })), ...neg.slice(0, half).map((q) => ({ ...q, y: 0 }))];
const testAll = [...pos.slice(half).map((q) => ({ ...q, y: 1 })), ...neg.slice(half).map((q) => ({ ...q, y: 0 }))];
log(
  `members ${members.length}, non-members ${nonMembers.length}; balanced ${n} + ${n}; fit ${fitAll.length}, test ${testAll.length}`,
);

async function strengths(set, kind, dataset) {
  const out = [];
  for (const q of set) {
    const id = q.only ? q.only[kind] : dataset;
    const r = await engine.analyze({ content: q.query, content_type: 'text' }, { datasets: [id] });
    out.push(r.evidence.datasets.find((d) => d.dataset_id === id).strength);
  }
  return out;
}
/** The queries of a set that apply to a dataset kind (PAN queries: exact only). */
const forKind = (set, kind) => set.filter((q) => !q.only || q.only[kind] !== undefined);

const report = { kinds: {} };
const fits = {};
for (const [kind, dataset] of Object.entries(KINDS)) {
  const t0 = performance.now();
  const fitSet = forKind(fitAll, kind),
    testSet = forKind(testAll, kind);
  const sFit = await strengths(fitSet, kind, dataset),
    sTest = await strengths(testSet, kind, dataset);
  const ms = (performance.now() - t0) / (fitSet.length + testSet.length);
  const x = sFit.map((s) => Math.min(s, STRENGTH_CAP)),
    y = fitSet.map((q) => q.y);
  const fit = fitLogistic(x, y, RIDGE);
  fits[kind] = fit;
  const confOf = (s) => sigmoid(fit.a + fit.b * Math.min(s, STRENGTH_CAP));
  const yTest = testSet.map((q) => q.y);
  const test = reliability(sTest.map(confOf), yTest);
  const train = reliability(sFit.map(confOf), y);
  const byBucket = {};
  testSet.forEach((q, i) => {
    const e = (byBucket[q.bucket] ??= { n: 0, member: q.y, mean_confidence: 0 });
    e.n++;
    e.mean_confidence += confOf(sTest[i]);
  });
  for (const e of Object.values(byBucket)) e.mean_confidence = round(e.mean_confidence / e.n);
  report.kinds[kind] = {
    dataset,
    fit: { a: round(fit.a, 6), b: round(fit.b, 6), cov: fit.cov.map((v) => Number(v.toPrecision(6))) },
    test: {
      n: testSet.length,
      ece: round(test.ece),
      brier: round(test.brier),
      auc: round(auc(sTest, yTest)),
      bins: test.bins,
    },
    fit_half: { n: fitSet.length, ece: round(train.ece), brier: round(train.brier) },
    confidence_without_evidence: round(confOf(0)),
    mean_confidence_by_bucket: byBucket,
    analyze_ms_per_query: round(ms, 3),
    meets_target: test.ece <= 0.05,
  };
  log(
    `${kind}: a=${fit.a.toFixed(3)} b=${fit.b.toFixed(3)}  test ECE ${test.ece.toFixed(4)}  Brier ${test.brier.toFixed(4)}  AUC ${auc(sTest, yTest).toFixed(4)}  (no evidence → ${confOf(0).toFixed(3)})`,
  );
}

const date = new Date().toISOString().slice(0, 10);
const provenance = {
  code: 'bench/eval-calibration.mjs',
  data: 'bench/eval-retrieval.mjs prepare() on the development corpora: Brown Corpus, WikiText-2 test split, NLTK Gutenberg selection, Alice in Wonderland editions, arXivTection (incl. LLM paraphrases); seed 20240611; and the PAN 2013 text-alignment training corpus (exact kind only: sources indexed, suspicious documents as queries)',
  protocol:
    'members = transformed passages of indexed documents (incl. word edits and LLM paraphrases) and PAN suspicious documents with verbatim, randomly obfuscated or translated reuse; non-members = clean same-genre passages/documents and PAN suspicious documents without reuse; balanced by seeded subsampling; fit on one half, measured on the other; 10 equal-width bins',
  date,
  seed: SEED,
  strength_cap: STRENGTH_CAP,
  ridge: RIDGE,
  n_fit: fitAll.length,
  n_test: testAll.length,
};
const metrics = Object.fromEntries(
  Object.entries(report.kinds).map(([k, r]) => [k, { ece: r.test.ece, brier: r.test.brier, auc: r.test.auc }]),
);
const body = JSON.stringify({ kinds: fits, strength_cap: STRENGTH_CAP, provenance, metrics });
const id = `cal-${date}-${createHash('sha256').update(body).digest('hex').slice(0, 8)}`;
Object.assign(report, {
  what: 'calibration of the dataset-level confidence of analyze (bench/eval-calibration.mjs)',
  id,
  provenance,
  runtime: { node: process.version, date },
});
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results/eval-calibration.json'), JSON.stringify(report, null, 2) + '\n');
log('wrote bench/results/eval-calibration.json');
if (WRITE) {
  const ts = `// Generated by bench/eval-calibration.mjs --write on ${date}; do not edit. Protocol and measures:
// bench/results/eval-calibration.json and docs/analyze.md ("Confidence and calibration").
import type { LogisticFit } from '../../stats/logistic.js';

/** Calibration of the dataset-level confidence, with its provenance. */
export const CALIBRATION: {
  readonly id: string;
  readonly kinds: { readonly exact: LogisticFit; readonly portrait: LogisticFit };
  readonly strength_cap: number;
  readonly provenance: Readonly<Record<string, string | number>>;
  readonly metrics: Readonly<Record<'exact' | 'portrait', { readonly ece: number; readonly brier: number; readonly auc: number }>>;
} = ${JSON.stringify({ id, kinds: fits, strength_cap: STRENGTH_CAP, provenance, metrics }, null, 2)};
`;
  writeFileSync(join(here, '../src/services/analyze/calibration.generated.ts'), ts);
  log('wrote src/services/analyze/calibration.generated.ts (rebuild to use it)');
}
