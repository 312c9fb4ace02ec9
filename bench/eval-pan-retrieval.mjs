// PAN as retrieval: evaluation of `engine.analyze` on the dev corpus (../shared/data/pan13-text-alignment).
// Every source document of the corpus goes into one exact dataset; every suspicious document is analysed once
// against it, with no pair given, and the exact matches of the result are scored against the gold cases:
// cases found, character recall on the suspicious side, the official PAN measures per (susp, src) pair,
// precision verified against the source text, characters reported on documents without reuse, the AUC of the
// dataset-level confidence (and strength) between documents with and without reuse, and the time per analysis.
// Writes bench/results/eval-pan-retrieval.json with the product targets beside our numbers and prints a table.
//
//   node bench/eval-pan-retrieval.mjs                       (needs a dist/ build)
//   node bench/eval-pan-retrieval.mjs --dist /tmp/dist-copy (a copy of dist/, safe from concurrent rebuilds)
//   node bench/eval-pan-retrieval.mjs --limit 40            (only the first 40 suspicious documents, by name)
//   node bench/eval-pan-retrieval.mjs --out /tmp/r.json     (write the report elsewhere)
//   node bench/eval-pan-retrieval.mjs --check               (quick: CHECK_DOCS documents per sub-corpus, no report)
//
// --check exits 1 when the query-side character recall of 02, 03 or 04 falls under its CHECK_FLOORS entry.
// bench/eval-pan.mjs scores `compare` on the given pairs; this scores what `analyze` finds on its own.
//
// `evaluate(engine, root, opts)` and `writeReport` are exported for other runners (e.g. a build of the TypeScript
// sources); `runtime.build` records which code produced the report.
import './help.mjs';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadCorpus, microMeasures, panMeasures } from './pan-measures.mjs';
import { round } from './stats.mjs';

const roundOrNull = (x, d = 5) => (x === null || Number.isNaN(x) ? null : round(x, d));
const SUBS = ['02-no-obfuscation', '03-random-obfuscation', '04-translation-obfuscation'];
const DATASET = 'pan-sources';

/** The product targets shown beside the measured numbers. */
export const TARGETS = {
  recall: { '02-no-obfuscation': 0.97, '03-random-obfuscation': 0.85, '04-translation-obfuscation': 0.8 },
  verified_share: 0.97,
  confidence_auc: 0.97,
};

/**
 * --check: suspicious documents per sub-corpus (the first by name) and query-side recall floors (macro), set just
 * under what the two-stage search measures on that subset (0.997 / 0.899 / 0.943 with one content-word pair in
 * three kept, 0.997 / 0.841 / 0.864 with one in four; seed chains alone gave 0.938 / 0.072 / 0.168).
 */
export const CHECK_DOCS = 10;
export const CHECK_FLOORS = {
  '02-no-obfuscation': 0.97,
  '03-random-obfuscation': 0.85,
  '04-translation-obfuscation': 0.9,
};

export const METHOD = [
  `Every file of src/ is one document of one exact dataset ('${DATASET}', nothing declared); every suspicious document`,
  "of the pairs is analysed once with analyze({ content, content_type: 'text' }). Only matches of kind 'exact' give",
  "spans; 'near' matches (whole-document near duplicates) are counted apart.",
  'Cases found: a gold case counts as found when an exact match naming its source document overlaps its suspicious span.',
  "Query-side recall: the share of a case's suspicious characters covered by the union of the exact matches naming its",
  'source document (macro: mean over cases; micro: all covered characters over all case characters).',
  'PAN measures: for each listed (susp, src) pair, the exact matches of the suspicious document naming that source are',
  'its detections (both spans); official macro recall, precision, granularity and plagdet (bench/pan-measures.mjs);',
  'matches naming sources that are not paired with the document enter no PAN measure.',
  'Verified share: PAN annotates only part of the reuse, so every reported exact match (paired source or not) is checked',
  'against the source text: its query characters inside a gold case of the same suspicious and source document are',
  'verified; for the rest, engine.compare(susp.slice(query_start, query_end), src.slice(source_start, source_end)) runs',
  'and the query characters covered by its spans are verified too. Share = verified characters / reported characters,',
  'summed over matches; gold_only_share counts gold-case characters only. A document in several sub-corpora counts in each.',
  'False positives: characters of the suspicious documents without any gold case (in any pair) covered by the union of',
  'their exact matches, over all their characters (these are the 01-no-plagiarism documents).',
  'AUC: Mann–Whitney AUC of evidence.datasets[0].confidence (and .strength) between documents with a gold case and',
  'documents without one (ties count one half); beside it, the same AUC leaving out the documents without a case whose',
  'reported matches are all verified shared text. found_case_gaps: where the uncovered characters of the found cases',
  'lie (before the first match, after the last, between). Times: wall clock of each analyze call and of addDataset.',
].join(' ');

