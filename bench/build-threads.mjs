// Parallel index builds (trainprint/node buildDatasetFile from dist/): build MB/s with 1 and 2
// threads on the same JSON Lines input, in alternating pairs of fresh processes (medians; the
// machine is shared, so only ratios within one run mean anything), with CPU/wall and the peak RSS
// of the build; then the peak RSS of exporting the snapshot, streamed (what the build writes with)
// against the in-memory exportDataset + writeFile, relative to the steady RSS of the loaded index.
// Peaks are the kernel's VmHWM, reset per phase through /proc/self/clear_refs (Linux).
//
// What bounds the ratio: the main thread's CPU time in each phase (Linux schedstat, so time spent
// waiting for a core on a busy machine is not counted). Its CPU time in the write phase (sorting the
// index, gathering the sorted columns, encoding and writing the snapshot) is serial in every build;
// as a share s of the one-thread build's CPU time it caps 2 threads at 1 / (s + (1 − s) / 2).
// Every build writes a new file (the rename over an old one would time the old one's deletion).
// Results: bench/results/build-threads.json.
//   node --expose-gc bench/build-threads.mjs [--mb 192] [--pairs 3] [--kind exact|portrait] [--dist DIR]
// --dist: another build of the package to measure (a baseline checkout's dist/); results are then
// written as build-threads-<suffix>-<dir name>.json.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, round } from './stats.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const MB = 1e6;
const here = fileURLToPath(new URL('.', import.meta.url));

/** On-CPU and run-queue time of this process's main thread (ms; Linux schedstat, null elsewhere). */
function mainThreadTimes() {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { cpu: run / 1e6, runq: wait / 1e6 };
  } catch {
    return null;
  }
}

/** The main thread's CPU time (ms) where schedstat has it, else the wall clock. */
const cpuNow = () => mainThreadTimes()?.cpu ?? performance.now();

/** Peak RSS since the last reset (bytes), and a reset: Linux only (null elsewhere). */
function peakRss() {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : null;
}
function resetPeak() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    /* not Linux: peaks are since start */
  }
}

