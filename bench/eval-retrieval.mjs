// Retrieval evaluation of `engine.search` on the dev data (../shared/data): builds an exact and a
// portrait dataset from a split of the dev documents, queries real passages of the indexed
// documents under transforms, and negatives from held-out documents of the same genres/authors
// (checked to share no 8-word run with the index). Reports, per bucket, dataset kind and setting:
// document recall, character span precision/recall, false matches and time per query; writes
// bench/results/eval-retrieval.json and prints a table.
//
//   node bench/eval-retrieval.mjs [--queries N] [--negatives N] [--seed S]     (needs dist/)
//   node bench/eval-retrieval.mjs --dist DIR --out FILE   (another build: DIR/index.js; the report written to FILE)
//
// Split (deterministic, seed below):
//   indexed   half of the Brown samples of each genre; half of the WikiText articles; Gutenberg
//             austen-persuasion, chesterton-thursday, milton-paradise, shakespeare-caesar,
//             burgess-busterbrown (tokenised); Alice in Wonderland, current PG edition (11-0.txt);
//             half of the arXivTection papers (each paper's verbatim passages as one document).
//   held out  the other Brown samples (same genres) and WikiText articles, the other arXivTection
//             papers, blake-poems (poetry, like Milton), tinyshakespeare (same author as Caesar):
//             the negatives and the unrelated filler that queries are embedded in.
//   other     old-alice30.txt (older edition of the indexed Alice) and the tokenised NLTK Alice:
//             the "other edition" buckets; arXivTection LLM paraphrases of indexed passages.
//
// Queries: a passage of N engine tokens (words as the engine counts them) cut from the original
// text of an indexed document, transformed, and embedded between 20–80 tokens of clean held-out
// filler; the truth is the passage's character span in the query and its document. Mosaics hold
// 3–5 quotes of 15–30 tokens from different indexed documents between filler segments.
import './help.mjs';
import { readFileSync, readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { naturalDocuments } from './natural-texts.mjs';
import { round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const shared = join(here, '../../shared/data');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const textArg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
/** --dist DIR: another build of the package (DIR/index.js); --out FILE: write the report there. */
const DIST = textArg('dist');
const OUT = textArg('out');
const SEED = arg('seed', 20240611);
const Q = arg('queries', 250); // queries per positive bucket (≥ 200)
const NEG = arg('negatives', 1500); // negative passages per length (50/100/200 tokens)
const SETTINGS = [
  { name: 'loose', minTokens: 5, alpha: 1e-3 },
  { name: 'default', minTokens: 8, alpha: 1e-4 }, // the library's defaults
  { name: 'strict', minTokens: 20, alpha: 1e-6 },
];

// ---------------------------------------------------------------- deterministic PRNG
export function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rng = mulberry32(SEED);
const randInt = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1)); // inclusive
const pick = (a) => a[Math.floor(rng() * a.length)];
export function shuffle(a, r = rng) {
  const b = a.slice();
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [b[i], b[j]] = [b[j], b[i]];
  }
  return b;
}

// ---------------------------------------------------------------- data and split
const readText = (p) => readFileSync(join(shared, p), 'utf8');
const jsonl = (p) =>
  readText(p)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

