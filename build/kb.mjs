// Generates src/services/kb/models.generated.ts from the knowledge-base facts (52 model records).
//
//   node build/kb.mjs [path/to/kb-models-datasets.json] [--check]
//
// The facts live outside this repository (../shared/reference/kb-models-datasets.json by default) and the
// library must never read them at run time, so they are copied verbatim into a committed TypeScript module
// whose header names the source file and its sha256. This script is NOT part of `npm run build`: the build
// and the tests stay independent of the facts file. `--check` writes nothing and exits 1 when the committed
// module differs from what would be generated (the facts changed, or only this generator); .ci/run runs it
// where the facts file is present. test/unit/kb.test.ts checks, without the file, that the committed module
// holds valid records and is this generator's output for them (`recordProblems`, `factsDeclarations`).

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = resolve(ROOT, 'src/services/kb/models.generated.ts');

// The generated module is typed as KbModelFact[]; refuse anything the type would misdescribe, so a schema
// change in the facts shows up here rather than as a wrong cast at run time.
export const FIELDS = [
  'model',
  'provider',
  'release_year',
  'modality',
  'training_datasets',
  'training_tokens',
  'disclosure',
  'notes',
  'sources',
  'uncertain_fields',
];
const isStrings = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** What is wrong with the records, one `record <i>: …` line per problem; empty when they fit KbModelFact. */
export function recordProblems(records) {
  if (!Array.isArray(records)) return ['record -1: expected a JSON array'];
  const out = [];
  const fail = (i, msg) => out.push(`record ${i}: ${msg}`);
  const seen = new Set();
  records.forEach((r, i) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      fail(i, 'expected an object');
      return;
    }
    const keys = Object.keys(r);
    if (keys.length !== FIELDS.length || FIELDS.some((f) => !keys.includes(f)))
      fail(i, `fields are ${keys.join(', ')}`);
    if (typeof r.model !== 'string' || r.model !== r.model.toLowerCase() || !r.model.includes('/'))
      fail(i, 'model must be provider/name in lower case');
    if (seen.has(r.model)) fail(i, `duplicate model ${r.model}`);
    seen.add(r.model);
    if (typeof r.provider !== 'string' || !r.provider) fail(i, 'provider');
    if (r.release_year !== null && !Number.isInteger(r.release_year)) fail(i, 'release_year');
    if (r.modality !== 'text' && r.modality !== 'image') fail(i, `modality ${r.modality}`);
    if (!['full', 'partial', 'undisclosed'].includes(r.disclosure)) fail(i, `disclosure ${r.disclosure}`);
    if (r.training_tokens !== null && typeof r.training_tokens !== 'string') fail(i, 'training_tokens');
    if (typeof r.notes !== 'string') fail(i, 'notes');
    for (const f of ['training_datasets', 'sources', 'uncertain_fields']) if (!isStrings(r[f])) fail(i, f);
  });
  return out;
}

// What the generated module names as its source: where the facts come from, not the path of the facts file (it
// lies outside the repository, so a reader of the module could not follow it); the sha256 pins the exact file.
export const FACTS_LABEL = 'knowledge-base facts (model cards, papers; sources per record)';

// A record that repeats an earlier one in all but at most SPREAD_MAX_DIFFERENT fields (the model among them) is
// written as that record spread with the fields that differ, so the module states each shared set of facts once.
const SPREAD_MAX_DIFFERENT = 3;

/** For each record, the earlier record it is written as a spread of (the first with the fewest differences), or -1. */
function spreadBases(records) {
  const differing = (a, b) => FIELDS.filter((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f]));
  return records.map((r, i) => {
    let base = -1;
    let fewest = SPREAD_MAX_DIFFERENT + 1;
    for (let j = 0; j < i; j++) {
      const n = differing(records[j], r).length;
      if (n < fewest) [base, fewest] = [j, n];
    }
    return base;
  });
}

/** `value` as JSON.stringify(…, null, 2) writes it, every line after the first indented by `indent` more spaces. */
const json = (value, indent) =>
  JSON.stringify(value, null, 2)
    .split('\n')
    .join(`\n${' '.repeat(indent)}`);

