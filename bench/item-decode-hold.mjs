#!/usr/bin/env node
/**
 * How long a job's catalogue item read from a store holds the event loop, this build against a baseline build
 * (`--baseline DIR`, another dist/), alternating build by build, each round in a child process of its own: an item of
 * `--works` works (100,000 by default, 60 made-up words each: bench/hostile-attackers.mjs's, about 40 MB of msgpack)
 * put in a MemoryStore, then read inside a transaction, as a runner's claim reads its chunk. A 5 ms timer on the
 * main thread (as bench/loop-gaps.cjs's) gives `longest_hold_ms`, the longest it fired late while the read ran;
 * `read_ms` is the read's whole time and `cpu_ms` the process's CPU time in it.
 *
 *   npm run build && nice node bench/item-decode-hold.mjs --baseline ../base/dist [--rounds 5] [--works 100000]
 *     [--out bench/results/item-decode-hold.json]
 */
import './help.mjs';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { madeUpText } from './hostile-attackers.mjs';
import { median } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** One round of one build, in this process. */
async function measure(dist, works) {
  const { MemoryStore } = await import(pathToFileURL(resolve(dist, 'index.js')).href);
  const store = new MemoryStore();
  const item = {
    works: Array.from({ length: works }, (_, i) => ({ id: `w${i}`, text: madeUpText(60, i) })),
    model: { base_url: 'http://127.0.0.1:9/v1', model: 'm' },
    budget_calls: 2000,
  };
  await store.put('job-items/j/00000000', [item]);
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 5);
    last = now;
  }, 5);
  await new Promise((r) => setTimeout(r, 50));
  longest = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const read = await store.transaction((tx) => tx.get('job-items/j/00000000'));
  const readMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // the timer's last firing after the read, so that a hold at its very end is counted
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(timer);
  if (read[0].works.length !== works || read[0].works[works - 1].text !== item.works[works - 1].text)
    throw new Error('the item read back is not the item stored');
  await store.close();
  return {
    longest_hold_ms: Math.round(longest),
    read_ms: Math.round(readMs),
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      baseline: { type: 'string' },
      dist: { type: 'string', default: resolve(ROOT, 'dist') },
      rounds: { type: 'string', default: '5' },
      works: { type: 'string', default: '100000' },
      out: { type: 'string', default: 'bench/results/item-decode-hold.json' },
    },
  });
  const works = Number(values.works);
  if (values.child) {
    process.stdout.write(JSON.stringify(await measure(values.child, works)));
    return;
  }
  if (!values.baseline) throw new Error('--baseline DIR (a dist/ to compare with) is needed');
  const builds = { this: resolve(values.dist), baseline: resolve(values.baseline) };
  const runs = { this: [], baseline: [] };
  const load = [loadavg()[0]];
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const name of r % 2 ? ['baseline', 'this'] : ['this', 'baseline']) {
      const out = await new Promise((ok, fail) =>
        execFile(
          process.execPath,
          [
            '--max-old-space-size=4096',
            fileURLToPath(import.meta.url),
            '--child',
            builds[name],
            '--works',
            String(works),
          ],
          { maxBuffer: 1 << 20 },
          (e, stdout) => (e ? fail(e) : ok(stdout)),
        ),
      );
      runs[name].push(JSON.parse(out));
      console.error(name, out);
    }
    load.push(loadavg()[0]);
  }
  const summary = (name) => ({
    dist: relative(ROOT, builds[name]) || builds[name],
    longest_hold_ms: median(runs[name].map((x) => x.longest_hold_ms)),
    read_ms: median(runs[name].map((x) => x.read_ms)),
    cpu_ms: median(runs[name].map((x) => x.cpu_ms)),
    runs: runs[name],
  });
  const result = {
    bench: 'item-decode-hold',
    node: process.version,
    cpus: cpus().length,
    works,
    load_average: load,
    this: summary('this'),
    baseline: summary('baseline'),
  };
  result.longest_hold_ratio = Math.round((result.this.longest_hold_ms / result.baseline.longest_hold_ms) * 100) / 100;
  mkdirSync(dirname(resolve(values.out)), { recursive: true });
  writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    JSON.stringify({
      this: result.this.longest_hold_ms,
      baseline: result.baseline.longest_hold_ms,
      ratio: result.longest_hold_ratio,
    }),
  );
}

await main();