function loadSplit() {
  const split = mulberry32(SEED ^ 0x5eed);
  const indexed = [],
    heldOut = [];
  // Brown: half of each genre
  const brown = jsonl('brown-corpus/documents.jsonl');
  const byGenre = new Map();
  for (const d of brown) (byGenre.get(d.category) ?? byGenre.set(d.category, []).get(d.category)).push(d);
  for (const [g, docs] of [...byGenre].sort()) {
    const s = shuffle(
      docs.sort((a, b) => (a.id < b.id ? -1 : 1)),
      split,
    );
    const h = Math.ceil(s.length / 2);
    s.slice(0, h).forEach((d) => {
      indexed.push({ id: d.id, group: 'brown', genre: g, text: d.text });
    });
    s.slice(h).forEach((d) => {
      heldOut.push({ id: d.id, group: 'brown', genre: g, text: d.text });
    });
  }
  // WikiText: half of the articles
  const wiki = shuffle(jsonl('wikitext-2-raw-test/articles.jsonl'), split);
  wiki.forEach((d, i) => {
    (i < Math.ceil(wiki.length / 2) ? indexed : heldOut).push({ id: d.id, group: 'wikitext', text: d.text });
  });
  // Gutenberg
  for (const b of ['austen-persuasion', 'chesterton-thursday', 'milton-paradise', 'shakespeare-caesar'])
    indexed.push({ id: b, group: 'gutenberg', text: readText(`gutenberg-nltk/texts/${b}.txt`) });
  indexed.push({
    id: 'burgess-busterbrown',
    group: 'gutenberg',
    text: readText('gutenberg-nltk/texts-tokenized/burgess-busterbrown.txt'),
  });
  indexed.push({
    id: 'alice-11-0',
    group: 'alice',
    text: readText('gutenberg-editions/alice-in-wonderland-11/11-0.txt'),
  });
  heldOut.push({ id: 'blake-poems', group: 'gutenberg', text: readText('gutenberg-nltk/texts/blake-poems.txt') });
  heldOut.push({ id: 'tinyshakespeare', group: 'gutenberg', text: readText('tinyshakespeare/input.txt') });
  // arXivTection: half of the papers per label
  const arx = jsonl('arxivtection/passages.jsonl');
  const papers = new Map();
  for (const r of arx) (papers.get(r.paper) ?? papers.set(r.paper, []).get(r.paper)).push(r);
  const paraphrases = [];
  for (const label of [0, 1]) {
    const ps = shuffle([...papers.keys()].filter((p) => papers.get(p)[0].label === label).sort(), split);
    ps.forEach((p, i) => {
      const rows = papers.get(p).sort((a, b) => a.passage_index - b.passage_index);
      const id = `arxiv-${label}-${String(i).padStart(2, '0')}`;
      const doc = { id, group: 'arxiv', paper: p, text: rows.map((r) => r.verbatim).join('\n\n') };
      if (i < Math.ceil(ps.length / 2)) {
        indexed.push(doc);
        for (const r of rows) paraphrases.push({ doc: id, verbatim: r.verbatim, paraphrases: r.paraphrases });
      } else heldOut.push(doc);
    });
  }
  const editions = [
    {
      id: 'old-alice30',
      truth: 'alice-11-0',
      text: readText('gutenberg-editions/alice-in-wonderland-11/old-alice30.txt'),
    },
    {
      id: 'carroll-alice-tokenised',
      truth: 'alice-11-0',
      text: readText('gutenberg-nltk/texts-tokenized/carroll-alice.txt'),
    },
  ];
  return { indexed, heldOut, editions, paraphrases };
}

// ---------------------------------------------------------------- tokens with original spans
/** Engine tokens of `text` as [start, end) UTF-16 spans of the original string (word 1-grams). */
const ONE = { shingle: { unit: 'word', size: 1 }, winnow: false, minhash: false, simhash: false, workHash: false };
async function tokenSpans(engine, text) {
  const { shingles } = await engine.fingerprint(text, ONE);
  return { starts: Array.from(shingles.starts), ends: Array.from(shingles.ends) };
}

