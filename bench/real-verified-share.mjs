// The share a web corpus holds, verified where it is — on the real engines: the grid of bench/verified-share.mjs
// (works of 14,000 words, English and densely tokenising text, hard-wrapped at 70 columns in the corpus, documents of
// ~600 to ~40,000 characters, 0 / 10 / 50 / 100 % held) against infini-gram (token suffix arrays, the Llama-2
// tokenizer) and infini-gram mini (a character FM-index), each built from its public source and serving its own Flask
// API on 127.0.0.1.
//
// Prerequisites (not run by this script), as for bench/real-engines.mjs: both engines built from
//   infini-gram       github.com/liujch1998/infini-gram @ 37d2929: its C++ engine (pybind11), `python -m
//                     infini_gram.indexing --tokenizer llama --token_dtype u16 --add_metadata` over each folder,
//                     `api/api_server.py` with a config naming the indexes v4_vs<kind><doc>_llama (on 127.0.0.1)
//   infini-gram mini  github.com/xuhaoxh/infini-gram-mini @ e628b09: its engine (the repository's sdsl),
//                     `src/indexing.py` over each folder, `api/api_server.py` with the indexes v2_vs<kind><doc>
//
//   node bench/real-verified-share.mjs corpus DIR [--text code] [--docs 2000,5000] [--form wrapped|reflowed|edited]
//        writes DIR/vs<kind><doc>[<form>]/docs.jsonl (JSON Lines, a `text` per document) for each text kind and
//        document length, and DIR/indexes.json: the folders and the index names to build and serve (a form other than
//        `wrapped` is named in the folder and the index: v4_vscode2000edited_llama, v2_vscode2000edited)
//   nice node bench/real-verified-share.mjs run [--infini-gram URL] [--mini URL] [--kinds infini-gram,infini-gram-mini]
//        [--text english,dense|code] [--docs 600,2000,15000,40000] [--works none,half,all,tenth,long|quarter]
//        [--draws 1] [--form wrapped|reflowed|edited]
//        runs the cells (both engines at once, one analysis at a time on each) and writes
//        bench/results/real-verified-share.json after every cell (cells stored and not run again are kept)
//   node bench/real-verified-share.mjs table      the markdown table of the stored results
//
// One index per text kind and document length holds every work of the kind at once: five works of the kind, one per
// share held (none, a tenth, half, all; and a 40,000-word work half held in the 15,000-character index), different
// text each (English: consecutive stretches of Persuasion, The Man Who Was Thursday and Paradise Lost; dense: other
// seeds), each held stratum after a stretch of the other text, cut into documents of about `doc` characters, beside
// documents of the other text (Julius Caesar and Blake; dense text of another seed) and one document of control
// characters (mini's FM-index has no 0 sentinel: the corpus's smallest byte cannot be found, so it must not be a line
// break). The works and corpora are bench/verified-share-corpus.mjs's: the same rules as the fixture grid.
// Per run: the 95 % interval against the true share (held words ÷ the work's words; no slack), the estimate, the
// documents fetched / verified / unchecked / contradicted / refuted (a passage is held whole or not at all, so
// verified ÷ fetched is the verified share of fetched documents that hold the passage), calls, outcome, time.
import './help.mjs';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cellWork, corpusDocuments, cut, drawRecord, otherTextOf, wordCount } from './verified-share-corpus.mjs';
import { round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const RESULTS = new URL('./results/real-verified-share.json', import.meta.url);
const TARGETS = { coverage: 1, upper_at_zero: 0.05, estimate_at_half: 0.12, verified_share: 0.95, calls: 400 };
/** The engines' sources, as built (the commits of their public repositories). */
const ENGINES = {
  'infini-gram': 'github.com/liujch1998/infini-gram @ 37d2929',
  'infini-gram-mini': 'github.com/xuhaoxh/infini-gram-mini @ e628b09',
};
// code: self-repeating code (bench/verified-share-corpus.mjs), asked with --text code (not run by default)
const TEXT_KINDS = ['english', 'dense', 'code'];
const DOCS = [600, 2_000, 15_000, 40_000];
/** Document lengths beyond the default grid's (asked with --docs): their draws are named after DOCS's. */
const MORE_DOCS = [5_000];
const docPlace = (doc) => (DOCS.includes(doc) ? DOCS.indexOf(doc) : DOCS.length + MORE_DOCS.indexOf(doc));
// --form reflowed|edited: the corpus's copy in another form (bench/verified-share-corpus.mjs FORMS), its own indexes
const FORM = arg('form', 'wrapped');
const formTag = FORM === 'wrapped' ? '' : FORM;
/** The works of a kind in each index: share held, words, and `from` (another work of the kind). */
const WORKS = {
  none: { share: 0, words: 14_000, from: 0 },
  tenth: { share: 0.1, words: 14_000, from: 1 },
  half: { share: 0.5, words: 14_000, from: 2 },
  quarter: { share: 0.25, words: 14_000, from: 5 },
  all: { share: 1, words: 14_000, from: 3 },
  long: { share: 0.5, words: 40_000, from: 4, docs: [15_000] },
};
const indexName = (engine, kind, doc) =>
  engine === 'infini-gram' ? `v4_vs${kind}${doc}${formTag}_llama` : `v2_vs${kind}${doc}${formTag}`;
const LABEL = 'of the real engines';

/** A work of the grid: English works start `from` × 14,000 words into the English text; dense ones use seed 71 + from. */
function workOf(kind, name) {
  const w = WORKS[name];
  return cellWork(
    { kind, words: w.words, share: w.share, form: FORM, from: kind === 'english' ? w.from * 14_000 : w.from },
    LABEL,
  );
}

const worksIn = (doc) => Object.keys(WORKS).filter((n) => !WORKS[n].docs || WORKS[n].docs.includes(doc));

// ---------------------------------------------------------------- corpus

function corpus(dir) {
  const made = [];
  for (const kind of arg('text', TEXT_KINDS.join(',')).split(',')) {
    const otherText = otherTextOf(kind, FORM);
    for (const doc of arg('docs', DOCS.join(',')).split(',').map(Number)) {
      const documents = [...cut(otherText, Math.min(doc, 60_000))];
      for (const name of worksIn(doc)) {
        const { heldTexts } = workOf(kind, name);
        documents.push(
          ...corpusDocuments(
            heldTexts.map((h) => h.text),
            doc,
            otherText,
          ),
        );
      }
      documents.push({ text: '\u0001\u0002\t' });
      const folder = join(dir, `vs${kind}${doc}${formTag}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, 'docs.jsonl'),
        `${documents.map((d) => JSON.stringify({ text: d.text })).join('\n')}\n`,
      );
      made.push({
        kind,
        doc,
        data: folder,
        documents: documents.length,
        characters: documents.reduce((t, d) => t + d.text.length, 0),
        infini_gram: indexName('infini-gram', kind, doc),
        mini: indexName('infini-gram-mini', kind, doc),
      });
    }
  }
  writeFileSync(join(dir, 'indexes.json'), `${JSON.stringify(made, null, 2)}\n`);
  console.log(JSON.stringify(made, null, 1));
}

// ---------------------------------------------------------------- run

/** Whether an engine answers a count of an index (one call; 30 s at most): null when it does, else why not. */
async function answers(url, index) {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index, query_type: 'count', query: 'the' }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = await r.json();
    return r.ok && typeof body.count === 'number' ? null : JSON.stringify(body).slice(0, 200);
  } catch (e) {
    return String(e?.cause?.code ?? e?.message ?? e);
  }
}

const key = (c) => `${c.engine} ${c.kind} ${c.doc} ${c.work}${c.form && c.form !== 'wrapped' ? ` ${c.form}` : ''}`;

/** One analysis of a draw of a cell's work against a real engine: the run's record. */
async function analyseOnce(lib, urls, c, d) {
  const { createEngine, sharedCache, resetEndpoints } = lib;
  sharedCache.clear();
  resetEndpoints();
  const engine = await createEngine({
    remoteCorpora: [
      {
        id: 'corpus',
        kind: c.engine,
        endpoint: urls[c.engine],
        index: indexName(c.engine, c.kind, c.doc),
        deadlineMs: 900_000,
        timeoutMs: 120_000,
      },
    ],
  });
  try {
    const { contentOf, heldWords } = workOf(c.kind, c.work);
    // each cell its own draws: the first line names the document length's place and the draw
    const content = contentOf(docPlace(c.doc) * 1_000 + d);
    const truth = heldWords / wordCount(content);
    const t0 = performance.now();
    const r = await engine.analyze({ content, content_type: 'text' }, { remote: true });
    const rc = r.remote_corpora[0];
    return { ...drawRecord(rc, truth, performance.now() - t0), message: rc.message ?? null };
  } finally {
    engine.dispose();
  }
}

/** A cell's summary from its runs. */
function summariseCell(c, runs) {
  const ok = runs.filter((x) => x.documents);
  const sum = (f) => ok.reduce((t, x) => t + f(x.documents), 0);
  const fetched = sum((x) => x.fetched);
  const verified = sum((x) => x.verified);
  return {
    ...c,
    words: WORKS[c.work].words,
    true_share: runs[0]?.truth ?? null,
    draws: runs.length,
    covered: `${runs.filter((x) => x.covered).length}/${runs.length}`,
    fetched,
    verified,
    unchecked: sum((x) => x.unchecked ?? 0),
    contradicted: sum((x) => x.contradicted),
    refuted: sum((x) => x.refuted ?? 0),
    verified_share: fetched > 0 ? round(verified / fetched, 4) : null,
    max_error: round(Math.max(0, ...runs.map((x) => Math.abs((x.estimate ?? 0) - x.truth))), 4),
    upper_max: Math.max(0, ...runs.map((x) => x.ci_95?.[1] ?? 0)),
    calls_max: Math.max(0, ...runs.map((x) => x.calls)),
    runs,
  };
}

async function run() {
  const { createEngine } = await import('../dist/index.js');
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const loader = ['library.js', 'index.js']
    .map((f) => /import\(\s*"\.\/(remote[\w-]*\.js)"\s*\)/.exec(readFileSync(join(dist, f), 'utf8')))
    .find(Boolean);
  const { sharedCache, resetEndpoints } = await import(pathToFileURL(join(dist, loader[1])).href);
  const lib = { createEngine, sharedCache, resetEndpoints };
  const urls = {
    'infini-gram': arg('infini-gram', 'http://127.0.0.1:5077/'),
    'infini-gram-mini': arg('mini', 'http://127.0.0.1:5078/'),
  };
  const textKinds = arg('text', 'english,dense').split(',');
  const docs = arg('docs', DOCS.join(',')).split(',').map(Number);
  const workNames = arg('works', 'none,half,all,tenth,long').split(',');
  const draws = Number(arg('draws', '1'));
  const engines = [];
  for (const engine of arg('kinds', Object.keys(ENGINES).join(',')).split(',')) {
    const why = await answers(urls[engine], indexName(engine, textKinds[0], docs[0]));
    if (why) console.log(`real-verified-share: ${engine} skipped — no engine answers at ${urls[engine]} (${why})`);
    else engines.push(engine);
  }
  if (engines.length === 0) return console.log('real-verified-share: skipped — neither engine is up');
  const stored = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { cells: [] };
  const cells = new Map(stored.cells.map((c) => [key(c), c]));
  const save = () => writeFileSync(RESULTS, `${JSON.stringify(report([...cells.values()], urls), null, 2)}\n`);
  // the cells in order: by document length, text kind, then the works (the shares the targets name first)
  const order = docs.flatMap((doc) =>
    textKinds.flatMap((kind) => workNames.filter((w) => worksIn(doc).includes(w)).map((work) => ({ kind, doc, work }))),
  );
  // the two engines at once, one analysis at a time on each (a Flask server answers one call at a time)
  await Promise.all(
    engines.map(async (engine) => {
      for (const cell of order) {
        const c = { engine, ...cell, form: FORM };
        const runs = [];
        for (let d = 0; d < draws; d++) runs.push(await analyseOnce(lib, urls, c, d));
        const row = summariseCell(c, runs);
        cells.set(key(c), row);
        console.log(
          JSON.stringify({
            ...row,
            runs: runs.map(
              (x) =>
                `${x.estimate} [${x.ci_95}] ${x.documents?.verified}/${x.documents?.fetched} ${x.calls} calls ${x.outcome} ${x.ms} ms`,
            ),
          }),
        );
        save();
      }
    }),
  );
}

/** The results file: method, engines, targets, a summary per engine and the cells. */
function report(cells, urls) {
  const summary = {};
  for (const engine of Object.keys(ENGINES)) {
    const mine = cells.filter((c) => c.engine === engine);
    if (mine.length === 0) continue;
    const runs = mine.flatMap((c) => c.runs.map((r) => ({ ...r, c })));
    const at = (share) => runs.filter((r) => WORKS[r.c.work].share === share);
    const fetched = runs.reduce((t, r) => t + (r.documents?.fetched ?? 0), 0);
    const verified = runs.reduce((t, r) => t + (r.documents?.verified ?? 0), 0);
    summary[engine] = {
      cells: mine.length,
      draws: runs.length,
      covered: `${runs.filter((r) => r.covered).length}/${runs.length}`,
      uncovered: runs
        .filter((r) => !r.covered)
        .map((r) => `${r.c.kind} ${r.c.doc} ${r.c.work}: ${r.estimate} [${r.ci_95}] (truth ${r.truth}, ${r.outcome})`),
      max_upper_at_zero: at(0).length ? Math.max(...at(0).map((r) => r.ci_95?.[1] ?? 1)) : null,
      max_error_at_half: at(0.5).length
        ? round(Math.max(...at(0.5).map((r) => Math.abs((r.estimate ?? 0) - r.truth))), 4)
        : null,
      verified_of_fetched: `${verified}/${fetched}`,
      verified_share: fetched > 0 ? round(verified / fetched, 4) : null,
      calls_max: Math.max(...runs.map((r) => r.calls)),
    };
  }
  return {
    method:
      'works of 14,000 words (and one of 40,000) of English or densely tokenising text held none / a tenth / half / ' +
      'all (ten strata, spread) in one index per text kind and document length (~600, ~2,000, ~15,000, ~40,000 ' +
      'characters), hard-wrapped at 70 columns, beside documents of another text (bench/verified-share-corpus.mjs); ' +
      'the real engines built from source, their own Flask API servers on 127.0.0.1; engine.analyze (text, remote ' +
      'on, default client: 400 calls) with a 900 s deadline and 120 s a call; cold cache; coverage without slack',
    engines: ENGINES,
    endpoints: urls,
    machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
    targets: TARGETS,
    summary,
    cells,
  };
}

/** The stored results as a markdown table: a line per text kind, document length and work, both engines side by side. */
function table() {
  const { cells } = JSON.parse(readFileSync(RESULTS, 'utf8'));
  const out = [
    '| text | document chars | work (held) | truth | infini-gram: verified / fetched, share [95 %] | mini: verified / fetched, share [95 %] |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  const run = (r) =>
    `${r.documents?.verified ?? 0}/${r.documents?.fetched ?? 0}, ${r.estimate} [${r.ci_95?.join(', ')}]${r.covered ? '' : ' **✘**'}`;
  const of = (engine, c) =>
    cells.find((x) => x.engine === engine && x.kind === c.kind && x.doc === c.doc && x.work === c.work);
  const rows = cells.filter((c) => c.engine === 'infini-gram' || !of('infini-gram', c));
  const rank = (c) => [TEXT_KINDS.indexOf(c.kind), DOCS.indexOf(c.doc), Object.keys(WORKS).indexOf(c.work)];
  rows.sort((a, b) => {
    const x = rank(a),
      y = rank(b);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  for (const c of rows) {
    const ig = of('infini-gram', c),
      mini = of('infini-gram-mini', c);
    out.push(
      `| ${c.kind} | ${c.doc.toLocaleString('en')} | ${c.words.toLocaleString('en')} words (${c.work}) | ${c.true_share} | ` +
        `${ig ? ig.runs.map(run).join('; ') : '—'} | ${mini ? mini.runs.map(run).join('; ') : '—'} |`,
    );
  }
  console.log(out.join('\n'));
}

const [command, target] = process.argv.slice(2);
if (command === 'corpus') {
  if (!target) throw new Error('usage: node bench/real-verified-share.mjs corpus DIR');
  corpus(target);
} else if (command === 'run') await run();
else if (command === 'table') table();
else
  console.log(
    'usage: node bench/real-verified-share.mjs corpus DIR | run [options] | table (see the top of this file)',
  );