/** Characters of [lo, hi) covered by the union of the [a, b) intervals. */
function covered(lo, hi, intervals) {
  const segs = [];
  for (const [a, b] of intervals) {
    const x = Math.max(a, lo),
      y = Math.min(b, hi);
    if (y > x) segs.push([x, y]);
  }
  segs.sort((p, q) => p[0] - q[0]);
  let n = 0,
    end = -Infinity;
  for (const [a, b] of segs) {
    if (b <= end) continue;
    n += b - Math.max(a, end);
    end = b;
  }
  return n;
}

/** Mann–Whitney AUC: P(score of a positive > score of a negative), ties one half. */
export function auc(pos, neg) {
  if (pos.length === 0 || neg.length === 0) return null;
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length);
}

const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : null;

/** Counts of `reuse` values and quantiles of `similarity` over exact matches (null when no match carries them). */
function alignmentFields(matches) {
  const reuse = {};
  const sims = [];
  for (const m of matches) {
    if (m.reuse !== undefined) reuse[m.reuse] = (reuse[m.reuse] ?? 0) + 1;
    if (typeof m.similarity === 'number') sims.push(m.similarity);
  }
  sims.sort((a, b) => a - b);
  const present = Object.keys(reuse).length > 0;
  if (present && Object.values(reuse).reduce((s, x) => s + x, 0) < matches.length)
    reuse.absent = matches.length - Object.values(reuse).reduce((s, x) => s + x, 0);
  return {
    reuse: present ? reuse : null,
    similarity: sims.length
      ? {
          n: sims.length,
          mean: roundOrNull(sims.reduce((s, x) => s + x, 0) / sims.length, 4),
          p10: roundOrNull(quantile(sims, 0.1), 4),
          p50: roundOrNull(quantile(sims, 0.5), 4),
          p90: roundOrNull(quantile(sims, 0.9), 4),
        }
      : null,
  };
}

/** The suspicious documents to analyse: all of the pairs, by name; or the first `limit`; or `perSubCorpus` of each. */
function pickDocs(subs, { limit, perSubCorpus }) {
  const all = [...new Set(subs.flatMap((s) => s.pairs.map((p) => p.susp)))].sort();
  if (perSubCorpus) {
    const keep = new Set();
    for (const s of subs)
      [...new Set(s.pairs.map((p) => p.susp))]
        .sort()
        .slice(0, perSubCorpus)
        .forEach((d) => {
          keep.add(d);
        });
    return all.filter((d) => keep.has(d));
  }
  return limit ? all.slice(0, limit) : all;
}

/**
 * Index the corpus at `root` into `engine`, analyse the suspicious documents and score the results.
 * opts: `limit` (first N documents by name), `perSubCorpus` (first N of each sub-corpus), `verify` (run the
 * compare check of unannotated spans; default true), `log`. Returns the report object (eval-pan-retrieval.json).
 */