// ------------------------------------------------------------------ child: one measured build or export
if (process.argv[2] === '--child') {
  const [, , , mode, input, out, kind, threadsArg, dist] = process.argv;
  const { buildDatasetFile, readDocuments } = await import(join(dist, 'node.js'));
  const { createEngine } = await import(join(dist, 'index.js'));
  if (mode === 'build') {
    globalThis.gc?.();
    resetPeak();
    let readPeak = null,
      readMs = 0,
      readCpu = 0,
      mainAtWrite = null;
    const cpu0 = process.cpuUsage(); // the whole process: every thread, exited ones too
    const main0 = mainThreadTimes();
    const t0 = performance.now();
    const r = await buildDatasetFile({
      dataset: 'bench',
      kind,
      files: [input],
      out,
      threads: Number(threadsArg),
      idField: 'id',
      onProgress: (p) => {
        if (p.phase !== 'write' || readPeak !== null) return;
        readPeak = peakRss();
        readMs = p.elapsed_ms;
        const c = process.cpuUsage(cpu0);
        readCpu = (c.user + c.system) / 1000;
        mainAtWrite = mainThreadTimes();
      },
    });
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadTimes();
    const main =
      main0 && main1 && mainAtWrite
        ? {
            main_cpu_index_ms: mainAtWrite.cpu - main0.cpu,
            main_cpu_write_ms: main1.cpu - mainAtWrite.cpu,
            main_runq_ms: main1.runq - main0.runq,
          }
        : {};
    process.stdout.write(
      JSON.stringify({
        wall_ms: wall,
        index_ms: readMs,
        write_ms: wall - readMs,
        cpu_ms: (cpu.user + cpu.system) / 1000,
        cpu_index_ms: readCpu,
        ...main,
        bytes: r.stats.bytes,
        documents: r.stats.documents,
        fingerprints: r.stats.fingerprints,
        index_bytes: r.stats.index_bytes,
        file_bytes: r.file_bytes,
        peak_rss_build: readPeak,
        peak_rss_total: peakRss(),
      }),
    );
  } else {
    // export: build in this thread, sort the index (the first export sorts it: its CPU time is
    // taken), warm it (a search), then measure one export of the loaded index
    const engine = await createEngine();
    await engine.addDataset({ id: 'bench', kind }, readDocuments([input], { idField: 'id' }));
    engine.finalizeDataset('bench');
    const s0 = cpuNow();
    engine.exportDatasetStream('bench');
    const sortMs = cpuNow() - s0;
    engine.search('warm the index: sort and prefix table');
    globalThis.gc?.();
    const steady = process.memoryUsage().rss;
    resetPeak();
    const t0 = performance.now();
    let fileBytes,
      columnsMs = 0,
      otherMs = 0;
    if (mode === 'export-inmemory') {
      const bytes = engine.exportDataset('bench');
      writeFileSync(out, bytes);
      fileBytes = bytes.length;
    } else {
      const { open } = await import('node:fs/promises');
      const fh = await open(out, 'w');
      const { crc32 } = await import('node:zlib'); // what buildDatasetFile checksums with
      const stream = engine.exportDatasetStream('bench', crc32 ? { crc32 } : {});
      // pieces gathered into 1 MiB writes (buildDatasetFile keeps four 2 MiB writes in flight: 8 MiB more)
      const buffer = new Uint8Array(1 << 20);
      let fill = 0,
        at = 0;
      const flush = async () => {
        await fh.write(buffer, 0, fill, at);
        at += fill;
        fill = 0;
      };
      // CPU time spent making the pieces: the index columns (keys read from the core, postings
      // gathered in sorted order, the signatures: the only pieces over 1 MiB) and the rest (docs, texts).
      const pieces = stream.pieces();
      for (;;) {
        const m0 = cpuNow();
        const next = pieces.next();
        const ms = cpuNow() - m0;
        if (next.done) break;
        const piece = next.value;
        if (piece.length > 1 << 20) columnsMs += ms;
        else otherMs += ms;
        if (fill + piece.length > buffer.length) await flush();
        if (piece.length >= buffer.length) {
          await fh.write(piece, 0, piece.length, at);
          at += piece.length;
        } else {
          buffer.set(piece, fill);
          fill += piece.length;
        }
      }
      await flush();
      const { offset, bytes } = stream.patch();
      await fh.write(bytes, 0, bytes.length, offset);
      await fh.close();
      fileBytes = stream.length;
    }
    process.stdout.write(
      JSON.stringify({
        export_ms: performance.now() - t0,
        steady_rss: steady,
        peak_rss_export: peakRss(),
        sort_ms: sortMs,
        ...(mode === 'export-stream' ? { columns_ms: columnsMs, other_pieces_ms: otherMs } : {}),
        index_bytes: engine.datasets()[0].index_bytes,
        file_bytes: fileBytes,
      }),
    );
  }
  process.exit(0);
}

// ------------------------------------------------------------------ parent
const { english } = await import('./corpus.mjs');
const BYTES = Number(arg('mb', '192')) * MB;
const PAIRS = Number(arg('pairs', '3'));
const KIND = arg('kind', 'exact');
const DIST = resolve(arg('dist', join(here, '..', 'dist')));
const own = DIST === resolve(join(here, '..', 'dist'));
const work = join(tmpdir(), `tp-bench-threads-${process.pid}`);
mkdirSync(work, { recursive: true });
const input = join(work, 'corpus.jsonl');
// Real English (12 MB available), repeated to size; copies after the first mark every 4th word with the
// copy number (as bench/index.mjs --scale does), so every copy adds distinct fingerprints.
const base = english(Math.min(BYTES, 12 * MB));
const DOC = 10_000;
const lines = [];
let have = 0;
for (let copy = 0; have < BYTES; copy++) {
  for (let at = 0; at < base.length && have < BYTES; at += DOC) {
    let text = base.slice(at, at + DOC);
    if (copy > 0) text = text.replace(/(\S+)(\s+\S+\s+\S+\s+\S+)/g, `$1x${copy}$2`);
    lines.push(JSON.stringify({ id: `c${copy}-d${at / DOC}`, text }));
    have += Buffer.byteLength(text);
  }
}
writeFileSync(input, lines.join('\n') + '\n');

const child = (mode, threads = 1) => {
  const out = join(work, `${mode}-${threads}.tpds`);
  rmSync(out, { force: true }); // a new file each time: renaming over the last one would time its deletion
  return JSON.parse(
    execFileSync(
      process.execPath,
      ['--expose-gc', fileURLToPath(import.meta.url), '--child', mode, input, out, KIND, String(threads), DIST],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    ),
  );
};

