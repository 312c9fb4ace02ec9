/**
 * Text → word tokens with spans in the original string → sentences → content-word term ids.
 *
 * Tokens are exactly those of `normalize` (pinned NFKC_Casefold, letters/marks/digits runs, one
 * token per CJK ideograph); each keeps its span `[start, end)` in the caller's string through the
 * normaliser's offset map. Sentences are cut in the ORIGINAL text: between two tokens whose gap
 * holds a sentence mark followed by white space (`.`, `!`, `?`, `…` with optional closing quotes
 * or brackets), a CJK full stop, a blank line, or a line break before a capital letter. Content
 * terms are Porter stems of the tokens that are not stop words.
 */
import { normalize } from '../text/normalize.js';
import { sortRangeU32 } from '../util/sorted.js';
import { porterStem, STOP_WORDS } from './stem.js';
import { swapSynonyms } from './synonyms.js';
import { countSpaces, lexicon, tokenize, type Tokens } from './tokens.js';

/** A prepared text. */
export interface Prepared {
  /** Token spans in the original string. */
  readonly tokStart: Uint32Array;
  readonly tokEnd: Uint32Array;
  /** Term id of each token (-1 for stop words). */
  readonly tokTerm: Int32Array;
  /** Id of each token's normalised form (stop words included), for exact runs. */
  readonly tokWord: Int32Array;
  /** Sentence s covers tokens [sentTok[s], sentTok[s + 1]). Length sentences + 1. */
  readonly sentTok: Uint32Array;
  /** Distinct content terms of each sentence (CSR: terms[sentTerm[s] .. sentTerm[s + 1]]) with their counts. */
  readonly sentTerm: Uint32Array;
  readonly terms: Uint32Array;
  readonly counts: Uint32Array;
  /** Number of word characters (UTF-16 units inside tokens). */
  readonly wordChars: number;
}

const SENTENCE_GAP = /[.!?…]["'”’»)\]]*\s|[。！？]|\n[ \t\r]*\n/;

const LINE_BREAK = /\n/;
const UPPER = /^\p{Lu}/u;
/**
 * A sentence cut between the token ending at `e` and the one starting at `s`: a sentence mark followed by
 * white space, a CJK full stop, a blank line, or a line break before a capital letter (headings, list items
 * and table cells of web pages carry no sentence mark; a hard-wrapped sentence goes on in lower case).
 */
function isCut(text: string, e: number, s: number): boolean {
  if (s - e === 1 && text.charCodeAt(e) === 32) return false; // most gaps: one space
  const gap = text.slice(e, s);
  if (SENTENCE_GAP.test(gap)) return true;
  return LINE_BREAK.test(gap) && UPPER.test(text.slice(s, s + 2));
}

/**
 * Sentence starts (token indices, then the token count): cuts from the original gaps, each sentence holding at
 * least `minSentenceWords` content words (a short tail joins the sentence before it).
 */
function sentenceCuts(
  text: string,
  tokStart: Uint32Array,
  tokEnd: Uint32Array,
  tokTerm: Int32Array,
  minSentenceWords: number,
): Uint32Array {
  const n = tokTerm.length;
  const cuts: number[] = [0];
  let content = 0;
  for (let t = 0; t < n; t++) {
    if (tokTerm[t] >= 0) content++;
    if (t + 1 < n && content >= minSentenceWords && isCut(text, tokEnd[t], tokStart[t + 1])) {
      cuts.push(t + 1);
      content = 0;
    }
  }
  if (n > 0) {
    if (content < minSentenceWords && cuts.length > 1) cuts.pop(); // join a short tail to the previous sentence
    cuts.push(n);
  }
  return Uint32Array.from(cuts);
}

/** Dictionary of term strings → dense ids shared by the two texts of one comparison. */
export class TermDict {
  private readonly ids = new Map<string, number>();
  /** Token form → [word id, term id (-1 for a stop word)]: one lookup per token of a text. */
  private readonly tokens = new Map<string, readonly [number, number]>();
  private words = 0;
  /** Word id and term id of `token` (term -1: a stop word). */
  entry(token: string): readonly [number, number] {
    let e = this.tokens.get(token);
    if (e === undefined) {
      e = [this.words++, STOP_WORDS.has(token) ? -1 : this.termOf(porterStem(token))];
      this.tokens.set(token, e);
    }
    return e;
  }
  /** Id of the normalised form `token` (stop words included). */
  word(token: string): number {
    return this.entry(token)[0];
  }
  /** Term id of `token`'s Porter stem (stop words too, when asked directly). */
  id(token: string): number {
    return this.termOf(porterStem(token));
  }
  private termOf(stem: string): number {
    let id = this.ids.get(stem);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(stem, id);
    }
    return id;
  }
  get size(): number {
    return this.ids.size;
  }
}

