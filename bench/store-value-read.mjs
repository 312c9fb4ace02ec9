#!/usr/bin/env node
/**
 * What the buffer of a value read from disk costs: a positional read of `--bytes` bytes (200 KB by default, a stored
 * analysis) into a zero-filled `new Uint8Array` against one into `Buffer.allocUnsafeSlow` (what the file store's
 * value reads now use: every byte is written by the read before it is returned), through a FileHandle as the store
 * reads, rounds alternating which goes first. CPU time per read (user + system), medians over `--rounds`, and the
 * ratio of the unfilled to the zero-filled in the same run. A third variant reads into an unfilled buffer with
 * `fs.read` on the handle's descriptor (a callback, no FileHandle promise), to see what the promise API costs. The file is in the page cache (written just before).
 *
 *   nice node bench/store-value-read.mjs [--bytes 200000] [--rounds 9] [--reads 2000]
 *     [--out bench/results/store-value-read.json]
 */
import './help.mjs';
import { mkdtempSync, read, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { optionsOrUsage } from './cli-args.mjs';
import { loadNow, recordHeader, writeRecord } from './record.mjs';
import { upperMedian } from './stats.mjs';

const USAGE = `usage: nice node bench/store-value-read.mjs [--bytes 200000] [--rounds 9] [--reads 2000] [--out bench/results/store-value-read.json]`;
const OPTIONS = {
  bytes: { type: 'string', default: '200000' },
  rounds: { type: 'string', default: '9' },
  reads: { type: 'string', default: '2000' },
  out: { type: 'string', default: 'bench/results/store-value-read.json' },
};

/** fs.read on the FileHandle's descriptor, with a callback: the same system call without the FileHandle's promise. */
function readByCallback(fd, out, at, length, position) {
  return new Promise((resolve, reject) => {
    read(fd, out, at, length, position, (error, bytesRead) => (error ? reject(error) : resolve({ bytesRead })));
  });
}

async function readInto(handle, out, offset, byCallback = false) {
  for (let done = 0; done < out.length; ) {
    const { bytesRead } = byCallback
      ? await readByCallback(handle.fd, out, done, out.length - done, offset + done)
      : await handle.read(out, done, out.length - done, offset + done);
    if (bytesRead === 0) throw new Error('short read');
    done += bytesRead;
  }
  return out;
}

const BUFFERS = {
  zero_filled: (n) => new Uint8Array(n),
  unfilled: (n) => {
    const b = Buffer.allocUnsafeSlow(n);
    return new Uint8Array(b.buffer, b.byteOffset, n);
  },
};

async function main() {
  const values = optionsOrUsage(OPTIONS, USAGE);
  const bytes = Number(values.bytes);
  const reads = Number(values.reads);
  const dir = mkdtempSync(join(tmpdir(), 'store-value-read-'));
  const loadAtStart = loadNow();
  try {
    const path = join(dir, 'values');
    const slots = 64;
    writeFileSync(path, Buffer.alloc(bytes * slots, 7));
    const handle = await open(path, 'r');
    const samples = { zero_filled: [], unfilled: [], unfilled_callback: [] };
    const variants = {
      zero_filled: (i) => readInto(handle, BUFFERS.zero_filled(bytes), (i % slots) * bytes),
      unfilled: (i) => readInto(handle, BUFFERS.unfilled(bytes), (i % slots) * bytes),
      unfilled_callback: (i) => readInto(handle, BUFFERS.unfilled(bytes), (i % slots) * bytes, true),
    };
    const names = Object.keys(variants);
    try {
      for (let round = 0; round < Number(values.rounds); round++) {
        // each variant goes first in turn
        for (const name of names.map((_, k) => names[(k + round) % names.length])) {
          const cpu0 = process.cpuUsage();
          for (let i = 0; i < reads; i++) await variants[name](i);
          const cpu = process.cpuUsage(cpu0);
          samples[name].push((cpu.user + cpu.system) / reads);
        }
      }
    } finally {
      await handle.close();
    }
    const zero = upperMedian(samples.zero_filled);
    const unfilled = upperMedian(samples.unfilled);
    const callback = upperMedian(samples.unfilled_callback);
    return {
      ...recordHeader('store-value-read'),
      bytes,
      reads_per_round: reads,
      rounds: Number(values.rounds),
      cpu_us_per_read: {
        zero_filled: Math.round(zero * 10) / 10,
        unfilled: Math.round(unfilled * 10) / 10,
        unfilled_callback: Math.round(callback * 10) / 10,
      },
      unfilled_to_zero_filled: Math.round((unfilled / zero) * 100) / 100,
      unfilled_callback_to_unfilled: Math.round((callback / unfilled) * 100) / 100,
      load_average_at_start: loadAtStart,
      load_average_at_end: loadNow(),
      out: values.out,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const result = await main();
const { out, ...record } = result;
console.log(JSON.stringify(record, null, 2));
console.log(`wrote ${writeRecord(out, record)}`);