export async function evaluate(engine, root, { limit = 0, perSubCorpus = 0, verify = true, log = () => {} } = {}) {
  const subs = loadCorpus(root);
  const docs = pickDocs(subs, { limit, perSubCorpus });
  const chosen = new Set(docs);

  // --- index every source document as one exact dataset
  const srcNames = readdirSync(join(root, 'src'))
    .filter((n) => n.endsWith('.txt'))
    .sort();
  const srcText = new Map(srcNames.map((n) => [n, readFileSync(join(root, 'src', n), 'utf8')]));
  if (engine.datasets().some((d) => d.id === DATASET)) engine.removeDataset(DATASET);
  let t0 = performance.now();
  const stats = await engine.addDataset(
    { id: DATASET },
    srcNames.map((id) => ({ id, text: srcText.get(id) })),
  );
  const indexMs = performance.now() - t0;
  log(`indexed ${stats.documents} source documents (${stats.tokens} tokens) in ${indexMs.toFixed(0)} ms`);

  // --- gold: cases per suspicious document (over all sub-corpora), sub-corpora per document, texts
  const suspText = new Map(),
    goldOf = new Map(),
    subsOf = new Map();
  for (const s of subs) {
    for (const p of s.pairs) {
      suspText.set(p.susp, p.suspText);
      if (!goldOf.has(p.susp)) goldOf.set(p.susp, []);
      goldOf.get(p.susp).push(...p.cases);
      if (!subsOf.has(p.susp)) subsOf.set(p.susp, new Set());
      subsOf.get(p.susp).add(s.name);
    }
  }

  // --- analyse each chosen suspicious document once
  const results = new Map(),
    times = [];
  for (const [i, d] of docs.entries()) {
    t0 = performance.now();
    const r = await engine.analyze({ content: suspText.get(d), content_type: 'text' });
    times.push(performance.now() - t0);
    const ev = r.evidence.datasets.find((x) => x.dataset_id === DATASET) ?? r.evidence.datasets[0];
    results.set(d, {
      exact: r.matches.filter((m) => m.kind === 'exact' && m.document_id !== null),
      near: r.matches.filter((m) => m.kind === 'near').length,
      confidence: ev?.confidence ?? 0,
      strength: ev?.strength ?? 0,
    });
    if ((i + 1) % 50 === 0) log(`analysed ${i + 1}/${docs.length}`);
  }

  // --- verification of every reported exact match against the source text
  let compareMs = 0,
    compareCalls = 0;
  const verified = new Map(); // doc → [{ reported, gold, verified }] per exact match
  for (const d of docs) {
    const gold = goldOf.get(d) ?? [];
    const text = suspText.get(d);
    verified.set(
      d,
      results.get(d).exact.map((m) => {
        const reported = m.query_end - m.query_start;
        const g = gold.filter((c) => c.src === m.document_id).map((c) => [c.susp_off, c.susp_off + c.susp_len]);
        const inGold = covered(m.query_start, m.query_end, g);
        let ok = inGold;
        if (verify && inGold < reported) {
          const t = performance.now();
          const cmp = engine.compare(
            text.slice(m.query_start, m.query_end),
            srcText.get(m.document_id).slice(m.source_start, m.source_end),
          );
          compareMs += performance.now() - t;
          compareCalls++;
          ok = covered(m.query_start, m.query_end, [
            ...g,
            ...cmp.spans.map((s) => [m.query_start + s.a_start, m.query_start + s.a_end]),
          ]);
        }
        return { reported, gold: inGold, verified: ok };
      }),
    );
  }

  const report = {
    method: METHOD,
    corpus: {
      path: 'pan13-text-alignment/train-corpus',
      description: 'PAN 2013 text-alignment training corpus, dev split (sub-corpora 01–04, no summary sub-corpus)',
      source_documents: srcNames.length,
      suspicious_documents: suspText.size,
      analysed_documents: docs.length,
      documents_with_reuse: docs.filter((d) => (goldOf.get(d) ?? []).length > 0).length,
      selection: perSubCorpus
        ? `first ${perSubCorpus} suspicious documents of each sub-corpus`
        : limit
          ? `first ${limit} suspicious documents by name`
          : 'all',
    },
    index: {
      documents: stats.documents,
      tokens: stats.tokens,
      fingerprints: stats.fingerprints,
      index_bytes: stats.index_bytes,
      build_ms: roundOrNull(indexMs, 1),
    },
    targets: TARGETS,
    sub_corpora: {},
    overall: null,
  };

  // --- per sub-corpus
  const verifiedSum = (ds) => {
    let reported = 0,
      gold = 0,
      ok = 0;
    for (const d of ds)
      for (const v of verified.get(d)) {
        reported += v.reported;
        gold += v.gold;
        ok += v.verified;
      }
    return {
      reported_chars: reported,
      verified_chars: ok,
      verified_share: reported ? roundOrNull(ok / reported, 4) : null,
      gold_only_share: reported ? roundOrNull(gold / reported, 4) : null,
    };
  };
  const pooled = { cases: [], dets: [], found: 0, macro: 0, cov: 0, len: 0 };
  for (const s of subs) {
    const pairs = s.pairs.filter((p) => chosen.has(p.susp));
    const ds = [...new Set(pairs.map((p) => p.susp))];
    const cases = pairs.flatMap((p) => p.cases);
    const dets = [];
    for (const p of pairs) {
      for (const m of results.get(p.susp).exact) {
        if (m.document_id !== p.src) continue;
        dets.push({
          susp: p.susp,
          susp_off: m.query_start,
          susp_len: m.query_end - m.query_start,
          src: p.src,
          src_off: m.source_start,
          src_len: m.source_end - m.source_start,
        });
      }
    }
    let found = 0,
      macro = 0,
      cov = 0,
      len = 0,
      head = 0,
      tail = 0,
      foundLen = 0;
    const missed = [];
    for (const c of cases) {
      const iv = results
        .get(c.susp)
        .exact.filter((m) => m.document_id === c.src)
        .map((m) => [m.query_start, m.query_end]);
      const end = c.susp_off + c.susp_len;
      const n = covered(c.susp_off, end, iv);
      if (n > 0) {
        found++;
        foundLen += c.susp_len;
        const inside = iv.filter(([a, b]) => b > c.susp_off && a < end);
        head += Math.max(0, Math.min(...inside.map(([a]) => a)) - c.susp_off);
        tail += Math.max(0, end - Math.max(...inside.map(([, b]) => b)));
      } else missed.push({ c, sourceElsewhere: iv.length > 0 });
      macro += n / c.susp_len;
      cov += n;
      len += c.susp_len;
    }
    const pan = panMeasures(cases, dets);
    const micro = microMeasures(cases, dets);
    const exact = ds.flatMap((d) => results.get(d).exact);
    const paired = new Set(pairs.map((p) => p.susp + '\u0000' + p.src));
    const entry = {
      documents: ds.length,
      pairs: pairs.length,
      cases: cases.length,
      exact_matches: exact.length,
      near_matches: ds.reduce((n, d) => n + results.get(d).near, 0),
      matches_to_unpaired_sources: ds.reduce(
        (n, d) => n + results.get(d).exact.filter((m) => !paired.has(d + '\u0000' + m.document_id)).length,
        0,
      ),
    };
    if (cases.length) {
      const target = TARGETS.recall[s.name];
      Object.assign(entry, {
        cases_found: found,
        cases_found_share: roundOrNull(found / cases.length, 4),
        recall_query_macro: roundOrNull(macro / cases.length, 4),
        recall_query_micro: roundOrNull(cov / len, 4),
        recall_target: target ?? null,
        pan: {
          plagdet: roundOrNull(pan.plagdet),
          recall: roundOrNull(pan.recall),
          precision: roundOrNull(pan.precision),
          granularity: roundOrNull(pan.granularity),
          detections: pan.detections,
          micro_recall: roundOrNull(micro.recall),
          micro_precision: roundOrNull(micro.precision),
        },
        missed: {
          cases: missed.length,
          source_matched_elsewhere_in_document: missed.filter((m) => m.sourceElsewhere).length,
          median_case_chars: missed.length
            ? missed.map((m) => m.c.susp_len).sort((a, b) => a - b)[missed.length >> 1]
            : null,
          median_found_case_chars: found
            ? cases
                .filter((c) => !missed.some((m) => m.c === c))
                .map((c) => c.susp_len)
                .sort((a, b) => a - b)[found >> 1]
            : null,
        },
        // where the characters of the found cases that no match covers lie: before the first, after the last, between
        found_case_gaps: foundLen
          ? {
              head_share: roundOrNull(head / foundLen, 4),
              tail_share: roundOrNull(tail / foundLen, 4),
              interior_share: roundOrNull((foundLen - head - tail - cov) / foundLen, 4),
            }
          : null,
      });
      pooled.cases.push(...cases);
      pooled.found += found;
      pooled.macro += macro;
      pooled.cov += cov;
      pooled.len += len;
    } else {
      const chars = ds.reduce((n, d) => n + suspText.get(d).length, 0);
      const flagged = ds.reduce(
        (n, d) =>
          n +
          covered(
            0,
            Infinity,
            results.get(d).exact.map((m) => [m.query_start, m.query_end]),
          ),
        0,
      );
      entry.false_positive = {
        documents_with_a_match: ds.filter((d) => results.get(d).exact.length > 0).length,
        reported_chars: flagged,
        document_chars: chars,
        reported_share: chars ? roundOrNull(flagged / chars, 5) : null,
      };
      entry.pan = { detections: dets.length, pairs_with_a_detection: new Set(dets.map((x) => x.susp + x.src)).size };
    }
    pooled.dets.push(...dets);
    entry.precision_verified = verifiedSum(ds);
    entry.precision_verified.target = TARGETS.verified_share;
    entry.alignment_fields = alignmentFields(exact);
    report.sub_corpora[s.name] = entry;
    log(
      `${s.name}: ${JSON.stringify({ found: entry.cases_found_share, R_macro: entry.recall_query_macro, plagdet: entry.pan?.plagdet, verified: entry.precision_verified.verified_share })}`,
    );
  }

  // --- overall
  const clean = docs.filter((d) => (goldOf.get(d) ?? []).length === 0);
  const dirty = docs.filter((d) => (goldOf.get(d) ?? []).length > 0);
  const cleanChars = clean.reduce((n, d) => n + suspText.get(d).length, 0);
  const cleanFlagged = clean.reduce(
    (n, d) =>
      n +
      covered(
        0,
        Infinity,
        results.get(d).exact.map((m) => [m.query_start, m.query_end]),
      ),
    0,
  );
  const cleanShared = clean.filter(
    (d) => verified.get(d).length > 0 && verified.get(d).every((v) => v.verified === v.reported),
  );
  const cleanStrict = clean.filter((d) => !cleanShared.includes(d));
  const pan = panMeasures(pooled.cases, pooled.dets);
  const sorted = times.slice().sort((a, b) => a - b);
  const allExact = docs.flatMap((d) => results.get(d).exact);
  report.overall = {
    cases: pooled.cases.length,
    cases_found_share: pooled.cases.length ? roundOrNull(pooled.found / pooled.cases.length, 4) : null,
    recall_query_macro: pooled.cases.length ? roundOrNull(pooled.macro / pooled.cases.length, 4) : null,
    recall_query_micro: pooled.len ? roundOrNull(pooled.cov / pooled.len, 4) : null,
    pan_pooled_01_04: {
      plagdet: roundOrNull(pan.plagdet),
      recall: roundOrNull(pan.recall),
      precision: roundOrNull(pan.precision),
      granularity: roundOrNull(pan.granularity),
      detections: pan.detections,
    },
    exact_matches: allExact.length,
    near_matches: docs.reduce((n, d) => n + results.get(d).near, 0),
    precision_verified: {
      ...verifiedSum(docs),
      target: TARGETS.verified_share,
      compare_calls: compareCalls,
      compare_ms: roundOrNull(compareMs, 0),
    },
    false_positive_no_reuse_docs: {
      documents: clean.length,
      documents_with_a_match: clean.filter((d) => results.get(d).exact.length > 0).length,
      reported_chars: cleanFlagged,
      document_chars: cleanChars,
      reported_share: cleanChars ? roundOrNull(cleanFlagged / cleanChars, 5) : null,
    },
    confidence_auc: {
      positives: dirty.length,
      negatives: clean.length,
      target: TARGETS.confidence_auc,
      confidence: roundOrNull(
        auc(
          dirty.map((d) => results.get(d).confidence),
          clean.map((d) => results.get(d).confidence),
        ),
        4,
      ),
      strength: roundOrNull(
        auc(
          dirty.map((d) => results.get(d).strength),
          clean.map((d) => results.get(d).strength),
        ),
        4,
      ),
      // documents without a gold case whose reported matches are all verified shared text (boilerplate, an unannotated copy)
      negatives_sharing_verified_text: cleanShared.length,
      confidence_excluding_those: roundOrNull(
        auc(
          dirty.map((d) => results.get(d).confidence),
          cleanStrict.map((d) => results.get(d).confidence),
        ),
        4,
      ),
      strength_excluding_those: roundOrNull(
        auc(
          dirty.map((d) => results.get(d).strength),
          cleanStrict.map((d) => results.get(d).strength),
        ),
        4,
      ),
      confidence_mean_with_reuse: roundOrNull(
        dirty.reduce((s, d) => s + results.get(d).confidence, 0) / (dirty.length || 1),
        4,
      ),
      confidence_mean_without: roundOrNull(
        clean.reduce((s, d) => s + results.get(d).confidence, 0) / (clean.length || 1),
        4,
      ),
    },
    alignment_fields: alignmentFields(allExact),
    latency: {
      analyze_calls: times.length,
      analyze_ms_p50: roundOrNull(quantile(sorted, 0.5), 2),
      analyze_ms_p90: roundOrNull(quantile(sorted, 0.9), 2),
      analyze_ms_max: roundOrNull(sorted[sorted.length - 1] ?? null, 2),
      analyze_ms_total: roundOrNull(
        times.reduce((s, x) => s + x, 0),
        0,
      ),
      index_build_ms: roundOrNull(indexMs, 1),
    },
  };
  return report;
}