/**
 * Tokens, sentences and per-sentence distinct terms. Sentences with fewer than `minSentenceWords`
 * content words are joined to the next one (the last to the previous).
 */
export function prepare(text: string, dict: TermDict, minSentenceWords: number): Prepared {
  const { text: norm, map } = normalize(text);
  // tokens of the normalised text are separated by single spaces
  const n = norm.length === 0 ? 0 : countSpaces(norm) + 1;
  const tokStart = new Uint32Array(n);
  const tokEnd = new Uint32Array(n);
  const tokTerm = new Int32Array(n);
  const tokWord = new Int32Array(n);
  let wordChars = 0;
  let s = 0;
  for (let t = 0; t < n; t++) {
    let e = norm.indexOf(' ', s);
    if (e < 0) e = norm.length;
    tokStart[t] = map[s];
    tokEnd[t] = map[e];
    wordChars += map[e] - map[s];
    const [word, term] = dict.entry(norm.slice(s, e));
    tokTerm[t] = term;
    tokWord[t] = word;
    s = e + 1;
  }
  const sentTok = sentenceCuts(text, tokStart, tokEnd, tokTerm, minSentenceWords);
  const S = Math.max(0, sentTok.length - 1);
  const sentTerm = new Uint32Array(S + 1);
  const termsL: number[] = [];
  const countsL: number[] = [];
  const local = new Map<number, number>();
  for (let i = 0; i < S; i++) {
    local.clear();
    for (let t = sentTok[i]; t < sentTok[i + 1]; t++) {
      const id = tokTerm[t];
      if (id >= 0) local.set(id, (local.get(id) ?? 0) + 1);
    }
    const ids = [...local.keys()].sort((x, y) => x - y);
    for (const id of ids) {
      termsL.push(id);
      countsL.push(local.get(id)!);
    }
    sentTerm[i + 1] = termsL.length;
  }
  return {
    tokStart,
    tokEnd,
    tokTerm,
    tokWord,
    sentTok: S > 0 ? sentTok : new Uint32Array(1),
    sentTerm,
    terms: Uint32Array.from(termsL),
    counts: Uint32Array.from(countsL),
    wordChars,
  };
}

/** Number of sentences. */
export const sentences = (p: Prepared): number => p.sentTok.length - 1;

/** Per-pair dense ids: lexicon id → local id (−1: not seen in this pair), reset after each pair. */
let localWord = new Int32Array(0);
let localTerm = new Int32Array(0);

/**
 * The two texts of a pair prepared as {@link prepare} with one shared {@link TermDict} prepares them — the same
 * token spans, the same dense word and term ids (numbered by first occurrence in `a`, then `b`), the same
 * sentences — from their {@link tokenize}d forms. `words` is the number of distinct terms of the pair. With
 * `synonyms`, a content word of `a` that `b` lacks is read as `b`'s word of the same WordNet synonym set when `b`
 * holds one and `a` does not ({@link swapSynonyms}); words are left as they are (the verbatim runs read them).
 * @example
 * const { pa, pb, words } = preparePair(tokenize(a), tokenize(b), 3)
 */
export function preparePair(
  a: Tokens,
  b: Tokens,
  minSentenceWords: number,
  synonyms = false,
): { pa: Prepared; pb: Prepared; words: number } {
  if (a.epoch !== lexicon.epoch) a = tokenize(a.text);
  if (b.epoch !== lexicon.epoch) b = tokenize(b.text);
  if (a.epoch !== b.epoch) a = tokenize(a.text); // b's tokenizing started a new epoch
  if (localWord.length < lexicon.words) {
    localWord = new Int32Array(lexicon.words * 2).fill(-1);
  }
  if (localTerm.length < lexicon.terms) {
    localTerm = new Int32Array(lexicon.terms * 2).fill(-1);
  }
  const counter = { words: 0, terms: 0 };
  const lexiconWord: number[] = [],
    lexiconTerm: number[] = [];
  const tokA = localize(a, counter, lexiconWord, lexiconTerm),
    tokB = localize(b, counter, lexiconWord, lexiconTerm);
  if (synonyms) swapSynonyms(tokA.term, tokB.term, counter.terms, lexiconTerm);
  // reset the scratch ids for the next pair: only the entries this pair set, one step each (not one a token)
  for (const w of lexiconWord) localWord[w] = -1;
  for (const g of lexiconTerm) localTerm[g] = -1;
  const scratch = new Uint32Array(counter.terms);
  return {
    pa: sentencesOf(a, tokA, minSentenceWords, scratch),
    pb: sentencesOf(b, tokB, minSentenceWords, scratch),
    words: counter.terms,
  };
}

