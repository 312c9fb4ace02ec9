#!/usr/bin/env node
/**
 * A 2 MB analyze body sent to one real `trainprint serve` (dist/cli.js, `--packs none`) cut in chunks of different
 * sizes: 64 KiB (a normal body), 32 bytes (the least average a body may keep past its first 4,096 pieces) and 1 byte
 * (refused once past them). For each: the server's CPU (utime + stime from /proc) and its RSS growth while the body
 * is read and answered, as ratios to the 64 KiB body's in the same run; medians over `--rounds` alternating rounds.
 *
 *   npm run build && nice node bench/chunked-bodies.mjs [--rounds 3] [--out bench/results/chunked-bodies.json]
 *
 * Linux only (/proc).
 */
import './help.mjs';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chunkedBody, cliKey, serveCli } from './hostile-attackers.mjs';
import { pct } from './hostile-client.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'bench/results/chunked-bodies.json' },
    rounds: { type: 'string', default: '3' },
    cli: { type: 'string', default: resolve(ROOT, 'dist/cli.js') },
  },
});
const cli = resolve(values.cli);
const TICK_MS = 10; // USER_HZ 100
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};
const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const dir = mkdtempSync(join(tmpdir(), 'chunked-bodies-'));
const store = join(dir, 'store');
const key = await cliKey(cli, store, 'gus', 'scale');
const { child, port } = await serveCli(cli, ['--store', store]);

/** One body: the server's CPU and RSS growth (peak, sampled every 20 ms) and the status. */
async function one(size) {
  const pid = child.pid;
  const rss0 = rssMB(pid);
  let peak = rss0;
  const poll = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 20);
  const cpu0 = cpuMs(pid);
  const t = performance.now();
  const status = await chunkedBody(port, key, 2_000_000, size);
  const ms = performance.now() - t;
  clearInterval(poll);
  return { status, cpu_ms: cpuMs(pid) - cpu0, rss_growth_mb: Math.round((peak - rss0) * 10) / 10, ms: Math.round(ms) };
}

const sizes = [65_536, 32, 1];
const runs = Object.fromEntries(sizes.map((s) => [s, []]));
try {
  await one(65_536); // warm: the core grown to a 2 MB analysis
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const s of r % 2 ? [...sizes].reverse() : sizes) runs[s].push(await one(s));
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
const med = (s, f) =>
  pct(
    runs[s].map((x) => x[f]),
    50,
  );
const result = {
  bench: 'chunked-bodies',
  cli: relative(ROOT, cli),
  node: process.version,
  cpus: cpus().length,
  load_average: loadavg()[0],
  body_bytes: 2_000_000,
  runs,
  by_chunk: Object.fromEntries(
    sizes.map((s) => [
      `${s}_bytes`,
      {
        statuses: runs[s].map((x) => x.status),
        cpu_ms_median: med(s, 'cpu_ms'),
        cpu_over_64kib: Math.round((med(s, 'cpu_ms') / Math.max(1, med(65_536, 'cpu_ms'))) * 100) / 100,
        rss_growth_mb_median: med(s, 'rss_growth_mb'),
        ms_median: med(s, 'ms'),
      },
    ]),
  ),
  targets: 'a 2 MB body in 1-byte chunks: server memory ≤ 2× the body (4 MB), CPU ≤ 4× a normal body',
};
const out = resolve(ROOT, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result.by_chunk, null, 1));
console.log(`wrote ${relative(ROOT, out)}`);
