// Whole works: a 100,000-word novel as a file, in parts.
//
//   extraction   the novel written as EPUB, DOCX and PDF with the test fixtures' builders (test/fixtures/documents.ts,
//                test/fixtures/pdf.ts: the chapters as e-book and word-processor tools write them; the PDF laid out
//                as a printed book, running headers and footers, words hyphenated across line ends), then read back
//                with `extractDocument` (dist/text.js, the package's `trainprint/text`):
//                  words in order   a common subsequence of the source's words and the extracted words ÷ the
//                                   source's words (target ≥ 0.99; see `wordsInOrder`)
//                  word count       `extraction.words` against the source's, |Δ| ÷ source (target ≤ 2 %)
//                  time             `extractDocument`, against a tool of the same job run as a child process in the
//                                   same run — `unzip -p` (every entry inflated to a pipe: the floor of reading a zip)
//                                   for EPUB and DOCX, poppler's `pdftotext` for the PDF — the two alternating, one
//                                   call each a round (tinybench, 1 iteration, gc() before each call where
//                                   --expose-gc is on), medians over the rounds; the PDF's own median
//                                   (target ≤ 5 s)
//
//   node --expose-gc bench/whole-works.mjs [--part extraction|sampling|forms|all] [--rounds 9] [--draws N] [--quick]
//        [--only seven] (sampling: the seven-corpora rows only) [--merge] (forms: replace only the cells run)
//        [--same-works] (forms: draw d the same file in every cell) [--progress FILE] (forms: a JSON line per cell)
//        [--dist DIR] (extraction: another build's dist/, e.g. a copy from an earlier commit; nothing written unless
//        --out FILE, where the parts run are written alone)
//        (needs dist/ — npm run build — and /usr/bin/unzip and pdftotext, Debian's poppler-utils; writes the parts run
//        into bench/results/whole-works.json, keeping the other parts' results; --quick: 2 rounds, nothing written
//        unless --write)
//
// The novel: the 24 chapters of Persuasion, then the chapters of The Man Who Was Thursday (the committed Project
// Gutenberg texts, test/fixtures/texts/gutenberg), numbered "Chapter 1" … in turn, the last cut where the novel
// reaches 100,000 words (titles counted).
import './help.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Bench } from 'tinybench';
import { drawRecord } from './verified-share-corpus.mjs';
import { median, round } from './stats.mjs';

const QUICK = process.argv.includes('--quick');
const DIST = process.argv.includes('--dist') ? process.argv[process.argv.indexOf('--dist') + 1] : undefined;
const WRITE = (!QUICK || process.argv.includes('--write')) && DIST === undefined;
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const OUT = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
const RESULTS = new URL('./results/whole-works.json', import.meta.url);
const NOVEL_WORDS = 100_000;
const TARGETS = { words_in_order: 0.99, word_count_error: 0.02, pdf_ms: 5000 };

const words = (text) => text.split(/\s+/).filter(Boolean);

// ---------------------------------------------------------------- the novel (deterministic)

const gutenberg = (name) =>
  readFileSync(new URL(`../test/fixtures/texts/gutenberg/${name}.txt`, import.meta.url), 'utf8');

/** The chapters of a book whose chapters open with a line that `head` matches, without that line. */
function chaptersOf(text, head) {
  const heads = [...text.matchAll(head)];
  return heads.map((m, i) => text.slice(m.index + m[0].length, heads[i + 1]?.index ?? text.length).trim());
}

/** The chapters in turn, "Chapter 1" …, the last cut where the titles and texts together reach `total` words. */
function novel(total) {
  const texts = [
    ...chaptersOf(gutenberg('austen-persuasion'), /^Chapter \d+$/gm),
    ...chaptersOf(gutenberg('chesterton-thursday'), /^CHAPTER [IVXLC]+$/gm),
  ];
  const chapters = [];
  let count = 0;
  for (const [i, text] of texts.entries()) {
    const title = `Chapter ${i + 1}`;
    const room = total - count - words(title).length;
    const all = [...text.matchAll(/\S+/g)];
    if (all.length >= room) {
      const last = all[room - 1];
      chapters.push({ title, text: text.slice(0, last.index + last[0].length) });
      return chapters;
    }
    chapters.push({ title, text });
    count += words(title).length + all.length;
  }
  throw new Error(`the two books hold fewer than ${total} words`);
}

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

// ---------------------------------------------------------------- words in order

/**
 * The words of `extracted` that keep their place in `source`: the length of a common subsequence of the two word
 * sequences (words compared exactly after NFKC). A stretch that few edits make equal ({@link GAP_EDITS}) is solved
 * exactly (Myers's O(ND) diff); a longer one is split as patience diff splits it (Bram Cohen's; git's `--patience`):
 * the words that occur once on each side are anchors, the longest chain of them in the same order on both sides
 * (longest increasing subsequence) is kept, and the stretches between anchors are solved the same way; one with no
 * unique word left is solved by dynamic programming when small (≤ 4 M cells) and counted as unmatched otherwise. So it
 * is a lower bound of the longest common subsequence — exact when the two differ by few edits, as a faithful
 * extraction does — in about linear time on 100,000 words, where the quadratic LCS would fill 10¹⁰ cells.
 */
function wordsInOrder(source, extracted) {
  const ids = new Map();
  const idsOf = (ws) =>
    Int32Array.from(ws, (w) => {
      const k = w.normalize('NFKC');
      let id = ids.get(k);
      if (id === undefined) ids.set(k, (id = ids.size));
      return id;
    });
  const a = idsOf(source),
    b = idsOf(extracted);
  let kept = 0;
  const stack = [[0, a.length, 0, b.length]];
  while (stack.length > 0) {
    let [a0, a1, b0, b1] = stack.pop();
    while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) a0++, b0++, kept++;
    while (a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]) a1--, b1--, kept++;
    if (a0 === a1 || b0 === b1) continue;
    // a stretch that differs little is solved exactly at once; else split at its unique words
    const exact = myersLcs(a, a0, a1, b, b0, b1, Math.max(GAP_EDITS, Math.ceil(EDIT_SHARE * (a1 - a0 + b1 - b0))));
    if (exact >= 0) {
      kept += exact;
      continue;
    }
    const anchors = uniqueAnchors(a, a0, a1, b, b0, b1);
    if (anchors.length === 0) {
      if ((a1 - a0) * (b1 - b0) <= 4_000_000) kept += lcsLength(a, a0, a1, b, b0, b1);
      continue;
    }
    let pa = a0,
      pb = b0;
    for (const [i, j] of anchors) {
      stack.push([pa, i, pb, j]);
      kept++;
      pa = i + 1;
      pb = j + 1;
    }
    stack.push([pa, a1, pb, b1]);
  }
  return kept;
}

