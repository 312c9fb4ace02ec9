// The answers of a fixed set of corpus operations — adds of each dataset class and their refusals, search,
// searchAsync and analyze of five queries (edited and verbatim passages of the test fixtures' books, one unrelated
// text) with and without options, score, documentText, finalize, digest, declare, measureBackground, export, the
// copy and import refusals, import and search again — printed as JSON lines, ids and times left out, so that two
// builds' answers can be compared byte for byte (`diff`): a restructuring of the corpus must not change one.
//   node bench/corpus-answers.mjs [DIST] > answers.jsonl     (DIST: a build of the package, default dist)
import './help.mjs';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
const here = fileURLToPath(new URL('.', import.meta.url));
const dist = resolve(process.argv[2] ?? join(here, '../dist'));
const { createEngine } = await import(pathToFileURL(join(dist, 'index.js')).href);
const dir = join(here, '../test/fixtures/texts/gutenberg');
const book = (id) => readFileSync(join(dir, `${id}.txt`), 'utf8');
const B = ['austen-persuasion', 'chesterton-thursday', 'milton-paradise', 'shakespeare-caesar', 'blake-poems'].map(
  book,
);
const edit = (t, every) =>
  t
    .split(' ')
    .map((w, i) => (i % every === 0 ? 'zzyzx' : w))
    .join(' ');
const clean = (v) =>
  JSON.parse(
    JSON.stringify(v, (k, x) =>
      k.endsWith('id') && k !== 'dataset_id' && k !== 'document_id' && k !== 'kb_dataset'
        ? undefined
        : k.endsWith('_at')
          ? undefined
          : typeof x === 'bigint'
            ? String(x)
            : x instanceof Uint8Array
              ? `bytes:${x.length}`
              : x,
    ),
  );
const out = (name, v) => console.log(JSON.stringify({ name, v: clean(v) }));
const attempt = async (name, f) => {
  try {
    out(name, await f());
  } catch (e) {
    out(name, { error: e.code ?? String(e), message: e.message });
  }
};
const e = await createEngine();
const docs = (b, k, n, size) =>
  Array.from({ length: n }, (_, i) => ({ id: `${k}-${i}`, text: b.slice(i * size, (i + 1) * size) }));
await attempt('add exact text', () =>
  e.addDataset(
    { id: 'books', kb_dataset: 'common-crawl' },
    B.slice(0, 4).flatMap((b, k) => docs(b, k, 8, 20000)),
  ),
);
await attempt('add exact notext', () => e.addDataset({ id: 'notext', keep_text: false }, docs(B[0], 'n', 10, 15000)));
await attempt('add portrait', () => e.addDataset({ id: 'port', kind: 'portrait' }, docs(B[2], 'p', 10, 20000)));
await attempt('add portrait more', () => e.addDataset({ id: 'port', kind: 'portrait' }, docs(B[4], 'q', 3, 20000)));
await attempt('add wrong kind', () => e.addDataset({ id: 'port', kind: 'exact' }, []));
await attempt('add wrong keep_text', () => e.addDataset({ id: 'notext', keep_text: true }, []));
await attempt('add wrong window', () => e.addDataset({ id: 'port', kind: 'portrait', window: 3 }, []));
await attempt('add dup', () => e.addDataset({ id: 'books' }, [{ id: '0-0', text: 'x' }]));
await attempt('datasets', () => e.datasets());
const Q = [
  edit(B[0].slice(30000, 36000), 5) + ' ' + B[1].slice(50000, 52000) + ' ' + B[2].slice(10000, 13000),
  B[3].slice(1000, 21000),
  edit(B[2].slice(40000, 52000), 4),
  B[4].slice(2000, 6000),
  'entirely unrelated words that appear nowhere in these books at all, really, no match here whatsoever.',
];
for (const [i, q] of Q.entries()) {
  await attempt(`search ${i}`, () => e.search(q));
  await attempt(`search ${i} opts`, () =>
    e.search(q, { near: 0.3, minTokens: 12, portraitHits: true, datasets: ['port', 'books'] }),
  );
  await attempt(`searchAsync ${i}`, () => e.searchAsync(q, { reworded: false }));
  await attempt(`analyze ${i}`, () =>
    e.analyze({ content: q, content_type: 'text', metadata: { jurisdiction: 'US' } }),
  );
}
await attempt('score', () =>
  e.score({ content: Q[0], content_type: 'text', target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' }),
);
await attempt('docText', () => e.documentText('books', '1-3').slice(0, 200));
await attempt('docText portrait', () => e.documentText('port', 'p-1'));
await attempt('docText notext', () => e.documentText('notext', 'n-1'));
await attempt('docText none', () => e.documentText('books', 'nope'));
await attempt('finalize portrait', () => e.finalizeDataset('port'));
await attempt('finalize exact', () => e.finalizeDataset('books'));
await attempt('digest', () => e.datasetDigest('books'));
await attempt('digest portrait', () => e.datasetDigest('port'));
await attempt('declare', () => e.declareDataset('notext', { models: ['eleutherai/pythia-6.9b'] }));
await attempt('measureBackground exact', () => e.measureBackground('books', ['a b c'], { corpus: 'x' }));
await attempt('measureBackground', () =>
  e.measureBackground('port', [B[0].slice(0, 30000), B[1].slice(0, 30000)], {
    corpus: 'two other books',
    date: '2026-01-01',
  }),
);
await attempt('search after bg', () => e.search(Q[2]));
const bytes = e.exportDataset('port');
const bytes2 = e.exportDataset('books');
out('export sizes', [bytes.length, bytes2.length]);
await attempt('copy not stored', () => e.copyDataset('books', 'notext'));
await attempt('copy from portrait', () => e.copyDataset('port', 'books'));
await attempt('import into not stored', () => e.importDataset(bytes2, { into: 'notext' }));
e.removeDataset('port');
e.removeDataset('books');
await attempt('import portrait', () => e.importDataset(bytes));
await attempt('import exact', () => e.importDataset(bytes2));
for (const [i, q] of Q.entries())
  await attempt(`analyze imported ${i}`, () => e.analyze({ content: q, content_type: 'text' }));
await attempt('prepare', async () => (await e.corpus.prepareSearch(), 'prepared'));
await attempt('add more after import', () => e.addDataset({ id: 'books' }, docs(B[4], 'z', 2, 10000)));
await attempt('search more', () => e.search(B[4].slice(12000, 16000)));