// ---------------------------------------------------------------- transforms
const PUNCT = /[.,;:!?"'()[\]\-—–`]/;
function rewrap(s) {
  const words = s.split(/\s+/).filter(Boolean);
  const width = randInt(30, 90);
  const indent = rng() < 0.3 ? '  ' : '';
  const eol = rng() < 0.3 ? '\r\n' : '\n';
  let out = indent,
    line = 0;
  for (const w of words) {
    if (line > 0 && line + 1 + w.length > width) {
      out += rng() < 0.1 ? eol + eol + indent : eol + indent;
      line = 0;
    } else if (line > 0) {
      out += rng() < 0.1 ? '  ' : ' ';
      line++;
    }
    out += w;
    line += w.length;
  }
  return out;
}
function recase(s) {
  const mode = randInt(0, 3);
  if (mode === 0) return s.toUpperCase();
  if (mode === 1) return s.toLowerCase();
  if (mode === 2) return s.replace(/\S+/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase());
  return s.replace(/\S+/g, (w) => (rng() < 0.5 ? w.toUpperCase() : w.toLowerCase()));
}
function repunct(s) {
  // Drop, swap or add punctuation outside words (an apostrophe between letters stays: it splits tokens).
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const inWord = /\p{L}/u.test(s[i - 1] ?? '') && /\p{L}/u.test(s[i + 1] ?? '');
    if (PUNCT.test(c) && !inWord) {
      const r = rng();
      if (r < 0.4) continue;
      if (r < 0.6) {
        out += pick([',', ';', ' -', '.', ':', ' …']);
        continue;
      }
    }
    out += c;
    if (c === ' ' && rng() < 0.04) out += pick(['- ', ', ', '( ', '" ']);
  }
  return out;
}
function unicodeNoise(s) {
  let dq = 0;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === ' ' && rng() < 0.3) out += pick(['\u00a0', '\u2009', '\u202f']);
    else if (c === '"') out += dq++ % 2 ? '\u201d' : '\u201c';
    else if (c === "'" || c === '`') out += /\p{L}/u.test(s[i - 1] ?? '') ? '\u2019' : '\u2018';
    else if (c === '-' && s[i + 1] === '-') {
      out += '\u2014';
      i++;
    } else if (c === 'f' && s[i + 1] === 'i' && rng() < 0.7) {
      out += '\ufb01';
      i++;
    } else if (c === 'f' && s[i + 1] === 'l' && rng() < 0.7) {
      out += '\ufb02';
      i++;
    } else {
      out += c;
      // soft hyphen / zero-width space inside a word (ignorables: vanish in normalisation)
      if (/\p{L}/u.test(c) && /\p{L}/u.test(s[i + 1] ?? '') && rng() < 0.02)
        out += pick(['\u00ad', '\u200b', '\u200d']);
    }
  }
  return out;
}
function fullwidth(s) {
  return s.replace(/\S+/g, (w) =>
    rng() < 0.3 ? w.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)) : w,
  );
}
const NOISES = { rewrap, case: recase, punct: repunct, unicode: unicodeNoise, fullwidth };
const allNoise = (s) => fullwidth(unicodeNoise(repunct(recase(rewrap(s)))));

/** Word edits: ⌈rate·n⌉ distinct token positions, each substituted, deleted or followed by an inserted word. */
function editPassage(text, spans, rate, vocab) {
  const n = spans.starts.length;
  const k = Math.max(1, Math.round(rate * n));
  const pos = new Set(shuffle([...Array(n).keys()]).slice(0, k));
  let out = '',
    at = 0;
  for (let i = 0; i < n; i++) {
    const s = spans.starts[i],
      e = spans.ends[i];
    if (!pos.has(i)) continue;
    const op = randInt(0, 2);
    if (op === 0) {
      out += text.slice(at, s) + pick(vocab);
      at = e;
    } else if (op === 1) {
      out += text.slice(at, s);
      at = e;
      while (at < text.length && /\s/.test(text[at])) at++;
    } else {
      out += text.slice(at, e) + ' ' + pick(vocab);
      at = e;
    }
  }
  return out + text.slice(at);
}

// ---------------------------------------------------------------- scoring helpers
function union(spans) {
  const s = spans.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out = [];
  for (const [a, b] of s) {
    if (out.length && a <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], b);
    else out.push([a, b]);
  }
  return out;
}
const len = (u) => u.reduce((t, [a, b]) => t + b - a, 0);
function overlap(u, v) {
  let t = 0;
  for (const [a, b] of u) for (const [c, d] of v) t += Math.max(0, Math.min(b, d) - Math.max(a, c));
  return t;
}
const quantile = (xs, q) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : null;
};
const roundOrNull = (x, d = 4) => (x === null || x === undefined || Number.isNaN(x) ? null : round(x, d));

// ---------------------------------------------------------------- main
/**
 * Build the dev datasets ('dev-exact', 'dev-portrait') and every query bucket (deterministic for
 * a seed). Shared with bench/eval-calibration.mjs.
 */
