// The PAN text-alignment measures (PAN 2013/2014 official evaluator semantics), as plain JS so that
// bench/eval-pan.mjs and the tests share one implementation.
//
// Cases (ground truth) and detections are { susp, susp_off, susp_len, src, src_off, src_len }.
// Semantics (of the official PAN evaluator, pan13-text-alignment-perfmeasures.py v1.3):
// - r detects s: same suspicious doc, overlapping half-open intervals there, AND same source doc with
//   overlapping intervals in the source doc (an overlap in one document only counts as nothing).
// - recall = mean over cases of (|s_susp ∩ ∪ r_susp| + |s_src ∩ ∪ r_src|) / (|s_susp| + |s_src|), union over
//   the detections that detect s (characters counted once). Macro: every case weighs the same.
// - precision = the same function with the roles swapped (mean over detections).
// - granularity = mean over detected cases of the number of detections detecting it (1 if none detected).
// - plagdet = F1 / log2(1 + granularity); edge rules: both sets empty → P = R = 1; exactly one empty → 0.
import './help.mjs';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** r detects s (symmetric): overlap in the suspicious AND in the source document. */
export function isOverlapping(r, s) {
  return (
    r.susp === s.susp &&
    r.src === s.src &&
    r.susp_off + r.susp_len > s.susp_off &&
    r.susp_off < s.susp_off + s.susp_len &&
    r.src_off + r.src_len > s.src_off &&
    r.src_off < s.src_off + s.src_len
  );
}

/** Characters of [off, off+len) covered by the union of intervals. */
function coveredChars(off, len, intervals) {
  if (len <= 0) return 0;
  const segs = [];
  for (const [o, l] of intervals) {
    const a = Math.max(o, off),
      b = Math.min(o + l, off + len);
    if (b > a) segs.push([a, b]);
  }
  segs.sort((x, y) => x[0] - y[0]);
  let n = 0,
    end = -1;
  for (const [a, b] of segs) {
    if (b <= end) continue;
    n += b - Math.max(a, end);
    end = b;
  }
  return n;
}

/** Group by (susp, src) key so that overlap tests stay inside one pair. */
function byPair(items) {
  const m = new Map();
  for (const it of items) {
    const k = it.susp + '\u0000' + it.src;
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(it);
  }
  return m;
}

/** Sum over `cases` of the covered share of each case by the `dets` that overlap it; returns { sum, n }. */
function recallSum(cases, dets) {
  const dm = byPair(dets);
  let sum = 0;
  for (const s of cases) {
    const ds = (dm.get(s.susp + '\u0000' + s.src) ?? []).filter((r) => isOverlapping(r, s));
    if (ds.length === 0) continue;
    const a = coveredChars(
      s.susp_off,
      s.susp_len,
      ds.map((r) => [r.susp_off, r.susp_len]),
    );
    const b = coveredChars(
      s.src_off,
      s.src_len,
      ds.map((r) => [r.src_off, r.src_len]),
    );
    sum += (a + b) / (s.susp_len + s.src_len);
  }
  return sum;
}

