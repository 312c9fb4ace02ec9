/**
 * Obviously-correct oracle of the Porter stemmer of src/align/stem.ts (M.F. Porter, "An algorithm for suffix
 * stripping", Program 14(3), 1980, steps 1a–5b): every rule list tested suffix by suffix, longest first, with no
 * dispatch on the word's last letter. For tests only.
 */
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

/** Replace the first matching suffix when the stem's m > `minM`; returns the word (changed or not) and whether a suffix matched. */
function applyRules(w: string, rules: readonly Rule[], minM: number): string {
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
const STEP2_SORTED = byLength(STEP2);
const STEP3_SORTED = byLength(STEP3);
const STEP4_SORTED = [...STEP4].sort((a, b) => b.length - a.length);

export function stemOnceRef(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
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
  w = applyRules(w, STEP2_SORTED, 0);
  w = applyRules(w, STEP3_SORTED, 0);
  // 4
  for (const suf of STEP4_SORTED) {
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
