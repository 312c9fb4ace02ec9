// `trainprint scan` as a user runs it, against `trainprint fingerprint` of the same bytes, from dist/cli.js:
//   ratio      the throughput of `trainprint scan --dataset ARCHIVE OUTPUTS.jsonl --out HITS.jsonl` over that of
//              `trainprint fingerprint OUTPUTS.txt` (the same texts, joined by newlines): both whole processes,
//              start-up, loading and writing included, run alternately; the medians of the wall times
//              (same bytes, so the throughput ratio is fingerprint time / scan time); the targets are ≥ 0.5 on
//              natural outputs and ≥ 0.6 on the mix of bench/scan.mjs. `trainprint fingerprint` takes a text file of
//              up to 10 MiB, so the outputs are written as files of at most that and each command runs once per file
//              (20,000 outputs: two each). Also the CPU time of each run (user + system, all threads, by GNU time
//              where /usr/bin/time exists) and its ratio: on a shared, loaded machine the wall time stretches.
//              Beside it, `one_process`: one `trainprint scan` over all the files (as a user scans a whole set of
//              outputs; its hits must equal the runs' per file byte for byte) against the same fingerprint runs
//   recall     planted archive passages (every third with 1–3 of its words replaced): found when a hit names the
//              passage's document and its query span is the passage's (exactSpan of test/fixtures/scan-plant.ts:
//              every letter of it, at most one host word beyond it on either side); the target is ≥ 99 %; and
//              how many passages gave exactly one hit
//   false      hits in the clean outputs (the target: ≤ 2 in 20,000)
// Workloads:
//   natural    an archive of six books (the five Gutenberg texts and Alice, in documents of about 4,000
//              characters); the timed outputs: 80–300 words of the odd Brown samples and the arXivTection passages,
//              none copied (the false blocks are counted in them); the recall: a scan of 1,000 more such outputs,
//              each with a planted passage of 60–150 words
//   mix        bench/scan.mjs's: its archive (the books, WikiText-2, Tiny Shakespeare, the PAN 2013 sources, the
//              even Brown samples) and outputs of 60–300 words, 1 % with a planted passage of 50–150 words (timed
//              with them, as bench/scan.mjs does)
// Text never leaves this machine: only the statistics are written. Results: bench/results/scan-cli.json.
//   node bench/scan-cli.mjs [--outputs 20000] [--rounds 5] [--only natural|mix] [--baseline DIST]
//        --baseline: another build's dist/ (a previous release's, main's), its `trainprint scan` timed in the same
//        alternation on the same files: before and after on one machine
//   node bench/scan-cli.mjs --only mix --rounds 0 --keep DIR
//        writes the archive (DIR/<workload>.tpds) and the outputs (.jsonl, .txt) to DIR and keeps them, to profile
//        a run: node --cpu-prof dist/cli.js scan --dataset DIR/mix.tpds DIR/mix-0.jsonl --out HITS.jsonl --quiet
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../dist/index.js';
import { hasSharedData, mulberry32, SHARED } from './natural-texts.mjs';
import { median, round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const OUTPUTS = Number(arg('outputs', 20_000));
const ROUNDS = Number(arg('rounds', 5));
const ONLY = arg('only', null);
const BASELINE = arg('baseline', null);
const KEEP = arg('keep', null);
const here = fileURLToPath(new URL('.', import.meta.url));
const CLI = join(here, '../dist/cli.js');
if (!hasSharedData()) {
  console.error('bench/scan-cli.mjs needs the development data in ../shared/data');
  process.exit(1);
}

const read = (p) => readFileSync(join(SHARED, p), 'utf8');
const jsonl = (p) =>
  read(p)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** Documents of about 4,000 characters of a long text, cut at white space. */
function cut(id, t, chars = 4000) {
  const docs = [];
  for (let at = 0, k = 0; at < t.length; k++) {
    let end = Math.min(t.length, at + chars);
    if (end < t.length) end = t.indexOf(' ', end) === -1 ? t.length : t.indexOf(' ', end);
    docs.push({ id: `${id}#${k}`, text: t.slice(at, end) });
    at = end;
  }
  return docs;
}

const brown = jsonl('brown-corpus/documents.jsonl');
const books = [
  ...readdirSync(join(SHARED, 'gutenberg-nltk/texts')).flatMap((f) => cut(f, read(`gutenberg-nltk/texts/${f}`))),
  ...cut('alice', read('gutenberg-editions/alice-in-wonderland-11/11-0.txt')),
];
const WORKLOADS = {
  natural: { archive: () => books, words: [80, 300], passage: [60, 150], seed: 58, plantEvery: 0, recall: 1000 },
  mix: {
    archive: () => [
      ...readdirSync(join(SHARED, 'gutenberg-nltk/texts')).flatMap((f) => cut(f, read(`gutenberg-nltk/texts/${f}`))),
      ...jsonl('wikitext-2-raw-test/articles.jsonl').flatMap((a) => cut(a.id, a.text)),
      ...cut('tinyshakespeare', read('tinyshakespeare/input.txt')),
      ...readdirSync(join(SHARED, 'pan13-text-alignment/train-corpus/src')).map((f) => ({
        id: `pan-src/${f}`,
        text: read(`pan13-text-alignment/train-corpus/src/${f}`),
      })),
      ...brown.filter((_, i) => i % 2 === 0).map((d) => ({ id: d.id, text: d.text })),
    ],
    words: [60, 300],
    passage: [50, 150],
    seed: 47,
    plantEvery: 100,
    recall: 0,
  },
};
const pool = [
  ...brown.filter((_, i) => i % 2 === 1).map((d) => d.text),
  ...jsonl('arxivtection/passages.jsonl').map((r) => r.verbatim),
]
  .join(' ')
  .split(/\s+/)
  .filter(Boolean);
const EDIT_WORDS = ['really', 'quite', 'indeed', 'perhaps', 'certainly', 'surely', 'also', 'truly'];

/** `count` outputs: natural windows of the pool in paragraphs, one in `plantEvery` with a planted archive passage. */
function outputsOf(w, archive, count, plantEvery, seed) {
  const rnd = mulberry32(seed);
  const archiveWords = archive.map((d) => d.text.split(/\s+/).filter(Boolean));
  const items = [];
  const planted = [];
  for (let i = 0; i < count; i++) {
    const len = w.words[0] + Math.floor(rnd() * (w.words[1] - w.words[0] + 1));
    const at = Math.floor(rnd() * (pool.length - len));
    const words = pool.slice(at, at + len);
    let text = '';
    for (let k = 0, next = 40 + Math.floor(rnd() * 80); k < words.length; k++) {
      text += (k === 0 ? '' : k === next ? '\n\n' : ' ') + words[k];
      if (k === next) next += 40 + Math.floor(rnd() * 80);
    }
    if (plantEvery > 0 && i % plantEvery === Math.min(37, plantEvery - 1)) {
      let d, dw;
      do {
        d = Math.floor(rnd() * archive.length);
        dw = archiveWords[d];
      } while (dw.length < w.passage[1] + 10);
      const plen = w.passage[0] + Math.floor(rnd() * (w.passage[1] - w.passage[0] + 1));
      const pat = 1 + Math.floor(rnd() * (dw.length - plen - 1));
      const passage = dw.slice(pat, pat + plen);
      const edited = planted.length % 3 === 2;
      if (edited)
        for (let e = 1 + Math.floor(rnd() * 3); e > 0; e--)
          passage[10 + Math.floor(rnd() * (plen - 20))] = EDIT_WORDS[Math.floor(rnd() * EDIT_WORDS.length)];
      const cutAt = text.indexOf(' ', Math.floor(rnd() * text.length));
      const head = cutAt < 0 ? `${text} ` : `${text.slice(0, cutAt)}${rnd() < 0.5 ? '\n\n' : ' '}`;
      const tail = cutAt < 0 ? '' : `${rnd() < 0.5 ? '\n\n' : ' '}${text.slice(cutAt + 1)}`;
      const p = passage.join(' ');
      text = head + p + tail;
      planted.push({
        item: i,
        document_id: archive[d].id,
        query_start: head.length,
        query_end: head.length + p.length,
        words: plen,
        edited,
      });
    }
    items.push({ id: `out-${i}`, text });
  }
  return { items, planted };
}

/** exactSpan of test/fixtures/scan-plant.ts (see the comment at the top). */
function exactSpan(text, hit, p) {
  const passage = text.slice(p.query_start, p.query_end);
  const lead = passage.length - passage.replace(/^[^\p{L}\p{N}]+/u, '').length;
  const trail = passage.length - passage.replace(/[^\p{L}\p{N}]+$/u, '').length;
  const start = p.query_start + lead,
    end = p.query_end - trail;
  if (hit.query_start > start || hit.query_end < end) return false;
  const words = (s) =>
    s
      .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
      .split(/\s+/)
      .filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  return words(text.slice(hit.query_start, start)) <= 1 && words(text.slice(end, hit.query_end)) <= 1;
}

/** The largest text file `trainprint fingerprint` takes (analyze's 10 MiB of UTF-8). */
const FILE_LIMIT = 10 * 1024 * 1024;
const utf8 = new TextEncoder();
/** GNU time, for the CPU time of a run (user + system, all threads): a loaded machine stretches the wall time. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** Wall and CPU milliseconds of one CLI run (a whole process, as a user runs it; CPU NaN without GNU time). */
function timed(args, cli = CLI) {
  const cpuFile = join(dir, 'cpu.txt');
  const t = performance.now();
  if (TIME)
    execFileSync(TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, cli, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  else execFileSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const wall = performance.now() - t;
  const cpu = TIME
    ? readFileSync(cpuFile, 'utf8')
        .trim()
        .split(/\s+/)
        .slice(-2)
        .reduce((n, x) => n + Number(x) * 1000, 0)
    : NaN;
  return { wall, cpu };
}

const dir = KEEP ?? mkdtempSync(join(tmpdir(), 'trainprint-bench-scan-cli-'));
if (KEEP) mkdirSync(KEEP, { recursive: true });
const result = { bench: 'scan-cli', date: new Date().toISOString(), node: process.version, cores: cpus().length };
try {
  for (const [name, w] of Object.entries(WORKLOADS)) {
    if (ONLY && ONLY !== name) continue;
    const archive = w.archive();
    const { items, planted: timedPlanted } = outputsOf(w, archive, OUTPUTS, w.plantEvery, w.seed);
    const engine = await createEngine();
    const stats = await engine.addDataset({ id: 'archive' }, archive);
    const tpds = join(dir, `${name}.tpds`);
    writeFileSync(tpds, engine.exportDataset('archive'));
    // `trainprint fingerprint` takes a text file of up to 10 MiB (as analyze does): the outputs are cut into parts
    // that fit, in order, and each command runs once per part (the same bytes, the same number of start-ups)
    const parts = [];
    for (let from = 0; from < items.length; ) {
      let to = from;
      for (let size = 0; to < items.length && size + utf8.encode(items[to].text).length + 1 <= FILE_LIMIT; to++)
        size += utf8.encode(items[to].text).length + 1;
      if (to === from) to++; // an output over the limit alone: a file of its own (fingerprint refuses it)
      const k = parts.length;
      const part = {
        input: join(dir, `${name}-${k}.jsonl`),
        text: join(dir, `${name}-${k}.txt`),
        out: join(dir, `${name}-${k}-hits.jsonl`),
      };
      writeFileSync(
        part.input,
        `${items
          .slice(from, to)
          .map((x) => JSON.stringify(x))
          .join('\n')}\n`,
      );
      writeFileSync(
        part.text,
        items
          .slice(from, to)
          .map((x) => x.text)
          .join('\n'),
      );
      parts.push(part);
      from = to;
    }
    const bytes = parts.reduce((n, p) => n + readFileSync(p.text).length, 0);
    const runs = { fingerprint: [], scan: [], scan_one_process: [], ...(BASELINE ? { scan_baseline: [] } : {}) };
    const cpu = { fingerprint: [], scan: [], scan_one_process: [], ...(BASELINE ? { scan_baseline: [] } : {}) };
    const oneProcessOut = join(dir, `${name}-all-hits.jsonl`);
    const each = (f) => {
      let wall = 0,
        used = 0;
      for (const part of parts) {
        const t = f(part);
        wall += t.wall;
        used += t.cpu;
      }
      return { wall, cpu: used };
    };
    const kinds = {
      fingerprint: () => each((p) => timed(['fingerprint', p.text])),
      scan: () => each((p) => timed(['scan', '--dataset', tpds, p.input, '--out', p.out, '--quiet'])),
      // every file in one `trainprint scan` (what a user scanning the whole set runs: scan takes any number of inputs
      // of any size); fingerprint still runs once per file, the most it takes
      scan_one_process: () =>
        timed(['scan', '--dataset', tpds, ...parts.map((p) => p.input), '--out', oneProcessOut, '--quiet']),
      scan_baseline: () =>
        each((p) =>
          timed(
            ['scan', '--dataset', tpds, p.input, '--out', `${p.out}.baseline`, '--quiet'],
            join(BASELINE, 'cli.js'),
          ),
        ),
    };
    const names = Object.keys(runs);
    if (ROUNDS === 0) continue;
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < names.length; k++) {
        const kind = names[(k + r) % names.length];
        const t = kinds[kind]();
        runs[kind].push(Math.round(t.wall));
        cpu[kind].push(Math.round(t.cpu));
      }
      console.error(
        `${name} round ${r + 1}: ${names.map((k) => `${k} ${runs[k].at(-1)} ms (CPU ${cpu[k].at(-1)})`).join(', ')}`,
      );
    }
    // false blocks from the last timed scan's output; recall from it or from a scan of planted outputs
    const readHits = (file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    const hits = parts.flatMap((p) => readHits(p.out));
    // one process over all the files writes what the runs per file wrote, in the same order, byte for byte
    const perFile = parts.map((p) => readFileSync(p.out, 'utf8')).join('');
    if (readFileSync(oneProcessOut, 'utf8') !== perFile)
      throw new Error(`${name}: the scan of all files in one process wrote other hits than the scans per file`);
    const plantedIds = new Set(timedPlanted.map((p) => `out-${p.item}`));
    const falseHits = hits.filter((h) => !plantedIds.has(h.id));
    let planted = timedPlanted,
      recallItems = items,
      recallHits = hits;
    if (w.recall > 0) {
      ({ items: recallItems, planted } = outputsOf(w, archive, w.recall, 1, w.seed + 1));
      const recallInput = join(dir, `${name}-recall.jsonl`);
      writeFileSync(recallInput, `${recallItems.map((x) => JSON.stringify(x)).join('\n')}\n`);
      const recallOut = join(dir, `${name}-recall-hits.jsonl`);
      execFileSync(process.execPath, [CLI, 'scan', '--dataset', tpds, recallInput, '--out', recallOut, '--quiet']);
      recallHits = readHits(recallOut);
    }
    const byItem = new Map();
    for (const h of recallHits) (byItem.get(h.id) ?? byItem.set(h.id, []).get(h.id)).push(h);
    let found = 0,
      foundEdited = 0,
      oneHit = 0;
    const missed = [];
    for (const p of planted) {
      const own = (byItem.get(`out-${p.item}`) ?? []).filter((h) => h.document_id === p.document_id);
      if (own.length === 1) oneHit++;
      if (own.some((h) => exactSpan(recallItems[p.item].text, h, p))) {
        found++;
        if (p.edited) foundEdited++;
      } else missed.push({ item: p.item, words: p.words, edited: p.edited, hits: own.length });
    }
    const fp = median(runs.fingerprint),
      scan = median(runs.scan);
    result[name] = {
      archive: { documents: stats.documents, fingerprints: stats.fingerprints, mb: round(stats.bytes / 1e6, 2) },
      outputs: {
        count: OUTPUTS,
        mb: round(bytes / 1e6, 2),
        words: w.words,
        planted: timedPlanted.length,
        files: parts.length,
      },
      throughput: {
        rounds: ROUNDS,
        files: `the outputs in ${parts.length} file(s) of at most 10 MiB (what trainprint fingerprint takes), each command run once per file`,
        ms: runs,
        cpu_ms: cpu,
        cpu_ms_median: { fingerprint: median(cpu.fingerprint), scan: median(cpu.scan) },
        ratio_to_fingerprint_cpu: round(median(cpu.fingerprint) / median(cpu.scan), 3),
        ratio_per_pair_cpu: cpu.scan.map((s, i) => round(cpu.fingerprint[i] / s, 3)),
        ms_median: { fingerprint: fp, scan },
        mb_s_median: { fingerprint: round(bytes / 1e3 / fp, 2), scan: round(bytes / 1e3 / scan, 2) },
        ratio_to_fingerprint: round(fp / scan, 3),
        ratio_per_pair: runs.scan.map((s, i) => round(runs.fingerprint[i] / s, 3)),
        one_process: {
          what: 'every file in one trainprint scan process, against trainprint fingerprint once per file (its limit)',
          ms_median: median(runs.scan_one_process),
          cpu_ms_median: median(cpu.scan_one_process),
          ratio_to_fingerprint: round(fp / median(runs.scan_one_process), 3),
          ratio_to_fingerprint_cpu: round(median(cpu.fingerprint) / median(cpu.scan_one_process), 3),
          ratio_per_pair_cpu: cpu.scan_one_process.map((s, i) => round(cpu.fingerprint[i] / s, 3)),
        },
        ...(BASELINE
          ? {
              baseline: BASELINE,
              ms_median_baseline: median(runs.scan_baseline),
              ratio_to_fingerprint_baseline: round(fp / median(runs.scan_baseline), 3),
              cpu_ms_median_baseline: median(cpu.scan_baseline),
              ratio_to_fingerprint_cpu_baseline: round(median(cpu.fingerprint) / median(cpu.scan_baseline), 3),
            }
          : {}),
        target: name === 'natural' ? 0.5 : 0.6,
      },
      recall: {
        passages: w.passage,
        planted: planted.length,
        scanned_with_the_timed_outputs: w.recall === 0,
        found_exact_span: found,
        recall: round(found / planted.length, 4),
        recall_edited: round(foundEdited / planted.filter((p) => p.edited).length, 4),
        one_hit_per_passage: round(oneHit / planted.length, 4),
        missed: missed.slice(0, 20),
        target: 0.99,
      },
      false_blocks: {
        clean_outputs: OUTPUTS - timedPlanted.length,
        hits: falseHits.length,
        outputs_with_hits: new Set(falseHits.map((h) => h.id)).size,
        target: `≤ 2 in ${OUTPUTS - timedPlanted.length}`,
      },
    };
  }
} finally {
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
}
if (ROUNDS === 0) process.exit(0);
const file = join(here, 'results', ONLY ? `scan-cli-${ONLY}.json` : 'scan-cli.json');
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(
  JSON.stringify(
    Object.fromEntries(
      Object.keys(WORKLOADS)
        .filter((k) => result[k])
        .map((k) => [
          k,
          {
            ratio: result[k].throughput.ratio_to_fingerprint,
            ratio_cpu: result[k].throughput.ratio_to_fingerprint_cpu,
            one_process: result[k].throughput.one_process.ratio_to_fingerprint,
            one_process_cpu: result[k].throughput.one_process.ratio_to_fingerprint_cpu,
            recall: result[k].recall.recall,
            false: result[k].false_blocks.hits,
          },
        ]),
    ),
  ),
);