/**
 * Most edits (words left out or added) {@link myersLcs} looks for before a stretch is split at unique words: 200, or
 * 2 % of the stretch's words when more (a text that needs more is far from the 99 % target anyway).
 */
const GAP_EDITS = 200;
const EDIT_SHARE = 0.02;

/**
 * The length of the longest common subsequence of a[a0, a1) and b[b0, b1) when at most `maxEdits` words must be left
 * out of the two to make them equal, else -1: Myers's greedy O((n + m)·D) algorithm ("An O(ND) difference algorithm
 * and its variations", Algorithmica 1, 1986), the furthest point of each diagonal kept for the current D only.
 */
function myersLcs(a, a0, a1, b, b0, b1, maxEdits) {
  const n = a1 - a0,
    m = b1 - b0;
  const max = Math.min(n + m, maxEdits);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[a0 + x] === b[b0 + y]) x++, y++;
      v[off + k] = x;
      if (x >= n && y >= m) return (n + m - d) / 2;
    }
  }
  return -1;
}

/** Words once in a[a0, a1) and once in b[b0, b1): the longest chain of them in the same order on both sides. */
function uniqueAnchors(a, a0, a1, b, b0, b1) {
  const count = new Map(); // id → [times in a, place in a, times in b, place in b]
  for (let i = a0; i < a1; i++) {
    const c = count.get(a[i]) ?? [0, 0, 0, 0];
    c[0]++;
    c[1] = i;
    count.set(a[i], c);
  }
  for (let j = b0; j < b1; j++) {
    const c = count.get(b[j]);
    if (c) {
      c[2]++;
      c[3] = j;
    }
  }
  const pairs = [];
  for (const c of count.values()) if (c[0] === 1 && c[2] === 1) pairs.push([c[1], c[3]]);
  pairs.sort((x, y) => x[0] - y[0]);
  // longest increasing subsequence of the b places (patience sorting, with back links)
  const tops = [];
  const back = new Int32Array(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    let lo = 0,
      hi = tops.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tops[mid]][1] < pairs[k][1]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[k] = tops[lo - 1];
    tops[lo] = k;
  }
  const chain = [];
  for (let k = tops.length > 0 ? tops[tops.length - 1] : -1; k >= 0; k = back[k]) chain.push(pairs[k]);
  return chain.reverse();
}

/** The length of the longest common subsequence of a[a0, a1) and b[b0, b1), by dynamic programming. */
function lcsLength(a, a0, a1, b, b0, b1) {
  let prev = new Int32Array(b1 - b0 + 1),
    row = new Int32Array(b1 - b0 + 1);
  for (let i = a0; i < a1; i++) {
    for (let j = b0; j < b1; j++) {
      const k = j - b0 + 1;
      row[k] = a[i] === b[j] ? prev[k - 1] + 1 : Math.max(prev[k], row[k - 1]);
    }
    [prev, row] = [row, prev];
  }
  return prev[b1 - b0];
}

// ---------------------------------------------------------------- timing

/** One call of `fn`, timed by tinybench (1 iteration, no warm-up: the rounds alternate the two sides). */
async function timeOnce(name, fn) {
  const bench = new Bench({ iterations: 1, time: 0, warmup: false, throws: true });
  bench.add(name, fn, { beforeEach: () => globalThis.gc?.() });
  await bench.run();
  const r = bench.tasks[0].result;
  if (r.state !== 'completed') throw new Error(`${name}: ${r.state} ${r.error ?? ''}`);
  return r.latency.p50;
}