/** Query-side recall of the --check subset against CHECK_FLOORS: [{ name, recall, floor, ok }]. */
export function checkRows(report) {
  return SUBS.map((name) => {
    const recall = report.sub_corpora[name]?.recall_query_macro ?? 0;
    return { name, recall, floor: CHECK_FLOORS[name], ok: recall >= CHECK_FLOORS[name] };
  });
}

/** The compact table printed after a run. */
export function table(report) {
  const rows = [];
  const pct = (x) => (x === null || x === undefined ? '—' : x.toFixed(3));
  for (const name of SUBS) {
    const e = report.sub_corpora[name];
    if (!e) continue;
    rows.push({
      'sub-corpus': name,
      cases: e.cases,
      found: pct(e.cases_found_share),
      'recall (macro)': pct(e.recall_query_macro),
      'recall (micro)': pct(e.recall_query_micro),
      target: e.recall_target,
      plagdet: pct(e.pan.plagdet),
      'PAN P': pct(e.pan.precision),
      verified: pct(e.precision_verified.verified_share),
      'in gold': pct(e.precision_verified.gold_only_share),
    });
  }
  const o = report.overall;
  rows.push({
    'sub-corpus': 'overall 02–04',
    cases: o.cases,
    found: pct(o.cases_found_share),
    'recall (macro)': pct(o.recall_query_macro),
    'recall (micro)': pct(o.recall_query_micro),
    target: '',
    plagdet: pct(o.pan_pooled_01_04.plagdet) + ' (01–04)',
    'PAN P': pct(o.pan_pooled_01_04.precision),
    verified: pct(o.precision_verified.verified_share),
    'in gold': pct(o.precision_verified.gold_only_share),
  });
  return rows;
}

