/**
 * English stop words and the Porter stemmer (M.F. Porter, "An algorithm for suffix stripping",
 * Program 14(3), 1980 — the original algorithm, steps 1a–5b), used to build the content-word
 * vectors of `compare`. Input is one lower-case token (the output of `normalize`); tokens that are
 * not plain a–z are returned unchanged.
 */

/** Function words ignored by the sentence vectors (the usual English list, lower case). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves s t d ll m re ve also may might must shall us'
  ).split(' '),
);

const isVowelAt = (w: string, i: number): boolean => {
  const c = w.charCodeAt(i);
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return true;
  if (c === 121) return i > 0 && !isVowelAt(w, i - 1); // y after a consonant is a vowel
  return false;
};

/** Porter's m: the number of VC sequences in `w[0, end)`. */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && !isVowelAt(w, i)) i++;
  while (i < end) {
    while (i < end && isVowelAt(w, i)) i++;
    if (i >= end) break;
    m++;
    while (i < end && !isVowelAt(w, i)) i++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowelAt(w, i)) return true;
  return false;
}

/** *d: ends with a double consonant. */
function doubleCons(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && !isVowelAt(w, n - 1);
}

/** *o: ends cvc, the last c not w, x or y. */
function cvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (isVowelAt(w, end - 1) || !isVowelAt(w, end - 2) || isVowelAt(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

type Rule = readonly [suffix: string, replacement: string];

/**
 * Replace the first matching suffix when the stem's m > `minM`; returns the word (changed or not). `rules` are those
 * of a step whose suffix ends in the word's last letter ({@link byLastLetter}): no other can match.
 */
function applyRules(w: string, rules: readonly Rule[] | undefined, minM: number): string {
  if (rules === undefined) return w;
  for (const [suf, rep] of rules) {
    if (w.endsWith(suf)) {
      const stemEnd = w.length - suf.length;
      return measure(w, stemEnd) > minM ? w.slice(0, stemEnd) + rep : w;
    }
  }
  return w;
}

const STEP2: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: readonly Rule[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
];

/** Longest suffix first, as Porter's rule lists are matched on the longest applicable suffix. */
const byLength = (rules: readonly Rule[]): Rule[] => [...rules].sort((a, b) => b[0].length - a[0].length);

/**
 * A step's rules (longest suffix first) by the character code of their suffix's last letter: a word is tested only
 * against the rules that end in its own last letter, in the same order (the first match is the same one), as
 * Porter's own implementation switches on a letter of the word, instead of all 47 suffixes of steps 2–4.
 */
function byLastLetter(rules: readonly Rule[]): ReadonlyArray<readonly Rule[] | undefined> {
  const groups: Rule[][] = [];
  for (const rule of byLength(rules)) (groups[rule[0].charCodeAt(rule[0].length - 1)] ??= []).push(rule);
  return groups;
}
const STEP2_BY_LAST = byLastLetter(STEP2);
const STEP3_BY_LAST = byLastLetter(STEP3);
const STEP4_BY_LAST = byLastLetter(STEP4.map((suffix) => [suffix, ''] as const));

/** Whether `word` is all a–z (what /^[a-z]+$/ tests, without a regular expression per word). */
function isLowerAZ(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return word.length > 0;
}

/** Stems already computed: a search stems the same words in every window it aligns (bounded, cleared when full). */
const memo = new Map<string, string>();
const MEMO_SIZE = 100_000;

/**
 * Porter stem of a lower-case a–z word (others returned as is).
 * @example porterStem('generalizations') // 'gener'
 */
export function porterStem(word: string): string {
  let stem = memo.get(word);
  if (stem === undefined) {
    stem = stemOnce(word);
    if (memo.size === MEMO_SIZE) memo.clear();
    memo.set(word, stem);
  }
  return stem;
}

/**
 * Porter stem of a lower-case a–z word, not remembered: for callers that keep stems themselves (the lexicon of
 * src/align/tokens.ts stems each new form once; a look-up in the memo first would only miss).
 * @example stemOnce('generalizations') // 'gener'
 */
export function stemOnce(word: string): string {
  if (word.length <= 2 || !isLowerAZ(word)) return word;
  let w = word;
  // 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // 1b
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (doubleCons(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += 'e';
  }
  // 1c
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + 'i';
  // 2, 3
  w = applyRules(w, STEP2_BY_LAST[w.charCodeAt(w.length - 1)], 0);
  w = applyRules(w, STEP3_BY_LAST[w.charCodeAt(w.length - 1)], 0);
  // 4
  for (const [suf] of STEP4_BY_LAST[w.charCodeAt(w.length - 1)] ?? []) {
    if (w.endsWith(suf)) {
      const stemEnd = w.length - suf.length;
      if (measure(w, stemEnd) > 1 && (suf !== 'ion' || /[st]$/.test(w.slice(0, stemEnd)))) w = w.slice(0, stemEnd);
      break;
    }
  }
  // 5a
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // 5b
  if (measure(w, w.length) > 1 && doubleCons(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
