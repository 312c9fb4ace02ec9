// Beyond English: is a text in another language found, named and judged as an English one is? One driver over every
// language of the modules in bench/languages/*.mjs (each: its packs, the packed works, natural negatives in no pack, the
// replacement words of its edits; bench/language-sources.mjs reads the book packs' texts). With the default packs
// loaded as `npm start` loads them, per language:
//
//   verbatim   passages of packed works (80 words, or 160 characters for scripts written without spaces), seeded
//              draws over the works: the share at >= 50 naming the drawn work (the document named first)
//   edited     passages of 200 words (400 characters) with 1 word (character) in 10 replaced and the module's
//              modernised spelling applied: the share at >= 50, and naming the work
//   negatives  natural text of the language in no pack, cut at 20/50/80/200 words (40/100/160/400 characters), at
//              least 200 snippets a length: the share at >= 50. Two kinds: period prose (the module's texts kept
//              out of its pack) and, with --ud, modern prose (Universal Dependencies treebanks' test files,
//              bench/ud-treebanks.mjs). A negative holding 24 consecutive words (40 characters) of a packed work is
//              a true match, listed apart and left out of the share (bench/shared-runs.mjs checks every one by text)
//   wrong      passages at >= 50 whose named document is not the drawn one (any kind)
//   calibration  the language's pack's dataset confidence over its positives and negatives: ECE (10 bins, classes
//              weighted equally), negatives whose evidence counts, the highest confidence a negative got
//
// and the famous works' openings (a separate table: score and the work named). The negatives are the test half of a
// module's natural texts (every second document); --write-background measures each language's packs' null on the
// other half (whole documents: engine.measureBackground, as bench/measure-background.mjs does for English) and records
// it in packs/index.json, bound to the pack's SHA-256.
//
//   node bench/eval-languages.mjs [--quick] [--check] [--lang fr,de] [--write-background] [--ud DIR [--measure-null]]
//     --ud: a folder of git mirrors of the treebanks (DIR/UniversalDependencies+UD_German-GSD/repo or DIR/UD_German-GSD);
//           without it, or with a treebank missing, the modern prose is skipped with a message
//     --measure-null: each pack's null measured on the treebanks' dev files too (reported, packs/index.json kept)
//
// Writes bench/results/eval-languages.json (-quick.json with --quick) and bench/results/eval-languages.md (the tables
// docs/packs.md quotes). --check exits 1 when a language misses a target: verbatim >= 0.95 naming the work, edited
// >= 0.90 at >= 50, negatives <= 0.01 at every length (each kind), 0 wrong works.
import './help.mjs';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rng } from './memorization-measures.mjs';
import { sharedRuns } from './shared-runs.mjs';
import { TREEBANKS, treebankPassages, treebankText } from './ud-treebanks.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    check: { type: 'boolean' },
    lang: { type: 'string' },
    'write-background': { type: 'boolean' },
    // a folder of git mirrors of the Universal Dependencies treebanks (bench/ud-treebanks.mjs): the modern prose
    ud: { type: 'string' },
    // measure each pack's null on the modern prose's tune files too (recorded in the report, packs/index.json kept)
    'measure-null': { type: 'boolean' },
  },
});
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { createEngine } = await import('../dist/index.js');

const N_POSITIVES = args.quick ? 20 : 60;
const N_NEGATIVES = args.quick ? 50 : 200;
const LENGTHS = { words: [20, 50, 80, 200], chars: [40, 100, 160, 400] };
const VERBATIM = { words: 80, chars: 160 };
const EDITED = { words: 200, chars: 400 };
const TARGETS = { verbatim_named: 0.95, edited_ge50: 0.9, negatives_ge50: 0.01, wrong: 0 };
/** A negative holding this many consecutive units of a packed work quotes it: a true match, counted apart. */
const TRUE_MATCH = { words: 24, chars: 40 };
const DATE = new Date().toISOString().slice(0, 10);

const seedOf = (s) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.codePointAt(0)) >>> 0, 7);

