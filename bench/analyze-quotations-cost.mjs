// The cost of reading quotations in analyze: this build against a baseline build in the same run, on texts where the
// quotation rule runs (bench/analyze-budget.mjs's requests never reach it: no match, or an excerpt). The 32 essays of
// bench/data/quotations/essays.txt, each quoting a passage the default packs hold, marked in its style, and the same
// essays with the passage introduced by reported speech ("… wrote that …"), with the default packs as `npm start`
// loads them. Each build is measured in fresh processes, alternating, for --pairs pairs; each process analyses every
// text once to warm up, then --rounds rounds, and reports the median of its rounds' total times. The figure is this
// build's median over the baseline's (target ≤ 1.1).
//   node bench/analyze-quotations-cost.mjs --baseline DIR [--dist DIR] [--pairs 3] [--rounds 5]
//        (DIR: a build of the package beside a packs/ folder, e.g. a copy of main's dist/ with packs linked beside it)
//   node bench/analyze-quotations-cost.mjs --child DIR --rounds K      (one process, JSON line)
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('rounds', '5'));
const DATA = new URL('./data/quotations/', import.meta.url);

/** The texts: each essay with its passage in quotation marks, and introduced by reported speech. */
function texts() {
  const { passages } = JSON.parse(readFileSync(new URL('passages.json', DATA), 'utf8'));
  const byId = new Map(passages.map((p) => [p.id, p.text.replace(/\s*\n\s*/g, ' ')]));
  return readFileSync(new URL('essays.txt', DATA), 'utf8')
    .split(/^=== /m)
    .slice(1)
    .flatMap((b) => {
      const [header, ...lines] = b.trim().split('\n');
      const q = byId.get(header.split('|')[1].trim());
      const at = lines.findIndex((l) => l.startsWith('@@'));
      const before = lines.slice(0, at).join('\n');
      const after = lines.slice(at + 1).join('\n');
      return [
        `${before}\n\n${lines[at].slice(2).trim()} “${q}” ${after}`,
        `${before}\n\nThe author wrote that ${q.charAt(0).toLowerCase()}${q.slice(1)} ${after}`,
      ];
    });
}

const middle = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One build: the median over rounds of analyze's time per text, and of the quotation rule's alone (quotationsOf, as
 * the library shares it with its on-demand files, on each text with its analysis's matches, 20 times a round).
 */
async function child(dist) {
  const dir = pathToFileURL(join(resolve(dist), '/')).href;
  const { createEngine } = await import(new URL('index.js', dir).href);
  const { ON_DEMAND_SHARED } = await import(new URL('library.js', dir).href);
  const { quotationsOf } = ON_DEMAND_SHARED['services/analyze/quotations'];
  const engine = await createEngine({ packs: 'default' });
  const all = texts();
  const results = [];
  for (const content of all) results.push(await engine.analyze({ content, content_type: 'text' }));
  const rounds = [];
  const rule = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (const content of all) await engine.analyze({ content, content_type: 'text' });
    rounds.push((performance.now() - t0) / all.length);
    const t1 = performance.now();
    for (let k = 0; k < 20; k++)
      for (let i = 0; i < all.length; i++) quotationsOf(all[i], 'text', results[i].matches, results[i].tokens);
    rule.push((performance.now() - t1) / (20 * all.length));
  }
  engine.dispose();
  const line = { texts: all.length, ms_per_analysis: middle(rounds), rule_ms: middle(rule) };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

if (arg('child')) {
  await child(arg('child'));
} else {
  const baseline = arg('baseline');
  if (!baseline) throw new Error('--baseline DIR: a build to compare with');
  const dist = arg('dist', fileURLToPath(new URL('../dist/', import.meta.url)));
  const pairs = Number(arg('pairs', '3'));
  const run = (dir) =>
    JSON.parse(
      execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, '--rounds', String(ROUNDS)], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      }).trim(),
    );
  const rows = [];
  for (let p = 0; p < pairs; p++) {
    // alternate which build goes first
    const order = p % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this'];
    const row = {};
    for (const which of order) row[which] = run(which === 'this' ? dist : baseline);
    rows.push(row);
    const [t, b] = [row.this, row.baseline];
    console.log(
      `pair ${p + 1}: analyze this ${t.ms_per_analysis.toFixed(2)} ms, baseline ${b.ms_per_analysis.toFixed(2)} ms; ` +
        `rule this ${t.rule_ms.toFixed(4)} ms, baseline ${b.rule_ms.toFixed(4)} ms`,
    );
  }
  const r3 = (x) => Math.round(x * 1000) / 1000;
  const r5 = (x) => Math.round(x * 1e5) / 1e5;
  const thisMs = middle(rows.map((r) => r.this.ms_per_analysis));
  const baseMs = middle(rows.map((r) => r.baseline.ms_per_analysis));
  const thisRule = middle(rows.map((r) => r.this.rule_ms));
  const baseRule = middle(rows.map((r) => r.baseline.rule_ms));
  const report = {
    bench: 'analyze-quotations-cost',
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    texts: texts().length,
    rounds: ROUNDS,
    pairs: rows.map((r) => ({
      this_ms: r3(r.this.ms_per_analysis),
      baseline_ms: r3(r.baseline.ms_per_analysis),
      this_rule_ms: r5(r.this.rule_ms),
      baseline_rule_ms: r5(r.baseline.rule_ms),
    })),
    this_ms: r3(thisMs),
    baseline_ms: r3(baseMs),
    ratio: r3(thisMs / baseMs),
    // each pair's ratio, then their median: the two builds of a pair ran back to back under the same load
    pair_ratio_median: r3(middle(rows.map((r) => r.this.ms_per_analysis / r.baseline.ms_per_analysis))),
    rule: {
      this_ms: r5(thisRule),
      baseline_ms: r5(baseRule),
      ratio: r3(thisRule / baseRule),
      share_of_analyze: r3(thisRule / thisMs),
    },
    target: 1.1,
  };
  const out = fileURLToPath(new URL('./results/analyze-quotations-cost.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `analyze: this ${report.this_ms} ms vs baseline ${report.baseline_ms} ms per text: ${report.ratio}x ` +
      `(median of the pairs' ratios ${report.pair_ratio_median}x); ` +
      `the quotation rule ${report.rule.this_ms} vs ${report.rule.baseline_ms} ms (${report.rule.ratio}x, ` +
      `${(report.rule.share_of_analyze * 100).toFixed(1)} % of an analysis); wrote ${out}`,
  );
}