console.log(
  `input: ${lines.length} documents, ${(have / MB).toFixed(0)} MB of English text as JSON Lines; ${KIND}; ` +
    `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}); ${PAIRS} alternating pairs; ${DIST}`,
);
// What the machine gives right now: the same fixed spin loop in 1 and in 2 worker threads at once
// (2 free cores: ≈ 2.0; a core taken by other processes: ≈ 1.0), measured before every pair.
const { Worker } = await import('node:worker_threads');
const SPIN = `const { parentPort } = require('node:worker_threads'); let x = 0;
for (let i = 0; i < 1e8; i++) x = (x + i * 7) % 1000003; parentPort.postMessage(x);`;
async function spin(n) {
  const t = performance.now();
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve) => {
          const w = new Worker(SPIN, { eval: true });
          w.once('message', () => {
            void w.terminate();
            resolve();
          });
        }),
    ),
  );
  return performance.now() - t;
}
const capacity = [];
const runs = { 1: [], 2: [] };
for (let p = 0; p < PAIRS; p++) {
  const one = await spin(1),
    two = await spin(2);
  capacity.push((2 * one) / two);
  console.log(
    `  pair ${p + 1}: spin calibration, 2 threads do ${capacity[p].toFixed(2)}x the work of 1 in the same time`,
  );
  for (const threads of p % 2 === 0 ? [1, 2] : [2, 1]) {
    const r = child('build', threads);
    r.mb_s = r.bytes / MB / (r.wall_ms / 1000);
    r.cpu_wall = r.cpu_ms / r.wall_ms;
    runs[threads].push(r);
    console.log(
      `  pair ${p + 1}, ${threads} thread${threads > 1 ? 's' : ''}: ${r.mb_s.toFixed(2)} MB/s (${r.wall_ms.toFixed(0)} ms: index ${r.index_ms.toFixed(0)}, write ${r.write_ms.toFixed(0)}), ` +
        `CPU/wall ${r.cpu_wall.toFixed(2)}, main thread CPU index ${r.main_cpu_index_ms?.toFixed(0)} + write ${r.main_cpu_write_ms?.toFixed(0)} ms ` +
        `(waited for a core ${r.main_runq_ms?.toFixed(0)} ms), peak RSS build ${(r.peak_rss_build / MB).toFixed(0)} MB, overall ${(r.peak_rss_total / MB).toFixed(0)} MB`,
    );
  }
}
const hashes = new Set(
  [1, 2].map((t) => execFileSync('sha256sum', [join(work, `build-${t}.tpds`)], { encoding: 'utf8' }).split(' ')[0]),
);
const range = (xs) => [Math.min(...xs), Math.max(...xs)];
const summary = (rs) => ({
  mb_s: round(median(rs.map((r) => r.mb_s)), 2),
  mb_s_range: range(rs.map((r) => r.mb_s)).map((x) => round(x, 2)),
  wall_ms: Math.round(median(rs.map((r) => r.wall_ms))),
  cpu_ms: Math.round(median(rs.map((r) => r.cpu_ms))),
  cpu_index_ms: Math.round(median(rs.map((r) => r.cpu_index_ms))),
  main_cpu_index_ms: Math.round(median(rs.map((r) => r.main_cpu_index_ms ?? NaN))),
  main_cpu_write_ms: Math.round(median(rs.map((r) => r.main_cpu_write_ms ?? NaN))),
  main_runq_ms: Math.round(median(rs.map((r) => r.main_runq_ms ?? NaN))),
  index_ms: Math.round(median(rs.map((r) => r.index_ms))),
  write_ms: Math.round(median(rs.map((r) => r.write_ms))),
  cpu_wall: round(median(rs.map((r) => r.cpu_wall)), 2),
  peak_rss_build_mb: Math.round(median(rs.map((r) => r.peak_rss_build)) / MB),
  peak_rss_total_mb: Math.round(median(rs.map((r) => r.peak_rss_total)) / MB),
  runs_mb_s: rs.map((r) => r.mb_s.toFixed(2)).map(Number),
});
const one = summary(runs[1]),
  two = summary(runs[2]);
const ratios = runs[1].map((r, i) => runs[2][i].mb_s / r.mb_s);
// The serial share: the main thread's write-phase CPU over the whole one-thread build's CPU, per run.
const serial = runs[1].map((r) => r.main_cpu_write_ms / r.cpu_ms);
const bound = (s) => 1 / (s + (1 - s) / 2);
console.log(
  `build: 1 thread ${one.mb_s} MB/s, 2 threads ${two.mb_s} MB/s; ratio (median of pairs) ${round(median(ratios), 2)}x ` +
    `(${round(Math.min(...ratios), 2)}-${round(Math.max(...ratios), 2)}); CPU/wall ${one.cpu_wall} vs ${two.cpu_wall}; files identical: ${hashes.size === 1}; ` +
    `spin calibration ${round(median(capacity), 2)}x`,
);
console.log(
  `serial: the write phase is ${(100 * median(serial)).toFixed(0)} % of a one-thread build's CPU time ` +
    `(${one.main_cpu_write_ms} of ${one.cpu_ms} ms), so 2 threads can be at most ${round(bound(median(serial)), 2)}x as fast`,
);

