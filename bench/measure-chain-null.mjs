// The chain null of each shipped pack (src/datasets/chain-null.ts): how long the chains of documents of the pack's
// kind that the pack does not hold reach, measured with bench/chain-null.mjs and written into
// packs/index.json as `background.chains`, beside the background measured on natural English.
//
//   Wikipedia packs: articles of the same English Wikipedia dump as pack:wikipedia-core that none of the three
//   Wikipedia packs holds — jason-feng/wikiVisual at 1c0fac92 (the commit pack:wikipedia-core is built from),
//   WikiExtractor files text/AB/wiki_00 … text/AD/wiki_99 (page ids above the core's 13,600; pack:wikipedia-articles
//   holds page ids of 2018, pack:wikipedia-wikitext's 281 titles are left out by title): the first
//   PER_FILE articles of ≥ 50 words of each file, their first 400 words.
//   Gutenberg packs: books of rcdm-uga/Gutenberg_Text at a0b16d35 (the commit pack:gutenberg is built from) that the
//   pack does not hold (by source path; pack:gutenberg-sample: the books of neither pack), headers stripped, one
//   1,000-word excerpt from the middle of each.
//
// Chains that hold real shared text are left out of the null (and counted): a run of 24 words of the chain's span held
// by a packed document — an article copied into another, another edition of a packed book, a quotation. The packed
// texts: --pack-texts DIR as build/packs-prepare.mjs writes them (DIR/wikipedia-articles, DIR/wikipedia-core,
// DIR/wikipedia), the Gutenberg books from --gutenberg's repository by the manifest's source paths, the sample's
// from test/fixtures/texts/gutenberg/.
//
//   node bench/measure-chain-null.mjs --wikipedia GITDIR --gutenberg GITDIR --pack-texts DIR [--per-file 10]
//        [--books 800] [--no-write]   (GITDIR: a clone, bare or not, of the repository; needs dist/)
import './help.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { extractorArticles, gitDirOf, readBlobs, WIKI_COMMIT, wikiVisualFiles } from './git-blobs.mjs';

const { values: args } = parseArgs({
  options: {
    wikipedia: { type: 'string' },
    gutenberg: { type: 'string' },
    'per-file': { type: 'string', default: '10' },
    books: { type: 'string', default: '800' },
    'pack-texts': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const root = new URL('../', import.meta.url);
const { createEngine } = await import(new URL('dist/index.js', root).href);
const { stripGutenbergHeaders } = await import(new URL('dist/packs.js', root).href);
const { searchChains, markShared, chainNullOf, SHARED_RUN } = await import('./chain-null.mjs');
const PG_COMMIT = 'a0b16d35a9851168ce9ac649851c17b7ab08d48e';
const date = new Date().toISOString().slice(0, 10);
const indexPath = fileURLToPath(new URL('packs/index.json', root));
const index = JSON.parse(readFileSync(indexPath, 'utf8'));
const manifest = (id) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`packs/${index.packs.find((p) => p.id === id).manifest}`, root))));

const words = (t) => t.split(/\s+/).filter(Boolean);

function wikipediaArticles(gitDir, perFile) {
  const held = new Set(manifest('pack:wikipedia-wikitext').documents.map((d) => d.title));
  const texts = [];
  for (const file of readBlobs(gitDir, wikiVisualFiles())) {
    let k = 0;
    for (const a of extractorArticles(file)) {
      if (k >= perFile) break;
      if (a.id <= 13600 || held.has(a.title) || a.words.length < 50) continue;
      texts.push(a.words.slice(0, 400).join(' '));
      k++;
    }
  }
  return texts;
}

function gutenbergBooks(gitDir, keptOut, books, title) {
  const ls = spawnSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', '-z', PG_COMMIT], {
    maxBuffer: 1 << 28,
  });
  const paths = ls.stdout
    .toString('utf8')
    .split('\0')
    .filter((p) => p.endsWith('.txt') && !keptOut.has(p) && !title.test(p))
    .sort();
  const step = Math.max(1, paths.length / books);
  const chosen = [];
  for (let x = 0; x < paths.length && chosen.length < books; x += step) chosen.push(paths[Math.floor(x)]);
  const texts = [];
  for (const book of readBlobs(
    gitDir,
    chosen.map((p) => `${PG_COMMIT}:${p}`),
  )) {
    const w = words(stripGutenbergHeaders(book));
    if (w.length >= 2000) texts.push(w.slice(Math.floor(w.length / 2) - 500, Math.floor(w.length / 2) + 500).join(' '));
  }
  return texts;
}

