// The labelled cases of the false-attribution benchmark and of the calibration: natural negatives of every length
// and positives of every kind of reuse, the two engines they are analysed in, and what each analysis says.
// bench/eval-false-attribution.mjs reports on them (its header has the protocol); bench/eval-calibration.mjs fits the
// calibration on their `tune` half. Reads ../shared/data (bench/natural-texts.mjs); nothing of it is written out.
//
//   engines      portrait: `createEngine({ packs: 'default' })`, the four default reference packs as `npm start`
//                serves them, each with its measured background; exact: four exact datasets in memory — the dev
//                Gutenberg books (declared Project Gutenberg), the WikiText-2 articles (Wikipedia), a third of the
//                arXiv papers (arXiv, bench/natural-texts.mjs) and the PAN 2013 source documents (undeclared)
//   negatives    natural text in none of them (bench/natural-texts.mjs): excerpts of 70, 150, 400, 1,000, 1,500 and
//                2,000 words (several per document at the short lengths), whole PAN essays by their length, and
//                concatenations of unrelated texts of 5,000 to 100,000 words. The PAN essays are not paired with the
//                PAN sources: "no reuse" in the ground truth means none of the essay's paired sources, and some
//                essays copy other source documents of the corpus (a 598-word verbatim passage in one)
//   positives    excerpts of texts a dataset holds, labelled with it: verbatim, with 5 % and 10 % of the words
//                edited, the older edition of a book, a 40-word quotation inside natural text, LLM paraphrases of
//                indexed arXiv passages and PAN essays that reuse a source (exact only)
import './help.mjs';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  arxivPapers,
  excerpts,
  mulberry32,
  naturalDocuments,
  panSuspicious,
  SHARED,
  wordSpans,
} from './natural-texts.mjs';

export const LENGTHS = [70, 150, 400, 1000, 1500, 2000];
/**
 * Natural texts of the development data that turned out to quote a text a dataset holds, checked by reading the
 * matched spans: positives for the quoted part (a text that quotes a packed work should hear so), so they are left
 * out of the negatives and reported on their own.
 */
export const KNOWN_QUOTATIONS = {
  'brown-cg56': {
    dataset: 'pack:gutenberg',
    what: 'a 75-word quotation of Plato\'s Republic, Book X, in Jowett\'s translation (Project Gutenberg #1497): "We may further grant to those of her defenders who are lovers of poetry and yet not poets …"',
  },
  'brown-cd16': {
    dataset: 'pack:wikipedia-core',
    what: 'a quotation of the Gospel of John 1:12–13, which a Wikipedia article of the pack quotes (its group enwiki-2015:AA/wiki_14, page ids 2216–2376): "… born not of blood , nor of the will of the flesh , nor of the will of man , but of God"',
  },
  'pan:suspicious-document00150.txt': {
    dataset: 'pack:wikipedia-core',
    what: 'sentences of the English Wikipedia article "Bradycardia" (treatment of apnea spells in premature babies)',
  },
  'pan:suspicious-document00829.txt': {
    dataset: 'pack:wikipedia-core',
    what: 'most of the English Wikipedia article "Adobe" (soil testing, bricks, walls, roofs)',
  },
  'pan:suspicious-document00122.txt': {
    dataset: 'pack:wikipedia-core',
    what: 'sentences of the English Wikipedia article "Hee Haw" (its cast members: "Two rural-style comedians, already well known in their native Canada …")',
  },
  'pan:suspicious-document01411.txt': {
    dataset: 'pack:gutenberg',
    what: 'a line of James Joyce\'s Ulysses (Project Gutenberg #4300), lower-cased and without apostrophes: "… thomas fitzgerald, silken knight, perkin warbeck, york s false scion, in breeches of silk of whiterose ivory, wonder of a day …"',
  },
};
export const LONG = [5000, 10000, 20000, 50000, 100000];
const SEED = 20261125;
const read = (p) => readFileSync(join(SHARED, p), 'utf8');
export const words = (t) => wordSpans(t).length;
/** The length bucket of a text of `n` words: the largest length it reaches (within 10 %). */
export const bucketOf = (n) => {
  let b = LENGTHS[0];
  for (const L of LENGTHS) if (n >= L * 0.9) b = L;
  return b;
};

