#!/usr/bin/env node
/**
 * What a major collection asked for by a quiet server costs its event loop: `vm.measureMemory()`'s, which `serve`
 * asks for after large work (src/node/quiet-collect.ts: V8 starts incremental marking 10–20 s later), against the
 * same with `execution: 'eager'` (started at once; a marking already under way is finished in one step) and `gc()`
 * (the atomic one behind `--expose-gc`). Each run is a fresh child process, the kinds in turn, rotated a place each
 * round: it builds a live heap (600,000 small records, as a store keeps) and garbage beside it (a 400,000-record
 * catalogue, stringified and parsed, then dropped), waits 1 s idle (nothing collects it), then collects while a 2 ms
 * timer runs; the longest gap between the timer's ticks is the longest the thread was held (with the wait for the
 * CPU on a loaded machine). Medians over the rounds.
 *
 *   nice node bench/quiet-collect.mjs [--rounds 5] [--out bench/results/quiet-collect-pause.json]
 */
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const mb = (n) => Math.round(n / 1048576);

async function child(kind) {
  const vm = await import('node:vm');
  const v8 = await import('node:v8');
  const live = [];
  for (let i = 0; i < 600_000; i++) live.push({ id: `w${i}`, n: i, s: `${'x'.repeat(20)}${i}` });
  let catalogue = [];
  for (let i = 0; i < 400_000; i++) catalogue.push({ id: `g${i}`, text: `${'y'.repeat(50)}${i}`, n: [i, i + 1] });
  let body = JSON.stringify(catalogue);
  let parsed = JSON.parse(body);
  catalogue = body = parsed = null;
  await new Promise((r) => setTimeout(r, 1000));
  const before = process.memoryUsage();
  let last = performance.now();
  let held = 0;
  const tick = setInterval(() => {
    const t = performance.now();
    held = Math.max(held, t - last);
    last = t;
  }, 2);
  await new Promise((r) => setTimeout(r, 20));
  const start = performance.now();
  const cpu = process.cpuUsage();
  if (kind === 'delayed') await vm.measureMemory({ mode: 'summary' });
  else if (kind === 'eager') await vm.measureMemory({ mode: 'summary', execution: 'eager' });
  else {
    v8.setFlagsFromString('--expose-gc');
    vm.runInNewContext('gc')();
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  await new Promise((r) => setTimeout(r, 1000)); // freed pages given back; the timer sees the loop after the call
  clearInterval(tick);
  const after = process.memoryUsage();
  const out = {
    kind,
    held_ms: Math.round(held),
    wall_ms: Math.round(wallMs),
    main_thread_cpu_ms: Math.round(cpuMs),
    heap_used_mb: [mb(before.heapUsed), mb(after.heapUsed)],
    rss_mb: [mb(before.rss), mb(after.rss)],
    live: live.length,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

async function main() {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      rounds: { type: 'string', default: '5' },
      out: { type: 'string', default: 'bench/results/quiet-collect-pause.json' },
    },
  });
  if (values.child) return child(values.child);
  const self = fileURLToPath(import.meta.url);
  const kinds = ['delayed', 'eager', 'atomic'];
  const runs = Object.fromEntries(kinds.map((k) => [k, []]));
  const result = {
    bench: 'quiet-collect',
    node: process.version,
    cpus: cpus().length,
    load_average_at_start: loadavg(),
  };
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]);
    for (const kind of order) {
      const line = execFileSync(process.execPath, ['--no-warnings', self, '--child', kind], { encoding: 'utf8' });
      runs[kind].push(JSON.parse(line));
      console.log(line.trim());
    }
  }
  result.load_average_at_end = loadavg();
  result.runs = runs;
  result.medians = Object.fromEntries(
    Object.entries(runs).map(([kind, rs]) => [
      kind,
      {
        held_ms: median(rs.map((r) => r.held_ms)),
        wall_ms: median(rs.map((r) => r.wall_ms)),
        main_thread_cpu_ms: median(rs.map((r) => r.main_thread_cpu_ms)),
        heap_used_after_mb: median(rs.map((r) => r.heap_used_mb[1])),
        rss_after_mb: median(rs.map((r) => r.rss_mb[1])),
      },
    ]),
  );
  result.held_ratio_to_atomic = Object.fromEntries(
    kinds.map((k) => [k, Math.round((result.medians[k].held_ms / result.medians.atomic.held_ms) * 1000) / 1000]),
  );
  const out = resolve(ROOT, values.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result.medians), `wrote ${relative(ROOT, out)}`);
}

await main();
