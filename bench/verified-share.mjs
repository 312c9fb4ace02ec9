// The share a remote corpus holds, verified where it is: the sampled search (src/remote/sampling.ts) of works of
// 14,000 to 150,000 words against fixture infini-gram corpora whose documents are 600 to 500,000 characters long,
// by text kind, corpus line form and share held.
//
//   nice node bench/verified-share.mjs [--grid main|held|spread|sizes|timing|all] [--draws N] [--quick] [--write]
//
// (needs dist/ — npm run build; writes bench/results/verified-share.json, keeping the grids not run; --quick: 3 draws
// a cell, nothing written unless --write)
//
// Works (each paragraph one line, a blank line between; plain text, so the search's strata are ten equal parts of
// its characters):
//   english   the chapters of Persuasion, The Man Who Was Thursday and Paradise Lost in turn (the committed Project
//             Gutenberg texts, test/fixtures/texts/gutenberg), paragraphs reflowed, cut at `words`
//   dense     generated (seeded) paragraphs of 120 words that tokenise densely, in turn: made-up words of three
//             syllables, names among made-up words, words of a made-up language with diacritics (ä ö ü é ñ å), and
//             code-like identifiers (camelCase, snake_case, calls and numbers)
// Corpora (fixture infini-gram engine, Llama-2-style tokens, in this process on 127.0.0.1): the work's ten strata (or,
// `parts: 20`, twenty equal parts: every stratum half held, passages across the edges of what is held), of which
// 0 / 10 / 50 / 100 % held, spread along the work, the words that start in them, in the corpus's form — `reflowed` (as
// the work) or `wrapped` (hard-wrapped at 70 columns) — each after a stretch of another text of the same kind (Julius
// Caesar and Blake; another seed), cut into documents of about `doc` characters at white space, beside documents of
// that other text. A draw: the work with a first line of fixed length naming the draw (another work hash, another draw
// of passages; that line is not held), analysed with `engine.analyze` (text, remote search on, default client: 400
// calls, 8 at a time), cold cache.
// Per cell: the 95 % interval against the true share (held words ÷ the work's words; no slack), the estimate's error,
// the upper end at 0 % held, the documents fetched / verified / unchecked / contradicted / refuted (with the strata
// held, a passage is held whole or not at all, so verified ÷ fetched is the verified share of fetched documents that
// hold the passage), calls, time.
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const QUICK = process.argv.includes('--quick');
const WRITE = !QUICK || process.argv.includes('--write');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const RESULTS = new URL('./results/verified-share.json', import.meta.url);
const TARGETS = { coverage: 0.95, upper_at_zero: 0.05, estimate_at_half: 0.12, verified_share: 0.95, calls: 400 };
const round = (x, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? null : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const wordCount = (t) => (t.match(/\S+/g) ?? []).length;

// ---------------------------------------------------------------- texts (deterministic)

const gutenberg = (name) =>
  readFileSync(new URL(`../test/fixtures/texts/gutenberg/${name}.txt`, import.meta.url), 'utf8').replace(/\r/g, '');
const paragraphsOf = (t) =>
  t
    .split(/\n{2,}/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => wordCount(p) >= 8);

/** Paragraphs until `words` words (the last cut). */
function take(paragraphs, words) {
  const out = [];
  let n = 0;
  for (const p of paragraphs) {
    if (n >= words) break;
    const w = p.split(' ');
    const room = words - n;
    out.push(w.length <= room ? p : w.slice(0, room).join(' '));
    n += Math.min(room, w.length);
  }
  return out;
}

const ENGLISH = () => [
  ...paragraphsOf(gutenberg('austen-persuasion')),
  ...paragraphsOf(gutenberg('chesterton-thursday')),
  ...paragraphsOf(gutenberg('milton-paradise')),
];
const ENGLISH_OTHER = () => [
  ...paragraphsOf(gutenberg('shakespeare-caesar')),
  ...paragraphsOf(gutenberg('blake-poems')),
];

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Paragraphs of 120 words that tokenise densely (see the header), seeded. */
function densePara(seed, count) {
  const r = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const syl = ['ka', 'zu', 'mor', 'qen', 'vil', 'tra', 'sho', 'pex', 'lun', 'dri', 'gaw', 'nef', 'yor', 'bix', 'cul'];
  const foreign = ['ää', 'ör', 'üs', 'én', 'ñi', 'åk', 'ly', 'tsö', 'ké', 'rü', 'väl', 'mä', 'öy', 'ço', 'íz'];
  const made = (s, n) => Array.from({ length: n }, () => pick(s)).join('');
  const names = ['Quorvath', 'Elspeth', 'Ximenez', 'Thandiwe', 'Oyelaran', 'Przybylski', 'Nakagawa', 'Vukovic'];
  const ident = () => {
    const a = made(syl, 2),
      b = made(syl, 2);
    return pick([
      `${a}${b[0].toUpperCase()}${b.slice(1)}`,
      `${a}_${b}`,
      `${a}(${b},${Math.floor(r() * 999)})`,
      `${a}.${b}[${Math.floor(r() * 64)}]`,
      `0x${Math.floor(r() * 0xffff).toString(16)}`,
    ]);
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    const w = Array.from({ length: 120 }, () =>
      kind === 0
        ? made(syl, 3)
        : kind === 1
          ? r() < 0.3
            ? pick(names)
            : made(syl, 3)
          : kind === 2
            ? made(foreign, 2 + Math.floor(r() * 2))
            : ident(),
    );
    out.push(w.join(' '));
  }
  return out;
}

const KINDS = {
  english: { work: (words) => take(ENGLISH(), words), other: () => take(ENGLISH_OTHER(), 30_000) },
  dense: { work: (words) => densePara(71, Math.ceil(words / 120)), other: () => densePara(9, 250) },
};

/** Which of `count` parts a corpus holds: about `share` of them, spread along the work. */
function heldParts(count, share) {
  if (share === 0) return [];
  const step = 1 / share;
  const out = [];
  for (let x = 0; x < count - 1e-9; x += step) out.push(Math.floor(x));
  return [...new Set(out)];
}

const wrap70 = (p) => {
  const lines = [];
  let line = '';
  for (const w of p.split(' ')) {
    if (line && line.length + 1 + w.length > 70) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.join('\n');
};
const FORMS = { reflowed: (p) => p, wrapped: wrap70 };

/** A text cut into documents of about `chars` characters at white space. */
function cut(text, chars) {
  const out = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + chars);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      const nl = text.lastIndexOf('\n', end);
      const at = Math.max(space, nl);
      if (at > start + chars / 2) end = at + 1;
    }
    const piece = text.slice(start, end);
    if (piece.trim()) out.push({ text: piece });
    start = end;
  }
  return out;
}