/** A text as units: words (split on white space) or characters (white space dropped). */
const unitsOf = (text, unit) => (unit === 'chars' ? [...text.replace(/\s+/g, '')] : text.split(/\s+/).filter(Boolean));
const join = (units, unit) => units.join(unit === 'chars' ? '' : ' ');

/** `n` units at a seeded place of `units` (null when the text is shorter). */
function cut(units, n, rnd) {
  if (units.length < n) return null;
  const at = Math.floor(rnd() * (units.length - n + 1));
  return units.slice(at, at + n);
}

/** 1 unit in 10 replaced (the 6th of every 10) by a replacement it is not, then the module's modernised spelling. */
function edit(units, lang, rnd) {
  const reps = lang.replacements?.length ? lang.replacements : ['x'];
  const out = units.map((u, i) => {
    if (i % 10 !== 5) return u;
    let r = reps[Math.floor(rnd() * reps.length)];
    if (r === u.toLowerCase()) r = reps[(reps.indexOf(r) + 1) % reps.length];
    return r;
  });
  const text = join(out, lang.unit);
  return lang.modernise ? lang.modernise(text) : text;
}

/** The portrait match with the most agreeing hits, and every document it names (`also_in` included). */
function named(r) {
  const m = r.matches.filter((x) => x.kind === 'portrait' && x.document_id);
  m.sort((a, b) => (b.agreeing ?? 0) - (a.agreeing ?? 0) || b.score - a.score);
  const best = m[0];
  if (!best) return { document: null, all: [], dataset: null, title: null };
  return {
    document: best.document_id,
    all: [best.document_id, ...(best.also_in ?? []).map((a) => a.document_id)],
    dataset: best.dataset_id,
    title: best.document?.title ?? null,
  };
}

/** One analysis: the confidence, the document named, and the language's pack's own evidence (for its calibration). */
async function analyze(engine, content, pack) {
  const r = await engine.analyze({ content, content_type: 'text' });
  const ev = r.evidence.datasets.find((d) => d.dataset_id === pack);
  const p = ev ? { p: ev.confidence, counted: ev.counted === true, strength: ev.strength } : { p: 0, counted: false };
  return { confidence: r.confidence, pack_evidence: p, ...named(r) };
}

/** Positives of one kind: seeded passages over the works (round-robin over a seeded order). */
async function positives(engine, lang, works, kind, cal) {
  const rnd = rng(seedOf(`${lang.code}:${kind}`));
  const size = kind === 'verbatim' ? VERBATIM[lang.unit] : EDITED[lang.unit];
  const usable = works.filter((w) => w.units.length >= size * 4);
  const order = usable.map((w) => [rnd(), w]).sort((a, b) => a[0] - b[0]);
  const rows = [];
  for (let i = 0; i < N_POSITIVES && order.length; i++) {
    const w = order[i % order.length][1];
    const units = cut(w.units, size, rnd);
    const content = kind === 'verbatim' ? join(units, lang.unit) : edit(units, lang, rnd);
    const a = await analyze(engine, content, lang.packs[0]);
    rows.push({
      pack_evidence: a.pack_evidence,
      work: w.work,
      drawn: w.document,
      confidence: a.confidence,
      named: a.document,
      title: a.title,
      right: a.all.includes(w.document),
    });
  }
  const ge50 = rows.filter((x) => x.confidence >= 50);
  cal.push(...rows.map((x) => ({ y: 1, ...x.pack_evidence })));
  return {
    n: rows.length,
    ge50: ge50.length / rows.length,
    ge50_named: ge50.filter((x) => x.right).length / rows.length,
    wrong: ge50.filter((x) => x.named !== null && !x.right).length,
    wrong_examples: ge50
      .filter((x) => x.named !== null && !x.right)
      .slice(0, 5)
      .map((x) => ({ drawn: x.drawn, named: x.named, title: x.title })),
  };
}