/**
 * Every case, built from one seeded generator (the same cases on every run). `quick` takes one excerpt per document
 * and length and fewer positives (CI).
 */
export function buildCases({ quick = false } = {}) {
  const rnd = mulberry32(SEED);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const perDoc = quick
    ? { 70: 1, 150: 1, 400: 1, 1000: 1, 1500: 1, 2000: 1 }
    : { 70: 3, 150: 3, 400: 2, 1000: 2, 1500: 1, 2000: 1 };
  const longN = quick ? 2 : 6;
  // positive excerpts per book, transform and length (the halves split them): more where detection varies most
  const posPer = (L) => (quick ? 3 : L <= 400 ? 24 : 8);

  const all = naturalDocuments();
  const natural = all.filter((d) => !(d.id in KNOWN_QUOTATIONS));
  const quotations = all
    .filter((d) => d.id in KNOWN_QUOTATIONS)
    .map((d) => ({ doc: d.id, part: d.part, ...KNOWN_QUOTATIONS[d.id], words: words(d.text), text: d.text }));
  const vocab = [];
  for (const d of natural.filter((x) => x.part === 'tune').slice(0, 60))
    for (const w of d.text.split(/\s+/)) if (/^[A-Za-z]{3,}$/.test(w)) vocab.push(w.toLowerCase());
  const books = [
    { id: 'austen-persuasion', file: 'gutenberg-nltk/texts/austen-persuasion.txt' },
    { id: 'chesterton-thursday', file: 'gutenberg-nltk/texts/chesterton-thursday.txt' },
    { id: 'milton-paradise', file: 'gutenberg-nltk/texts/milton-paradise.txt' },
    { id: 'alice-11-0', file: 'gutenberg-editions/alice-in-wonderland-11/11-0.txt' },
  ].map((b) => ({ ...b, text: read(b.file) }));
  const oldAlice = read('gutenberg-editions/alice-in-wonderland-11/old-alice30.txt');
  const wikitext = read('wikitext-2-raw-test/articles.jsonl')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const papers = arxivPapers();
  const pan = panSuspicious();

  /** `rate` of the words of `text` replaced, dropped or followed by another word (seeded). */
  const edit = (text, rate) => {
    const spans = wordSpans(text);
    const k = Math.max(1, Math.round(rate * spans.length));
    const at = new Set();
    while (at.size < k) at.add(Math.floor(rnd() * spans.length));
    let out = '',
      from = 0;
    for (let i = 0; i < spans.length; i++) {
      if (!at.has(i)) continue;
      const [s, e] = spans[i];
      const op = Math.floor(rnd() * 3);
      if (op === 0) out += text.slice(from, s) + pick(vocab);
      else if (op === 1) out += text.slice(from, s);
      else out += `${text.slice(from, e)} ${pick(vocab)}`;
      from = op === 1 ? Math.min(text.length, e + 1) : e;
    }
    return out + text.slice(from);
  };
  /** A natural text with `quote` inserted at a random word boundary. */
  const quoteIn = (host, quote) => {
    const spans = wordSpans(host);
    const at = spans[Math.floor(rnd() * spans.length)][0];
    return `${host.slice(0, at)}${quote} ${host.slice(at)}`;
  };

  // ---- negatives: { doc, source, genre, part, words, text }
  const negatives = [];
  for (const d of natural) {
    if (d.source === 'pan') continue; // whole essays, below
    const spans = wordSpans(d.text);
    for (const L of LENGTHS)
      for (const x of excerpts(d.text, L, perDoc[L], rnd, spans))
        negatives.push({ doc: d.id, source: d.source, genre: d.genre, part: d.part, words: L, text: x.text });
  }
  for (const p of natural.filter((d) => d.source === 'pan')) {
    const n = words(p.text);
    if (n >= 60)
      negatives.push({
        doc: p.id,
        source: 'pan',
        genre: p.genre,
        part: p.part,
        words: bucketOf(n),
        whole: n,
        text: p.text,
      });
  }
  // ---- long negatives: unrelated texts of one half, concatenated
  const long = [];
  for (const part of ['tune', 'test']) {
    const pool = natural.filter((d) => d.part === part && words(d.text) > 300);
    for (const L of LONG) {
      for (let i = 0; i < longN; i++) {
        const used = new Set();
        let text = '';
        while (words(text) < L) {
          const d = pick(pool);
          if (used.has(d.id) && used.size < pool.length) continue;
          used.add(d.id);
          text += (text ? '\n\n' : '') + d.text;
        }
        const spans = wordSpans(text);
        long.push({ part, words: L, docs: used.size, source: 'concatenation', text: text.slice(0, spans[L - 1][1]) });
      }
    }
  }

  /** Positives of an engine kind: { dataset (the one that holds the text), transform, words, part, source, text }. */
  const positives = (kind) => {
    const out = [];
    const gutenberg = kind === 'portrait' ? 'pack:gutenberg' : 'dev-gutenberg';
    const wiki = kind === 'portrait' ? 'pack:wikipedia-wikitext' : 'dev-wikipedia';
    for (const b of [...books, { id: 'alice-old-30', text: oldAlice, edition: true }]) {
      const spans = wordSpans(b.text);
      const half = Math.floor(spans.length / 2);
      for (const L of LENGTHS) {
        for (const x of excerpts(b.text, L, posPer(L) * 2, rnd, spans)) {
          // the first half of a book is tuned on, the second half reported
          const base = { dataset: gutenberg, words: L, part: x.at < half ? 'tune' : 'test', source: b.id };
          if (b.edition) {
            out.push({ ...base, transform: 'older-edition', text: x.text });
            continue;
          }
          out.push({ ...base, transform: 'verbatim', text: x.text });
          out.push({ ...base, transform: 'edited-5', text: edit(x.text, 0.05) });
          out.push({ ...base, transform: 'edited-10', text: edit(x.text, 0.1) });
        }
      }
      if (b.edition) continue;
      for (const L of LENGTHS.filter((n) => n >= 150)) {
        for (const x of excerpts(b.text, 40, posPer(L), rnd, spans)) {
          const part = x.at < half ? 'tune' : 'test';
          const host = pick(negatives.filter((n) => n.words === L && n.part === part && !n.whole));
          out.push({
            dataset: gutenberg,
            words: L,
            part,
            source: b.id,
            transform: 'quote-40',
            text: quoteIn(host.text, x.text),
          });
        }
      }
    }
    for (const [i, a] of wikitext.entries()) {
      const part = i % 2 === 0 ? 'tune' : 'test';
      for (const L of LENGTHS) {
        for (const x of excerpts(a.text, L, L <= 400 && !quick ? 3 : 1, rnd)) {
          const base = { dataset: wiki, words: L, part, source: a.id };
          out.push({ ...base, transform: 'verbatim', text: x.text });
          out.push({ ...base, transform: 'edited-10', text: edit(x.text, 0.1) });
        }
      }
    }
    if (kind === 'exact') {
      papers
        .filter((p) => p.indexed)
        .forEach((p, i) => {
          const part = i % 2 === 0 ? 'tune' : 'test';
          for (const L of LENGTHS.filter((n) => n <= 1000)) {
            let text = '';
            for (const r of p.rows) {
              if (words(text) >= L) break;
              text += (text ? '\n\n' : '') + r.paraphrases[0];
            }
            if (words(text) >= L * 0.9)
              out.push({ dataset: 'dev-arxiv', words: L, part, source: p.paper, transform: 'llm-paraphrase', text });
          }
        });
      for (const p of pan.filter((x) => x.reused)) {
        const n = words(p.text);
        if (n < 60) continue;
        const part = Number.parseInt(p.file.replace(/\D/g, ''), 10) % 2 === 0 ? 'tune' : 'test';
        out.push({
          dataset: 'dev-pan',
          words: bucketOf(n),
          part,
          source: p.file,
          transform: 'pan-reuse',
          text: p.text,
        });
      }
    }
    return out;
  };

  return { natural, quotations, books, negatives, long, positives, excerpt: (text, n) => excerpts(text, n, 1, rnd)[0] };
}

