#!/usr/bin/env node
/**
 * What a file store's compaction leaves in memory: a store of `--mb` MB of values (100 KB each) is compacted, and
 * the process's ArrayBuffer memory after a full collection is compared with before it. Beside it, in the same run,
 * the way compaction encoded before (one shared msgpack Encoder for the whole snapshot, as src/store/file.ts did):
 * the buffer such an encoder keeps after encoding the same entries.
 *
 *   npm run build && nice node --expose-gc bench/store-compaction-memory.mjs [--mb 200] [--lib dist/node.js]
 *     [--out bench/results/store-compaction-memory.json]
 */
import './help.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Encoder } from '@msgpack/msgpack';
import { recordHeader, writeRecord } from './record.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '200' },
    out: { type: 'string', default: 'bench/results/store-compaction-memory.json' },
    // the module of openFileStore: the built trainprint/node by default
    lib: { type: 'string', default: resolve(ROOT, 'dist/node.js') },
  },
});
const { openFileStore } = await import(resolve(values.lib));
if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
const VALUE = 100_000;
const count = Math.round((Number(values.mb) * 1e6) / VALUE);
const mb = (n) => Math.round(n / 1e5) / 10;
const memory = async () => {
  // ArrayBuffers' memory is freed as the collection sweeps: collected twice, a moment apart
  global.gc();
  await new Promise((r) => setTimeout(r, 1000));
  global.gc();
  const m = process.memoryUsage();
  return { rss_mb: mb(m.rss), array_buffers_mb: mb(m.arrayBuffers), heap_used_mb: mb(m.heapUsed) };
};

const dir = mkdtempSync(join(tmpdir(), 'compaction-memory-'));
const result = {
  ...recordHeader('store-compaction-memory'),
  lib: relative(ROOT, resolve(values.lib)),
  values: count,
  value_bytes: VALUE,
};
try {
  // compactEvery above the records written here: the one compaction comes when the test asks for it
  let store = await openFileStore(dir, { compactEvery: count + 10 });
  for (let i = 0; i < count; i += 50) {
    await store.batch(
      Array.from({ length: Math.min(50, count - i) }, (_, j) => ({
        type: 'put',
        key: `analysis-record/${String(i + j).padStart(8, '0')}`,
        value: new Uint8Array(VALUE).fill((i + j) & 0xff),
      })),
    );
  }
  await store.close();
  // reopened (the values are now those the log replay made) with a compaction on the next write
  store = await openFileStore(dir, { compactEvery: 1 });
  const before = await memory();
  await store.put('trigger', 1); // the log has 1 record ≥ compactEvery: the store compacts
  const after = await memory();
  result.store = {
    held_before: before,
    after_the_compaction: after,
    array_buffers_kept_mb: Math.round((after.array_buffers_mb - before.array_buffers_mb) * 10) / 10,
  };
  // the former way, in the same process: one Encoder for the whole snapshot, kept (it was a module constant)
  const entries = [];
  for (const [key, value] of await store.scan('analysis-record/')) entries.push([key, value]);
  await store.close();
  const encoder = new Encoder();
  const beforeOld = await memory();
  encoder.encode({ entries });
  const afterOld = await memory();
  result.former_shared_encoder = {
    encoder_buffer_kept_mb: mb(encoder.bytes.byteLength),
    array_buffers_kept_mb: Math.round((afterOld.array_buffers_mb - beforeOld.array_buffers_mb) * 10) / 10,
  };
  console.log(JSON.stringify(result));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`wrote ${writeRecord(values.out, result)}`);
