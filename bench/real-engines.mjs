// Sampling a long work against the real engines: infini-gram (token suffix arrays, the Llama-2 tokenizer) and
// infini-gram mini (a character FM-index), each built from its public source and serving its own Flask API on
// 127.0.0.1 — the check of the remote-corpus client against the engines themselves rather than the fixtures
// (test/fixtures/infini-gram) that model them.
//
// Prerequisites (not run by this script): both engines built and serving the indexes of the corpus this script
// writes (`corpus` below), e.g. with a recipe that builds them with Debian packages only:
//   infini-gram       github.com/liujch1998/infini-gram: its C++ engine (pybind11), `python -m infini_gram.indexing
//                     --tokenizer llama --token_dtype u16` over each form's folder, `api/api_server.py` with a config
//                     naming the indexes v4_re<form>_llama (listening on 127.0.0.1)
//   infini-gram mini  github.com/xuhaoxh/infini-gram-mini: its engine (the repository's sdsl), `src/indexing.py` over
//                     each form's folder, `api/api_server.py` with indexes v2_re<form>
// The bench skips, with a line saying so, when neither engine answers.
//
//   node bench/real-engines.mjs corpus DIR
//        writes DIR/<form>/docs.jsonl for the copy forms gutenberg, wrapped, reflowed and requoted (JSON Lines, a
//        `text` per document, documents of about 15,000 characters) and DIR/configs: the indexes to build and serve
//   node bench/real-engines.mjs run [--infini-gram URL] [--mini URL] [--kinds infini-gram,infini-gram-mini]
//        [--files epub,pdf,docx,text] [--copies …] [--shares none,tenth,half,all] [--draws 1] [--ig-log FILE]
//        [--mini-log FILE] [--fresh] [--add-draws N] [--plain]
//        runs the cells, the plain cases first, both engines at once (one analysis at a time on each), and writes
//        bench/results/real-engines.json after every run (the cells already there and not run again are kept unless
//        --fresh). --ig-log/--mini-log: the servers' request logs, to count the calls each run made on the server's side.
//        --add-draws N: N more draws of each cell after the stored ones (the next seeds); --plain: the plain cases only.
//
// The works: the 39 chapters of Persuasion and The Man Who Was Thursday (the committed Project Gutenberg texts,
// test/fixtures/texts/gutenberg: the same files as the development data's) cut into four works of about 35,000 words,
// one per share held — none, ~10 % (one chapter of ten), 50 % (every other chapter), all — so one index per copy
// form holds every share at once: the held chapters of three works in that form, and four documents of Julius
// Caesar. Each work as a file: EPUB, PDF and DOCX typeset with curly quotes and em dashes, or the Gutenberg text
// itself (hard-wrapped, straight quotes), with a dedication naming the draw (each draw another work hash, so another
// seeded sample). Per run: the 95 % interval against the true share (held chapters' words ÷ the work's chapters'),
// the estimate's error, the calls (the client's count, and the server log's where given), the outcome, the documents
// verified, contradicted and refuted, the detection rate measured, the confidence, the wall time.
import './help.mjs';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { drawRecord } from './verified-share-corpus.mjs';
import { medianOrNull, round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const RESULTS = new URL('./results/real-engines.json', import.meta.url);
const TARGETS = { coverage: 0.95, estimate_at_half: 0.12, upper_at_zero: 0.1, confidence_at_zero: 50, calls: 400 };
const COPY_FORMS = ['gutenberg', 'wrapped', 'reflowed', 'requoted'];
const FILE_FORMS = ['epub', 'pdf', 'docx', 'text'];
const SHARES = { none: 0, tenth: 0.1, half: 0.5, all: 1 };
const DOCUMENT_CHARS = 15_000;
const words = (text) => text.split(/\s+/).filter(Boolean);
const indexName = (kind, form) => (kind === 'infini-gram' ? `v4_re${form}_llama` : `v2_re${form}`);

// ---------------------------------------------------------------- the works (deterministic)

const gutenberg = (name) =>
  readFileSync(new URL(`../test/fixtures/texts/gutenberg/${name}.txt`, import.meta.url), 'utf8');

/** The chapters of a book whose chapters open with a line that `head` matches, without that line. */
function chaptersOf(text, head) {
  const heads = [...text.matchAll(head)];
  return heads.map((m, i) => text.slice(m.index + m[0].length, heads[i + 1]?.index ?? text.length).trim());
}

/** Four works of consecutive chapters, one per share held (in the order of {@link SHARES}). */
function works() {
  const texts = [
    ...chaptersOf(gutenberg('austen-persuasion'), /^Chapter \d+$/gm),
    ...chaptersOf(gutenberg('chesterton-thursday'), /^CHAPTER [IVXLC]+$/gm),
  ].map((text, i) => ({ title: `Chapter ${i + 1}`, text: text.replace(/\r/g, '') }));
  const cut = [0, 10, 20, 30, texts.length];
  return Object.keys(SHARES).map((held, w) => ({ held, chapters: texts.slice(cut[w], cut[w + 1]) }));
}

/** Which chapters a corpus holds: about `share` of them, spread along the work. */
function heldChapters(count, share) {
  if (share === 0) return [];
  const out = [];
  for (let x = 0; x < count - 1e-9; x += 1 / share) out.push(Math.floor(x));
  return [...new Set(out)];
}

const paragraphsOf = (t) => t.split(/\n{2,}/).map((p) => p.replace(/\s*\n\s*/g, ' ').trim());
/** Straight quotes curly and `--` an em dash, as a typeset book has them. */
const typeset = (t) =>
  t
    .replace(/--/g, '\u2014')
    .replace(/(^|[\s(\u2014])"/g, '$1\u201c')
    .replace(/"/g, '\u201d')
    .replace(/(^|[\s(\u2014])'/g, '$1\u2018')
    .replace(/'/g, '\u2019');
const wrapAt = (p, width) => {
  const lines = [];
  let line = '';
  for (const w of p.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.join('\r\n');
};
/** The copy forms (as bench/whole-works.mjs's forms part has them). */
const COPY = {
  gutenberg: (t) => t,
  wrapped: (t) =>
    paragraphsOf(t)
      .map((p) => wrapAt(p.replace(/([.!?]) (?=[A-Z])/g, '$1  '), 60))
      .join('\r\n\r\n'),
  reflowed: (t) => paragraphsOf(t).join('\n\n'),
  requoted: (t) => typeset(paragraphsOf(t).join('\n')),
};

/** A copy cut into documents of about {@link DOCUMENT_CHARS} characters, at paragraph ends. */
function documentsOf(copy) {
  const out = [];
  let at = 0;
  while (at < copy.length) {
    let end = Math.min(copy.length, at + DOCUMENT_CHARS);
    if (end < copy.length) {
      const para = copy.indexOf('\n', end);
      end = para < 0 ? copy.length : para;
    }
    const text = copy.slice(at, end).trim();
    if (text) out.push(text);
    at = end;
  }
  return out;
}

/** The true share of a work held: the held chapters' words ÷ its chapters' words. */
function truthOf(work) {
  const counts = work.chapters.map((c) => words(c.text).length);
  const held = heldChapters(counts.length, SHARES[work.held]);
  return held.reduce((t, i) => t + counts[i], 0) / counts.reduce((t, c) => t + c, 0);
}

// ---------------------------------------------------------------- corpus

function corpus(dir) {
  const all = works();
  const caesar = gutenberg('shakespeare-caesar');
  const filler = [0, 1, 2, 3].map((k) => caesar.slice((k * caesar.length) / 4, ((k + 1) * caesar.length) / 4).trim());
  const made = {};
  for (const form of COPY_FORMS) {
    const docs = [...filler];
    for (const w of all)
      for (const i of heldChapters(w.chapters.length, SHARES[w.held]))
        docs.push(...documentsOf(COPY[form](w.chapters[i].text)));
    // infini-gram mini's FM-index has no 0 sentinel: the corpus's smallest byte cannot be found, so one document
    // holds control characters below every byte of the text (or a line break would be that byte)
    docs.push('\u0001\u0002\t');
    mkdirSync(join(dir, form), { recursive: true });
    writeFileSync(join(dir, form, 'docs.jsonl'), docs.map((text) => JSON.stringify({ text })).join('\n') + '\n');
    made[form] = { documents: docs.length, bytes: statSync(join(dir, form, 'docs.jsonl')).size };
  }
  writeFileSync(
    join(dir, 'configs.json'),
    JSON.stringify(
      {
        indexes: COPY_FORMS.map((f) => ({
          form: f,
          data: join(dir, f),
          infini_gram: indexName('infini-gram', f),
          mini: indexName('infini-gram-mini', f),
        })),
      },
      null,
      2,
    ),
  );
  console.log(
    JSON.stringify(
      {
        corpus: dir,
        forms: made,
        works: all.map((w) => ({
          held: w.held,
          chapters: w.chapters.length,
          words: w.chapters.reduce((t, c) => t + words(c.text).length, 0),
          truth: round(truthOf(w), 4),
        })),
      },
      null,
      2,
    ),
  );
}

// ---------------------------------------------------------------- run

/** The test fixtures' file builders (TypeScript), bundled into one module: Node 20 runs no TypeScript. */
async function fixtureBuilders(dir) {
  const outfile = join(dir, 'builders.mjs');
  await build({
    stdin: {
      contents:
        "export { buildDocx, buildEpub } from './documents.ts'; export { buildPdf, layoutBook } from './pdf.ts';",
      resolveDir: fileURLToPath(new URL('../test/fixtures/', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}

/** Whether an engine answers a count of its index (one call; 10 s at most). */
async function answers(url, index) {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index, query_type: 'count', query: 'the' }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await r.json();
    return r.ok && typeof body.count === 'number' ? null : JSON.stringify(body).slice(0, 200);
  } catch (e) {
    return String(e?.cause?.code ?? e?.message ?? e);
  }
}

const lines = (file) =>
  file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : null;

/** The cells in order: the plain cases first (EPUB, PDF, DOCX × none/half/all against the hard-wrapped copy; EPUB
 * and DOCX against the reflowed one), then the rest. */
function cellsInOrder(files, copies, shares) {
  const plain = (f, c, s) =>
    ['none', 'half', 'all'].includes(s) &&
    ((['epub', 'pdf', 'docx'].includes(f) && c === 'gutenberg') || (['epub', 'docx'].includes(f) && c === 'reflowed'));
  const all = [];
  for (const f of files)
    for (const c of copies) for (const s of shares) all.push({ file: f, copy: c, held: s, plain: plain(f, c, s) });
  return [...all.filter((x) => x.plain), ...all.filter((x) => !x.plain)];
}

async function run() {
  const { createEngine } = await import('../dist/index.js');
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const loader = ['library.js', 'index.js']
    .map((f) => /import\(\s*"\.\/(remote[\w-]*\.js)"\s*\)/.exec(readFileSync(join(dist, f), 'utf8')))
    .find(Boolean);
  const { sharedCache, resetEndpoints } = await import(pathToFileURL(join(dist, loader[1])).href);
  const urls = {
    'infini-gram': arg('infini-gram', 'http://127.0.0.1:5077/'),
    'infini-gram-mini': arg('mini', 'http://127.0.0.1:5078/'),
  };
  const logs = { 'infini-gram': arg('ig-log', null), 'infini-gram-mini': arg('mini-log', null) };
  const kinds = [];
  for (const kind of arg('kinds', 'infini-gram,infini-gram-mini').split(',')) {
    const why = await answers(urls[kind], indexName(kind, 'gutenberg'));
    if (why) console.log(`real-engines: ${kind} skipped — no engine answers at ${urls[kind]} (${why})`);
    else kinds.push(kind);
  }
  if (kinds.length === 0) {
    console.log('real-engines: skipped — neither engine is up (start them first: see the top of this file)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'real-engines-'));
  const stored =
    !process.argv.includes('--fresh') && existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : null;
  const cells = new Map((stored?.cells ?? []).map((c) => [key(c), c]));
  try {
    const { buildDocx, buildEpub, buildPdf, layoutBook } = await fixtureBuilders(dir);
    const byHeld = Object.fromEntries(works().map((w) => [w.held, w]));
    const fileOf = (form, work, draw) => {
      const dedication = `Draw ${draw} of the real engines.`;
      if (form === 'text')
        return {
          content: [dedication, ...work.chapters.map((c) => `${c.title}\n\n${c.text}`)].join('\n\n\n'),
          content_type: 'text',
        };
      const book = work.chapters.map((c, i) => ({
        title: c.title,
        text: i === 0 ? `${dedication}\n\n${typeset(c.text)}` : typeset(c.text),
      }));
      if (form === 'epub') return { content: buildEpub(book), content_type: 'epub' };
      if (form === 'docx') return { content: buildDocx(book), content_type: 'docx' };
      const laid = layoutBook('The Work', book);
      return { content: buildPdf(laid.pages, { outline: laid.chapters, title: 'The Work' }), content_type: 'pdf' };
    };
    const order = cellsInOrder(
      arg('files', FILE_FORMS.join(',')).split(','),
      arg('copies', COPY_FORMS.join(',')).split(','),
      arg('shares', Object.keys(SHARES).join(',')).split(','),
    );
    const draws = Number(arg('draws', '1'));
    // --add-draws N: N more draws of each cell run, after those the results already hold (the next seeds)
    const more = arg('add-draws', null);
    const plainOnly = process.argv.includes('--plain');
    const save = () => {
      writeFileSync(RESULTS, `${JSON.stringify(report([...cells.values()], kinds, urls), null, 2)}\n`);
    };
    // the two engines at once, one analysis at a time on each: the servers are the bottleneck (a Flask process
    // forked per request), and a server's request log then counts one run's calls
    await Promise.all(
      kinds.map(async (kind) => {
        for (const cell of order) {
          if (plainOnly && !cell.plain) continue;
          const work = byHeld[cell.held];
          const truth = truthOf(work);
          const before = more === null ? [] : (cells.get(key({ engine: kind, ...cell }))?.runs ?? []);
          const runs = [...before];
          for (let d = before.length; d < before.length + (more === null ? draws : Number(more)); d++) {
            sharedCache.clear();
            resetEndpoints();
            const engine = await createEngine({
              remoteCorpora: [
                {
                  id: 'corpus',
                  kind,
                  endpoint: urls[kind],
                  index: indexName(kind, cell.copy),
                  deadlineMs: 900_000,
                  timeoutMs: 120_000,
                },
              ],
            });
            const logged = lines(logs[kind]);
            try {
              const w0 = performance.now();
              const r = await engine.analyze(
                fileOf(cell.file, work, `${kind}-${cell.file}-${cell.copy}-${cell.held}-${d}`),
                {
                  remote: true,
                },
              );
              const rc = r.remote_corpora[0];
              const after = lines(logs[kind]);
              runs.push({
                ...drawRecord(rc, truth, performance.now() - w0),
                server_calls: logged !== null && after !== null ? after - logged : null,
                message: rc.message ?? null,
                confidence: r.confidence,
                extraction_words: r.extraction?.words ?? null,
              });
            } finally {
              engine.dispose();
            }
          }
          const covered = runs.filter((x) => x.covered).length;
          const c = {
            engine: kind,
            file: cell.file,
            copy: cell.copy,
            held: cell.held,
            plain: cell.plain,
            true_share: round(truth, 4),
            draws: runs.length,
            covered: `${covered}/${runs.length}`,
            runs,
          };
          cells.set(key(c), c);
          console.log(
            JSON.stringify({
              ...c,
              runs: runs.map((x) => `${x.estimate} [${x.ci_95}] ${x.calls} calls ${x.outcome} ${x.ms} ms`),
            }),
          );
          save();
        }
      }),
    );
    save();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const key = (c) => `${c.engine} ${c.file} ${c.copy} ${c.held}`;

/** The results file: method, targets, a summary per engine and the cells. */
function report(cells, kinds, urls) {
  const summary = {};
  for (const kind of ['infini-gram', 'infini-gram-mini']) {
    const mine = cells.filter((c) => c.engine === kind);
    if (mine.length === 0) continue;
    const runs = mine.flatMap((c) => c.runs.map((r) => ({ ...r, c })));
    const at = (held) => runs.filter((r) => r.c.held === held);
    summary[kind] = {
      cells: mine.length,
      draws: runs.length,
      covered: `${runs.filter((r) => r.covered).length}/${runs.length}`,
      plain_covered: `${runs.filter((r) => r.c.plain && r.covered).length}/${runs.filter((r) => r.c.plain).length}`,
      uncovered: runs
        .filter((r) => !r.covered)
        .map((r) => `${r.c.file}→${r.c.copy} ${r.c.held}: ${r.estimate} [${r.ci_95}] (truth ${r.truth}, ${r.outcome})`),
      max_error_at_half: at('half').length
        ? round(Math.max(...at('half').map((r) => Math.abs((r.estimate ?? 0) - r.truth))), 4)
        : null,
      max_upper_at_zero: at('none').length ? Math.max(...at('none').map((r) => r.ci_95?.[1] ?? 0)) : null,
      max_confidence_at_zero: at('none').length ? Math.max(...at('none').map((r) => r.confidence)) : null,
      calls_max: Math.max(...runs.map((r) => r.calls)),
      calls_median: medianOrNull(runs.map((r) => r.calls)),
      server_calls_equal: runs.every((r) => r.server_calls === null || r.server_calls === r.calls),
      ms_median: medianOrNull(runs.map((r) => r.ms)),
    };
  }
  return {
    method:
      'four works of ~35,000 words (Persuasion and The Man Who Was Thursday, ten chapters each, nine the last) held ' +
      'none/one chapter in ten/every other/all in one index per copy form (gutenberg, wrapped at 60 + CRLF + two ' +
      'spaces, reflowed, requoted) with four documents of Julius Caesar, documents of ~15,000 characters; the real ' +
      'infini-gram (liujch1998/infini-gram 37d2929, Llama-2 tokenizer, u16) and infini-gram mini (xuhaoxh/' +
      'infini-gram-mini e628b09) built from source, their own Flask API servers on 127.0.0.1; each work as EPUB/PDF/' +
      'DOCX (typeset) or the Gutenberg text; default client (400 calls) with a 900 s deadline and 120 s a call (the ' +
      'servers fork a process per request: a few calls a second on a loaded machine)',
    endpoints: Object.fromEntries(kinds.map((k) => [k, urls[k]])),
    machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
    targets: TARGETS,
    summary,
    cells,
  };
}

const [command, target] = process.argv.slice(2);
if (command === 'corpus') {
  if (!target) throw new Error('usage: node bench/real-engines.mjs corpus DIR');
  corpus(target);
} else if (command === 'run') await run();
else console.log('usage: node bench/real-engines.mjs corpus DIR | run [options] (see the top of this file)');