// Export peaks: streamed (as buildDatasetFile writes) vs in memory, alternating.
const exports = { 'export-stream': [], 'export-inmemory': [] };
for (let p = 0; p < PAIRS; p++) {
  for (const mode of p % 2 === 0 ? ['export-stream', 'export-inmemory'] : ['export-inmemory', 'export-stream']) {
    const r = child(mode);
    r.peak_over_steady = r.peak_rss_export / r.steady_rss;
    exports[mode].push(r);
    console.log(
      `  pair ${p + 1}, ${mode}: steady RSS ${(r.steady_rss / MB).toFixed(0)} MB, export peak ${(r.peak_rss_export / MB).toFixed(0)} MB ` +
        `(${r.peak_over_steady.toFixed(2)}x), ${r.export_ms.toFixed(0)} ms; index ${(r.index_bytes / MB).toFixed(0)} MB, file ${(r.file_bytes / MB).toFixed(0)} MB; ` +
        `sort ${r.sort_ms.toFixed(0)} ms${r.columns_ms === undefined ? '' : `, index columns ${r.columns_ms.toFixed(0)} ms, other pieces ${r.other_pieces_ms.toFixed(0)} ms`}`,
    );
  }
}
const exportSummary = (rs) => ({
  steady_rss_mb: Math.round(median(rs.map((r) => r.steady_rss)) / MB),
  peak_rss_mb: Math.round(median(rs.map((r) => r.peak_rss_export)) / MB),
  peak_over_steady: round(median(rs.map((r) => r.peak_over_steady)), 2),
  export_ms: Math.round(median(rs.map((r) => r.export_ms))),
  index_mb: Math.round(rs[0].index_bytes / MB),
  file_mb: Math.round(rs[0].file_bytes / MB),
  sort_ms: Math.round(median(rs.map((r) => r.sort_ms))),
  ...(rs[0].columns_ms === undefined
    ? {}
    : {
        columns_ms: Math.round(median(rs.map((r) => r.columns_ms))),
        other_pieces_ms: Math.round(median(rs.map((r) => r.other_pieces_ms))),
      }),
});
const streamed = exportSummary(exports['export-stream']),
  inMemory = exportSummary(exports['export-inmemory']);
console.log(
  `export peak / steady RSS: streamed ${streamed.peak_over_steady}x, in memory ${inMemory.peak_over_steady}x`,
);
console.log(
  `the export's steps (main-thread CPU time, medians): sort ${streamed.sort_ms} ms, index columns ${streamed.columns_ms} ms, ` +
    `other pieces ${streamed.other_pieces_ms} ms, for ${runs[1][0].fingerprints} fingerprints`,
);

const result = {
  bench: 'build-threads',
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  ...(own ? {} : { dist: DIST }),
  input: { documents: lines.length, mb: BYTES / MB, kind: KIND, format: 'jsonl' },
  pairs: PAIRS,
  build: {
    threads_1: one,
    threads_2: two,
    ratio_2_over_1: round(median(ratios), 2),
    ratios: ratios.map((x) => round(x, 2)),
    files_identical: hashes.size === 1,
    serial_share: round(median(serial), 2),
    serial_shares: serial.map((x) => round(x, 2)),
    ratio_bound: round(bound(median(serial)), 2),
    spin_capacity_2_over_1: round(median(capacity), 2),
    spin_capacity: capacity.map((x) => round(x, 2)),
  },
  export: { streamed, in_memory: inMemory },
};
mkdirSync(join(here, 'results'), { recursive: true });
const suffix = `${BYTES === 192 * MB ? '' : `-${BYTES / MB}mb`}${KIND === 'exact' ? '' : `-${KIND}`}${own ? '' : `-${basename(resolve(DIST, '..'))}`}`;
writeFileSync(join(here, 'results', `build-threads${suffix}.json`), JSON.stringify(result, null, 2) + '\n');
rmSync(work, { recursive: true, force: true });
