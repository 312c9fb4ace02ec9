#!/usr/bin/env node
/**
 * Reads what bench/soak-waits.cjs wrote from a `serve` in a soak (and bench/loop-gaps.cjs's stretches, when given):
 * for the requests a bench client named with `x-soak-kind`, by kind, the slowest, and for each what the server did
 * while it was in it — the worker threads' tasks (their kind, and how much of the request's time each thread was
 * busy), the event loop's held stretches, and the requests of other keys in flight (by path and key).
 *
 *   node bench/soak-waits.mjs --waits FILE [--gaps FILE] [--top 12] [--over-ms 500] [--out FILE.json]
 */
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    waits: { type: 'string' },
    gaps: { type: 'string' },
    top: { type: 'string', default: '12' },
    'over-ms': { type: 'string', default: '500' },
    out: { type: 'string' },
  },
});
if (!values.waits) throw new Error('--waits FILE is needed (what bench/soak-waits.cjs wrote)');
const lines = (f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const all = lines(values.waits);
const reqs = all.filter((l) => l.req).map((l) => l.req);
const tasks = all.filter((l) => l.task).map((l) => l.task);
const gaps = values.gaps ? lines(values.gaps) : [];
const ms = (a) => Math.round(a / 1000);
const overlap = (a, b) => Math.max(0, Math.min(a.to_us, b.to_us) - Math.max(a.from_us, b.from_us));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : null;
};

const honest = reqs.filter((r) => r.kind && r.status !== 429);
const honestKeys = new Set(honest.map((r) => r.key));
const threads = [...new Set(tasks.map((t) => t.thread))];
/** The threads' kinds, told apart by what they ran (a document thread reads files). */
const threadKind = Object.fromEntries(
  threads.map((th) => [
    th,
    tasks.some((t) => t.thread === th && t.kind?.startsWith('document:')) ? 'document' : 'pool',
  ]),
);
const sizeClass = (t) => {
  const n = t.bytes ?? Math.max(0, ...Object.values(t.lengths ?? {}));
  return n >= 1 << 20 ? '≥1M' : n >= 100_000 ? '100k–1M' : n >= 10_000 ? '10k–100k' : '<10k';
};

/** What the server did while `r` was in it. */
function beside(r) {
  const busy = {};
  for (const t of tasks) {
    const o = overlap(r, t);
    if (!o) continue;
    const k = `${threadKind[t.thread]} ${t.kind} ${sizeClass(t)}`;
    busy[k] = (busy[k] ?? 0) + o;
  }
  const held = gaps.reduce((s, g) => s + overlap(r, g), 0);
  const others = {};
  for (const q of reqs) {
    if (q === r || q.key === r.key || !overlap(r, q)) continue;
    const k = `${honestKeys.has(q.key) ? 'honest' : 'other'} ${q.method} ${q.path.replace(/[0-9a-f-]{16,}/g, ':id')}`;
    others[k] = (others[k] ?? 0) + 1;
  }
  const sorted = (o, f) =>
    Object.fromEntries(
      Object.entries(o)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, f(v)]),
    );
  return {
    kind: r.kind,
    ms: ms(r.to_us - r.from_us),
    status: r.status,
    key: r.key,
    threads_busy_ms: sorted(busy, ms),
    loop_held_ms: ms(held),
    others_in_flight: sorted(others, (v) => v),
  };
}

const byKind = {};
for (const r of honest) (byKind[r.kind] ??= []).push(ms(r.to_us - r.from_us));
const kinds = Object.fromEntries(
  Object.entries(byKind).map(([k, v]) => [
    k,
    { n: v.length, p50_ms: pct(v, 50), p99_ms: pct(v, 99), max_ms: pct(v, 100) },
  ]),
);
const slowest = [...honest].sort((a, b) => b.to_us - b.from_us - (a.to_us - a.from_us)).slice(0, Number(values.top));
// the threads' busy time over every honest request longer than --over-ms, summed: what the tail waited beside
const over = honest.filter((r) => r.to_us - r.from_us >= Number(values['over-ms']) * 1000);
const tailBusy = {};
for (const r of over)
  for (const [k, v] of Object.entries(beside(r).threads_busy_ms)) tailBusy[k] = (tailBusy[k] ?? 0) + v;
const taskFigures = {};
for (const t of tasks) {
  const k = `${threadKind[t.thread]} ${t.kind} ${sizeClass(t)}`;
  (taskFigures[k] ??= []).push(ms(t.to_us - t.from_us));
}
const result = {
  bench: 'soak-waits',
  threads: threadKind,
  honest_by_kind: kinds,
  tasks_by_kind: Object.fromEntries(
    Object.entries(taskFigures)
      .sort((a, b) => b[1].reduce((s, x) => s + x, 0) - a[1].reduce((s, x) => s + x, 0))
      .map(([k, v]) => [
        k,
        { n: v.length, total_ms: v.reduce((s, x) => s + x, 0), p50_ms: pct(v, 50), max_ms: pct(v, 100) },
      ]),
  ),
  loop_held: { stretches: gaps.length, ms: gaps.reduce((s, g) => s + g.ms, 0) },
  honest_over: { ms: Number(values['over-ms']), n: over.length, threads_busy_ms_summed: tailBusy },
  slowest: slowest.map(beside),
};
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
else console.log(JSON.stringify(result, null, 2));