/**
 * The declarations of the generated module that carry data, exactly as written: the source line, the records that
 * later records are spread from (`shared`, as constants of their own; empty when none is), and the list of
 * records. Every record is a KbModelFact with the fields in FIELDS order, equal field for field to the source's.
 */
export function factsDeclarations(records, sha256, _from) {
  const bases = spreadBases(records);
  const named = [...new Set(bases.filter((b) => b >= 0))].sort((a, b) => a - b);
  const name = (i) => `FACT_${i}`;
  const shared = named.map((i) => `const ${name(i)}: KbModelFact = ${json(records[i], 0)};`).join('\n');
  const element = (r, i) => {
    if (named.includes(i)) return `  ${name(i)}`;
    const b = bases[i];
    if (b < 0) return `  ${json(r, 2)}`;
    const own = FIELDS.filter((f) => JSON.stringify(r[f]) !== JSON.stringify(records[b][f]));
    return `  {\n    ...${name(b)},\n${own.map((f) => `    ${JSON.stringify(f)}: ${json(r[f], 4)}`).join(',\n')}\n  }`;
  };
  const list = `export const MODEL_FACTS: readonly KbModelFact[] = [\n${records.map(element).join(',\n')}\n];`;
  return {
    source: `export const KB_FACTS_SOURCE = { file: '${FACTS_LABEL}', sha256: '${sha256}', records: ${records.length} } as const;`,
    shared,
    facts: list,
  };
}

/** The whole generated module. */
export function generate(records, sha256, from) {
  const d = factsDeclarations(records, sha256, from);
  return `// Generated by build/kb.mjs from the ${FACTS_LABEL} — do not edit; regenerate with \`node build/kb.mjs\`.
// sha256 of the source: ${sha256}
// The facts are copied verbatim (\`node build/kb.mjs --check\` compares them with the JSON when it is present);
// src/services/kb/datasets.ts maps each training_datasets string onto the curated dataset table.

import type { KbModelFact } from './types.js';

/**
 * The file the facts were generated from, its sha256 and the number of records.
 * @example
 * KB_FACTS_SOURCE.records // ${records.length}
 */
${d.source}
${
  d.shared === ''
    ? ''
    : `
// Records that later ones repeat but for a few fields (those are written as a spread of them).
${d.shared}
`
}
/**
 * The model records of the knowledge base, field for field as in the source file.
 * @example
 * MODEL_FACTS.find((f) => f.model === 'eleutherai/pythia-6.9b')?.training_datasets // ['The Pile']
 */
${d.facts}
`;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const source = resolve(
    args.find((a) => !a.startsWith('--')) ?? resolve(ROOT, '../shared/reference/kb-models-datasets.json'),
  );
  const bytes = readFileSync(source);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const records = JSON.parse(bytes.toString('utf8'));
  const problems = recordProblems(records);
  if (problems.length > 0) {
    for (const p of problems) console.error(`${source}: ${p}`);
    process.exit(1);
  }
  const from = relative(ROOT, source).split('\\').join('/');
  const out = generate(records, sha256, from);
  if (check) {
    let current = '';
    try {
      current = readFileSync(OUT, 'utf8');
    } catch {}
    if (current !== out) {
      const d = factsDeclarations(records, sha256, from);
      const why =
        current.includes(d.source) && current.includes(d.shared) && current.includes(d.facts)
          ? 'the facts match, but the module text is not what this generator writes'
          : 'the facts differ from the JSON';
      console.error(`${relative(ROOT, OUT)} is stale (${why}): run node build/kb.mjs`);
      process.exit(1);
    }
    console.log(`${relative(ROOT, OUT)} is up to date (${records.length} records, sha256 ${sha256.slice(0, 16)})`);
  } else {
    writeFileSync(OUT, out);
    console.log(`wrote ${relative(ROOT, OUT)}: ${records.length} records from ${from}, sha256 ${sha256.slice(0, 16)}`);
  }
}
