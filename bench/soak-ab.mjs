#!/usr/bin/env node
/**
 * The short hostile soak (bench/hostile-soak.mjs `--parts soak`), build against build: each build's `serve` in turn,
 * alternating (A B, then B A, …), `--rounds` each; per run the honest calls' p50/p99/max, `/healthz` and `/status`
 * p50/p99/max, the 5xx answers, the server's RSS at the start, peak and 45 s after (less what the store keeps by
 * contract), the client processes' event-loop delay, and the machine's load at the start and the end. The medians of
 * each build's runs, and this build's over the other's, run for run. On a shared machine the absolute times are the
 * machine's; the ratios of runs that alternated are what compare the builds.
 *
 *   npm run build && nice node bench/soak-ab.mjs --dists base=/path/to/base/dist,this=dist [--rounds 2]
 *     [--duration-s 120] [--warmup-s 15] [--out bench/results/hostile-soak-probes-ab.json]
 *
 * The first build named is the one compared against (`over_first`). Linux only (as hostile-soak.mjs).
 */
import './help.mjs';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { medianOrNull, round } from './stats.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    dists: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    'duration-s': { type: 'string', default: '120' },
    'warmup-s': { type: 'string', default: '15' },
    out: { type: 'string', default: 'bench/results/hostile-soak-probes-ab.json' },
  },
});
if (!values.dists) throw new Error('--dists name=path,name=path is needed');
const dists = values.dists.split(',').map((d) => {
  const [name, path] = d.split('=');
  return { name, cli: resolve(path, 'cli.js') };
});
// of the rounds that gave a number; the mean of the two middle ones of an even count is written to 2 decimals
const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number');
  const m = medianOrNull(s);
  return m === null || s.length % 2 ? m : round(m, 2);
};

/** One short soak against `dist`'s serve: the figures compared. */
function soakOnce(dist, i) {
  const out = join(tmpdir(), `soak-ab-${process.pid}-${dist.name}-${i}.json`);
  const args = [
    join(ROOT, 'bench/hostile-soak.mjs'),
    '--parts',
    'soak',
    '--duration-s',
    values['duration-s'],
    '--warmup-s',
    values['warmup-s'],
    '--cli',
    dist.cli,
    '--out',
    out,
  ];
  return new Promise((res, rej) =>
    execFile(process.execPath, args, { maxBuffer: 64 << 20 }, (err, _stdout, stderr) => {
      if (err) return rej(new Error(`${dist.name}: ${stderr.slice(-2000)}`));
      const r = JSON.parse(readFileSync(out, 'utf8'));
      rmSync(out, { force: true });
      const s = r.soak;
      res({
        build: dist.name,
        load_average_at_start: r.load_average_at_start,
        load_average_at_end: r.load_average_at_end,
        honest: {
          calls: s.honest.calls_measured,
          p50_ms: s.honest.p50_ms,
          p99_ms: s.honest.p99_ms,
          max_ms: s.honest.max_ms,
          errors_other_than_own_429: s.honest.errors_other_than_own_429,
          by_kind: s.honest.by_kind,
        },
        healthz: s.probes.healthz,
        status: s.probes.status,
        answers_5xx: s.answers_5xx,
        server_log_500_lines: s.server_log_500_lines,
        attack_200s: s.attack.statuses['200'] ?? 0,
        audit_done_s: s.audit_100k_works?.done_s ?? null,
        rss_mb: {
          at_start: s.rss_mb.at_start,
          peak: s.rss_mb.peak,
          after_45s: s.rss_mb.after_45s,
          less_kept_over_start: s.kept?.rss_after_45s_less_them_over_start ?? null,
        },
        client_event_loop_max_ms: {
          honest_and_probes: s.event_loop_ms.honest_and_probes.max_ms,
          attackers: s.event_loop_ms.attackers.map((a) => a.max_ms),
        },
      });
    }),
  );
}

const runs = [];
const rounds = Number(values.rounds);
for (let round = 0; round < rounds; round++) {
  // A B, then B A: neither build always runs first into the machine's changing load
  const order = round % 2 === 0 ? dists : [...dists].reverse();
  for (const dist of order) {
    const r = await soakOnce(dist, round);
    runs.push({ round: round + 1, ...r });
    console.log(
      `round ${round + 1} ${dist.name}: honest p99 ${r.honest.p99_ms} ms, /healthz p99 ${r.healthz.p99_ms} ms, ` +
        `/status p99 ${r.status.p99_ms} ms, 5xx ${r.answers_5xx}, load ${r.load_average_at_start} → ${r.load_average_at_end}`,
    );
  }
}
const figures = [
  ['honest_p50_ms', (r) => r.honest.p50_ms],
  ['honest_p99_ms', (r) => r.honest.p99_ms],
  ['honest_max_ms', (r) => r.honest.max_ms],
  ...['analyze_text_5kb', 'analyze_text_80kb', 'analyze_file', 'submit_job', 'poll_job'].map((kind) => [
    `${kind}_p99_ms`,
    (r) => r.honest.by_kind?.[kind]?.p99_ms,
  ]),
  ['healthz_p50_ms', (r) => r.healthz.p50_ms],
  ['healthz_p99_ms', (r) => r.healthz.p99_ms],
  ['healthz_max_ms', (r) => r.healthz.max_ms],
  ['status_p50_ms', (r) => r.status.p50_ms],
  ['status_p99_ms', (r) => r.status.p99_ms],
  ['status_max_ms', (r) => r.status.max_ms],
  ['answers_5xx', (r) => r.answers_5xx],
  ['rss_after_45s_less_kept_over_start', (r) => r.rss_mb.less_kept_over_start],
];
const medians = Object.fromEntries(
  dists.map((d) => {
    const mine = runs.filter((r) => r.build === d.name);
    return [d.name, Object.fromEntries(figures.map(([k, f]) => [k, median(mine.map(f))]))];
  }),
);
// each later build's figure over the first's, round by round (the runs next to each other), then the median of those;
// every figure but the 5xx count and the RSS (the last two)
const [first, ...others] = dists;
const overFirst = Object.fromEntries(
  others.map((d) => [
    d.name,
    Object.fromEntries(
      figures.slice(0, -2).map(([k, f]) => {
        const ratios = [];
        for (let round = 1; round <= rounds; round++) {
          const a = runs.find((r) => r.round === round && r.build === first.name);
          const b = runs.find((r) => r.round === round && r.build === d.name);
          if (a && b && f(a) > 0) ratios.push(Math.round((f(b) / f(a)) * 100) / 100);
        }
        return [k, { by_round: ratios, median: median(ratios) }];
      }),
    ),
  ]),
);
const result = {
  bench: 'soak-ab',
  builds: Object.fromEntries(dists.map((d) => [d.name, relative(ROOT, d.cli)])),
  duration_s: Number(values['duration-s']),
  warmup_s: Number(values['warmup-s']),
  rounds,
  load_average_at_end: loadavg()[0],
  medians,
  over_first: overFirst,
  runs,
  targets: '/healthz and /status p99 ≤ 200 ms; honest p99 ≤ 2 s; 0 × 5xx',
};
const out = resolve(ROOT, values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${relative(ROOT, out)}`);