/** Period negatives of one length: seeded snippets, round-robin over the documents kept out of the pack. */
function periodPassages(lang, docs, n) {
  const rnd = rng(seedOf(`${lang.code}:neg:${n}`));
  const usable = docs.filter((d) => d.units.length >= n);
  const out = [];
  for (let i = 0; i < N_NEGATIVES && usable.length; i++) {
    const d = usable[i % usable.length];
    out.push({ units: cut(d.units, n, rnd), source: d.source, document: d.source, kind: 'document' });
  }
  return out;
}

/** Modern-prose negatives of one length: passages of the treebanks' test files (bench/ud-treebanks.mjs). */
const modernPassages = (lang, files, n) =>
  treebankPassages(files, n, lang.unit, N_NEGATIVES, rng(seedOf(`${lang.code}:modern:${n}`)));

/**
 * Natural negatives of one length, analysed: the share at >= 50 among those that hold no run of TRUE_MATCH units of
 * a packed work (checked by text: bench/shared-runs.mjs), and those that do, apart.
 */
async function negatives(engine, lang, works, passages, n, cal) {
  const texts = passages.map((x) => join(x.units, lang.unit));
  const quoted = sharedRuns(texts, works, lang.unit, TRUE_MATCH[lang.unit]);
  const rows = [];
  for (const [i, x] of passages.entries()) {
    const a = await analyze(engine, texts[i], lang.packs[0]);
    rows.push({ ...a, source: x.source, from: x.document, kind: x.kind, quoted: quoted[i] });
  }
  const clean = rows.filter((x) => !x.quoted);
  cal.push(...clean.map((x) => ({ y: 0, ...x.pack_evidence })));
  const hits = clean.filter((x) => x.confidence >= 50);
  return {
    length: n,
    n: clean.length,
    // the documents the passages were cut from, and how many lay inside one document, in a file's one run (a
    // treebank file that marks no documents) or ran on over several documents
    documents: new Set(rows.map((x) => x.from)).size,
    kinds: Object.fromEntries(
      ['document', 'run', 'documents'].map((k) => [k, rows.filter((x) => x.kind === k).length]),
    ),
    ge50: hits.length / Math.max(1, clean.length),
    max: Math.max(0, ...clean.map((x) => x.confidence)),
    pack_counted: clean.filter((x) => x.pack_evidence.counted).length,
    examples: hits
      .slice(0, 5)
      .map((x) => ({ source: x.source, confidence: x.confidence, named: x.title, dataset: x.dataset })),
    true_matches: rows
      .filter((x) => x.quoted)
      .map((x) => ({
        source: x.source,
        work: x.quoted.document,
        shared: x.quoted.words,
        confidence: x.confidence,
        named: x.document,
      })),
  };
}

/** The famous works' openings: 80 words (160 characters) from where `starts` is found, white space made single. */
async function famous(engine, lang, works) {
  const rows = [];
  const list = lang.famous ?? works.slice(0, 2).map((w) => ({ work: w.work, document: w.document, starts: '' }));
  for (const f of list) {
    const w = works.find((x) => x.document === f.document);
    const flat = w ? w.text.replace(/\s+/g, ' ') : '';
    const at = flat.indexOf(f.starts.replace(/\s+/g, ' '));
    if (!w || at < 0) {
      rows.push({ work: f.work, document: f.document, missing: true });
      continue;
    }
    const opening = join(unitsOf(flat.slice(at), lang.unit).slice(0, VERBATIM[lang.unit]), lang.unit);
    const a = await analyze(engine, opening, lang.packs[0]);
    rows.push({
      work: f.work,
      document: f.document,
      confidence: a.confidence,
      named: a.title,
      named_document: a.document,
      dataset: a.dataset,
      right: a.all.includes(f.document),
    });
  }
  return rows;
}

/** The tune half (every second document, from the first) and the test half of a module's negatives. */
const halves = (docs) => ({ tune: docs.filter((_, i) => i % 2 === 0), test: docs.filter((_, i) => i % 2 === 1) });

