// Which unit for Japanese, measured: every kana its own token (the normaliser's rule) against the earlier rule, where
// a run of kana was one token (ideographs alone either way). The earlier rule is reproduced exactly by writing each
// kana run as one ASCII token of its code points (は → ' k306f ', そうだ → ' k305d3046305f '): the same runs give the
// same tokens, and token boundaries are the earlier rule's. Each unit builds its own pack from the works of
// pack:aozora (window 8, in memory), then: verbatim 160-character excerpts, 400- and 160-character ones with 1
// character in 10 replaced, and natural negatives of 40/100/160/400 characters from the held-out works — counted at
// confidence ≥ 50, naming the right work or another. Reads the prepared texts (build/packs-prepare-cjk.mjs aozora
// --held-out) and dist/.
//
//   node bench/units-cjk.mjs [--n 60]   Writes bench/results/units-cjk.json.
import './help.mjs';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { heldOutPassages, packedWorks } from './languages/cjk-texts.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { n: { type: 'string', default: '60' } } });
const N = Number(values.n);
const { createEngine, buildPack, loadPack } = await import('../dist/library.js');

const KANA_RUN = /[\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff]+/g;
const UNITS = {
  characters: (t) => t,
  kana_runs: (t) => t.replace(KANA_RUN, (run) => ` k${[...run].map((c) => c.codePointAt(0).toString(16)).join('')} `),
};

function rng(seed) {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const works = packedWorks('aozora');
const negatives = heldOutPassages('aozora', 'held out');
const letters = [...works.map((w) => w.text.slice(0, 20000)).join('')].filter((c) => /\p{L}/u.test(c));

/** The same excerpts for both units: [{ text, document }] per case. */
function cases() {
  const rand = rng(20261128);
  const cut = (text, n) => {
    const f = [...text.replace(/\s+/g, '')];
    const at = Math.floor(rand() * Math.max(1, f.length - n));
    return f.slice(at, at + n).join('');
  };
  const edit = (t) => {
    let k = 0;
    return [...t]
      .map((c) => {
        if (!/\p{L}/u.test(c) || ++k % 10 !== 0) return c;
        let r = c;
        while (r === c) r = letters[Math.floor(rand() * letters.length)];
        return r;
      })
      .join('');
  };
  const positives = (len, edited) =>
    Array.from({ length: N }, (_, i) => {
      const w = works[i % works.length];
      const t = cut(w.text, len);
      return { text: edited ? edit(t) : t, document: w.document };
    });
  const out = {
    verbatim_160: positives(160, false),
    edited_400: positives(400, true),
    edited_160: positives(160, true),
  };
  for (const len of [40, 100, 160, 400]) {
    out[`negative_${len}`] = Array.from({ length: Math.max(200, negatives.length) }, (_, i) => ({
      text: cut(negatives[i % negatives.length].text, len),
      document: null,
    }));
  }
  return out;
}

const CASES = cases();
const manifest = JSON.parse(readFileSync(`${root}packs/aozora/manifest.json`, 'utf8'));
const result = { date: new Date().toISOString().slice(0, 10), excerpts: N, units: {} };
for (const [unit, write] of Object.entries(UNITS)) {
  const texts = new Map();
  const documents = manifest.documents.map((d) => {
    const bytes = Buffer.from(write(works.find((w) => w.document === d.id).text));
    texts.set(d.file, bytes);
    return { ...d, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
  });
  const built = await buildPack(await createEngine(), { ...manifest, documents }, (d) => texts.get(d.file));
  const engine = await createEngine();
  await loadPack(engine, built.bytes, { sha256: built.sha256 });
  const row = { pack_bytes: built.bytes.length };
  for (const [name, list] of Object.entries(CASES)) {
    let atLeast50 = 0,
      named = 0,
      other = 0;
    for (const c of list) {
      const r = await engine.analyze({ content: write(c.text), content_type: 'text' });
      if (r.confidence < 50) continue;
      atLeast50++;
      const m = r.matches.find((x) => x.kind === 'portrait' && x.document_id);
      if (c.document && m?.document_id === c.document) named++;
      else if (c.document && m) other++;
    }
    row[name] = { n: list.length, at_least_50: atLeast50, named, other_work: other };
  }
  // fingerprinting speed of the unit, on the packed works (as the engine sees them), in MB of the original text a
  // second (the ASCII stand-ins of the earlier rule are longer than the kana they replace)
  const original = Buffer.byteLength(works.map((w) => w.text).join('\n'));
  const all = works.map((w) => write(w.text)).join('\n');
  const t0 = performance.now();
  let reps = 0;
  while (performance.now() - t0 < 2000) {
    engine.fingerprint(all);
    reps++;
  }
  row.fingerprint_mb_s = Math.round(((original * reps) / ((performance.now() - t0) / 1000) / 1e6) * 10) / 10;
  result.units[unit] = row;
  console.log(unit, JSON.stringify(row));
}
writeFileSync(`${root}bench/results/units-cjk.json`, `${JSON.stringify(result, null, 2)}\n`);
