// "Also in" claims on Japanese and Chinese text, checked by text. A portrait match names, beside its document, the
// other documents of the pack holding the same text (`also_in`); this bench counts the claims analyze makes on
// passages of the packed works with the default packs, and how many of them hold: the other document holds a run of
// at least K consecutive units of the matched passage (K characters; punctuation dropped, case folded:
// bench/shared-runs.mjs). Passages: the opening of every packed work and 60 seeded places of 160 characters. And for
// every shipped pack, the rows of its shared-text table (src/datasets/locator.ts) and how many of them a match names
// under the pack's null (sharedByChance, src/datasets/background.ts: read from src/ through an esbuild bundle).
//
//   node build/packs-prepare-cjk.mjs aozora --repo GITDIR --held-out   (and chinese-classics: bench/languages/)
//   node bench/eval-also-in.mjs [--out bench/results/eval-also-in.json]
import './help.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { packedWorks } from './languages/cjk-texts.mjs';
import { rng } from './memorization-measures.mjs';
import { sharedRuns } from './shared-runs.mjs';

const { values } = parseArgs({ options: { out: { type: 'string' }, n: { type: 'string' } } });
const { createEngine } = await import('../dist/index.js');

/** Characters of a passage; units a claimed document must share with it, in a row, for the claim to hold. */
const SIZE = 160;
const K = 20;
const N = Number(values.n ?? 60);

const engine = await createEngine({ packs: 'default' });

async function claimsOf(content, works) {
  const r = await engine.analyze({ content, content_type: 'text' });
  const out = [];
  for (const m of r.matches) {
    if (m.kind !== 'portrait' || !m.document_id) continue;
    const span = content.slice(m.query_start, m.query_end);
    for (const a of m.also_in ?? []) {
      const w = works.find((x) => x.document === a.document_id);
      const held = w ? sharedRuns([span], [w], 'chars', K)[0] !== null : false;
      out.push({ named: m.document_id, also_in: a.document_id, shared: a.shared, held });
    }
  }
  return out;
}

const report = { date: new Date().toISOString(), k: K, size: SIZE, languages: [] };
for (const [code, pack] of [
  ['ja', 'aozora'],
  ['zh', 'chinese-classics'],
]) {
  const works = packedWorks(pack);
  const passages = works.map((w) => ({ kind: 'opening', work: w.document, text: w.text.slice(0, SIZE) }));
  const rnd = rng(0x5eed + code.charCodeAt(0));
  for (let i = 0; i < N; i++) {
    const w = works[Math.floor(rnd() * works.length)];
    const at = Math.floor(rnd() * Math.max(1, w.text.length - SIZE));
    passages.push({ kind: 'seeded', work: w.document, text: w.text.slice(at, at + SIZE).replace(/\n+/g, '') });
  }
  const claims = [];
  for (const p of passages) for (const c of await claimsOf(p.text, works)) claims.push({ ...c, kind: p.kind });
  const held = claims.filter((c) => c.held).length;
  report.languages.push({
    code,
    pack: `pack:${pack}`,
    passages: passages.length,
    claims: claims.length,
    held,
    rows: claims,
  });
  console.log(
    `${code}: ${passages.length} passages, ${claims.length} "also in" claims, ${held} hold by text (≥ ${K} chars)`,
  );
  for (const c of claims)
    console.log(`  ${c.kind} ${c.named} → ${c.also_in} shared ${c.shared} ${c.held ? 'holds' : 'does not hold'}`);
}
engine.dispose();

// every row of every shipped pack's shared-text table, and those a match names beyond the pack's null
const bundle = await build({
  stdin: {
    contents: `export { decodeDataset } from './src/datasets/snapshot.ts';
      export { decodeShared, sectionDoc, sectionLayout } from './src/datasets/locator.ts';
      export { sharedByChance, DEFAULT_PORTRAIT_BACKGROUND } from './src/datasets/background.ts';`,
    resolveDir: fileURLToPath(new URL('../', import.meta.url)),
    loader: 'ts',
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  logLevel: 'error',
});
const src = await import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString('base64')}`);
const index = JSON.parse(readFileSync(new URL('../packs/index.json', import.meta.url), 'utf8'));
report.tables = index.packs.map((p) => {
  const d = src.decodeDataset(readFileSync(new URL(`../packs/${p.file}`, import.meta.url)), { kind: 'any' });
  const rows = [...src.decodeShared(d.locator?.shared).values()].flat();
  const bound = src.sharedByChance(p.background ?? src.DEFAULT_PORTRAIT_BACKGROUND);
  const named = rows.filter((r) => r.share > bound).length;
  // for the CJK packs: whether the two documents of each row share any run of K characters at all (whole texts)
  const works = { 'pack:aozora': 'aozora', 'pack:chinese-classics': 'chinese-classics' }[p.id];
  const pairs = [];
  if (works) {
    const texts = packedWorks(works);
    const layout = src.sectionLayout(
      d.docs.map((x) => x.tokens),
      d.locator.section_words,
      d.locator.sections,
    );
    for (const [owner, list] of src.decodeShared(d.locator.shared)) {
      const a = d.docs[src.sectionDoc(layout.first, owner)].id;
      for (const r of list) {
        const b = d.docs[r.doc].id;
        const one = texts.find((w) => w.document === a);
        const held = sharedRuns([one.text], [texts.find((w) => w.document === b)], 'chars', K)[0] !== null;
        pairs.push({ section: owner, document: a, also_in: b, shared: r.share, named: r.share > bound, held });
      }
    }
  }
  console.log(`${p.id}: ${rows.length} shared-text rows, ${named} named beyond the null's ${bound.toFixed(4)}`);
  for (const x of pairs)
    console.log(`  ${x.document} → ${x.also_in} ${x.shared} named ${x.named} ${x.held ? 'holds' : 'no'}`);
  return { pack: p.id, chance_bound: Number(bound.toFixed(4)), rows: rows.length, named, ...(works ? { pairs } : {}) };
});
if (values.out)
  writeFileSync(fileURLToPath(new URL(`../${values.out}`, import.meta.url)), `${JSON.stringify(report, null, 2)}\n`);
