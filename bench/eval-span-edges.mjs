// Spans end where the held text ends: partial copies of books the Gutenberg pack holds — a passage of 60, 100 or 150
// words from the middle of a packed book set between two stretches of a Brown Corpus sample (../shared/data, natural
// English in no pack) — analysed with the default packs. For every match overlapping the inserted passage: the words
// its reported span claims beyond the passage (before its start and after its end), the target ≤ 3; and whether the
// passage was found at all (confidence ≥ 50 with a match naming the book).
//
//   node bench/eval-span-edges.mjs --gutenberg GITDIR [--dist DIR] [--books 40] [--out NAME]
//        GITDIR: rcdm-uga/Gutenberg_Text (a0b16d35, the commit pack:gutenberg is built from)
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gitDirOf, readBlobs } from './git-blobs.mjs';
import { hasSharedData, SHARED } from './natural-texts.mjs';

const { values: args } = parseArgs({
  options: {
    gutenberg: { type: 'string' },
    dist: { type: 'string', default: fileURLToPath(new URL('../dist/', import.meta.url)) },
    books: { type: 'string', default: '40' },
    out: { type: 'string', default: 'eval-span-edges' },
  },
});
if (!hasSharedData() || !args.gutenberg) {
  console.error('eval-span-edges: needs ../shared/data and --gutenberg GITDIR');
  process.exit(2);
}
const { createEngine } = await import(pathToFileURL(join(resolve(args.dist), 'index.js')).href);
const { stripGutenbergHeaders } = await import(pathToFileURL(join(resolve(args.dist), 'packs.js')).href);
const PG_COMMIT = 'a0b16d35a9851168ce9ac649851c17b7ab08d48e';
const gitDir = gitDirOf(args.gutenberg);
const manifest = JSON.parse(
  readFileSync(fileURLToPath(new URL('../packs/gutenberg/manifest.json', import.meta.url)), 'utf8'),
);
const words = (t) => t.split(/\s+/).filter(Boolean);
const docs = manifest.documents.filter((d) => d.source === 'rcdm-uga/Gutenberg_Text');
const step = docs.length / Number(args.books);
const chosen = Array.from({ length: Number(args.books) }, (_, i) => docs[Math.floor(i * step)]);
const books = [];
let k = 0;
for (const t of readBlobs(
  gitDir,
  chosen.map((d) => `${PG_COMMIT}:${d.source_path}`),
))
  books.push({ doc: chosen[k++], words: words(stripGutenbergHeaders(t)) });
const brown = readFileSync(join(SHARED, 'brown-corpus/documents.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l).text);

const engine = await createEngine({ packs: 'default' });
const rows = [];
for (const [i, b] of books.entries()) {
  for (const len of [60, 100, 150]) {
    const mid = Math.floor(b.words.length / 2) + 37 * len;
    const passage = b.words.slice(mid, mid + len).join(' ');
    const prose = words(brown[(7 * i + len) % brown.length]);
    const before = `${prose.slice(0, 120).join(' ')} `;
    const text = `${before}${passage} ${prose.slice(120, 240).join(' ')}`;
    const s = before.length,
      e = before.length + passage.length;
    const a = await engine.analyze({ content: text, content_type: 'text' });
    const over = a.matches.filter((m) => m.kind === 'portrait' && m.query_start < e && m.query_end > s);
    const past = over.map(
      (m) =>
        words(text.slice(Math.min(m.query_start, s), s)).length + words(text.slice(e, Math.max(m.query_end, e))).length,
    );
    rows.push({
      book: b.doc.id,
      words: len,
      confidence: a.confidence,
      found: a.confidence >= 50 && over.some((m) => m.document_id === b.doc.id),
      matches: over.length,
      past_words: past.length === 0 ? null : Math.max(...past),
      past_chars: over.map((m) => Math.max(0, s - m.query_start) + Math.max(0, m.query_end - e)),
    });
  }
}
engine.dispose();
const withMatch = rows.filter((x) => x.past_words !== null);
const report = {
  date: new Date().toISOString().slice(0, 10),
  dist: args.dist,
  passages: rows.length,
  found: rows.filter((x) => x.found).length,
  with_match: withMatch.length,
  over_3_words: withMatch.filter((x) => x.past_words > 3).length,
  max_past_words: withMatch.reduce((a, x) => Math.max(a, x.past_words), 0),
  over: withMatch.filter((x) => x.past_words > 3),
};
console.log(
  `${report.found}/${report.passages} found; of ${report.with_match} with a match, ${report.over_3_words} run > 3 words past the passage (max ${report.max_past_words})`,
);
writeFileSync(
  fileURLToPath(new URL(`./results/${args.out}.json`, import.meta.url)),
  `${JSON.stringify({ ...report, rows }, null, 2)}\n`,
);
