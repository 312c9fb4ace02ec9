#!/usr/bin/env node
/**
 * The long synchronous tasks of a process, read from its CPU profile (`node --cpu-prof`): each stretch of samples with
 * no idle sample between them is a time the process's event loop was held (no timer, probe or socket was served
 * until it ended), named by the functions of the project's build it spent its samples in (each function's place in
 * dist/ mapped to its source file by the bundle's `// src/…` markers).
 *
 *   SERVE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" nice node bench/hostile-soak.mjs --parts soak …
 *   node bench/long-tasks.mjs /tmp/prof/CPU.*.cpuprofile [--over-ms 50] [--top 40] [--out FILE.json]
 *     [--gaps FILE]   (the held stretches bench/loop-gaps.cjs measured in the process, named from the profile)
 *
 * Reported: every task over `--over-ms`, longest first (its length, when it began from the profile's start, the
 * project functions with the most samples in it, inclusive, and the top self-time frames), and the tasks grouped by
 * what they are (the innermost project function holding most of the task's samples): count, total and longest.
 * Samples whose interval is longer than the sampling interval (the process not running: a busy machine) count by
 * their real length, as the event loop saw them.
 */
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'over-ms': { type: 'string', default: '50' },
    top: { type: 'string', default: '40' },
    out: { type: 'string' },
    // the loop's held stretches measured in the process (bench/loop-gaps.cjs): each named from the samples in it
    gaps: { type: 'string' },
  },
});
const OVER_US = Number(values['over-ms']) * 1000;