/** The exact development datasets: { descriptor, documents } each (the exact engine holds them all). */
export function caseDatasets() {
  const gutenberg = [
    ['austen-persuasion', 'gutenberg-nltk/texts/austen-persuasion.txt'],
    ['chesterton-thursday', 'gutenberg-nltk/texts/chesterton-thursday.txt'],
    ['milton-paradise', 'gutenberg-nltk/texts/milton-paradise.txt'],
    ['shakespeare-caesar', 'gutenberg-nltk/texts/shakespeare-caesar.txt'],
    ['blake-poems', 'gutenberg-nltk/texts/blake-poems.txt'],
    ['alice-11-0', 'gutenberg-editions/alice-in-wonderland-11/11-0.txt'],
  ];
  const wikitext = read('wikitext-2-raw-test/articles.jsonl')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const src = join(SHARED, 'pan13-text-alignment/train-corpus/src');
  return [
    {
      descriptor: { id: 'dev-gutenberg', kb_dataset: 'project-gutenberg' },
      documents: gutenberg.map(([id, f]) => ({ id, text: read(f) })),
    },
    {
      descriptor: { id: 'dev-wikipedia', kb_dataset: 'wikipedia' },
      documents: wikitext.map((a) => ({ id: a.id, text: a.text })),
    },
    {
      descriptor: { id: 'dev-arxiv', kb_dataset: 'arxiv' },
      documents: arxivPapers()
        .filter((p) => p.indexed)
        .map((p, i) => ({ id: `paper-${i}`, text: p.text })),
    },
    {
      descriptor: { id: 'dev-pan' },
      documents: readdirSync(src)
        .sort()
        .map((f) => ({ id: f, text: readFileSync(join(src, f), 'utf8') })),
    },
  ];
}

