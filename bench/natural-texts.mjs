// Natural text in no loaded dataset, for the null of the reference packs (bench/measure-background.mjs), the
// calibration (bench/eval-calibration.mjs) and the false-attribution benchmark (bench/eval-false-attribution.mjs).
// One reading of the development data (../shared/data) and one split, so that the three agree on what was tuned on:
//
//   brown     Brown Corpus samples (1961 American English, 15 genres), all 250 of the development half
//   arxiv     arXivTection passages, each paper's passages joined in order (24 papers); papers listed in
//             EXACT_ARXIV are indexed by the exact benchmark datasets instead, so they are never negatives
//   pan       PAN 2013 suspicious documents that no ground-truth pair marks as reusing any source (74 essays)
//   answers   Clough & Stevenson short answers written without the source ("non", 18 answers)
//
// Not WikiText (it is in pack:wikipedia-wikitext) and not the licence texts (`npm start` loads them). Each source's
// documents are ordered by SHA-256 of their id and dealt alternately to the parts `tune` (measured and fitted on)
// and `test` (reported, never tuned on). Text is never copied into the repository: only statistics leave here.
import './help.mjs';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHARED = fileURLToPath(new URL('../../shared/data/', import.meta.url));
export const hasSharedData = () => existsSync(join(SHARED, 'brown-corpus/documents.jsonl'));

const read = (p) => readFileSync(join(SHARED, p), 'utf8');
const jsonl = (p) =>
  read(p)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const sha = (s) => createHash('sha256').update(s).digest('hex');

/** A seeded PRNG (mulberry32). */
export function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** arXiv papers (by their order of SHA-256 of the title) indexed by the exact benchmark datasets: every third. */
export function arxivPapers() {
  const papers = new Map();
  for (const r of jsonl('arxivtection/passages.jsonl'))
    (papers.get(r.paper) ?? papers.set(r.paper, []).get(r.paper)).push(r);
  const ordered = [...papers.keys()].sort((a, b) => (sha(a) < sha(b) ? -1 : 1));
  return ordered.map((paper, i) => {
    const rows = papers.get(paper).sort((a, b) => a.passage_index - b.passage_index);
    return { paper, indexed: i % 3 === 0, rows, text: rows.map((r) => r.verbatim).join('\n\n') };
  });
}

/** PAN 2013 suspicious documents that no pair marks as reusing a source, and those that do. */
export function panSuspicious() {
  const root = join(SHARED, 'pan13-text-alignment/train-corpus');
  const reused = new Set();
  for (const sub of readdirSync(root).filter((d) => /^\d\d-/.test(d))) {
    for (const f of readdirSync(join(root, sub)).filter((x) => x.endsWith('.xml'))) {
      if (readFileSync(join(root, sub, f), 'utf8').includes('name="plagiarism"'))
        reused.add(f.replace(/-source-.*$/, '.txt'));
    }
  }
  return readdirSync(join(root, 'susp'))
    .sort()
    .map((f) => ({ file: f, reused: reused.has(f), text: readFileSync(join(root, 'susp', f), 'utf8') }));
}

/** The Brown Corpus categories (Francis & Kučera 1964, the corpus manual) by letter. */
export const BROWN_CATEGORIES = {
  a: 'press: reportage',
  b: 'press: editorial',
  c: 'press: reviews',
  d: 'religion',
  e: 'skill and hobbies',
  f: 'popular lore',
  g: 'belles-lettres',
  h: 'miscellaneous: government and house organs',
  j: 'learned',
  k: 'fiction: general',
  l: 'fiction: mystery and detective',
  m: 'fiction: science',
  n: 'fiction: adventure and western',
  p: 'fiction: romance and love story',
  r: 'humor',
};
/** A text's genre in words: the Brown Corpus category by name ("brown fiction: general"); other sources keep theirs. */
export const genreName = ({ source, genre }) =>
  source === 'brown' ? `brown ${BROWN_CATEGORIES[genre] ?? genre}` : `${source} ${genre ?? ''}`.trim();

/** Every natural negative document: { id, source, genre, text, part }. */
export function naturalDocuments() {
  const docs = [];
  for (const d of jsonl('brown-corpus/documents.jsonl'))
    docs.push({ id: d.id, source: 'brown', genre: d.category, text: d.text });
  for (const p of arxivPapers())
    if (!p.indexed)
      docs.push({ id: `arxiv:${sha(p.paper).slice(0, 12)}`, source: 'arxiv', genre: 'science', text: p.text });
  for (const p of panSuspicious())
    if (!p.reused) docs.push({ id: `pan:${p.file}`, source: 'pan', genre: 'essay', text: p.text });
  for (const l of jsonl('clough-stevenson-short-answers/labels.jsonl'))
    if (l.category === 'non')
      docs.push({
        id: `answers:${l.file}`,
        source: 'answers',
        genre: 'answer',
        text: read(join('clough-stevenson-short-answers', l.file)),
      });
  const bySource = new Map();
  for (const d of docs) (bySource.get(d.source) ?? bySource.set(d.source, []).get(d.source)).push(d);
  for (const list of bySource.values()) {
    list.sort((a, b) => (sha(a.id) < sha(b.id) ? -1 : 1));
    list.forEach((d, i) => {
      d.part = i % 2 === 0 ? 'tune' : 'test';
    });
  }
  return docs;
}

/** Word spans of a text (runs of non-space), as [start, end) pairs of UTF-16 offsets. */
export function wordSpans(text) {
  const spans = [];
  for (const m of text.matchAll(/\S+/g)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

/** `count` excerpts of `words` words of a text, as the text itself (its own spacing), at spread seeded offsets. */
export function excerpts(text, words, count, rnd, spans = wordSpans(text)) {
  if (spans.length < words) return [];
  const room = spans.length - words;
  const out = [];
  const n = Math.min(count, room + 1);
  for (let i = 0; i < n; i++) {
    // one excerpt per equal slice of the room, placed at random inside it: disjoint where the text is long enough
    const lo = Math.floor((room * i) / n),
      hi = Math.floor((room * (i + 1)) / n);
    const at = lo + Math.floor(rnd() * Math.max(1, hi - lo));
    out.push({ at, text: text.slice(spans[at][0], spans[at + words - 1][1]) });
  }
  return out;
}
