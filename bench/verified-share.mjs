// The share a remote corpus holds, verified where it is: the sampled search (src/remote/sampling.ts) of works of
// 14,000 to 150,000 words against fixture infini-gram corpora whose documents are 600 to 500,000 characters long,
// by text kind, corpus line form and share held.
//
//   nice node bench/verified-share.mjs [--grid main|held|spread|sizes|timing|all] [--draws N] [--quick] [--write]
//        [--engine infini-gram|infini-gram-mini]
//
// (needs dist/ — npm run build; writes bench/results/verified-share.json, or verified-share-infini-gram-mini.json with
// --engine infini-gram-mini (the fixture's character index, as infini-gram mini, in place of its token suffix
// arrays), keeping the grids not run; --quick: 3 draws a cell, nothing written unless --write)
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
import './help.mjs';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { cellWork, corpusDocuments, cut, otherTextOf, wordCount } from './verified-share-corpus.mjs';
import { medianOrNull, round } from './stats.mjs';

const QUICK = process.argv.includes('--quick');
const WRITE = !QUICK || process.argv.includes('--write');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
// --engine infini-gram-mini: the fixture's character index (as infini-gram mini) instead of its token suffix arrays
const ENGINE = arg('engine', 'infini-gram');
if (!['infini-gram', 'infini-gram-mini'].includes(ENGINE)) throw new Error(`--engine: infini-gram or infini-gram-mini`);
const RESULTS = new URL(
  ENGINE === 'infini-gram' ? './results/verified-share.json' : `./results/verified-share-${ENGINE}.json`,
  import.meta.url,
);
const TARGETS = { coverage: 0.95, upper_at_zero: 0.05, estimate_at_half: 0.12, verified_share: 0.95, calls: 400 };

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
  // code that repeats itself (stock lines across functions), a tenth, a quarter and half held in twenty parts, in
  // documents of 2,000 and 5,000 characters beside other code, hard-wrapped, reflowed and edited (1 word in 20)
  code: () =>
    ['wrapped', 'reflowed', 'edited'].flatMap((form) =>
      [2_000, 5_000].flatMap((doc) =>
        [0.1, 0.25, 0.5].map((share) => ({ kind: 'code', words: 14_000, doc, form, share, parts: 20 })),
      ),
    ),
  // a 100,000-word book at 20 ms a call
  timing: () => [{ kind: 'english', words: 100_000, doc: 15_000, form: 'wrapped', share: 0.5, latency: 20, draws: 3 }],
};

async function main() {
  const { createEngine } = await import('../dist/index.js');
  const { buildCharIndex, buildTokenIndex, startInfiniGramServer } = await import(
    '../test/fixtures/infini-gram/index.mjs'
  );
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
  for (const name of names) {
    const rows = [];
    for (const cell of GRIDS[name]()) {
      const { contentOf, heldTexts, heldWords } = cellWork(cell);
      const otherText = otherTextOf(cell.kind, cell.form);
      const documents = [
        ...cut(otherText, Math.min(cell.doc, 60_000)),
        ...corpusDocuments(
          heldTexts.map((h) => h.text),
          cell.doc,
          otherText,
        ),
      ];
      const index =
        ENGINE === 'infini-gram' ? buildTokenIndex({ documents, tokenizer: 'llama' }) : buildCharIndex({ documents });
      const server = await startInfiniGramServer({ kind: ENGINE, indexes: { corpus: index } });
      server.setLatency(cell.latency ?? 0);
      const runs = [];
      try {
        for (let d = 0; d < (cell.draws ?? DRAWS); d++) {
          sharedCache.clear();
          resetEndpoints();
          const engine = await createEngine({
            remoteCorpora: [{ id: 'corpus', kind: ENGINE, endpoint: server.url, index: 'corpus', ...QUICKER }],
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
              truth: round(truth, 4),
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
        true_share: round(medianOrNull(ok.map((x) => x.truth)) ?? 0, 4),
        estimate_median: medianOrNull(ok.map((x) => x.estimate)),
        estimate_max_error: round(Math.max(0, ...ok.map((x) => Math.abs(x.estimate - x.truth))), 4),
        estimate_median_error: round(medianOrNull(ok.map((x) => Math.abs(x.estimate - x.truth))) ?? 0, 4),
        width_median: round(medianOrNull(ok.map((x) => x.ci_95[1] - x.ci_95[0])) ?? 0, 4),
        width_max: round(Math.max(0, ...ok.map((x) => x.ci_95[1] - x.ci_95[0])), 4),
        // every draw's estimate (seeded: the same on every run), and how many are further from the truth than the target
        estimates: ok.map((x) => x.estimate),
        errors_over_target: ok.filter((x) => Math.abs(x.estimate - x.truth) > TARGETS.estimate_at_half).length,
        lower_median: medianOrNull(ok.map((x) => x.ci_95[0])),
        upper_median: medianOrNull(ok.map((x) => x.ci_95[1])),
        upper_max: Math.max(0, ...ok.map((x) => x.ci_95[1])),
        fetched,
        verified: sum((x) => x.verified),
        unchecked: sum((x) => x.unchecked ?? 0),
        contradicted: sum((x) => x.contradicted),
        refuted: sum((x) => x.refuted ?? 0),
        verified_share: fetched > 0 ? round(sum((x) => x.verified) / fetched, 4) : null,
        calls_max: Math.max(0, ...runs.map((x) => x.calls)),
        ms_median: medianOrNull(runs.map((x) => x.ms)),
        ms_max: Math.max(0, ...runs.map((x) => x.ms)),
        outcomes: [...new Set(runs.map((x) => x.outcome))],
        runs: runs.slice(0, 3),
        // every draw, so that its share can be recomputed from its counts (estimateShare): truth, estimate, ci_95,
        // passages, found, fetched, verified, unchecked, detection hits, trials
        draw_counts: ok.map((x) => [
          x.truth,
          x.estimate,
          ...x.ci_95,
          x.passages,
          x.found,
          x.documents?.fetched ?? 0,
          x.documents?.verified ?? 0,
          x.documents?.unchecked ?? 0,
          x.detection?.hits ?? 0,
          x.detection?.trials ?? 0,
        ]),
      };
      rows.push(row);
      console.log(JSON.stringify({ ...row, runs: undefined, draw_counts: undefined }));
    }
    stored.grids[name] = { draws: DRAWS, rows };
  }
  stored.method =
    'sampled search (engine.analyze, text, remote on, default client) of English and densely tokenising works against ' +
    (ENGINE === 'infini-gram'
      ? 'fixture infini-gram corpora (Llama-2-style tokens)'
      : 'fixture infini-gram mini corpora (a character index)') +
    ' holding 0/10/50/100 % of the work in 20 parts, hard-wrapped ' +
    'at 70 columns or reflowed, cut into documents of the given length beside documents of another text; each draw ' +
    'another work hash; cold cache; coverage without slack';
  stored.targets = TARGETS;
  stored.machine = { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) };
  if (WRITE) {
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    // arrays of numbers on one line (every draw's counts: thousands of them)
    const json = JSON.stringify(stored, null, 2).replace(/\[[\d\s.,e+-]*\]/g, (a) => a.replace(/\s+/g, ' '));
    writeFileSync(RESULTS, `${json}\n`);
  }
}

await main();