/** The engine of a kind, as the cases need it. */
export async function caseEngine(kind, createEngine, packsUrl) {
  // packsUrl: another packs folder's default packs (e.g. the English ones alone); absent, this checkout's
  if (kind === 'portrait') return createEngine({ packs: 'default', ...(packsUrl ? { packsUrl } : {}) });
  const engine = await createEngine();
  for (const d of caseDatasets()) await engine.addDataset(d.descriptor, d.documents);
  return engine;
}

/**
 * The datasets a negative is paired with: all, except the PAN sources for a PAN essay and for a concatenation that
 * may hold one (see the header).
 */
export const pairedWith = (negative, datasetIds) =>
  negative.source === 'pan' || negative.source === 'concatenation'
    ? datasetIds.filter((id) => id !== 'dev-pan')
    : datasetIds;

/**
 * What one analysis says, as the measures read it (`remote`: let the engine's remote corpora be searched).
 * `quotations`: the request's; the positives are read with 'count' — they measure whether an evidence path finds a
 * passage, and a passage planted at a random place may land inside the host text's own quotation marks (dialogue),
 * where analyze reports it as a quotation and leaves it out of the headline by default (bench/eval-quotations.mjs
 * measures that rule).
 */
export async function analyse(engine, text, remote = false, quotations = 'exclude') {
  const r = await engine.analyze({ content: text, content_type: 'text', quotations }, remote ? {} : { remote: false });
  const top = r.attribution_sources[0];
  return {
    confidence: r.confidence,
    models_ge50: r.attribution_sources.filter((s) => s.confidence >= 50).length,
    shown: top ? (r.evidence.datasets.find((d) => d.dataset_id === top.dataset_id)?.checkable ?? 0) > 0 : true,
    top_dataset: top?.dataset_id ?? null,
    summary: r.corpus_evidence.summary,
    level: r.corpus_evidence.strongest?.level ?? 'none',
    datasets: Object.fromEntries(
      r.evidence.datasets.map((d) => [
        d.dataset_id,
        {
          confidence: d.confidence,
          // the strength the confidence rests on: none unless the evidence counts (src/services/policy)
          strength: d.counted ? d.strength : 0,
          checkable: d.checkable,
        },
      ]),
    ),
    evidence: r.matches
      .filter((m) => m.dataset_id === top?.dataset_id)
      .slice(0, 2)
      .map((m) => text.slice(m.query_start, m.query_end).slice(0, 160)),
  };
}