export async function prepare({ log = console.log, createEngine } = {}) {
  createEngine ??= (await import(DIST ? pathToFileURL(join(resolve(DIST), 'index.js')).href : '../dist/index.js'))
    .createEngine;
  const engine = await createEngine();
  const { indexed, heldOut, editions, paraphrases } = loadSplit();
  log(`indexed ${indexed.length} documents, held out ${heldOut.length}`);

  const t0 = performance.now();
  const exactStats = await engine.addDataset(
    { id: 'dev-exact', kind: 'exact' },
    indexed.map((d) => ({ id: d.id, text: d.text })),
  );
  const tExact = performance.now() - t0;
  const t1 = performance.now();
  const portraitStats = await engine.addDataset(
    { id: 'dev-portrait', kind: 'portrait' },
    indexed.map((d) => ({ id: d.id, text: d.text })),
  );
  engine.finalizeDataset('dev-portrait');
  const tPortrait = performance.now() - t1;
  // the portrait's null, measured on natural text this evaluation uses nowhere else (src/datasets/background.ts):
  // the PAN 2013 essays without reuse and the corpus's source documents (web pages), 1 M words
  const essays = naturalDocuments().filter((d) => d.source === 'pan');
  const srcDir = join(
    fileURLToPath(new URL('../../shared/data/', import.meta.url)),
    'pan13-text-alignment/train-corpus/src',
  );
  const pages = readdirSync(srcDir)
    .sort()
    .map((f) => readFileSync(join(srcDir, f), 'utf8'));
  const background = await engine.measureBackground('dev-portrait', [...essays.map((d) => d.text), ...pages], {
    corpus: `${essays.length} PAN 2013 essays without reuse and its ${pages.length} source web pages (bench/natural-texts.mjs)`,
  });
  log(`portrait background: ${JSON.stringify({ ...background, measured_on: undefined })}`);
  log(
    `exact: ${exactStats.fingerprints} fingerprints in ${tExact.toFixed(0)} ms; portrait: ${portraitStats.fingerprints} n-grams, ${portraitStats.index_bytes} bytes in ${tPortrait.toFixed(0)} ms`,
  );

  // Every word 8-gram of the indexed documents: negatives and filler must share none.
  const EIGHT = { shingle: { unit: 'word', size: 8 }, winnow: false, minhash: false, simhash: false, workHash: false };
  const indexed8 = new Set();
  for (const d of indexed) for (const h of (await engine.fingerprint(d.text, EIGHT)).shingles.hashes) indexed8.add(h);
  const clean = async (text) => {
    for (const h of (await engine.fingerprint(text, EIGHT)).shingles.hashes) if (indexed8.has(h)) return false;
    return true;
  };

  for (const d of [...indexed, ...heldOut, ...editions]) d.tok = await tokenSpans(engine, d.text);
  const cut = (d, at, n) => ({ text: d.text.slice(d.tok.starts[at], d.tok.ends[at + n - 1]), at });
  const randomCut = (d, n) => cut(d, randInt(0, d.tok.starts.length - n), n);

  // Positive sources: a group first (brown / wikitext / gutenberg / alice / arxiv), then a document.
  const groups = new Map();
  for (const d of indexed) (groups.get(d.group) ?? groups.set(d.group, []).get(d.group)).push(d);
  const groupNames = [...groups.keys()].sort();
  const sourceDoc = (n, exclude = new Set()) => {
    for (;;) {
      const d = pick(groups.get(pick(groupNames)));
      if (d.tok.starts.length >= n + 10 && !exclude.has(d.id)) return d;
    }
  };

  // Clean filler: held-out Brown/WikiText/arXiv text with no 8-gram in the index.
  const fillerDocs = heldOut.filter((d) => d.group !== 'gutenberg');
  const filler = async (n) => {
    for (;;) {
      const p = randomCut(pick(fillerDocs), n);
      if (await clean(p.text)) return p.text;
    }
  };
  const vocab = [];
  for (const d of fillerDocs.slice(0, 40))
    for (const w of d.text.split(/\s+/)) if (/^[A-Za-z]{3,}$/.test(w)) vocab.push(w.toLowerCase());

  /** Embed `parts` ({text, doc?}) in filler; returns the query and its truth spans. */
  const embed = async (parts) => {
    let q = await filler(randInt(20, 80));
    const truth = [];
    for (const p of parts) {
      q += pick([' ', '\n', '\n\n', ' ']);
      truth.push({ start: q.length, end: q.length + p.text.length, doc: p.doc, words: p.words });
      q += p.text + pick([' ', '\n', '\n\n']) + (await filler(randInt(20, 80)));
    }
    return { query: q, truth };
  };

  // ---- build the buckets
  const buckets = [];
  const add = (name, group, queries, extra = {}) => buckets.push({ name, group, queries, ...extra });
  for (const n of [12, 15, 20, 30, 50, 100, 200]) {
    const qs = [];
    for (let i = 0; i < Q; i++) {
      const d = sourceDoc(n);
      qs.push(await embed([{ text: randomCut(d, n).text, doc: d.id }]));
    }
    add(`verbatim-${n}`, n >= 50 ? 'verbatim' : 'verbatim-short', qs, { target: n >= 50 ? 0.95 : null });
  }
  for (const rate of [0.05, 0.1, 0.2]) {
    for (const n of [50, 100]) {
      const qs = [];
      for (let i = 0; i < Q; i++) {
        const d = sourceDoc(n);
        const c = randomCut(d, n);
        const base = d.tok.starts[c.at];
        const spans = {
          starts: d.tok.starts.slice(c.at, c.at + n).map((x) => x - base),
          ends: d.tok.ends.slice(c.at, c.at + n).map((x) => x - base),
        };
        qs.push(await embed([{ text: editPassage(c.text, spans, rate, vocab), doc: d.id }]));
      }
      add(`edits-${Math.round(rate * 100)}%-${n}`, 'edits', qs, { target: rate <= 0.1 ? 0.95 : null });
    }
  }
  for (const [name, f] of [...Object.entries(NOISES), ['all', allNoise]]) {
    const qs = [];
    for (let i = 0; i < Q; i++) {
      const d = sourceDoc(100);
      qs.push(await embed([{ text: f(randomCut(d, 100).text), doc: d.id }]));
    }
    add(`noise-${name}-100`, 'noise', qs, { target: 0.95 });
  }
  {
    const qs = [];
    for (let i = 0; i < Q; i++) {
      const k = randInt(3, 5),
        used = new Set(),
        parts = [];
      for (let j = 0; j < k; j++) {
        const n = randInt(15, 30);
        const d = sourceDoc(n, used);
        used.add(d.id);
        parts.push({ text: randomCut(d, n).text, doc: d.id, words: n });
      }
      qs.push(await embed(parts));
    }
    add('mosaic-3-5x15-30', 'mosaic', qs, { target: 0.95, per: 'quote' });
  }
  for (const ed of editions) {
    for (const n of [50, 100]) {
      const qs = [];
      for (let i = 0; i < Q; i++) qs.push(await embed([{ text: randomCut(ed, n).text, doc: ed.truth }]));
      add(`edition-${ed.id}-${n}`, 'edition', qs, { target: null });
    }
  }
  {
    const qs = [];
    for (let i = 0; i < Q; i++) {
      const p = pick(paraphrases);
      qs.push(await embed([{ text: pick(p.paraphrases), doc: p.doc }]));
    }
    add('paraphrase-arxiv-llm', 'paraphrase', qs, { target: null });
  }
  // Negatives: held-out passages of the same genres/authors, no 8-gram in the index.
  const negGroups = new Map();
  for (const d of heldOut) (negGroups.get(d.group) ?? negGroups.set(d.group, []).get(d.group)).push(d);
  const negNames = [...negGroups.keys()].sort();
  let rejected = 0,
    tried = 0;
  for (const n of [50, 100, 200]) {
    const qs = [];
    while (qs.length < NEG) {
      const d = pick(negGroups.get(pick(negNames)));
      if (d.tok.starts.length < n + 10) continue;
      const p = randomCut(d, n);
      tried++;
      if (!(await clean(p.text))) {
        rejected++;
        continue;
      }
      qs.push({ query: p.text, truth: [], source: d.group, tokens: n });
    }
    add(`negative-${n}`, 'negative', qs, { negative: true });
  }
  {
    // whole held-out documents (Brown samples ≈ 2,000 words, WikiText articles, arXiv papers), 8-gram-clean ones only
    const qs = [];
    for (const d of heldOut.filter((x) => x.group !== 'gutenberg'))
      if (await clean(d.text)) qs.push({ query: d.text, truth: [], source: d.group, tokens: d.tok.starts.length });
    add('negative-whole-docs', 'negative', qs, { negative: true });
  }
  log(`negatives: rejected ${rejected} of ${tried} candidate passages for sharing an 8-word run with the index`);

  return { engine, buckets, exactStats, tExact, tPortrait, indexed, heldOut, editions, tried, rejected };
}

