/**
 * Preloaded into the `serve` of bench/hostile-soak.mjs with `--memory-trace FILE` (node --require): writes the main
 * thread's `process.memoryUsage()` and V8's heap statistics as one JSON line a second to
 * TRAINPRINT_MEMORY_TRACE, so that a growth of the RSS can be told apart: the V8 heap (heapUsed), Buffers and other
 * ArrayBuffers (external, arrayBuffers), or native memory outside both (the allocator, WebAssembly memories, threads).
 * The WebAssembly memories of every thread are read from /proc/self/smaps (`wasm`: how many, their resident MB and
 * their size): on x64 V8 reserves 8 GiB and more for each 32-bit memory and makes its first pages readable, so a
 * memory is a read-write mapping followed at once by an inaccessible one of over 4 GiB.
 * On SIGUSR2 it collects garbage first (the process runs with --expose-gc) and writes one line marked `gc`, and with
 * TRAINPRINT_HEAP_SNAPSHOT_DIR a heap snapshot there. A worker thread (preloaded there too) writes its own V8 heap
 * every 2 s, marked with its `thread` id, a line `{ thread, mark: 'exit' }` as it ends; its heap is not collected
 * on SIGUSR2 (a signal reaches the main thread only).
 */
'use strict';
const { appendFileSync, readFileSync } = require('node:fs');
const { isMainThread, threadId } = require('node:worker_threads');
const v8 = require('node:v8');
const { constants, PerformanceObserver } = require('node:perf_hooks');

const file = process.env.TRAINPRINT_MEMORY_TRACE;
const mb = (n) => Math.round((n / 1048576) * 10) / 10;
/** V8's major collections of this thread so far (`major_gcs` in each line): when the old space was last collected. */
let majorGcs = 0;
if (file) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
  }).observe({ entryTypes: ['gc'] });
}
if (file && !isMainThread) {
  const sample = (mark) => {
    const m = process.memoryUsage();
    const line = {
      t: Date.now(),
      thread: threadId,
      ...(mark ? { mark } : {}),
      heap_total: mb(m.heapTotal),
      heap_used: mb(m.heapUsed),
      external: mb(m.external),
      array_buffers: mb(m.arrayBuffers),
      major_gcs: majorGcs,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  sample('start');
  setInterval(() => sample(), 2000).unref();
  process.on('exit', () => sample('exit'));
}
if (file && isMainThread) {
  const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  /** The WebAssembly memories of the process (all threads): count, resident MB, size MB, and each one's resident MB. */
  const wasm = () => {
    const out = { count: 0, rss: 0, size: 0, each: [] };
    let prev = null;
    let cur = null;
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
      if (head) {
        prev = cur;
        cur = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3], rss: 0 };
        const big = cur.end - cur.start > 4n << 30n;
        if (big && cur.perms === '---p' && prev?.perms === 'rw-p' && prev.end === cur.start) {
          out.count++;
          out.rss += prev.rss;
          out.each.push(mb(prev.rss * 1024));
          out.size += Number(prev.end - prev.start) / 1024;
        }
      } else if (cur && line.startsWith('Rss:')) cur.rss = Number(/\d+/.exec(line)[0]);
    }
    return { count: out.count, rss: mb(out.rss * 1024), size: mb(out.size * 1024), each: out.each };
  };
  let n = 0;
  const sample = (mark) => {
    const m = process.memoryUsage();
    const h = v8.getHeapStatistics();
    // smaps is read every 5 s and at each mark: about a MB of text for a server's mappings
    const line = {
      t: Date.now(),
      ...(mark ? { mark } : {}),
      rss: mb(m.rss),
      heap_total: mb(m.heapTotal),
      heap_used: mb(m.heapUsed),
      external: mb(m.external),
      array_buffers: mb(m.arrayBuffers),
      malloced: mb(h.malloced_memory),
      major_gcs: majorGcs,
      threads: threads(),
      handles: process.getActiveResourcesInfo().length,
      ...(mark || n++ % 5 === 0 ? { wasm: wasm() } : {}),
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
