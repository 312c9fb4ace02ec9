// A dataset file whose texts pass 2 GiB, written and read back exactly, and what writing a file costs.
//   round trip  (this build) an exact dataset keeping texts of --gib GiB in all (ASCII texts of under 500 M characters each, then
//               short texts of every kind: accents, CJK, emoji, a lone surrogate in a short and in a long text, all
//               placed past 2 GiB) written by `SnapshotStream`, imported (`importDataset`, the file adopted), then
//               written again by `exportDataset` (one buffer: `encodeDataset`): the two files' SHA-256 must agree,
//               and the exported file's tail must hold the last texts' UTF-8 (TextEncoder's, or msgpack's own bytes
//               for a short text). Node 20's `TextEncoder#encodeInto` writes nothing into a view of 2 GiB or more,
//               which left zeros in place of the first text before the writers kept every view under 1 MiB.
//   --baseline  `exportDataset` of a --mib MiB dataset (same mix), this build against the baseline in the same
//               process, the order flipping each round; CPU time (user + system) per round, medians. --wide: its
//               texts Japanese (3 bytes a character) instead of ASCII.
// Needs about 5 × --gib GiB of memory (node's heap limit raised: --max-old-space-size=20000).
//
//   npm run build && node --max-old-space-size=20000 bench/dataset-write.mjs [--gib 2.2] [--baseline OTHER/dist]
//        [--mib 256] [--rounds 5] [--wide] [--skip-round-trip] [--out bench/results/dataset-write.json]
import './help.mjs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decode, encode } from '@msgpack/msgpack';
import { loadNow, loadSpread, recordHeader, writeRecord } from './record.mjs';
import { upperMedian, round } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const opt = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const GIB = Number(opt('--gib') ?? 2.2);
const MIB = Number(opt('--mib') ?? 256);
const ROUNDS = Number(opt('--rounds') ?? 5);
const WIDE = process.argv.includes('--wide');
const OUT = opt('--out') ?? 'bench/results/dataset-write.json';
const MINHASH_K = 128;

const load = async (dist) => ({
  ...(await import(pathToFileURL(join(dist, 'index.js')).href)),
  ...(await import(pathToFileURL(join(dist, 'datasets.js')).href)),
});
const self = await load(resolve(here, '..', 'dist'));

/** The short texts after the long ones: every UTF-8 width, msgpack's 50/51-unit line, lone surrogates. */
const TAIL = [
  'ünïcödé text',
  '日本語の文書です。'.repeat(7),
  '😀 emoji '.repeat(9),
  'short lone \ud800 surrogate',
  `a long text with a lone surrogate \udc00 ${'x'.repeat(60)}`,
  'x'.repeat(50),
  'y'.repeat(51),
  'the last text, written past 2 GiB',
];

/** The texts: `big` ASCII texts of `each` characters (each its own letter, its index at its end), then TAIL. */
function textsOf(big, each) {
  const out = [];
  for (let i = 0; i < big; i++)
    out.push(`${String.fromCharCode(97 + (i % 26)).repeat(each - 12)}end-${String(i).padStart(8, '0')}`);
  return [...out, ...TAIL];
}

/** The params this build's exact datasets carry (read from a one-document file's header). */
async function paramsOf(lib) {
  const engine = await lib.createEngine();
  await engine.addDataset({ id: 'probe', keep_text: true }, [
    { id: 'p', text: 'one short document to read the params of' },
  ]);
  return decode(engine.exportDataset('probe'))[0].params;
}

const column = (a) => ({ length: a.length, read: (from, to) => a.subarray(from, to) });

/** An exact dataset of `texts` (no postings: the texts are what is measured) written by the build's stream. */
function streamed(lib, params, texts) {
  const encoder = new TextEncoder();
  const docs = texts.map((t, i) => ({
    id: `doc-${i}`,
    chars: t.length,
    tokens: 1,
    bytes: encoder.encode(t.slice(0, 1000)).length,
  }));
  const source = {
    descriptor: { id: 'big', kind: 'exact' }, // an imported dataset's export names no keep_text: the texts say it
    params,
    docs,
    keys: column(new BigUint64Array(0)),
    postDoc: column(new Uint32Array(0)),
    postStart: column(new Uint32Array(0)),
    postEnd: column(new Uint32Array(0)),
    minhash: new Uint32Array(texts.length * MINHASH_K),
    texts,
  };
  const pieces = [];
  const stream = new lib.SnapshotStream(source);
  for (const piece of stream.pieces()) pieces.push(piece.slice());
  const file = new Uint8Array(stream.length);
  let at = 0;
  for (const piece of pieces.splice(0)) file.set(piece, at), (at += piece.length);
  const patch = stream.patch();
  file.set(patch.bytes, patch.offset);
  return file;
}