/** Each dist file's `// src/…` markers: the source file a bundle line came from. */
const markers = new Map();
function sourceOf(url, line) {
  if (!url.includes('/dist/')) return null;
  const path = url.replace(/^file:\/\//, '');
  if (!markers.has(path)) {
    let lines = [];
    try {
      lines = readFileSync(path, 'utf8').split('\n');
    } catch {
      // a build no longer there: its frames are named by the bundle's file alone
    }
    const marks = [];
    lines.forEach((l, i) => {
      const m = /^\/\/ (src\/\S+)$/.exec(l);
      if (m) marks.push([i, m[1]]);
    });
    markers.set(path, marks);
  }
  const marks = markers.get(path);
  let found = `dist/${basename(path)}`;
  for (const [i, src] of marks) {
    if (i > line) break;
    found = src;
  }
  return found;
}

function analyse(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => {
    const f = n.callFrame;
    const src = sourceOf(f.url, f.lineNumber);
    return { fn: f.functionName || '(anonymous)', src, where: src ? `${src}` : f.url ? basename(f.url) : '' };
  };
  /** A sample's stack, innermost first, as `fn (where)` labels; and the project's frames alone. */
  const stacks = new Map();
  const stackOf = (id) => {
    if (stacks.has(id)) return stacks.get(id);
    const all = [];
    const project = [];
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at);
      const { fn, src, where } = name(n);
      if (fn === '(root)') break;
      const label = where ? `${fn} (${where})` : fn;
      all.push(label);
      if (src?.startsWith('src/')) project.push(label);
    }
    const s = { all, project };
    stacks.set(id, s);
    return s;
  };
  const sortedDeltas = [...profile.timeDeltas].sort((a, b) => a - b);
  const interval = sortedDeltas[sortedDeltas.length >> 1] ?? 1000;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const tasks = [];
  let current = null;
  let t = profile.startTime;
  const times = [];
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    times.push(t);
    const id = profile.samples[i];
    if (idle.has(id)) {
      if (current) tasks.push(current);
      current = null;
      continue;
    }
    current ??= { start: t - dt, us: 0, samples: [] };
    current.us += dt;
    current.samples.push([id, dt]);
  }
  if (current) tasks.push(current);
  if (values.gaps) {
    // the held stretches as the process measured them, each with the profile's samples inside it (idle ones too:
    // an idle sample inside a held stretch says the two clocks disagree or the process was not running)
    const gaps = readFileSync(values.gaps, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((g) => g.to_us > profile.startTime && g.from_us < profile.endTime);
    tasks.length = 0;
    let i = 0;
    for (const g of gaps.sort((a, b) => a.from_us - b.from_us)) {
      while (i > 0 && times[i - 1] > g.from_us) i--;
      while (i < times.length && times[i] <= g.from_us) i++;
      const k = { start: g.from_us, us: g.to_us - g.from_us, samples: [], idle_us: 0, sampled_us: 0, cpu_ms: g.cpu_ms };
      for (let j = i; j < times.length && times[j] <= g.to_us; j++) {
        const dt = profile.timeDeltas[j] ?? 0;
        k.sampled_us += dt;
        if (idle.has(profile.samples[j])) k.idle_us += dt;
        else k.samples.push([profile.samples[j], dt]);
      }
      tasks.push(k);
    }
  }
  const long = tasks.filter((k) => k.us >= OVER_US).sort((a, b) => b.us - a.us);
  const described = long.map((k) => {
    const inclusive = new Map();
    const self = new Map();
    for (const [id, dt] of k.samples) {
      const { all, project } = stackOf(id);
      self.set(all[0], (self.get(all[0]) ?? 0) + dt);
      for (const label of new Set(project)) inclusive.set(label, (inclusive.get(label) ?? 0) + dt);
    }
    const rank = (m, n) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([label, us]) => ({ frame: label, ms: Math.round(us / 1000) }));
    // what the task is: the innermost project frame that holds at least half of its busy time
    let what = '(no project frame: node itself, GC or the HTTP parser)';
    let best = Infinity;
    const busy = k.samples.reduce((s, [, dt]) => s + dt, 0);
    const half = busy / 2;
    for (const [label, us] of inclusive) {
      if (us < half) continue;
      // the innermost: the frame with the least inclusive time still over half
      if (us < best) [best, what] = [us, label];
    }
    return {
      ms: Math.round(k.us / 1000),
      at_s: Math.round((k.start - profile.startTime) / 1e5) / 10,
      ...(k.idle_us !== undefined ? { idle_ms_in_it: Math.round(k.idle_us / 1000) } : {}),
      ...(k.cpu_ms !== undefined ? { main_thread_cpu_ms: k.cpu_ms } : {}),
      // the samples' count at the profile's interval: the CPU the profile saw, where the wall time includes the
      // stretches the thread did not run (a sample after one carries its whole length)
      sampled_cpu_ms: Math.round((k.samples.length * interval) / 1000),
      what,
      project_frames: rank(inclusive, 8),
      self_frames: rank(self, 6),
    };
  });
  const groups = new Map();
  for (const d of described) {
    const g = groups.get(d.what) ?? { what: d.what, tasks: 0, total_ms: 0, longest_ms: 0 };
    g.tasks++;
    g.total_ms += d.ms;
    g.longest_ms = Math.max(g.longest_ms, d.ms);
    groups.set(d.what, g);
  }
  const profiledS = (profile.endTime - profile.startTime) / 1e6;
  const busyUs = tasks.reduce((s, k) => s + k.us, 0);
  return {
    profile: basename(file),
    profiled_s: Math.round(profiledS),
    busy_s: Math.round(busyUs / 1e6),
    tasks_over_ms: Number(values['over-ms']),
    tasks_over: long.length,
    their_total_s: Math.round(long.reduce((s, k) => s + k.us, 0) / 1e5) / 10,
    by_what: [...groups.values()].sort((a, b) => b.total_ms - a.total_ms),
    longest: described.slice(0, Number(values.top)),
  };
}

const results = positionals.map((f) => analyse(resolve(f)));
const text = JSON.stringify(results.length === 1 ? results[0] : results, null, 2);
if (values.out) {
  writeFileSync(values.out, `${text}\n`);
  console.log(`wrote ${values.out} (${dirname(values.out)})`);
} else console.log(text);
