/**
 * Preloaded into a `serve` (node --require, e.g. `SERVE_NODE_ARGS="--require ./bench/loop-gaps.cjs --cpu-prof …"`): a
 * timer every 5 ms on the main thread; each time it fires more than TRAINPRINT_LOOP_GAP_MS (50 by default) late, the
 * event loop was held that long — no probe, timer or socket was served — and one JSON line is appended to
 * TRAINPRINT_LOOP_GAPS: the stretch's start and end on the monotonic clock in µs (`process.hrtime`, the clock of a
 * `--cpu-prof` profile's sample times, so bench/long-tasks.mjs --gaps can name what ran in it), its length, and the
 * main thread's CPU time within it (Linux: /proc/self/task/<pid>/stat, 10 ms ticks) — a stretch much longer than
 * its CPU time is the machine's (the thread not running: other processes on the cores, or a page fault), not work.
 */
'use strict';
const { appendFileSync, readFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

const file = process.env.TRAINPRINT_LOOP_GAPS;
if (file && isMainThread) {
  const over = Number(process.env.TRAINPRINT_LOOP_GAP_MS ?? 50) * 1000;
  const every = 5;
  const us = () => Number(process.hrtime.bigint() / 1000n);
  const stat = `/proc/self/task/${process.pid}/stat`;
  /** The main thread's user + system time in ms (fields 14 and 15 after the command's name, in 10 ms ticks). */
  const cpuMs = () => {
    try {
      const f = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    } catch {
      return Number.NaN;
    }
  };
  let last = us();
  let lastCpu = cpuMs();
  let lines = [];
  const tick = () => {
    const now = us();
    const cpu = cpuMs();
    // the timer was due `every` ms after the last fire: what came on top of that is the loop's hold
    if (now - last - every * 1000 > over)
      lines.push(JSON.stringify({ from_us: last, to_us: now, ms: Math.round((now - last) / 1000), cpu_ms: cpu - lastCpu }));
    last = now;
    lastCpu = cpu;
  };
  const flush = () => {
    if (lines.length) appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  setInterval(tick, every).unref();
  setInterval(flush, 2000).unref();
  process.on('exit', flush);
}