/** SHA-256 of `bytes`, a GiB at a time (node:crypto refuses an update of 2 GiB or more: "data is too long"). */
function sha(bytes) {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += 2 ** 30) hash.update(bytes.subarray(at, at + 2 ** 30));
  return hash.digest('hex');
}
const record = { ...recordHeader('dataset-write'), load_average_at_start: loadNow() };

if (!process.argv.includes('--skip-round-trip')) {
  const params = await paramsOf(self);
  const big = Math.ceil((GIB * 2 ** 30) / 5e8); // V8's strings hold at most 2²⁹ − 24 units
  const each = Math.ceil((GIB * 2 ** 30) / big);
  let texts = textsOf(big, each);
  let t0 = performance.now();
  const file = streamed(self, params, texts);
  const writeStreamS = (performance.now() - t0) / 1e3;
  const digest = sha(file);
  const tail = TAIL.map((t) => encode(t)); // msgpack's own bytes for each short text
  texts = null; // the strings go: the engine holds the file
  const engine = await self.createEngine();
  t0 = performance.now();
  await engine.importDataset(file, { adopt: true });
  const importS = (performance.now() - t0) / 1e3;
  t0 = performance.now();
  const exported = engine.exportDataset('big');
  const exportS = (performance.now() - t0) / 1e3;
  const want = concatBytes(tail);
  const got = exported.subarray(exported.length - want.length);
  // each long text as its str32 header, its letter and its index at its end (the first one wholly below 2 GiB)
  let at = exported.length - want.length - big * (5 + each);
  let longTextsExact = true;
  for (let i = 0; i < big; i++, at += 5 + each) {
    const end = Buffer.from(`end-${String(i).padStart(8, '0')}`);
    const letter = 97 + i;
    const ok =
      exported[at] === 0xdb &&
      new DataView(exported.buffer, exported.byteOffset + at + 1, 4).getUint32(0) === each &&
      exported[at + 5] === letter &&
      exported[at + 5 + each - 13] === letter &&
      Buffer.from(exported.subarray(at + 5 + each - 12, at + 5 + each)).equals(end);
    longTextsExact &&= ok;
  }
  record.round_trip = {
    file_bytes: exported.length,
    texts_bytes_before_last: exported.length - want.length,
    same_sha256: sha(exported) === digest,
    tail_texts_exact: Buffer.from(got).equals(Buffer.from(want)),
    long_texts_ends_exact: longTextsExact,
    write_stream_s: round(writeStreamS, 1),
    import_s: round(importS, 1),
    export_s: round(exportS, 1),
    rss_gib: round(process.memoryUsage().rss / 2 ** 30, 2),
  };
  console.log('round trip', record.round_trip);
}

function concatBytes(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
}

if (opt('--baseline')) {
  const base = await load(resolve(opt('--baseline')));
  const params = await paramsOf(self);
  const units = Math.floor((MIB * 2 ** 20) / 64);
  // --wide: Japanese prose (3 UTF-8 bytes a character, so a third of the characters for the same MiB)
  const texts = WIDE
    ? Array.from({ length: 64 }, (_, i) => `${'日本語の文書を書き出す。'.repeat(Math.ceil(units / 36))}${i}`)
    : textsOf(64, units);
  const file = streamed(self, params, [...texts, ...(WIDE ? TAIL : [])]);
  const builds = { this: self, baseline: base };
  const engines = {};
  for (const [name, lib] of Object.entries(builds)) {
    engines[name] = await lib.createEngine();
    await engines[name].importDataset(file.slice());
  }
  const cpu = { this: [], baseline: [] };
  const loads = [];
  let identical = true;
  const digests = {};
  for (let r = 0; r < ROUNDS; r++) {
    loads.push(loadNow());
    for (const name of r % 2 ? ['baseline', 'this'] : ['this', 'baseline']) {
      globalThis.gc?.();
      const t0 = process.cpuUsage();
      const bytes = engines[name].exportDataset('big');
      const t = process.cpuUsage(t0);
      cpu[name].push((t.user + t.system) / 1e3);
      digests[name] = sha(bytes);
    }
    identical &&= digests.this === digests.baseline;
  }
  const ratios = cpu.this.map((x, i) => x / cpu.baseline[i]);
  record.export_ab = {
    baseline: resolve(opt('--baseline')),
    file_bytes: file.length,
    texts: WIDE ? 'Japanese' : 'ASCII',
    rounds: ROUNDS,
    identical_bytes: identical,
    this_cpu_ms: round(upperMedian(cpu.this), 0),
    baseline_cpu_ms: round(upperMedian(cpu.baseline), 0),
    ratio_median: round(upperMedian(ratios), 3),
    this_mb_per_s: round(file.length / 1e6 / (upperMedian(cpu.this) / 1e3), 0),
    load: loadSpread(loads),
  };
  console.log('export A/B', record.export_ab);
}

console.log('written', writeRecord(OUT, record));