const sets = {};
if (args.wikipedia) {
  const texts = wikipediaArticles(gitDirOf(args.wikipedia), Number(args['per-file']));
  const corpus =
    `${texts.length} English Wikipedia articles no Wikipedia pack holds (their first 400 words): jason-feng/wikiVisual ` +
    `at ${WIKI_COMMIT.slice(0, 8)}, WikiExtractor files text/AB … AD (2015 dump, page ids above 13,600), the first ` +
    `${args['per-file']} articles of ≥ 50 words of each file, WikiText-103's titles left out (bench/measure-chain-null.mjs).`;
  for (const id of ['pack:wikipedia-articles', 'pack:wikipedia-core', 'pack:wikipedia-wikitext'])
    sets[id] = { texts, corpus };
}
if (args.gutenberg) {
  const pg = manifest('pack:gutenberg').documents.map((d) => d.source_path);
  // the sample's five books come from NLTK's copies: left out here by title
  const sample = /Persuasion|Poems|Songs of Innocence|Thursday|Paradise Lost|Julius Caesar/;
  const texts = gutenbergBooks(gitDirOf(args.gutenberg), new Set(pg), Number(args.books), sample);
  const corpus =
    `${texts.length} Project Gutenberg books no Gutenberg pack holds, a 1,000-word excerpt from the middle of each: ` +
    `rcdm-uga/Gutenberg_Text at ${PG_COMMIT.slice(0, 8)} (the Top 100 Authors' books), every book not in the pack ` +
    `by source path, evenly spaced in path order, headers stripped (bench/measure-chain-null.mjs).`;
  for (const id of ['pack:gutenberg', 'pack:gutenberg-sample']) sets[id] = { texts, corpus };
}

const packDirs = {
  'pack:wikipedia-articles': 'wikipedia-articles',
  'pack:wikipedia-core': 'wikipedia-core',
  'pack:wikipedia-wikitext': 'wikipedia',
};
/** The texts of pack `id`, one at a time (for the shared-text check). */
function* packTexts(id) {
  if (id === 'pack:gutenberg') {
    const paths = manifest(id)
      .documents.filter((d) => d.source === 'rcdm-uga/Gutenberg_Text')
      .map((d) => `${PG_COMMIT}:${d.source_path}`);
    for (const t of readBlobs(gitDirOf(args.gutenberg), paths)) yield stripGutenbergHeaders(t);
    return;
  }
  const dir =
    id === 'pack:gutenberg-sample'
      ? fileURLToPath(new URL('test/fixtures/texts/gutenberg/', root))
      : args['pack-texts'] && join(args['pack-texts'], packDirs[id]);
  if (!dir || !existsSync(dir)) throw new Error(`${id}: its texts are needed (--pack-texts)`);
  for (const f of readdirSync(dir).sort()) if (f.endsWith('.txt')) yield readFileSync(join(dir, f), 'utf8');
}

/**
 * The packs whose measured null is written into the index: the WikiExtractor pack of one dump part, whose template
 * formulas (minor planets, stations, singles of 2018) the part holds once or twice. The others are measured and
 * reported, not shipped: their tails — stock phrases and quotations of books; for pack:wikipedia-core and WikiText,
 * later revisions of articles the 2015 dump holds, which the 24-word check does not catch — reach as far as an 80- or
 * 100-word copy with 1 word in 10 replaced (under them: packed books so edited 12 of 30 at ≥ 50 in
 * bench/eval-packs.mjs, WikiText's 0 of 40, pack:wikipedia-core's 80-word ones 1 of 40 in eval-pack-documents).
 */
const SHIPPED = ['pack:wikipedia-articles'];
const report = { date, shared_run: SHARED_RUN, shipped: SHIPPED, packs: [] };
for (const [id, { texts, corpus }] of Object.entries(sets)) {
  const entry = index.packs.find((p) => p.id === id);
  const engine = await createEngine();
  const { chains: _, ...background } = entry.background ?? {};
  await engine.importDataset(readFileSync(fileURLToPath(new URL(`packs/${entry.file}`, root))), {
    ...(entry.background ? { background } : {}),
  });
  const t0 = performance.now();
  const rows = searchChains(engine, id, texts);
  engine.dispose();
  markShared(rows, packTexts(id));
  const left = ` Chains holding a run of ${SHARED_RUN} words a packed document holds (shared text, not formula) left out.`;
  const { chains, tally, shared } = chainNullOf(rows, corpus + left, date);
  const row = { id, sha256: entry.sha256, texts: texts.length, seconds: +((performance.now() - t0) / 1000).toFixed(1) };
  report.packs.push({ ...row, chains, chain_lengths: tally.lengths, shared_chains: shared });
  console.log(
    `${id}: ${chains.measured_on.chains} chains over ${chains.measured_on.fingerprints} fingerprints of ` +
      `${texts.length} texts (${shared} shared text left out), longest ${chains.measured_on.longest}: ` +
      `start ${chains.start} extend ${chains.extend}`,
  );
  if (entry.background && SHIPPED.includes(id)) entry.background = { ...entry.background, chains };
}
writeFileSync(
  fileURLToPath(new URL('bench/results/measure-chain-null.json', root)),
  `${JSON.stringify(report, null, 2)}\n`,
);
if (!args['no-write']) writeFileSync(indexPath, `${JSON.stringify(index, null, 2)}\n`);