/** A tool run as a child process, its standard output read in full: what it printed, in bytes. */
const runTool = (command, args) =>
  execFileSync(command, args, { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'] });

// ---------------------------------------------------------------- part: extraction

async function extractionPart() {
  const rounds = QUICK ? 2 : Number(arg('rounds', '9'));
  for (const tool of ['unzip', 'pdftotext'])
    try {
      execFileSync('which', [tool], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} is not installed (Debian: apt-get install unzip poppler-utils)`);
    }
  const { extractDocument } = await import(
    DIST === undefined ? '../dist/text.js' : pathToFileURL(join(process.cwd(), DIST, 'text.js')).href
  );
  const loadBefore = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), 'whole-works-'));
  try {
    const { buildDocx, buildEpub, buildPdf, layoutBook } = await fixtureBuilders(dir);
    const chapters = novel(NOVEL_WORDS);
    const source = chapters.flatMap((c) => [...words(c.title), ...words(c.text)]);
    if (source.length !== NOVEL_WORDS) throw new Error(`the novel has ${source.length} words`);
    const laid = layoutBook('The Novel', chapters);
    const files = {
      epub: { bytes: buildEpub(chapters), peer: 'unzip -p' },
      docx: { bytes: buildDocx(chapters), peer: 'unzip -p' },
      pdf: { bytes: buildPdf(laid.pages, { outline: laid.chapters, title: 'The Novel' }), peer: 'pdftotext' },
    };
    const out = {};
    for (const [format, f] of Object.entries(files)) {
      const path = join(dir, `novel.${format}`);
      writeFileSync(path, f.bytes);
      const peer = () => (format === 'pdf' ? runTool('pdftotext', ['-q', path, '-']) : runTool('unzip', ['-p', path]));
      // the first call loads the readers (dist/formats.js, pdf.js): outside the timing, and checked
      const x = await extractDocument(f.bytes, format);
      const extracted = words(x.text);
      const kept = wordsInOrder(source, extracted);
      const peerText = peer().toString('latin1');
      if (x.sections.length < chapters.length || kept === 0 || !peerText.includes('Chapter'))
        throw new Error(`${format}: wrong result (${x.sections.length} sections, ${kept} words in order)`);
      const ours = [],
        theirs = [];
      let sink = 0;
      for (let r = 0; r < rounds; r++) {
        const timeOurs = async () =>
          ours.push(
            await timeOnce(`extractDocument ${format}`, async () => {
              sink += (await extractDocument(f.bytes, format)).words;
            }),
          );
        const timeTheirs = async () =>
          theirs.push(
            await timeOnce(`${f.peer} ${format}`, () => {
              sink += peer().length;
            }),
          );
        if (r % 2 === 0) await timeOurs(), await timeTheirs();
        else await timeTheirs(), await timeOurs();
      }
      const oursMs = median(ours),
        theirsMs = median(theirs);
      const inOrder = kept / source.length;
      const countError = (x.words - source.length) / source.length;
      out[format] = {
        bytes: f.bytes.length,
        sections: x.sections.length,
        ...(x.pages ? { pages: x.pages.length } : {}),
        source_words: source.length,
        extracted_words: x.words,
        words_in_order: kept,
        words_in_order_share: round(inOrder, 5),
        word_count_error: round(countError, 5),
        extract_ms: { median: round(oursMs, 1), min: round(Math.min(...ours), 1), all: ours.map((t) => round(t, 1)) },
        peer: f.peer,
        peer_ms: {
          median: round(theirsMs, 1),
          min: round(Math.min(...theirs), 1),
          all: theirs.map((t) => round(t, 1)),
        },
        ratio_to_peer: round(oursMs / theirsMs, 2),
        // the fastest of each side: the least disturbed by other work on the machine
        ratio_of_minima: round(Math.min(...ours) / Math.min(...theirs), 2),
        meets_targets:
          inOrder >= TARGETS.words_in_order &&
          Math.abs(countError) <= TARGETS.word_count_error &&
          (format !== 'pdf' || oursMs <= TARGETS.pdf_ms),
        sink,
      };
      console.log(
        `${format.padEnd(5)} ${String(f.bytes.length).padStart(9)} bytes, ${x.sections.length} sections: ` +
          `words in order ${(inOrder * 100).toFixed(3)} %, count ${x.words} (${(countError * 100).toFixed(3)} %); ` +
          `extractDocument ${oursMs.toFixed(1)} ms, ${f.peer} ${theirsMs.toFixed(1)} ms (× ${(oursMs / theirsMs).toFixed(2)}; ` +
          `fastest ${Math.min(...ours).toFixed(1)} and ${Math.min(...theirs).toFixed(1)} ms)`,
      );
    }
    return {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      // the 1-minute load average before and after: other work on the machine slows both sides of a ratio
      load_average: [round(loadBefore, 2), round(loadavg()[0], 2)],
      build: DIST ?? 'dist/',
      peers: {
        unzip: execFileSync('unzip', ['-v'], { encoding: 'utf8' }).split('\n')[0].trim(),
        // poppler's tools print their version on standard error
        pdftotext: spawnSync('pdftotext', ['-v'], { encoding: 'utf8' }).stderr.split('\n')[0].trim(),
      },
      novel: {
        words: NOVEL_WORDS,
        chapters: chapters.length,
        made_of: 'Persuasion (24 chapters), then The Man Who Was Thursday, cut at 100,000 words',
      },
      method:
        'words_in_order: a common subsequence of the source and extracted word sequences (exact words after NFKC; ' +
        'patience diff with exact LCS in small gaps: a lower bound of the LCS) ÷ source words; word_count_error: ' +
        `(extraction.words − source words) ÷ source words; times: ${rounds} rounds, extractDocument (in process, ` +
        'readers loaded) and the peer tool (a child process, stdout read in full) alternating, tinybench one call ' +
        'each, medians; ratio_to_peer = median ÷ median, ratio_of_minima = fastest ÷ fastest',
      targets: {
        words_in_order_share: `≥ ${TARGETS.words_in_order}`,
        word_count_error: `within ±${TARGETS.word_count_error}`,
        pdf_extract_ms: `≤ ${TARGETS.pdf_ms}`,
      },
      rss_peak_mb: round((process.resourceUsage().maxRSS * 1024) / 1e6, 1),
      formats: out,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- part: sampling

// The novel as an EPUB (its chapters are the sections the passages are drawn from) against the fixture infini-gram
// engine (test/fixtures/infini-gram: the infini-gram API over suffix arrays, a Llama-2 tokenizer), run in a child
// process on 127.0.0.1 with every call delayed by the latency under test. Its indexes hold 0 %, 10 %, 50 % and 100 %
// of the novel's chapters as the Project Gutenberg files have them, hard-wrapped at about 70 characters, beside four
// documents of another book; one more holds every chapter reflowed (a paragraph a line). The EPUB's text is
// reflowed: the corpus breaks its lines where the work does not, the case a PG-19 or Books3 source gives.
//   draws        each a different work hash (a one-line dedication that names the draw), so a different seeded draw:
//                the 95 % interval against the true share (the held chapters' words ÷ the work's), calls, wall ms
//   sensitivity  passages found ÷ drawn with every chapter held (both line forms): the rate the interval allows for
//   false_found  passages found ÷ drawn with none held
//   seven        seven such corpora (seven engines, seven endpoints, seven processes) searched at once against one,
//                alternating, after a round not counted; medians of the wall time, of the client's CPU (this process,
//                `process.cpuUsage`) and of the engines' CPU (each engine process's own `process.cpuUsage`, asked over
//                IPC before and after each analysis, summed): on a machine whose cores the engines share with the
//                client, the wall time follows the CPU the two need together (`seven_cpu_share_of_cores`: that CPU ÷
//                wall time × cores), so the client's own ratio is reported beside the wall-time ratio

const SAMPLING_TARGETS = {
  covered: 0.9,
  slack: 0.02,
  estimate_at_half: 0.12,
  upper_at_zero: 0.1,
  calls_per_corpus: 400,
  ms_20: 20_000,
  ms_200: 90_000,
  seven_calls: 2800,
  seven_ratio: 1.5,
};
const SHARES = { none: 0, tenth: 0.1, half: 0.5, all: 1 };

/** Which chapters an index holds: about `share` of the chapters, spread along the novel. */
function heldChapters(count, share) {
  if (share === 0) return [];
  const step = 1 / share;
  const out = [];
  for (let x = 0; x < count - 1e-9; x += step) out.push(Math.floor(x));
  return [...new Set(out)];
}

/** The child: the engines (one per index kind, seven for the seven-corpora row). */
async function samplingServer() {
  const { buildTokenIndex, startInfiniGramServer } = await import('../test/fixtures/infini-gram/index.mjs');
  const chapters = novel(NOVEL_WORDS);
  const caesar = gutenberg('shakespeare-caesar');
  const filler = [0, 1, 2, 3].map((k) => ({
    text: caesar.slice((k * caesar.length) / 4, ((k + 1) * caesar.length) / 4),
  }));
  const reflow = (t) =>
    t
      .split(/\n{2,}/)
      .map((p) => p.replace(/\s*\n\s*/g, ' '))
      .join('\n\n');
  const index = (share, form = (t) => t) =>
    buildTokenIndex({
      documents: [...filler, ...heldChapters(chapters.length, share).map((i) => ({ text: form(chapters[i].text) }))],
      tokenizer: 'llama',
    });
  // `--sampling-server half`: one engine holding the half index only (one of the seven corpora, each an engine of
  // its own in a process of its own, as seven remote corpora are seven servers)
  const only = process.argv[3];
  const indexes = only
    ? { [only]: index(SHARES[only]) }
    : Object.fromEntries(Object.entries(SHARES).map(([k, v]) => [k, index(v)]));
  if (!only) indexes.all_reflowed = index(1, reflow);
  const servers = [await startInfiniGramServer({ kind: 'infini-gram', indexes })];
  process.on('message', (m) => {
    // `{ cpu: true }`: the CPU this engine process has used so far (user + system, ms)
    if (m.cpu) {
      const u = process.cpuUsage();
      process.send({ cpu_ms: (u.user + u.system) / 1000 });
      return;
    }
    for (const s of servers) s.setLatency(m.latency ?? 0);
    process.send({ ok: true });
  });
  process.send({ urls: servers.map((s) => s.url) });
  await new Promise(() => {}); // until killed
}

async function samplingPart() {
  const { fork } = await import('node:child_process');
  const { createEngine } = await import('../dist/index.js');
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const loader = ['library.js', 'index.js']
    .map((f) => /import\(\s*"\.\/(remote[\w-]*\.js)"\s*\)/.exec(readFileSync(join(dist, f), 'utf8')))
    .find(Boolean);
  const { sharedCache, resetEndpoints } = await import(pathToFileURL(join(dist, loader[1])).href);
  // the engines: the first holds every index; six more hold the half index, each in its own process (the seven
  // corpora of the seven-corpora row are seven servers: one process serving all seven would put their work in turn)
  const servers = [['--sampling-server'], ...Array.from({ length: 6 }, () => ['--sampling-server', 'half'])].map((a) =>
    fork(fileURLToPath(import.meta.url), a, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  try {
    const urls = (
      await Promise.all(servers.map((c) => new Promise((resolve) => c.once('message', (m) => resolve(m.urls)))))
    ).flat();
    const latency = (ms) =>
      Promise.all(
        servers.map(
          (c) =>
            new Promise((resolve) => {
              c.once('message', resolve);
              c.send({ latency: ms });
            }),
        ),
      );
    /** The CPU each engine process has used so far (ms). */
    const engineCpu = () =>
      Promise.all(
        servers.map(
          (c) =>
            new Promise((resolve) => {
              c.once('message', (m) => resolve(m.cpu_ms));
              c.send({ cpu: true });
            }),
        ),
      );
    const dir = mkdtempSync(join(tmpdir(), 'whole-works-'));
    const { buildEpub } = await fixtureBuilders(dir);
    const chapters = novel(NOVEL_WORDS);
    /** The novel as an EPUB, with a dedication naming the draw: another work hash, another draw. */
    const epubOf = (draw) =>
      buildEpub(
        chapters.map((c, i) => ({
          title: c.title,
          text: i === 0 ? `Draw ${draw} of the sampled search.\n\n${c.text}` : c.text,
        })),
      );
    const QUICKER = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 };
    const engineOn = (corpora) => {
      sharedCache.clear();
      resetEndpoints();
      return createEngine({
        remoteCorpora: corpora.map((c, k) => ({ id: `corpus-${k}`, kind: 'infini-gram', ...QUICKER, ...c })),
      });
    };
    const analyse = async (corpora, draw) => {
      const engine = await engineOn(corpora);
      try {
        const content = epubOf(draw);
        const t0 = performance.now();
        const cpu0 = process.cpuUsage();
        const r = await engine.analyze({ content, content_type: 'epub' }, { remote: true });
        const cpu = process.cpuUsage(cpu0);
        return { r, ms: performance.now() - t0, cpu_ms: (cpu.user + cpu.system) / 1000 };
      } finally {
        engine.dispose();
      }
    };
    /** The true share of a draw's work held by `share`'s index: the held chapters' words ÷ the extracted words. */
    const truth = (r, share) => {
      const held = new Set(heldChapters(chapters.length, share));
      const total = r.extraction.words;
      const inHeld = r.sections.filter((_, i) => held.has(i)).reduce((t, s) => t + s.words, 0);
      return inHeld / total;
    };
    const DRAWS = Number(arg('draws', QUICK ? '4' : '40'));
    const SLOW_DRAWS = Number(arg('slow-draws', QUICK ? '1' : '3'));
    const rows = [];
    const rates = { sensitivity: { hits: 0, trials: 0, by_form: {} }, false_found: { hits: 0, trials: 0 } };
    const only = arg('only', '');
    for (const [ms, draws] of [
      [20, only ? 0 : DRAWS],
      [200, only ? 0 : SLOW_DRAWS],
    ]) {
      if (draws === 0) continue;
      await latency(ms);
      for (const [name, share] of Object.entries(SHARES)) {
        const runs = [];
        for (let d = 0; d < draws; d++) {
          const { r, ms: wall } = await analyse([{ endpoint: urls[0], index: name }], `${ms}-${name}-${d}`);
          const rc = r.remote_corpora[0];
          const s = rc.sampling;
          const t = truth(r, share);
          runs.push({
            truth: round(t, 4),
            estimate: s.share.estimate,
            ci_95: s.share.ci_95,
            covered: s.share.ci_95[0] - SAMPLING_TARGETS.slack <= t && t <= s.share.ci_95[1] + SAMPLING_TARGETS.slack,
            passages: s.passages,
            found: s.found,
            calls: rc.calls,
            outcome: rc.outcome,
            matches: rc.matches,
            confidence: r.confidence,
            dataset_confidence: r.evidence.datasets.find((e) => e.dataset_id === 'corpus-0')?.confidence ?? 0,
            ms: Math.round(wall),
          });
          if (ms === 20 && share === 1) {
            rates.sensitivity.hits += s.found;
            rates.sensitivity.trials += s.passages;
          }
          if (ms === 20 && share === 0) {
            rates.false_found.hits += s.found;
            rates.false_found.trials += s.passages;
          }
        }
        const covered = runs.filter((x) => x.covered).length;
        rows.push({
          latency_ms: ms,
          share: name,
          true_share: median(runs.map((x) => x.truth)),
          draws: runs.length,
          covered: `${covered}/${runs.length}`,
          coverage: round(covered / runs.length, 3),
          estimate_median: median(runs.map((x) => x.estimate)),
          estimate_max_error: round(Math.max(...runs.map((x) => Math.abs(x.estimate - x.truth))), 4),
          upper_max: Math.max(...runs.map((x) => x.ci_95[1])),
          calls_max: Math.max(...runs.map((x) => x.calls)),
          ms_median: median(runs.map((x) => x.ms)),
          ms_max: Math.max(...runs.map((x) => x.ms)),
          confidence_max: Math.max(...runs.map((x) => x.confidence)),
          dataset_confidence_median: median(runs.map((x) => x.dataset_confidence)),
          outcomes: [...new Set(runs.map((x) => x.outcome))],
          runs: QUICK ? runs : runs.slice(0, 5),
        });
        console.log(JSON.stringify({ ...rows.at(-1), runs: undefined }));
      }
    }
    // the other line form: every chapter held reflowed
    await latency(20);
    const reflowed = { hits: 0, trials: 0 };
    for (let d = 0; d < (only ? 0 : Math.max(2, DRAWS / 4)); d++) {
      const { r } = await analyse([{ endpoint: urls[0], index: 'all_reflowed' }], `reflowed-${d}`);
      reflowed.hits += r.remote_corpora[0].sampling.found;
      reflowed.trials += r.remote_corpora[0].sampling.passages;
    }
    rates.sensitivity.by_form = {
      work_reflowed_corpus_wrapped: { hits: rates.sensitivity.hits, trials: rates.sensitivity.trials },
      work_reflowed_corpus_reflowed_two_spaces: reflowed,
    };
    // seven corpora at once (seven engines) against one, alternating
    const seven = [];
    for (const ms of [20, 200]) {
      await latency(ms);
      const load0 = loadavg()[0];
      const one = [],
        all = [];
      // a round not counted first (the client's code compiled, the engines' pages touched)
      if (ms === 20) {
        await analyse([{ endpoint: urls[0], index: 'half' }], 'seven-warm');
        await analyse(
          urls.map((u) => ({ endpoint: u, index: 'half' })),
          'seven-warm',
        );
      }
      for (let k = 0; k < (QUICK ? 1 : Number(arg('seven-rounds', '5'))); k++) {
        // the engines' CPU over each analysis too (their processes' own counters, asked before and after)
        const e0 = await engineCpu();
        const a = await analyse([{ endpoint: urls[0], index: 'half' }], `seven-${ms}-${k}`);
        const e1 = await engineCpu();
        one.push({
          ms: a.ms,
          cpu_ms: a.cpu_ms,
          engine_cpu_ms: e1.reduce((t, x, i) => t + x - e0[i], 0),
          calls: a.r.remote_corpora[0].calls,
        });
        const b = await analyse(
          urls.map((u) => ({ endpoint: u, index: 'half' })),
          `seven-${ms}-${k}`,
        );
        const e2 = await engineCpu();
        all.push({
          ms: b.ms,
          cpu_ms: b.cpu_ms,
          engine_cpu_ms: e2.reduce((t, x, i) => t + x - e1[i], 0),
          calls: b.r.remote_corpora.reduce((t, c) => t + c.calls, 0),
        });
      }
      seven.push({
        latency_ms: ms,
        one_ms: Math.round(median(one.map((x) => x.ms))),
        seven_ms: Math.round(median(all.map((x) => x.ms))),
        ratio: round(median(all.map((x) => x.ms)) / median(one.map((x) => x.ms)), 2),
        one_client_cpu_ms: Math.round(median(one.map((x) => x.cpu_ms))),
        seven_client_cpu_ms: Math.round(median(all.map((x) => x.cpu_ms))),
        client_cpu_ratio: round(median(all.map((x) => x.cpu_ms)) / median(one.map((x) => x.cpu_ms)), 2),
        // the engine processes' CPU (all seven together for the seven corpora), and the CPU of the two together
        // against what the machine's cores can give in the wall time measured
        one_engine_cpu_ms: Math.round(median(one.map((x) => x.engine_cpu_ms))),
        seven_engine_cpu_ms: Math.round(median(all.map((x) => x.engine_cpu_ms))),
        seven_cpu_share_of_cores: round(
          median(all.map((x) => (x.cpu_ms + x.engine_cpu_ms) / (x.ms * cpus().length))),
          2,
        ),
        seven_calls_max: Math.max(...all.map((x) => x.calls)),
        one_calls_max: Math.max(...one.map((x) => x.calls)),
        rounds: one.length,
        one_ms_runs: one.map((x) => Math.round(x.ms)),
        seven_ms_runs: all.map((x) => Math.round(x.ms)),
        load_1min: [round(load0, 2), round(loadavg()[0], 2)],
      });
      console.log(JSON.stringify(seven.at(-1)));
    }
    rmSync(dir, { recursive: true, force: true });
    // --only seven: the seven-corpora rows again, the draws and rates of the stored run kept
    if (only === 'seven' && existsSync(RESULTS)) {
      const stored = JSON.parse(readFileSync(RESULTS, 'utf8')).sampling;
      if (stored)
        return { ...stored, seven, seven_machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) } };
    }
    return {
      method:
        'novel as EPUB (100,000 words, chapters = sections); fixture infini-gram engines in a child process on 127.0.0.1; ' +
        'corpora hold 0/10/50/100 % of the chapters hard-wrapped (+ 4 documents of another book); each draw a different ' +
        'work hash; cold cache per analysis; default client (400 calls, 8 at a time)',
      machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
      targets: SAMPLING_TARGETS,
      rows,
      rates,
      seven,
    };
  } finally {
    for (const c of servers) c.kill();
  }
}

// ---------------------------------------------------------------- part: forms

// The table per form: the novel as a file (EPUB, PDF, DOCX: typeset, with curly quotes and em dashes; text: the
// Project Gutenberg files, hard-wrapped with straight quotes) against corpora whose copy has another form, on both
// fixture engines (token suffix arrays with a Llama-2-style tokenizer; a character index as infini-gram mini), in a
// child process on 127.0.0.1 without added latency. Copy forms: `gutenberg` (as the files: wrapped at ~70 columns,
// blank lines, straight quotes, `--`), `wrapped` (re-wrapped at 60 columns, CRLF, two spaces after a sentence),
// `reflowed` (a paragraph a line, blank lines), `requoted` (a paragraph a line, one newline between, curly quotes,
// em dashes). Held: 0, ~10, 50 and 100 % of the chapters. Each draw another work hash (a dedication naming it).
//   cell   the 95 % interval against the true share (held chapters' words ÷ the chapters' words), the estimate's
//          error, calls, outcome, the documents verified and contradicted, the detection rate measured

const FORM_TARGETS = { coverage: 0.95, estimate_at_half: 0.12, upper_at_zero: 0.1, calls_per_corpus: 400 };
const COPY_FORMS = ['gutenberg', 'wrapped', 'reflowed', 'requoted'];
const FILE_FORMS = ['epub', 'pdf', 'docx', 'text'];

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
const COPY = {
  gutenberg: (t) => t,
  wrapped: (t) =>
    paragraphsOf(t)
      .map((p) => wrapAt(p.replace(/([.!?]) (?=[A-Z])/g, '$1  '), 60))
      .join('\r\n\r\n'),
  reflowed: (t) => paragraphsOf(t).join('\n\n'),
  requoted: (t) => typeset(paragraphsOf(t).join('\n')),
};

/** The child: one engine of each kind, an index per copy form and share. */
async function formsServer() {
  const { buildCharIndex, buildTokenIndex, startInfiniGramServer } = await import(
    '../test/fixtures/infini-gram/index.mjs'
  );
  const chapters = novel(NOVEL_WORDS);
  const caesar = gutenberg('shakespeare-caesar');
  const filler = [0, 1, 2, 3].map((k) => ({
    text: caesar.slice((k * caesar.length) / 4, ((k + 1) * caesar.length) / 4),
  }));
  const tokens = {},
    chars = {};
  const docs = (form, share) => [
    ...filler,
    ...heldChapters(chapters.length, share).map((i) => ({ text: COPY[form](chapters[i].text) })),
  ];
  tokens.none = buildTokenIndex({ documents: docs('gutenberg', 0), tokenizer: 'llama' });
  chars.none = buildCharIndex({ documents: docs('gutenberg', 0) });
  for (const form of COPY_FORMS)
    for (const [name, share] of Object.entries(SHARES)) {
      if (share === 0) continue;
      tokens[`${form}_${name}`] = buildTokenIndex({ documents: docs(form, share), tokenizer: 'llama' });
      chars[`${form}_${name}`] = buildCharIndex({ documents: docs(form, share) });
    }
  const a = await startInfiniGramServer({ kind: 'infini-gram', indexes: tokens });
  const b = await startInfiniGramServer({ kind: 'infini-gram-mini', indexes: chars });
  process.send({ urls: { 'infini-gram': a.url, 'infini-gram-mini': b.url } });
  await new Promise(() => {}); // until killed
}

async function formsPart() {
  const { fork } = await import('node:child_process');
  const { createEngine } = await import('../dist/index.js');
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const loader = ['library.js', 'index.js']
    .map((f) => /import\(\s*"\.\/(remote[\w-]*\.js)"\s*\)/.exec(readFileSync(join(dist, f), 'utf8')))
    .find(Boolean);
  const { sharedCache, resetEndpoints } = await import(pathToFileURL(join(dist, loader[1])).href);
  // --table-only (with --progress): no cell is run, the table is written from the progress file (the shards' cells)
  const TABLE_ONLY = process.argv.includes('--table-only');
  const server = TABLE_ONLY
    ? null
    : fork(fileURLToPath(import.meta.url), ['--forms-server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const dir = mkdtempSync(join(tmpdir(), 'whole-works-forms-'));
  try {
    const t0 = performance.now();
    const urls = server ? await new Promise((resolve) => server.once('message', (m) => resolve(m.urls))) : {};
    const indexMs = Math.round(performance.now() - t0);
    const { buildDocx, buildEpub, buildPdf, layoutBook } = await fixtureBuilders(dir);
    const chapters = novel(NOVEL_WORDS);
    const chapterWords = chapters.map((c) => words(c.text).length);
    const total = chapterWords.reduce((t, w) => t + w, 0);
    const truthOf = (share) => heldChapters(chapters.length, share).reduce((t, i) => t + chapterWords[i], 0) / total;
    // A draw differs from another by its dedication only ("Draw <12 hex digits> of the forms table.", the digits
    // naming the draw: another work hash, another seeded draw). So each file form is built and extracted once, with
    // a dedication of the same length, and a draw searches that text with its own digits in place — what
    // `analyze` does with the draw's file after extracting it (`searchAsync` with the file's sections). The first
    // draw of every cell is analysed from its own file as well, and must give the same sampling to the digit, or the
    // run stops: the check that the shortcut measures what `analyze` answers (and that draw's confidence).
    const { extractDocument } = await import('../dist/text.js');
    const PLACE = `Draw ${'0'.repeat(12)} of the forms table.`;
    const dedicationOf = (key) =>
      `Draw ${createHash('sha256').update(key).digest('hex').slice(0, 12)} of the forms table.`;
    const makeFile = (form, dedication) => {
      if (form === 'text')
        return {
          content: [dedication, ...chapters.map((c) => `${c.title}\n\n${c.text}`)].join('\n\n\n'),
          content_type: 'text',
        };
      const book = chapters.map((c, i) => ({
        title: c.title,
        text: i === 0 ? `${dedication}\n\n${typeset(c.text)}` : typeset(c.text),
      }));
      if (form === 'epub') return { content: buildEpub(book), content_type: 'epub' };
      if (form === 'docx') return { content: buildDocx(book), content_type: 'docx' };
      const laid = layoutBook('The Novel', book);
      return { content: buildPdf(laid.pages, { outline: laid.chapters, title: 'The Novel' }), content_type: 'pdf' };
    };
    const extracted = new Map();
    const extractedOf = async (form) => {
      if (!extracted.has(form)) {
        const f = makeFile(form, PLACE);
        const x =
          form === 'text'
            ? { text: f.content, sections: undefined, words: null }
            : await extractDocument(f.content, f.content_type);
        const at = x.text.indexOf(PLACE);
        if (at < 0 || x.text.indexOf(PLACE, at + 1) >= 0)
          throw new Error(`${form}: the dedication is not once in the text`);
        extracted.set(form, {
          head: x.text.slice(0, at),
          tail: x.text.slice(at + PLACE.length),
          sections: x.sections?.map((c) => ({ start: c.start, end: c.end })),
          words: x.words ?? null,
        });
      }
      return extracted.get(form);
    };
    const QUICKER = { retryBaseMs: 5, maxRetryDelayMs: 2000, ratePerSecond: 100_000 };
    // --same-works: draw d is the same file in every cell (seeded by file form and draw), so it is built once;
    // --progress FILE: each cell appended as a JSON line when done (a long run reports what finished)
    const SAME_WORKS = process.argv.includes('--same-works');
    const PROGRESS = arg('progress', null);
    // cells the progress file already holds with as many draws are not run again (a sharded run goes on)
    const done = new Set(
      PROGRESS && existsSync(PROGRESS)
        ? readFileSync(PROGRESS, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
            .filter((c) => c.draws === Number(arg('draws', QUICK ? '1' : '2')))
            .map((c) => `${c.engine} ${c.file} ${c.copy} ${c.held}`)
        : [],
    );
    const DRAWS = Number(arg('draws', QUICK ? '1' : '2'));
    const kinds = arg('kinds', 'infini-gram,infini-gram-mini').split(',');
    const cells = [];
    const files = arg('files', FILE_FORMS.join(',')).split(',');
    const copies = arg('copies', COPY_FORMS.join(',')).split(',');
    const shares = arg('shares', Object.keys(SHARES).join(',')).split(',');
    for (const kind of kinds)
      for (const file of files)
        for (const copy of copies)
          for (const [name, share] of Object.entries(SHARES).filter(([k]) => shares.includes(k))) {
            if (TABLE_ONLY || done.has(`${kind} ${file} ${copy} ${name}`)) continue;
            const runs = [];
            const x = await extractedOf(file);
            let analyzeSame = null;
            const reruns = [];
            for (let d = 0; d < DRAWS; d++) {
              const index = share === 0 ? 'none' : `${copy}_${name}`;
              const engineOn = () => {
                sharedCache.clear();
                resetEndpoints();
                return createEngine({
                  remoteCorpora: [
                    {
                      id: 'corpus',
                      kind,
                      endpoint: urls[kind],
                      index,
                      deadlineMs: 600_000,
                      timeoutMs: 120_000,
                      ...QUICKER,
                    },
                  ],
                });
              };
              const dedication = dedicationOf(SAME_WORKS ? `${file}-${d}` : `${kind}-${file}-${copy}-${name}-${d}`);
              let rc,
                confidence = null;
              const w0 = performance.now();
              // a draw whose engine (this bench's child process) did not answer says nothing of the estimate: it is
              // run again, at most twice, and counted (`reruns`; the message kept): on a machine loaded past 40 on
              // two cores the child, niced, missed some calls altogether
              for (let attempt = 0; attempt < 3; attempt++) {
                const engine = await engineOn();
                try {
                  const r = await engine.searchAsync(`${x.head}${dedication}${x.tail}`, {
                    remote: true,
                    ...(x.sections ? { sections: x.sections } : {}),
                  });
                  rc = r.remote[0];
                } finally {
                  engine.dispose();
                }
                if (rc.outcome !== 'unreachable') break;
                reruns.push({ draw: d, message: rc.message ?? null });
              }
              const ms = Math.round(performance.now() - w0);
              if (d === 0) {
                // the same draw analysed from its own file, cold: the same sampling, or the shortcut is wrong
                const again = await engineOn();
                try {
                  const r = await again.analyze(makeFile(file, dedication), { remote: true });
                  const a = r.remote_corpora[0];
                  const same = (o) => JSON.stringify({ s: o.sampling ?? null, calls: o.calls, outcome: o.outcome });
                  analyzeSame = same(a) === same(rc);
                  if (!analyzeSame)
                    console.error(`${kind} ${file}→${copy} ${name}: analyze differs:\n${same(a)}\n${same(rc)}`);
                  if (x.words !== null && r.extraction?.words !== x.words)
                    throw new Error(`${file}: extraction.words ${r.extraction?.words} against ${x.words}`);
                  confidence = r.confidence;
                } finally {
                  again.dispose();
                }
              }
              const s = rc.sampling;
              const t = truthOf(share);
              // the rate the search found passages of held chapters at: what the measured detection rate estimates
              // (sections are the file's chapters, a text's ten parts: only where their count is the chapters')
              const heldSet = new Set(heldChapters(chapters.length, share));
              const inHeld =
                s && s.sections.length === chapters.length ? s.sections.filter((y) => heldSet.has(y.section)) : [];
              runs.push({
                held_found: inHeld.length
                  ? {
                      hits: inHeld.reduce((a, y) => a + y.found, 0),
                      trials: inHeld.reduce((a, y) => a + y.passages, 0),
                    }
                  : null,
                ...drawRecord(rc, t, ms),
                message: rc.message ?? null,
                confidence,
                extraction_words: x.words,
              });
            }
            const covered = runs.filter((x) => x.covered).length;
            const cell = {
              engine: kind,
              file,
              copy,
              held: name,
              true_share: runs[0].truth,
              draws: runs.length,
              covered: `${covered}/${runs.length}`,
              estimate: runs.map((x) => x.estimate),
              ci_95: runs.map((x) => x.ci_95),
              max_error: round(Math.max(...runs.map((x) => Math.abs((x.estimate ?? 0) - x.truth))), 4),
              calls_max: Math.max(...runs.map((x) => x.calls)),
              analyze_same: analyzeSame,
              // analyze's confidence, of the cell's first draw (the others are searched from the extracted text)
              confidence_max: Math.max(...runs.filter((x) => x.confidence !== null).map((x) => x.confidence)),
              outcomes: [...new Set(runs.map((x) => x.outcome))],
              // draws per outcome (an engine of the bench's child process that did not answer is `unreachable`, and
              // its interval [0, 1]), and the largest error over the draws searched to their end
              outcome_counts: Object.fromEntries(
                [...new Set(runs.map((x) => x.outcome))].map((o) => [o, runs.filter((x) => x.outcome === o).length]),
              ),
              reruns,
              not_searched: runs.flatMap((x, i) =>
                x.outcome === 'searched' ? [] : [{ draw: i, outcome: x.outcome, message: x.message }],
              ),
              max_error_searched: round(
                Math.max(
                  0,
                  ...runs.filter((x) => x.outcome === 'searched').map((x) => Math.abs((x.estimate ?? 0) - x.truth)),
                ),
                4,
              ),
              detection: runs.map((x) => x.detection && `${x.detection.hits}/${x.detection.trials}`),
              held_found: runs.map((x) => x.held_found && `${x.held_found.hits}/${x.held_found.trials}`),
              documents: runs.map(
                (x) =>
                  x.documents &&
                  `${x.documents.verified}/${x.documents.fetched} verified, ${x.documents.contradicted} contradicted`,
              ),
              ms_max: Math.max(...runs.map((x) => x.ms)),
            };
            cells.push(cell);
            console.log(JSON.stringify(cell));
            if (PROGRESS) appendFileSync(PROGRESS, `${JSON.stringify(cell)}\n`);
          }
    // --progress: the table is every cell the progress file holds with this many draws (the last line of each), the
    // shards run before this one included
    if (PROGRESS && existsSync(PROGRESS)) {
      const key = (c) => `${c.engine} ${c.file} ${c.copy} ${c.held}`;
      const lines = new Map();
      for (const l of readFileSync(PROGRESS, 'utf8').split('\n').filter(Boolean)) {
        const c = JSON.parse(l);
        if (c.draws === DRAWS) lines.set(key(c), c);
      }
      cells.splice(0, cells.length, ...lines.values());
    }
    // --merge: these cells replace the same cells of the stored table (a rerun of a few), the rest are kept
    if (process.argv.includes('--merge') && existsSync(RESULTS)) {
      const key = (c) => `${c.engine} ${c.file} ${c.copy} ${c.held}`;
      const fresh = new Map(cells.map((c) => [key(c), c]));
      const stored = JSON.parse(readFileSync(RESULTS, 'utf8')).forms?.cells ?? [];
      const merged = stored.map((c) => fresh.get(key(c)) ?? c);
      for (const c of cells) if (!stored.some((x) => key(x) === key(c))) merged.push(c);
      cells.splice(0, cells.length, ...merged);
    }
    const all = cells.flatMap((c) => Array.from({ length: c.draws }, (_, i) => ({ c, i })));
    const coveredAll = cells.reduce((t, c) => t + Number(c.covered.split('/')[0]), 0);
    const PLAIN = (c) =>
      c.held !== 'tenth' &&
      ((c.copy === 'gutenberg' && c.file !== 'text') ||
        (c.copy === 'reflowed' && (c.file === 'epub' || c.file === 'docx')));
    const coveredOf = (c) => Number(c.covered.split('/')[0]);
    const summary = {
      cells: cells.length,
      cells_of: FILE_FORMS.length * COPY_FORMS.length * Object.keys(SHARES).length * 2,
      cells_below_coverage: cells
        .filter((c) => coveredOf(c) < FORM_TARGETS.coverage * c.draws)
        .map((c) => `${c.engine} ${c.file}→${c.copy} ${c.held} ${c.covered}`),
      plain_covered: `${cells.filter(PLAIN).reduce((t, c) => t + coveredOf(c), 0)}/${cells.filter(PLAIN).reduce((t, c) => t + c.draws, 0)}`,
      not_searched: cells.reduce(
        (t, c) => t + Object.entries(c.outcome_counts ?? {}).reduce((u, [o, k]) => u + (o === 'searched' ? 0 : k), 0),
        0,
      ),
      draws: all.length,
      covered: `${coveredAll}/${all.length}`,
      coverage: round(coveredAll / all.length, 3),
      uncovered: cells
        .filter((c) => !c.covered.startsWith(`${c.draws}/`))
        .map((c) => `${c.engine} ${c.file}→${c.copy} ${c.held}`),
      max_error_at_half: Math.max(...cells.filter((c) => c.held === 'half').map((c) => c.max_error)),
      max_error_at_half_searched: Math.max(
        ...cells.filter((c) => c.held === 'half').map((c) => c.max_error_searched ?? c.max_error),
      ),
      max_upper_at_zero_searched: Math.max(
        ...cells
          .filter((c) => c.held === 'none')
          .flatMap((c) =>
            c.ci_95.filter((_, i) => !(c.not_searched ?? []).some((x) => x.draw === i)).map((x) => x?.[1] ?? 0),
          ),
      ),
      max_upper_at_zero: Math.max(
        ...cells.filter((c) => c.held === 'none').flatMap((c) => c.ci_95.map((x) => x?.[1] ?? 0)),
      ),
      max_confidence_at_zero: Math.max(...cells.filter((c) => c.held === 'none').map((c) => c.confidence_max)),
      calls_max: Math.max(...cells.map((c) => c.calls_max)),
      analyze_differs: cells
        .filter((c) => c.analyze_same === false)
        .map((c) => `${c.engine} ${c.file}→${c.copy} ${c.held}`),
    };
    console.log(JSON.stringify(summary));
    return {
      method:
        'novel (100,000 words) as EPUB/PDF/DOCX (typeset: curly quotes, em dashes) and as the Gutenberg text; fixture ' +
        'engines of both kinds in a child process on 127.0.0.1, no added latency; copy forms gutenberg/wrapped/' +
        'reflowed/requoted holding 0/10/50/100 % of the chapters (+ 4 documents of another book); each draw another ' +
        'work hash; cold cache per analysis; default client (400 calls) with a deadline of 600 s and 120 s a call ' +
        '(a loaded shared machine: the table measures coverage, the sampling part the time)',
      machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
      index_build_ms: indexMs,
      targets: FORM_TARGETS,
      summary,
      cells,
    };
  } finally {
    server?.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- parts

const PARTS = { extraction: extractionPart, sampling: samplingPart, forms: formsPart };
if (process.argv[2] === '--sampling-server') await samplingServer(); // the child of the sampling part
if (process.argv[2] === '--forms-server') await formsServer(); // the child of the forms part
const part = arg('part', 'all');
const chosen = part === 'all' ? Object.keys(PARTS) : part.split(',');
for (const name of chosen)
  if (!PARTS[name]) throw new Error(`no part ${name}: one of ${Object.keys(PARTS).join(', ')}, all`);
const fresh = {};
for (const name of chosen) fresh[name] = await PARTS[name]();
if (OUT !== undefined) {
  writeFileSync(OUT, `${JSON.stringify({ bench: 'whole-works', ...fresh }, null, 2)}\n`);
  console.log(`wrote ${OUT} (${chosen.join(', ')})`);
} else if (WRITE) {
  // read, merge and write at the end: a part run meanwhile in another process (the forms table takes hours) keeps
  // what it wrote; each part replaces its own key only
  mkdirSync(new URL('.', RESULTS), { recursive: true });
  const report = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { bench: 'whole-works' };
  writeFileSync(RESULTS, JSON.stringify({ ...report, ...fresh }, null, 2) + '\n');
  console.log(`wrote ${fileURLToPath(RESULTS)} (${chosen.join(', ')})`);
}