async function writeBackgrounds(langs) {
  const indexFile = here('../packs/index.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8'));
  const out = [];
  for (const lang of langs) {
    const { tune } = halves(await lang.negatives());
    // whole documents, at most 40 of them and 30,000 words each: enough fingerprints, a bounded run
    const texts = tune.slice(0, 40).map((d) => d.text.split(/\s+/).slice(0, 30_000).join(' '));
    const words = texts.reduce((a, t) => a + t.split(/\s+/).length, 0);
    for (const id of lang.packs) {
      const entry = index.packs.find((p) => p.id === id);
      if (!entry) continue;
      const engine = await createEngine();
      await engine.importDataset(readFileSync(here(`../packs/${entry.file}`)));
      const corpus =
        `Natural ${lang.name} in no pack: ${texts.length} texts (${Math.round(words / 1000)}k words), the tune half ` +
        `of the ${lang.code} negatives of bench/languages/ (${[...new Set(tune.map((d) => d.genre))].join('; ')}), ` +
        'bench/eval-languages.mjs --write-background.';
      entry.background = await engine.measureBackground(id, texts, { corpus, date: DATE });
      engine.dispose();
      out.push({ id, background: entry.background });
      console.log(
        `${id}: run start ${entry.background.run_start.toFixed(4)}, hit rate ${entry.background.hit_rate.toFixed(4)}`,
      );
    }
  }
  writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
  return out;
}

// ------------------------------------------------------------------------------------------ main

const dir = here('./languages/');
const wanted = args.lang ? new Set(args.lang.split(',')) : null;
const langs = [];
for (const f of readdirSync(dir)
  .filter((x) => x.endsWith('.mjs'))
  .sort()) {
  // a module exports one language, or an array of them (bench/languages/books.mjs: the book packs' eight); a helper
  // module (bench/languages/cjk-texts.mjs) exports none
  const exported = (await import(new URL(`./languages/${f}`, import.meta.url).href)).default ?? [];
  for (const lang of [exported].flat()) if (!wanted || wanted.has(lang.code)) langs.push(lang);
}
if (args['write-background']) await writeBackgrounds(langs);

/** The modern prose's treebank text of `side` for a language, or null with a message (no --ud, a mirror missing). */
function modernText(lang, side) {
  if (!args.ud) return null;
  if (!TREEBANKS[lang.code]) return null;
  const t = treebankText(args.ud, lang.code, side);
  if (t.missing) {
    console.error(`eval-languages: ${lang.code}: no modern prose (${t.missing})`);
    return null;
  }
  return t;
}

/**
 * The language's pack's null on the modern prose's tune files (never its test files): texts of consecutive sentences
 * of one file, about 1,000 units each, measured as `--write-background` measures the period texts.
 */
async function modernNull(lang) {
  const t = modernText(lang, 'tune');
  if (!t) return null;
  const texts = [];
  for (const f of t.files) {
    const cur = [];
    for (const s of f.sentences) {
      cur.push(s.text);
      if (unitsOf(cur.join(' '), lang.unit).length >= 1000) texts.push(cur.splice(0).join(' '));
    }
    if (cur.length) texts.push(cur.join(' '));
  }
  const index = JSON.parse(readFileSync(here('../packs/index.json'), 'utf8'));
  const out = [];
  for (const id of lang.packs) {
    const entry = index.packs.find((p) => p.id === id);
    const engine = await createEngine();
    await engine.importDataset(readFileSync(here(`../packs/${entry.file}`)));
    const bg = await engine.measureBackground(id, texts, { corpus: 'modern prose (tune files)', date: DATE });
    engine.dispose();
    const keep = (b) => ({
      run_start: b.run_start,
      continue_first: b.continue_first,
      continue_tail: b.continue_tail,
      hit_rate: b.hit_rate,
      dispersion: b.dispersion,
      fingerprints: b.measured_on.fingerprints,
    });
    out.push({ pack: id, texts: texts.length, period: keep(entry.background), modern: keep(bg) });
  }
  return out;
}

/**
 * Expected calibration error of the pack's dataset confidence over this language's positives (y 1) and natural
 * negatives (y 0): 10 equal-width bins, the two classes weighted equally (as bench/eval-calibration.mjs), with the
 * confidences the negatives and positives reached.
 */