export function writeReport(report, file) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const argv = process.argv.slice(2);
  const opt = (name) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const root = fileURLToPath(new URL('../../shared/data/pan13-text-alignment/train-corpus', import.meta.url));
  const dist = opt('dist') ? resolve(opt('dist')) : fileURLToPath(new URL('../dist', import.meta.url));
  const indexJs = join(dist, 'index.js');
  const { createEngine } = await import(pathToFileURL(indexJs).href);
  const engine = await createEngine();
  const t0 = performance.now();
  if (argv.includes('--check')) {
    const report = await evaluate(engine, root, { perSubCorpus: CHECK_DOCS, verify: false });
    const rows = checkRows(report);
    for (const r of rows)
      console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: query-side recall ${r.recall} (floor ${r.floor})`);
    process.exit(rows.every((r) => r.ok) ? 0 : 1);
  }
  const report = await evaluate(engine, root, { limit: Number(opt('limit') ?? 0), log: console.log });
  report.runtime = {
    node: process.version,
    variant: engine.variant,
    date: new Date().toISOString().slice(0, 10),
    build: dist,
    build_index_js_sha256: createHash('sha256').update(readFileSync(indexJs)).digest('hex').slice(0, 16),
    wall_s: roundOrNull((performance.now() - t0) / 1000, 1),
  };
  const o = report.overall;
  console.table(table(report));
  console.log(
    `01 / no-reuse documents: ${o.false_positive_no_reuse_docs.documents_with_a_match}/${o.false_positive_no_reuse_docs.documents} with a match, reported share ${o.false_positive_no_reuse_docs.reported_share}`,
  );
  console.log(
    `AUC (${o.confidence_auc.positives} vs ${o.confidence_auc.negatives}): confidence ${o.confidence_auc.confidence}, strength ${o.confidence_auc.strength} (target ${TARGETS.confidence_auc})`,
  );
  console.log(
    `analyze: p50 ${o.latency.analyze_ms_p50} ms, p90 ${o.latency.analyze_ms_p90} ms, total ${o.latency.analyze_ms_total} ms; index ${o.latency.index_build_ms} ms; near matches ${o.near_matches}; reuse ${JSON.stringify(o.alignment_fields.reuse)}`,
  );
  const out = opt('out')
    ? resolve(opt('out'))
    : fileURLToPath(new URL('./results/eval-pan-retrieval.json', import.meta.url));
  writeReport(report, out);
  console.log(`wrote ${out}`);
}
