#!/usr/bin/env node
/**
 * Where the file store's `valuesOnDiskFrom` should lie: one store of values of four sizes (just over 1, 4, 16 and
 * 64 KiB encoded, `--per-size` of each, plus 2,000 small counters), opened with each threshold of `--thresholds` (and
 * Infinity: every value in memory, the reference) on copies of the same files, in one process (`--expose-gc`).
 * Measured per threshold: the memory its open keeps (V8 heap in use + ArrayBuffers after a collection, less the same
 * before it opened), and per value size the CPU time (user + system) of a `get`, and of a `scan` of a page of 20
 * values of one size — the medians over `--rounds` rounds, the thresholds taking turns in an order that rotates each
 * round. Each CPU figure is also given as a ratio to the same call on the Infinity store in the same run. The files
 * are in the page cache (written just before): the cost is the system calls, the copy and the CRC check, not a disk.
 *
 *   npm run build && nice node --expose-gc bench/store-threshold.mjs [--rounds 7] [--per-size 300]
 *     [--thresholds 1024,4096,16384,65536] [--out bench/results/store-threshold.json]
 */
import './help.mjs';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionsOrUsage } from './cli-args.mjs';
import { loadNow, recordHeader, writeRecord } from './record.mjs';
import { upperMedian } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `usage: nice node --expose-gc bench/store-threshold.mjs [--rounds 7] [--per-size 300] [--thresholds 1024,4096,16384,65536] [--out bench/results/store-threshold.json]`;
const OPTIONS = {
  rounds: { type: 'string', default: '7' },
  'per-size': { type: 'string', default: '300' },
  thresholds: { type: 'string', default: '1024,4096,16384,65536' },
  out: { type: 'string', default: 'bench/results/store-threshold.json' },
};
/** Encoded sizes of the values measured: at or just above each threshold swept. */
const SIZES = [1024, 4096, 16384, 65536];

/**
 * A record of just over `bytes` encoded bytes (its text alone is `bytes` long), so that a threshold of `bytes` keeps
 * it on disk: a text object, as the service keeps audits and analyses.
 */
function record(bytes, i) {
  const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];
  let text = '';
  for (let k = 0; text.length < bytes; k++) text += `${words[(k * 31 + i) % words.length]} `;
  return { id: i, created: 1_700_000_000_000 + i, text: text.slice(0, bytes) };
}

const kept = () => {
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** CPU µs per call of `body` over `calls` calls. */
async function cpuPerCall(calls, body) {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) await body(i);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / calls;
}

async function main() {
  const values = optionsOrUsage(OPTIONS, USAGE);
  if (typeof globalThis.gc !== 'function') {
    console.log(USAGE);
    process.exit(2);
  }
  const { openFileStore } = await import(pathToFileURL(join(ROOT, 'dist', 'node.js')).href);
  const perSize = Number(values['per-size']);
  const thresholds = [...values.thresholds.split(',').map(Number), Infinity];
  const keyOf = (size, i) => `v/${String(size).padStart(6, '0')}/${String(i).padStart(5, '0')}`;
  const dir = mkdtempSync(join(tmpdir(), 'store-threshold-'));
  const stores = new Map();
  const keptBytes = new Map();
  try {
    const origin = join(dir, 'origin');
    const writer = await openFileStore(origin, { compactEvery: 1_000_000 });
    for (let i = 0; i < perSize; i++) {
      await writer.batch(SIZES.map((size) => ({ type: 'put', key: keyOf(size, i), value: record(size, i) })));
    }
    for (let i = 0; i < 2_000; i += 100) {
      await writer.batch(Array.from({ length: 100 }, (_, k) => ({ type: 'put', key: `usage/${i + k}`, value: i + k })));
    }
    await writer.close();
    for (const t of thresholds) {
      const copy = join(dir, `t-${t}`);
      cpSync(origin, copy, { recursive: true });
      const before = kept();
      stores.set(t, await openFileStore(copy, { valuesOnDiskFrom: t, compactEvery: 1_000_000 }));
      keptBytes.set(t, kept() - before);
    }
    const samples = new Map(thresholds.map((t) => [t, { get: SIZES.map(() => []), scan: SIZES.map(() => []) }]));
    for (let round = 0; round < Number(values.rounds); round++) {
      const order = thresholds.map((_, k) => thresholds[(k + round) % thresholds.length]);
      for (const t of order) {
        const store = stores.get(t);
        for (const [s, size] of SIZES.entries()) {
          samples.get(t).get[s].push(await cpuPerCall(perSize, (i) => store.get(keyOf(size, (i * 61) % perSize))));
          const pages = Math.floor(perSize / 20);
          samples
            .get(t)
            .scan[s].push(
              await cpuPerCall(pages, (i) =>
                store.scan(`v/${String(size).padStart(6, '0')}/`, { after: keyOf(size, i * 20), limit: 20 }),
              ),
            );
        }
      }
    }
    const inMemory = samples.get(Infinity);
    const figures = thresholds.map((t) => {
      const sample = samples.get(t);
      const bySize = Object.fromEntries(
        SIZES.map((size, s) => {
          const get = upperMedian(sample.get[s]);
          const scan = upperMedian(sample.scan[s]);
          return [
            `${size / 1024}_KiB`,
            {
              on_disk: size >= t,
              get_cpu_us: Math.round(get * 10) / 10,
              get_ratio_to_in_memory: Math.round((get / upperMedian(inMemory.get[s])) * 100) / 100,
              scan_20_cpu_us: Math.round(scan),
              scan_ratio_to_in_memory: Math.round((scan / upperMedian(inMemory.scan[s])) * 100) / 100,
            },
          ];
        }),
      );
      return {
        values_on_disk_from: Number.isFinite(t) ? t : 'Infinity',
        kept_mb: Math.round(keptBytes.get(t) / 1e4) / 100,
        kept_ratio_to_in_memory: Math.round((keptBytes.get(t) / keptBytes.get(Infinity)) * 100) / 100,
        by_value_size: bySize,
      };
    });
    return {
      ...recordHeader('store-threshold'),
      values_per_size: perSize,
      small_entries: 2_000,
      rounds: Number(values.rounds),
      load_average_at_start: loadAtStart,
      thresholds: figures,
      load_average_at_end: loadNow(),
      out: values.out,
    };
  } finally {
    for (const s of stores.values()) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadAtStart = loadNow();
const result = await main();
if (result) {
  const { out, ...record } = result;
  console.log(JSON.stringify(record, null, 2));
  console.log(`wrote ${writeRecord(out, record)}`);
}