export async function run({ log = console.log, createEngine } = {}) {
  const { engine, buckets, exactStats, tExact, tPortrait, indexed, heldOut, editions, tried, rejected } = await prepare(
    { log, createEngine },
  );
  // ---- run
  const MEMBERSHIP_P = 1e-3;
  for (let i = 0; i < 30; i++) {
    // warm-up
    engine.search(buckets[0].queries[i].query, { datasets: ['dev-exact'] });
    engine.search(buckets[0].queries[i].query, { datasets: ['dev-portrait'] });
  }
  const results = [];
  for (const b of buckets) {
    for (const kind of ['exact', 'portrait']) {
      for (const st of SETTINGS) {
        const opts = {
          datasets: [kind === 'exact' ? 'dev-exact' : 'dev-portrait'],
          minTokens: st.minTokens,
          alpha: st.alpha,
        };
        const times = [];
        let units = 0,
          found = 0,
          queriesAllFound = 0,
          anyMatch = 0,
          wrongDoc = 0,
          matchesN = 0;
        let ovl = 0,
          predLen = 0,
          trueLen = 0,
          macroP = 0,
          macroPn = 0,
          macroR = 0;
        let significant = 0; // portrait: queries whose hit count beats chance at p < MEMBERSHIP_P
        const failures = [];
        const byWords = {}; // mosaics: recall by quote length
        for (const q of b.queries) {
          const t = performance.now();
          const r = engine.search(q.query, opts);
          times.push(performance.now() - t);
          matchesN += r.matches.length;
          if (r.matches.length) anyMatch++;
          if (kind === 'portrait' && r.coverage['dev-portrait'].membership.p_value < MEMBERSHIP_P) significant++;
          const pred = union(r.matches.map((m) => [m.query_start, m.query_end]));
          const tr = union(q.truth.map((x) => [x.start, x.end]));
          const o = overlap(pred, tr);
          ovl += o;
          predLen += len(pred);
          trueLen += len(tr);
          if (len(pred)) {
            macroP += o / len(pred);
            macroPn++;
          }
          if (len(tr)) macroR += o / len(tr);
          const truthDocs = new Set(q.truth.map((x) => x.doc));
          if (kind === 'exact') wrongDoc += r.matches.filter((m) => !truthDocs.has(m.document_id)).length;
          let all = true;
          for (const x of q.truth) {
            units++;
            const hit = r.matches.some(
              (m) => m.query_end > x.start && m.query_start < x.end && (kind === 'portrait' || m.document_id === x.doc),
            );
            if (hit) found++;
            if (x.words) {
              const bin = x.words < 20 ? '15-19' : x.words < 25 ? '20-24' : '25-30';
              (byWords[bin] ??= [0, 0])[0] += hit ? 1 : 0;
              byWords[bin][1]++;
            } else {
              all = false;
              if (failures.length < 3) failures.push(q.query.slice(x.start, x.end).slice(0, 160));
            }
          }
          if (all && q.truth.length) queriesAllFound++;
        }
        const row = {
          bucket: b.name,
          group: b.group,
          kind,
          setting: st.name,
          min_tokens: kind === 'exact' ? st.minTokens : undefined,
          alpha: kind === 'portrait' ? st.alpha : undefined,
          queries: b.queries.length,
          ms_p50: roundOrNull(quantile(times, 0.5), 3),
          ms_p95: roundOrNull(quantile(times, 0.95), 3),
        };
        if (b.negative) {
          Object.assign(row, {
            false_match_rate: roundOrNull(anyMatch / b.queries.length, 5),
            queries_with_false_match: anyMatch,
            false_matches: matchesN,
            membership_rate: kind === 'portrait' ? roundOrNull(significant / b.queries.length, 5) : undefined,
            query_words: b.queries.reduce((t, q) => t + q.tokens, 0),
          });
          if (anyMatch)
            row.examples = b.queries
              .filter((q) => engine.search(q.query, opts).matches.length)
              .slice(0, 3)
              .map((q) => {
                const m = engine.search(q.query, opts).matches[0];
                return {
                  source: q.source,
                  match: q.query.slice(m.query_start, m.query_end).slice(0, 200),
                  document_id: m.document_id,
                  tokens: m.tokens,
                };
              });
        } else {
          Object.assign(row, {
            units: b.per === 'quote' ? `${units} quotes` : undefined,
            doc_recall: roundOrNull(found / units),
            target: b.target,
            meets_target: b.target == null ? undefined : found / units >= b.target,
            queries_all_found: b.per === 'quote' ? roundOrNull(queriesAllFound / b.queries.length) : undefined,
            recall_by_quote_words:
              b.per === 'quote'
                ? Object.fromEntries(
                    Object.entries(byWords)
                      .sort()
                      .map(([k, [f, n]]) => [k, roundOrNull(f / n)]),
                  )
                : undefined,
            any_match_rate: roundOrNull(anyMatch / b.queries.length),
            membership_rate: kind === 'portrait' ? roundOrNull(significant / b.queries.length) : undefined,
            span_precision: roundOrNull(predLen ? ovl / predLen : null),
            span_recall: roundOrNull(ovl / trueLen),
            span_precision_macro: roundOrNull(macroPn ? macroP / macroPn : null),
            span_recall_macro: roundOrNull(macroR / b.queries.length),
            wrong_doc_matches: kind === 'exact' ? wrongDoc : undefined,
            missed_examples: failures,
          });
        }
        results.push(row);
      }
    }
    log(`${b.name}: done`);
  }
  return {
    what: 'retrieval evaluation of engine.search on the dev data (bench/eval-retrieval.mjs)',
    seed: SEED,
    queries_per_bucket: Q,
    negatives_per_length: NEG,
    settings: SETTINGS,
    datasets: {
      exact: exactStats,
      portrait: engine.datasets().find((d) => d.id === 'dev-portrait'),
      build_ms: { exact: roundOrNull(tExact, 0), portrait: roundOrNull(tPortrait, 0) },
    },
    split: {
      indexed: indexed.map((d) => d.id),
      held_out: heldOut.map((d) => d.id),
      editions: editions.map((e) => e.id),
      indexed_words: indexed.reduce((t, d) => t + d.tok.starts.length, 0),
      held_out_words: heldOut.reduce((t, d) => t + d.tok.starts.length, 0),
    },
    negatives_filter: {
      rule: 'no word 8-gram (normalised) shared with any indexed document',
      candidates: tried,
      rejected,
    },
    measures: {
      doc_recall:
        'exact: a match overlapping the inserted span with the right document id; portrait: any match overlapping it (mosaics: per quote)',
      span_precision:
        'characters of the union of reported query spans inside the true spans / characters reported (micro over the bucket; _macro = mean over queries with a match)',
      span_recall:
        'characters of the true spans covered by reported query spans / true characters (micro; _macro = mean over queries)',
      false_match_rate: 'share of negative queries with any match',
      membership_rate:
        "portrait: share of queries whose coverage.membership.p_value < 1e-3 (more hits than the filter's chance rate gives; a statement about the whole query, not a passage)",
      ms: 'engine.search time per query, one dataset',
    },
    results,
    runtime: { node: process.version, variant: engine.variant, date: new Date().toISOString().slice(0, 10) },
  };
}