/**
 * The held strata in the corpus: each after a stretch of the other text (a quarter of a document, at most 3,000
 * characters: the work's text never runs from one held stratum into the next), cut into documents of `doc`
 * characters, the last filled up with the other text to that length.
 */
function corpusDocuments(texts, doc, otherText) {
  let at = 0;
  const other = (chars) => {
    let out = '';
    while (out.length < chars) {
      const piece = otherText.slice(at, at + chars - out.length);
      out += piece;
      at = (at + piece.length) % otherText.length;
    }
    const space = out.lastIndexOf(' ');
    return space > 0 ? out.slice(0, space) : out;
  };
  const gap = Math.min(3_000, Math.floor(doc / 4));
  let stream = '';
  for (const t of texts) if (t) stream += `${other(gap)}\n\n${t}\n\n`;
  if (stream.length === 0) return [];
  const tail = doc - (stream.length % doc);
  if (tail > 0 && tail < doc) stream += other(tail);
  return cut(stream, doc);
}

// ---------------------------------------------------------------- cells

/** A cell: text kind, work words, document characters, corpus form, share held, draws, latency. */
const GRIDS = {
  // the case the search lost verifications in (a short work), at every document length and both text kinds, half held
  main: () =>
    ['english', 'dense'].flatMap((kind) =>
      [600, 2_000, 15_000, 500_000].flatMap((doc) =>
        ['wrapped', 'reflowed'].map((form) => ({ kind, words: 14_000, doc, form, share: 0.5 })),
      ),
    ),
  // the other shares held, on the shortest and a middle document length
  held: () =>
    ['english', 'dense'].flatMap((kind) =>
      [600, 15_000].flatMap((doc) =>
        [0, 0.1, 1].map((share) => ({ kind, words: 14_000, doc, form: 'wrapped', share })),
      ),
    ),
  // longer works: 40,000 and 150,000 words, half and a tenth held
  sizes: () =>
    ['english', 'dense'].flatMap((kind) =>
      [40_000, 150_000].flatMap((words) =>
        [
          [2_000, 0.5],
          [500_000, 0.5],
          [15_000, 0.1],
        ].map(([doc, share]) => ({ kind, words, doc, form: 'wrapped', share })),
      ),
    ),
  // held parts that are not the search's strata: twenty parts, every other one (or every tenth) held, so that each
  // stratum is half held and passages run across the edges of what is held
  spread: () =>
    ['english', 'dense'].flatMap((kind) =>
      [
        [600, 0.5],
        [15_000, 0.5],
        [500_000, 0.5],
        [15_000, 0.1],
      ].map(([doc, share]) => ({ kind, words: 14_000, doc, form: 'wrapped', share, parts: 20 })),
    ),
  // a 100,000-word book at 20 ms a call
  timing: () => [{ kind: 'english', words: 100_000, doc: 15_000, form: 'wrapped', share: 0.5, latency: 20, draws: 3 }],
};