function calibration(rows) {
  const pos = rows.filter((r) => r.y === 1);
  const neg = rows.filter((r) => r.y === 0);
  const bins = Array.from({ length: 10 }, () => ({ w: 0, c: 0, a: 0 }));
  for (const r of rows) {
    const w = r.y === 1 ? 0.5 / pos.length : 0.5 / neg.length;
    const b = bins[Math.min(9, Math.floor(r.p * 10))];
    b.w += w;
    b.c += w * r.p;
    b.a += w * r.y;
  }
  const q = (xs, f) => xs.map((r) => r.p).sort((x, y) => x - y)[Math.floor(f * (xs.length - 1))];
  return {
    positives: pos.length,
    negatives: neg.length,
    ece: Math.round(bins.reduce((e, b) => e + Math.abs(b.a - b.c), 0) * 1e4) / 1e4,
    negatives_counted: neg.filter((r) => r.counted).length,
    negatives_max: Math.max(0, ...neg.map((r) => r.p)),
    positives_median: q(pos, 0.5),
    positives_below_half: pos.filter((r) => r.p < 0.5).length,
  };
}

async function measureLanguage(engine, lang) {
  const t0 = performance.now();
  const works = (await lang.works()).map((w) => ({ ...w, units: unitsOf(w.text, lang.unit) }));
  const docs = halves(await lang.negatives()).test.map((d) => ({ ...d, units: unitsOf(d.text, lang.unit) }));
  const modern = modernText(lang, 'test');
  const cal = [];
  const row = {
    code: lang.code,
    name: lang.name,
    packs: lang.packs,
    unit: lang.unit,
    works: works.length,
    negative_documents: docs.length,
    verbatim: await positives(engine, lang, works, 'verbatim', cal),
    edited: await positives(engine, lang, works, 'edited', cal),
    negatives: [],
    modern: modern
      ? { sources: modern.sources.map(({ git_dir, ...x }) => ({ ...x, mirror: git_dir })), negatives: [] }
      : null,
    famous: await famous(engine, lang, works),
  };
  for (const n of LENGTHS[lang.unit]) {
    row.negatives.push(await negatives(engine, lang, works, periodPassages(lang, docs, n), n, cal));
    if (modern)
      row.modern.negatives.push(await negatives(engine, lang, works, modernPassages(lang, modern.files, n), n, cal));
  }
  if (modern) row.modern.sentences = modern.files.reduce((a, f) => a + f.sentences.length, 0);
  if (args['measure-null']) row.modern_null = await modernNull(lang);
  row.calibration = calibration(cal);
  row.wrong = row.verbatim.wrong + row.edited.wrong;
  const least = args.quick ? 50 : 200;
  const clean = (xs) => xs.every((x) => x.n >= least && x.ge50 <= TARGETS.negatives_ge50);
  row.meets = {
    verbatim: row.verbatim.ge50_named >= TARGETS.verbatim_named,
    edited: row.edited.ge50 >= TARGETS.edited_ge50,
    negatives: clean(row.negatives),
    modern_negatives: modern ? clean(row.modern.negatives) : null,
    wrong: row.wrong === 0,
  };
  row.seconds = Math.round((performance.now() - t0) / 100) / 10;
  return row;
}

const engine = await createEngine({ packs: 'default' });
const report = {
  date: new Date().toISOString(),
  node: process.version,
  quick: args.quick === true,
  targets: TARGETS,
  true_match_units: TRUE_MATCH,
  languages: [],
};
if (!args.ud)
  console.error('eval-languages: no --ud DIR (Universal Dependencies mirrors): the modern prose is skipped');
