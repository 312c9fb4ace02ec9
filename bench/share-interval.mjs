// The verified share's interval under both rules, recomputed from the counts every stored draw keeps: the joint
// interval (src/corpus/share.ts, `ciRule: 'joint'`) against the product of each rate's bound it replaced. A draw's
// counts — passages, found, documents fetched / verified / unchecked, detection hits of trials — are all the share
// reads (estimateShare), and the search that produced them is seeded, so the same counts give the same share on
// every run: the coverage and width of either rule are measured here without searching again.
//
//   node bench/share-interval.mjs            (needs dist/ — npm run build; writes bench/results/share-interval.json)
//
// Sources: bench/results/real-verified-share.json (every draw of the real engines), verified-share.json and
// verified-share-infini-gram-mini.json (every draw where a grid was run with `draw_counts`, else the three kept).
import './help.mjs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { medianOrNull, round } from './stats.mjs';

const { estimateShare } = await import('../dist/evidence.js');
const read = (f) => JSON.parse(readFileSync(new URL(`./results/${f}`, import.meta.url), 'utf8'));

/** Every stored draw as { group, cell, truth, counts }. */
function draws() {
  const out = [];
  const real = read('real-verified-share.json');
  for (const c of real.cells)
    for (const r of c.runs)
      if (r.documents)
        out.push({
          group: `real ${c.engine} ${c.kind}`,
          cell: `${c.engine} ${c.kind} ${c.form ?? 'wrapped'} ${c.doc} ${c.work}`,
          share: { tenth: 0.1, quarter: 0.25, half: 0.5, long: 0.5, all: 1, none: 0 }[c.work],
          truth: r.truth,
          counts: { passages: r.passages, found: r.found, ...r.documents, detection: r.detection },
        });
  for (const [file, engine] of [
    ['verified-share.json', 'infini-gram'],
    ['verified-share-infini-gram-mini.json', 'infini-gram-mini'],
  ]) {
    if (!existsSync(new URL(`./results/${file}`, import.meta.url))) continue;
    for (const [grid, { rows }] of Object.entries(read(file).grids))
      for (const row of rows) {
        const cell = `${engine} ${grid} ${row.kind} ${row.form} ${row.doc} ${row.share}${row.parts ? ' (of 20)' : ''}`;
        const group = `fixture ${engine} ${grid === 'code' ? 'code' : 'other grids'}`;
        const rows = row.draw_counts
          ? row.draw_counts.map(([truth, , , , passages, found, fetched, verified, unchecked, hits, trials]) => ({
              truth,
              counts: { passages, found, fetched, verified, unchecked, detection: { hits, trials } },
            }))
          : (row.runs ?? [])
              .filter((r) => r.documents)
              .map((r) => ({
                truth: r.truth,
                counts: { passages: r.passages, found: r.found, ...r.documents, detection: r.detection },
              }));
        for (const r of rows) out.push({ group, cell, share: row.share, ...r });
      }
  }
  return out;
}

const rules = ['product', 'joint'];
const summary = {};
const cells = {};
for (const d of draws()) {
  const { passages, found, fetched, verified, unchecked, detection } = d.counts;
  const sample = { passages, found, fetched, verified, unchecked: unchecked ?? 0, detection, detectionDesignEffect: 2 };
  for (const rule of rules) {
    const { ci_95 } = estimateShare({ ...sample, ciRule: rule });
    const covered = ci_95[0] <= d.truth && d.truth <= ci_95[1];
    const width = ci_95[1] - ci_95[0];
    for (const [map, key] of [
      [summary, d.group],
      [cells, d.cell],
    ]) {
      const s = (map[key] ??= { draws: 0, share: d.share });
      s[rule] ??= { covered: 0, widths: [], quarter_to_half: [] };
      s[rule].covered += covered ? 1 : 0;
      s[rule].widths.push(width);
      if (d.share >= 0.25 && d.share <= 0.5) s[rule].quarter_to_half.push(width);
      if (rule === 'product') s.draws++;
    }
  }
}
const close = (s) => ({
  draws: s.draws,
  ...Object.fromEntries(
    rules.map((rule) => {
      const r = s[rule];
      return [
        rule,
        {
          covered: `${r.covered}/${s.draws}`,
          width_median: round(medianOrNull(r.widths), 4),
          width_max: round(Math.max(...r.widths), 4),
          ...(r.quarter_to_half.length
            ? {
                quarter_to_half_width_median: round(medianOrNull(r.quarter_to_half), 4),
                quarter_to_half_width_max: round(Math.max(...r.quarter_to_half), 4),
              }
            : {}),
        },
      ];
    }),
  ),
});
const out = {
  method:
    'every stored draw of the verified-share benches, its 95 % interval recomputed from its counts (estimateShare of ' +
    'dist/, detection design effect 2) under the product of bounds and the joint interval (MOVER on the log scale, ' +
    "Wilson bounds of each rate); coverage against the draw's truth without slack",
  summary: Object.fromEntries(Object.entries(summary).map(([k, s]) => [k, close(s)])),
  cells: Object.fromEntries(Object.entries(cells).map(([k, s]) => [k, close(s)])),
};
writeFileSync(new URL('./results/share-interval.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
for (const [k, s] of Object.entries(out.summary)) console.log(k, JSON.stringify(s));