/** A text's local ids ({@link localize}) and how many of its tokens are content words. */
interface LocalIds {
  readonly word: Int32Array;
  readonly term: Int32Array;
  readonly contentTokens: number;
}

/**
 * Local word and term ids of a text's tokens, numbering new ones from `counter`; `lexiconWord` and `lexiconTerm`
 * get the lexicon's word id of each new local word and its term id of each new local term. Columns and counters
 * are read into locals once: this runs cold, as baseline code, where each property read is a call.
 */
function localize(
  tok: Tokens,
  counter: { words: number; terms: number },
  lexiconWord: number[],
  lexiconTerm: number[],
): LocalIds {
  const tokWord = tok.word,
    termOf = lexicon.termOf,
    wordIds = localWord,
    termIds = localTerm;
  const n = tokWord.length;
  const word = new Int32Array(n);
  const term = new Int32Array(n);
  let words = counter.words,
    terms = counter.terms,
    contentTokens = 0;
  for (let t = 0; t < n; t++) {
    const w = tokWord[t];
    let lw = wordIds[w];
    if (lw < 0) {
      lw = wordIds[w] = words++;
      lexiconWord[lw] = w;
    }
    word[t] = lw;
    const g = termOf[w];
    if (g < 0) term[t] = -1;
    else {
      let lt = termIds[g];
      if (lt < 0) {
        lt = termIds[g] = terms++;
        lexiconTerm[lt] = g;
      }
      term[t] = lt;
      contentTokens++;
    }
  }
  counter.words = words;
  counter.terms = terms;
  return { word, term, contentTokens };
}

/**
 * {@link sentenceCuts} and the text's word characters in one pass over its tokens, the common gap (one space: no
 * cut) told without a call.
 */
function cutsAndWordChars(
  text: string,
  tokStart: Uint32Array,
  tokEnd: Uint32Array,
  tokTerm: Int32Array,
  minSentenceWords: number,
): { cuts: Uint32Array; wordChars: number } {
  const n = tokTerm.length;
  const cuts: number[] = [0];
  let content = 0,
    wordChars = 0,
    start = n > 0 ? tokStart[0] : 0;
  for (let t = 0; t < n; t++) {
    const end = tokEnd[t];
    wordChars += end - start;
    if (tokTerm[t] >= 0) content++;
    if (t + 1 === n) break;
    const next = tokStart[t + 1];
    if (content >= minSentenceWords && (next - end !== 1 || text.charCodeAt(end) !== 32) && isCut(text, end, next)) {
      cuts.push(t + 1);
      content = 0;
    }
    start = next;
  }
  if (n > 0) {
    if (content < minSentenceWords && cuts.length > 1) cuts.pop(); // join a short tail to the previous sentence
    cuts.push(n);
  }
  return { cuts: Uint32Array.from(cuts), wordChars };
}

/**
 * Sentences and their distinct terms, as {@link prepare} builds them; `seen` is zeroed scratch of one
 * count per term of the pair (left zeroed).
 */
function sentencesOf(tok: Tokens, ids: LocalIds, minSentenceWords: number, seen: Uint32Array): Prepared {
  const { text, start: tokStart, end: tokEnd } = tok;
  const tokTerm = ids.term;
  const { cuts: sentTok, wordChars } = cutsAndWordChars(text, tokStart, tokEnd, tokTerm, minSentenceWords);
  const S = Math.max(0, sentTok.length - 1);
  const sentTerm = new Uint32Array(S + 1);
  // a sentence's distinct terms are at most its content tokens: one column for all, no array growth or sort garbage
  const terms = new Uint32Array(ids.contentTokens),
    counts = new Uint32Array(ids.contentTokens);
  let m = 0,
    to = S > 0 ? sentTok[0] : 0;
  for (let i = 0; i < S; i++) {
    const from = m,
      tokFrom = to;
    to = sentTok[i + 1];
    for (let t = tokFrom; t < to; t++) {
      const id = tokTerm[t];
      if (id < 0) continue;
      if (seen[id]++ === 0) terms[m++] = id;
    }
    sortRangeU32(terms, from, m);
    for (let k = from; k < m; k++) {
      const id = terms[k];
      counts[k] = seen[id];
      seen[id] = 0;
    }
    sentTerm[i + 1] = m;
  }
  return {
    tokStart,
    tokEnd,
    tokTerm,
    tokWord: ids.word,
    sentTok: S > 0 ? sentTok : new Uint32Array(1),
    sentTerm,
    terms: terms.subarray(0, m),
    counts: counts.subarray(0, m),
    wordChars,
  };
}