let failed = false;
for (const lang of langs) {
  const row = await measureLanguage(engine, lang);
  report.languages.push(row);
  if (Object.values(row.meets).some((x) => x === false)) failed = true;
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  const negs = (xs) =>
    xs.map((x) => `${x.length}:${pct(x.ge50)}${x.true_matches.length ? `+${x.true_matches.length}q` : ''}`).join(' ');
  console.log(
    `${lang.code}: verbatim ${pct(row.verbatim.ge50_named)} named, edited ${pct(row.edited.ge50)} (named ` +
      `${pct(row.edited.ge50_named)}), negatives ${negs(row.negatives)}` +
      `${row.modern ? `, modern ${negs(row.modern.negatives)}` : ''}, ECE ${row.calibration.ece}, ` +
      `wrong ${row.wrong}, famous ${row.famous.map((f) => `${f.work} ${f.confidence ?? 'missing'}${f.right ? '' : ' (not named)'}`).join('; ')} (${row.seconds} s)`,
  );
  if (row.modern_null)
    for (const x of row.modern_null)
      console.log(`  null ${x.pack}: period ${JSON.stringify(x.period)} modern ${JSON.stringify(x.modern)}`);
}
engine.dispose();

const suffix = args.quick ? '-quick' : '';
writeFileSync(here(`./results/eval-languages${suffix}.json`), `${JSON.stringify(report, null, 2)}\n`);
if (!args.quick && !args.lang) writeFileSync(here('./results/eval-languages.md'), markdown(report));
if (args.check && failed) {
  console.error('eval-languages: a language misses a target (see meets in the report)');
  process.exit(1);
}

function markdown(rep) {
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  const ch = (l) => (l.unit === 'chars' ? ' ch' : ' w');
  const negs = (l, xs) => xs.map((x) => `${x.length}${ch(l)}: ${pct(x.ge50)}`).join(', ');
  const quoted = (xs) => xs.reduce((a, x) => a + x.true_matches.length, 0);
  const lines = [
    `Measured ${rep.date.slice(0, 10)} with the default packs (bench/eval-languages.mjs; ${rep.languages[0]?.verbatim.n ?? 0} passages a kind, ` +
      `${rep.languages[0]?.negatives[0]?.n ?? 0} negatives a length).`,
    '',
    '| language | packs | verbatim ≥ 50 naming the work | edited ≥ 50 (naming it) | period negatives ≥ 50 by length | wrong works |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const l of rep.languages) {
    lines.push(
      `| ${l.name} | ${l.packs.map((p) => `\`${p}\``).join(', ')} | ${pct(l.verbatim.ge50_named)} | ${pct(l.edited.ge50)} ` +
        `(${pct(l.edited.ge50_named)}) | ${negs(l, l.negatives)} (${l.negative_documents} documents) | ${l.wrong} |`,
    );
  }
  lines.push(
    '',
    `Modern prose (Universal Dependencies treebanks, test files; passages of consecutive sentences; a negative holding ${rep.true_match_units.words} ` +
      `consecutive words or ${rep.true_match_units.chars} characters of a packed work is a true match, counted apart):`,
    '',
    '| language | treebanks | modern negatives ≥ 50 by length | passages inside one document / a run of an unmarked file / over several documents | sentences | true matches | pack confidence: ECE, negatives counted, max |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const l of rep.languages) {
    if (!l.modern) continue;
    const m = l.modern.negatives;
    const c = l.calibration;
    lines.push(
      `| ${l.name} | ${l.modern.sources.map((x) => x.repository.replace('UniversalDependencies/', '')).join(', ')} | ${negs(l, m)} | ` +
        `${m.map((x) => `${x.kinds.document} / ${x.kinds.run} / ${x.kinds.documents}`).join(', ')} | ${l.modern.sentences} | ` +
        `${quoted(m)} | ${c.ece}, ${c.negatives_counted} of ${c.negatives}, ${c.negatives_max.toFixed(3)} |`,
    );
  }
  lines.push('', '| work | language | opening: confidence | named |', '| --- | --- | --- | --- |');
  for (const l of rep.languages) {
    for (const f of l.famous) {
      lines.push(
        `| ${f.work} | ${l.name} | ${f.missing ? 'not found in the texts' : f.confidence} | ${f.right ? f.named : `${f.named ?? 'nothing'} (not the work)`} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
