/**
 * Preloaded into the `serve` of bench/hostile-soak.mjs with `--memory-trace FILE` (node --require): writes the main
 * thread's `process.memoryUsage()` and V8's heap statistics as one JSON line a second to
 * TRAINPRINT_MEMORY_TRACE, so that a growth of the RSS can be told apart: the V8 heap (heapUsed), Buffers and other
 * ArrayBuffers (external, arrayBuffers), or native memory outside both (the allocator, WebAssembly memories, threads).
 * On SIGUSR2 it collects garbage first (the process runs with --expose-gc) and writes one line marked `gc`, and with
 * TRAINPRINT_HEAP_SNAPSHOT_DIR a heap snapshot there. Runs in the main thread only: worker threads' heaps show in
 * the RSS, not in these lines.
 */
'use strict';
const { appendFileSync, readFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');
const v8 = require('node:v8');

const file = process.env.TRAINPRINT_MEMORY_TRACE;
if (file && isMainThread) {
  const mb = (n) => Math.round((n / 1048576) * 10) / 10;
  const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  const sample = (mark) => {
    const m = process.memoryUsage();
    const h = v8.getHeapStatistics();
    const line = {
      t: Date.now(),
      ...(mark ? { mark } : {}),
      rss: mb(m.rss),
      heap_total: mb(m.heapTotal),
      heap_used: mb(m.heapUsed),
      external: mb(m.external),
      array_buffers: mb(m.arrayBuffers),
      malloced: mb(h.malloced_memory),
      threads: threads(),
      handles: process.getActiveResourcesInfo().length,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(() => sample(), 1000).unref();
  process.on('SIGUSR2', () => {
    if (typeof global.gc === 'function') global.gc();
    sample('gc');
    if (process.env.TRAINPRINT_HEAP_SNAPSHOT_DIR) {
      const path = v8.writeHeapSnapshot(`${process.env.TRAINPRINT_HEAP_SNAPSHOT_DIR}/serve-${Date.now()}.heapsnapshot`);
      appendFileSync(file, `${JSON.stringify({ t: Date.now(), mark: 'snapshot', path })}\n`);
    }
  });
}