export function printTable(report, log = console.log) {
  const pad = (s, n) => String(s ?? '').padEnd(n);
  log(
    `\n${pad('bucket', 40)}${pad('kind', 9)}${pad('set', 8)}${pad('n', 6)}${pad('docR', 7)}${pad('spanP', 7)}${pad('spanR', 7)}${pad('FP', 9)}${pad('p50ms', 7)}${pad('p95ms', 7)}target`,
  );
  for (const r of report.results) {
    log(
      pad(r.bucket, 40) +
        pad(r.kind, 9) +
        pad(r.setting, 8) +
        pad(r.queries, 6) +
        pad(r.doc_recall ?? '', 7) +
        pad(r.span_precision ?? '', 7) +
        pad(r.span_recall ?? '', 7) +
        pad(
          r.false_match_rate !== undefined
            ? `${r.queries_with_false_match}/${r.queries}`
            : r.wrong_doc_matches !== undefined
              ? `wd ${r.wrong_doc_matches}`
              : '',
          9,
        ) +
        pad(r.ms_p50, 7) +
        pad(r.ms_p95, 7) +
        (r.target ? (r.meets_target ? `≥${r.target} ok` : `≥${r.target} MISS`) : ''),
    );
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const report = await run();
  printTable(report);
  const out = OUT ? pathToFileURL(resolve(OUT)) : new URL('./results/eval-retrieval.json', import.meta.url);
  mkdirSync(new URL('.', out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  console.log(`\nwrote ${fileURLToPath(out)}`);
}