async function main() {
  const { createEngine } = await import('../dist/index.js');
  const { buildTokenIndex, startInfiniGramServer } = await import('../test/fixtures/infini-gram/index.mjs');
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const loader = ['library.js', 'index.js']
    .map((f) => /import\(\s*"\.\/(remote[\w-]*\.js)"\s*\)/.exec(readFileSync(join(dist, f), 'utf8')))
    .find(Boolean);
  const { sharedCache, resetEndpoints } = await import(pathToFileURL(join(dist, loader[1])).href);
  const grid = arg('grid', 'all');
  const names = grid === 'all' ? Object.keys(GRIDS) : grid.split(',');
  const DRAWS = Number(arg('draws', QUICK ? '3' : '40'));
  const QUICKER = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 };
  const stored = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { grids: {} };
  const works = new Map();
  for (const name of names) {
    const rows = [];
    for (const cell of GRIDS[name]()) {
      const key = `${cell.kind} ${cell.words}`;
      if (!works.has(key)) works.set(key, KINDS[cell.kind].work(cell.words));
      const paragraphs = works.get(key);
      const body = paragraphs.join('\n\n');
      // the work of a draw: a first line naming it, of the same length in every draw (the strata stay in place)
      const contentOf = (d) => `Draw ${String(d).padStart(4, '0')} of the sampled search.\n\n${body}`;
      const probe = contentOf(0);
      const head = probe.length - body.length;
      // the search's strata of a text without sections: ten equal parts by characters (src/remote/sampling.ts); a
      // held stratum is the words that start in it (a drawn passage never crosses one), the first line left out
      // `parts: 20`: twenty equal parts instead, half a stratum each (a stratum half held; passages across the edges)
      const count = cell.parts ?? 10;
      const strata = Array.from({ length: count }, (_, i) => [
        Math.floor((i * probe.length) / count),
        Math.floor(((i + 1) * probe.length) / count),
      ]);
      const held = heldParts(strata.length, cell.share);
      const heldTexts = held.map((i) => {
        const [a, b] = strata[i];
        const ws = [...probe.matchAll(/\S+/g)].filter((m) => m.index >= Math.max(a, head) && m.index < b);
        if (ws.length === 0) return { text: '', words: 0 };
        const slice = probe.slice(ws[0].index, ws.at(-1).index + ws.at(-1)[0].length);
        return { text: slice.split('\n\n').map(FORMS[cell.form]).join('\n\n'), words: ws.length };
      });
      const otherText = KINDS[cell.kind].other().map(FORMS[cell.form]).join('\n\n');
      const documents = [
        ...cut(otherText, Math.min(cell.doc, 60_000)),
        ...corpusDocuments(
          heldTexts.map((h) => h.text),
          cell.doc,
          otherText,
        ),
      ];
      const index = buildTokenIndex({ documents, tokenizer: 'llama' });
      const server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { corpus: index } });
      server.setLatency(cell.latency ?? 0);
      const heldWords = heldTexts.reduce((t, h) => t + h.words, 0);
      const runs = [];
      try {
        for (let d = 0; d < (cell.draws ?? DRAWS); d++) {
          sharedCache.clear();
          resetEndpoints();
          const engine = await createEngine({
            remoteCorpora: [{ id: 'corpus', kind: 'infini-gram', endpoint: server.url, index: 'corpus', ...QUICKER }],
          });
          try {
            const content = contentOf(d);
            const truth = heldWords / wordCount(content);
            const t0 = performance.now();
            const r = await engine.analyze({ content, content_type: 'text' }, { remote: true });
            const ms = performance.now() - t0;
            const rc = r.remote_corpora[0];
            const s = rc.sampling;
            if (!s) {
              runs.push({ truth, outcome: rc.outcome, missing: true, calls: rc.calls, ms: Math.round(ms) });
              continue;
            }
            const [lo, hi] = s.share.ci_95;
            runs.push({
              truth: round(truth),
              estimate: s.share.estimate,
              ci_95: s.share.ci_95,
              covered: lo <= truth && truth <= hi,
              passages: s.passages,
              found: s.found,
              documents: s.documents,
              detection: s.detection,
              calls: rc.calls,
              outcome: rc.outcome,
              ms: Math.round(ms),
            });
          } finally {
            engine.dispose();
          }
        }
      } finally {
        await server.close();
      }
      const ok = runs.filter((x) => !x.missing);
      const sum = (f) => ok.reduce((t, x) => t + (x.documents ? f(x.documents) : 0), 0);
      const fetched = sum((x) => x.fetched);
      const covered = ok.filter((x) => x.covered).length;
      const row = {
        ...cell,
        documents_in_corpus: documents.length,
        draws: runs.length,
        covered: `${covered}/${runs.length}`,
        coverage: round(covered / Math.max(1, runs.length), 3),
        true_share: round(median(ok.map((x) => x.truth)) ?? 0),
        estimate_median: median(ok.map((x) => x.estimate)),
        estimate_max_error: round(Math.max(0, ...ok.map((x) => Math.abs(x.estimate - x.truth)))),
        lower_median: median(ok.map((x) => x.ci_95[0])),
        upper_median: median(ok.map((x) => x.ci_95[1])),
        upper_max: Math.max(0, ...ok.map((x) => x.ci_95[1])),
        fetched,
        verified: sum((x) => x.verified),
        unchecked: sum((x) => x.unchecked ?? 0),
        contradicted: sum((x) => x.contradicted),
        refuted: sum((x) => x.refuted ?? 0),
        verified_share: fetched > 0 ? round(sum((x) => x.verified) / fetched) : null,
        calls_max: Math.max(0, ...runs.map((x) => x.calls)),
        ms_median: median(runs.map((x) => x.ms)),
        ms_max: Math.max(0, ...runs.map((x) => x.ms)),
        outcomes: [...new Set(runs.map((x) => x.outcome))],
        runs: runs.slice(0, 3),
      };
      rows.push(row);
      console.log(JSON.stringify({ ...row, runs: undefined }));
    }
    stored.grids[name] = { draws: DRAWS, rows };
  }
  stored.method =
    'sampled search (engine.analyze, text, remote on, default client) of English and densely tokenising works against ' +
    'fixture infini-gram corpora (Llama-2-style tokens) holding 0/10/50/100 % of the work in 20 parts, hard-wrapped ' +
    'at 70 columns or reflowed, cut into documents of the given length beside documents of another text; each draw ' +
    'another work hash; cold cache; coverage without slack';
  stored.targets = TARGETS;
  stored.machine = { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) };
  if (WRITE) {
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(stored, null, 2)}\n`);
  }
}

await main();