/** Deduplicate detections exactly as the official evaluator's set does. */
function dedupe(dets) {
  const seen = new Set();
  const out = [];
  for (const d of dets) {
    const k = `${d.susp}|${d.susp_off}|${d.susp_len}|${d.src}|${d.src_off}|${d.src_len}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(d);
    }
  }
  return out;
}

/** Macro-averaged recall (official). */
export function macroRecall(cases, dets) {
  if (cases.length === 0 && dets.length === 0) return 1;
  if (cases.length === 0 || dets.length === 0) return 0;
  return recallSum(cases, dets) / cases.length;
}

/** Macro-averaged precision (official: recall with the roles swapped). */
export function macroPrecision(cases, dets) {
  return macroRecall(dets, cases);
}

/** Granularity over the detected cases. */
export function granularity(cases, dets) {
  if (dets.length === 0) return 1;
  const dm = byPair(dets);
  let detected = 0,
    total = 0;
  for (const s of cases) {
    const n = (dm.get(s.susp + '\u0000' + s.src) ?? []).filter((r) => isOverlapping(r, s)).length;
    if (n > 0) {
      detected++;
      total += n;
    }
  }
  return detected === 0 ? 1 : total / detected;
}

/** plagdet = F1(P, R) / log2(1 + G). */
export function plagdetScore(precision, recall, gran) {
  if (precision === 0 && recall === 0) return 0;
  return (2 * precision * recall) / (precision + recall) / Math.log2(1 + gran);
}

/** All measures for one set of cases and detections. */
export function panMeasures(cases, detections) {
  const dets = dedupe(detections);
  const recall = macroRecall(cases, dets);
  const precision = macroPrecision(cases, dets);
  const gran = granularity(cases, dets);
  return {
    plagdet: plagdetScore(precision, recall, gran),
    recall,
    precision,
    granularity: gran,
    cases: cases.length,
    detections: dets.length,
  };
}

/** Micro-averaged character recall/precision (reported beside the official macro numbers). */
export function microMeasures(cases, detections) {
  const dets = dedupe(detections);
  const part = (xs, ys) => {
    const ym = byPair(ys);
    let hit = 0,
      all = 0;
    for (const s of xs) {
      all += s.susp_len + s.src_len;
      const ds = (ym.get(s.susp + '\u0000' + s.src) ?? []).filter((r) => isOverlapping(r, s));
      hit += coveredChars(
        s.susp_off,
        s.susp_len,
        ds.map((r) => [r.susp_off, r.susp_len]),
      );
      hit += coveredChars(
        s.src_off,
        s.src_len,
        ds.map((r) => [r.src_off, r.src_len]),
      );
    }
    return all === 0 ? 1 : hit / all;
  };
  return { recall: part(cases, dets), precision: part(dets, cases) };
}

/** Parse the `plagiarism` features of one PAN ground-truth XML. */
export function parseTruth(xml, susp) {
  const out = [];
  for (const m of xml.matchAll(/<feature\b([^>]*)\/?>/g)) {
    const attrs = {};
    for (const a of m[1].matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1]] = a[2];
    if (!attrs.name?.endsWith('plagiarism')) continue;
    out.push({
      susp,
      susp_off: +attrs.this_offset,
      susp_len: +attrs.this_length,
      src: attrs.source_reference,
      src_off: +attrs.source_offset,
      src_len: +attrs.source_length,
      obfuscation: attrs.obfuscation ?? attrs.type ?? '',
    });
  }
  return out;
}

/** The sub-corpora of a PAN corpus folder: [{ name, pairs: [{ susp, src, suspText, srcText, cases }] }]. */
export function loadCorpus(
  root,
  names = ['01-no-plagiarism', '02-no-obfuscation', '03-random-obfuscation', '04-translation-obfuscation'],
) {
  const cache = new Map();
  const read = (p) => {
    let t = cache.get(p);
    if (t === undefined) cache.set(p, (t = readFileSync(p, 'utf8')));
    return t;
  };
  const subs = [];
  for (const name of names) {
    const dir = join(root, name);
    if (!existsSync(dir)) continue;
    const pairs = [];
    for (const line of readFileSync(join(dir, 'pairs'), 'utf8').split('\n')) {
      const [susp, src] = line.trim().split(/\s+/);
      if (!susp || !src) continue;
      const xmlPath = join(dir, `${susp.replace(/\.txt$/, '')}-${src.replace(/\.txt$/, '')}.xml`);
      const cases = existsSync(xmlPath) ? parseTruth(readFileSync(xmlPath, 'utf8'), susp) : [];
      pairs.push({ susp, src, suspText: read(join(root, 'susp', susp)), srcText: read(join(root, 'src', src)), cases });
    }
    subs.push({ name, pairs });
  }
  void readdirSync;
  return subs;
}

/** Detections of one pair from compare() spans, with a = suspicious and b = source. */
export function spansToDetections(pair, spans) {
  return spans.map((s) => ({
    susp: pair.susp,
    susp_off: s.a_start,
    susp_len: s.a_end - s.a_start,
    src: pair.src,
    src_off: s.b_start,
    src_len: s.b_end - s.b_start,
  }));
}

/** The published anchors (pan-anchors.md) shown beside our numbers. */
export const ANCHORS = {
  note: "Published numbers are on PAN 2013 test corpus 2 (official, TIRA) or the PAN 2013 training corpus; ours are on the dev split of the training corpus (no summary sub-corpus), so comparisons are approximate. Sources: Potthast et al., Overview of the 5th International Competition on Plagiarism Detection (CLEF 2013), and the participants' notebooks (Sanchez-Perez, Sidorov & Gelbukh, CLEF 2014; Sanchez-Perez, Gelbukh & Sidorov, CLEF 2015).",
  '02-no-obfuscation': {
    best_official_test2: { team: 'Baseline 2013', plagdet: 0.93404 },
    sanchez_perez_2014_train: { plagdet: 0.89381, recall: 0.97823, precision: 0.8228, granularity: 1.0 },
    sanchez_perez_2015_train: { plagdet: 0.9812, recall: 0.9761, precision: 0.9933, granularity: 1.0048 },
  },
  '03-random-obfuscation': {
    best_official_test2: { team: 'Sanchez-Perez 2014', plagdet: 0.88417 },
    sanchez_perez_2014_train: { plagdet: 0.88864, recall: 0.85819, precision: 0.92134, granularity: 1.0 },
    sanchez_perez_2015_train: { plagdet: 0.8847, recall: 0.8699, precision: 0.8999, granularity: 1.0 },
  },
  '04-translation-obfuscation': {
    best_official_test2: { team: 'Sanchez-Perez 2014', plagdet: 0.88659 },
    sanchez_perez_2014_train: { plagdet: 0.88394, recall: 0.89026, precision: 0.8777, granularity: 1.0 },
    sanchez_perez_2015_train: { plagdet: 0.8792, recall: 0.9128, precision: 0.8481, granularity: 1.0 },
  },
  entire_corpus_01_05: {
    sanchez_perez_2014_test2_official: { plagdet: 0.87818, recall: 0.87904, precision: 0.88168, granularity: 1.00344 },
    sanchez_perez_2015_test2: { plagdet: 0.901, recall: 0.8957, precision: 0.9125, granularity: 1.0046 },
    baseline_train: {
      plagdet: 0.431573152404,
      recall: 0.35448277069,
      precision: 0.923521328132,
      granularity: 1.27693761815,
    },
  },
};
