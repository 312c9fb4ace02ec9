/**
 * Attributions: the words by which a text says whose words it gives — "as Lincoln said", "wie Goethe schrieb",
 * "comme l'écrit Hugo", "como dice Cervantes", "come scrive Dante", "como escreveu Machado", "zoals Multatuli schreef",
 * "jak pisał Mickiewicz", «как писал Толстой», 「…」と漱石は書いた, 子曰. A reader reads them around the quoted text, so
 * each cue marks a region next to it:
 * - **forward** cues mark the rest of their paragraph ("As Lincoln said, …", "Mark Twain wrote that …", "selon Hugo, …",
 *   "子曰：…"), or the next paragraph when nothing follows them in theirs ("Jefferson once wrote:" then the letter);
 * - **backward** cues mark the text before them in their paragraph ("…, wrote Thoreau.", "…, schrieb Goethe"), or the
 *   paragraph before when they open theirs ("So wrote Edward Gibbon in the first volume …");
 * - a paragraph that ends in a verb of saying and a colon ("… and then she said:") introduces the next one, named or
 *   not: the unmarked block quote of an essay.
 * A name is a capitalised name of up to four words that never runs over a sentence end ("Blefuscu. Swift" is
 * "Swift"); a pronoun ("as he said", "wie er schrieb") names no one. "said X" after a quotation is fiction's dialogue
 * tag, not an attribution, in every language ("dijo Pedro", "sagte er"), so backward cues are verbs of writing only.
 * Every region keeps its cue's span: a cue inside a passage copied from a book (the book's own "and Peter said:--")
 * is the book's text, and src/services/analyze/quotations.ts does not read it as the work quoting the book.
 */

/** A region an attribution marks, `[start, end)` in the text's offsets, with the span of its cue. */
export interface AttributedRegion {
  readonly start: number;
  readonly end: number;
  /** Who the text is attributed to, as the content names them; absent for "… she said:" before a block. */
  readonly attributed_to?: string;
  /** The attribution's own words ("as Lincoln said"), `[start, end)`. */
  readonly cue: readonly [number, number];
}

/** The most of a paragraph before or after an attribution that it marks, in characters. */
export const ATTRIBUTION_REACH = 1500;

/**
 * The letters and digits of the scripts whose words the cues are made of (Latin with its extensions, Cyrillic), as
 * explicit ranges: a lookbehind on `\p{L}` costs about four times as much at every position of a paragraph.
 */
const WORD_CHAR = String.raw`A-Za-z0-9\u00C0-\u024F\u0400-\u04FF`;
/** Not a letter or digit before: a word start (`\b` knows ASCII only). */
const AT = `(?<![${WORD_CHAR}])`;
/** Not a letter or digit after: a word end. */
const END = `(?![${WORD_CHAR}])`;
/** Where a pattern that opens with a name may start: a word start before a capital (or "the"); three times cheaper. */
const NAME_START = String.raw`${AT}(?=[A-Zt\u00C0-\u00DE\u0100-\u024F\u0400-\u042F])`;
/** One word of a name: an initial ("J."), a title ("St."), or a capitalised word ("O'Brien", "Толстой"). */
const NAME_WORD = String.raw`(?:\p{Lu}\.|(?:St|Mr|Mrs|Dr|Ms|Jr)\.|\p{Lu}[\p{L}\p{M}'’-]*)`;
const PARTICLE = '(?:of|de|da|di|del|della|do|dos|das|du|van|von|der|den|ten|y)';
/** A capitalised name of up to four words ("the Bible", "St. Paul", "Abraham Lincoln", "Miguel de Cervantes"). */
const NAME = String.raw`((?:the\s+)?${NAME_WORD}(?:\s+(?:${PARTICLE}\s+)?${NAME_WORD}){0,3})`;
/** A name in the possessive ("Melville's", "Dickens’"): its last word ends in 's or s'. */
const POSSESSIVE = String.raw`((?:the\s+)?(?:${NAME_WORD}\s+(?:${PARTICLE}\s+)?){0,3}\p{Lu}[\p{L}\p{M}-]*(?:['’]s|s['’]))`;
/** Verbs of saying and writing, as they follow the name or come before it, in the eleven languages read. */
const VERB = String.raw`(?:said|says|wrote|writes|put\s+it|puts\s+it|observed|observes|declared|proclaimed|remarked|reminded\s+us|taught|teaches|tells(?:\s+(?:us|it))?|told(?:\s+(?:us|it))?|has\s+it|had\s+it|asked|noted|notes|argued|sang|sings|begins|opens|reads|schrieb|schreibt|sagte|sagt|meinte|bemerkte|dichtete|lehrte|es\s+(?:ausdrückte|formulierte|sagte)|schreef|schrijft|zei|zegt|het\s+zei|opmerkte|(?:l['’]|le\s+|l['’]a\s+|a\s+)?(?:écrit|écrivait|dit|disait|notait|rappelle|rappelait)|(?:lo\s+|ha\s+)?(?:dice|decía|dijo|escribe|escribió|escribía|dicho|escrito)|(?:ha\s+)?(?:diceva|disse|scrive|scriveva|scrisse|scritto|detto)|diz|dizia|escreve|escrevia|escreveu|pisał|pisała|pisze|napisał|napisała|mówił|mówiła|mawiał|powiedział|powiedziała|писал|писала|пишет|написал|написала|говорил|говорила|говорит|сказал|сказала)`;
/** Verbs of writing that may follow a quotation ("…, wrote Thoreau"): never one of saying, a dialogue tag. */
const WROTE =
  '(?:wrote|writes|declared|observed|schrieb|schreibt|écrit|écrivait|escribió|escribe|scrisse|scrive|escreveu|escreve|schreef|schrijft|pisał|pisała|napisał|napisała|pisze|писал|писала|написал|написала|пишет)';
/** "as" (the conjunction that opens an attribution) in the languages read; English also "what". */
const AS = '(?:[Aa]s|[Ww]hat|[Ww]ie|[Cc]omme|[Cc]omo|[Cc]ome|[Zz]oals|[Jj]ak|[Кк]ак)';
const ADVERB = String.raw`(?:(?:once|famously|memorably|rightly|so\s+\p{Ll}+|himself|herself|also|later|schon|einst|déjà|jadis|ya|già|já|al|już|уже)\s+)?`;
/** Conjunctions that introduce reported speech ("wrote that", "schrieb, dass", "écrit que", "писал, что"). */
const THAT = String.raw`,?\s+(?:that|dass|daß|que|che|dat|że|что)`;
/** A name in a script without spaces: Han and Katakana characters (hiragana are the particles around it). */
const CJK_NAME = String.raw`([\p{Script=Han}\p{Script=Katakana}ー・]{1,8})`;
const CJK_VERB = '(?:書いた|書いている|記した|述べた|述べている|言った|言っている|語った|言う|いう)';
/** Punctuation that ends a clause: a full stop, not the dot of an initial or a title ("J. R. R. Tolkien", "Mr."). */
const CLAUSE_END = String.raw`(?:[,;!?…]|(?<!(?:^|[^${WORD_CHAR}])(?:\p{Lu}|St|Mr|Mrs|Dr|Ms|Jr))\.)`;
/** A sentence end before a cue that opens a sentence ("… Blefuscu. So wrote Swift"). */
const SENTENCE = String.raw`(?:^|[.!?…]["”’»«]?\s+)`;

/**
 * A cue's pattern, and a cheap test a paragraph must pass before the pattern is run (most paragraphs hold no colon, no
 * "that", no 曰: the patterns that need one are not run there).
 */
type Cue = RegExp | readonly [RegExp, RegExp];
const COLON = /[:：]/;
const THAT_WORD = /(?<![\p{L}])(?:that|dass|daß|que|che|dat|że|что)(?![\p{L}])/u;

/**
 * The cue patterns, compiled when a text's attributions are first read: building these Unicode-aware expressions
 * costs ≈ 12 ms of CPU, which every process that loads the library would otherwise pay at its start (a scan or a
 * fingerprint never reads them).
 */
interface Cues {
  readonly forward: readonly Cue[];
  readonly backward: readonly Cue[];
  readonly introducer: RegExp;
}
let compiled: Cues | null = null;

/** The cue patterns, compiled on first use (see {@link Cues}). */
function cues(): Cues {
  return (compiled ??= { forward: forwardCues(), backward: backwardCues(), introducer: introducerCue() });
}

/** Cues whose region follows them: to the end of their paragraph, or the next paragraph. */
const forwardCues = (): Cue[] => [
  new RegExp(String.raw`${AT}${AS}\s+${ADVERB}${NAME}\s+${ADVERB}${VERB}${END}`, 'gu'),
  // "comme l'écrit Hugo", "como dice Cervantes", "come scrive Dante", "jak pisał Mickiewicz", «как писал Толстой»
  new RegExp(String.raw`${AT}${AS}\s+${ADVERB}${VERB}\s+${NAME}`, 'gu'),
  // "As Melville's narrator tells it", "In Dickens's words"
  new RegExp(
    String.raw`${AT}(?:[Aa]s|[Ww]hat|[Ii]n)\s+${POSSESSIVE}\s+(?:\p{Ll}+\s+){0,2}?(?:${VERB}|words)${END}`,
    'gu',
  ),
  new RegExp(
    String.raw`${AT}(?:[Ii]n\s+the\s+(?:\p{Ll}+\s+)?words\s+of|[Aa]ccording\s+to|[Qq]uoting|[Qq]uoted|[Tt]o\s+quote|[Mm]it\s+den\s+Worten(?:\s+von)?|[Ss]elon|[Dd]['’]après|[Pp]our\s+citer|[Pp]our\s+reprendre\s+les\s+mots\s+de|[Ss]egún|[Ee]n\s+palabras\s+de|[Cc]itando(?:\s+a)?|[Ss]econdo|[Nn]elle\s+parole\s+di|[Cc]on\s+le\s+parole\s+di|[Pp]er\s+citare|[Ss]egundo|[Nn]as\s+palavras\s+de|[Vv]olgens|[Ii]n\s+de\s+woorden\s+van|[Ww]edług|[Ss]łowami|[Cc]ytując|[Пп]о\s+словам|[Сс]ловами|[Цц]итируя)\s+${NAME}`,
    'gu',
  ),
  // "is Austen's:", "Dickens's own words:"
  [
    new RegExp(
      String.raw`${NAME_START}${NAME}['’]s?(?:\s+(?:own\s+)?(?:words|line|lines|sentence|opening|verse))?\s*:`,
      'gu',
    ),
    COLON,
  ],
  [new RegExp(String.raw`${NAME_START}${NAME}\s+${ADVERB}${VERB}\s*(?:[^\n.:]{0,60})?:`, 'gu'), COLON],
  [new RegExp(String.raw`${AT}${VERB}\s+${NAME}\s*:`, 'gu'), COLON],
  // reported speech: "Mark Twain wrote that …", "Goethe schrieb, dass …"
  [new RegExp(String.raw`${NAME_START}${NAME}\s+${ADVERB}${VERB}${THAT}${END}`, 'gu'), THAT_WORD],
  // "Gibbon put it in these words." ending the paragraph before the quotation
  [
    new RegExp(
      String.raw`${NAME_START}${NAME}\s+${ADVERB}(?:${VERB}|described|describes|put|puts)(?:\s+[^\s.!?:]+){0,6}?\s+(?:in\s+these\s+words|as\s+follows|thus)\s*[.:]`,
      'gu',
    ),
    /these words|as follows|thus/,
  ],
  // classical Chinese: 子曰, 孔子曰, 詩云
  [/([\p{Script=Han}]{1,4})(?:曰|云)[：:，,]?/gu, /[曰云]/],
];
/** Cues whose region comes before them: the text before them in their paragraph, or the paragraph before. */
const backwardCues = (): Cue[] => [
  new RegExp(String.raw`${CLAUSE_END}["”’»«“]?\s*[—–]*\s*${WROTE}\s+${NAME}`, 'gu'),
  // "…" Emerson wrote. (a clause of its own: "Swift wrote: …" and "Swift wrote that …" look forward)
  new RegExp(String.raw`${CLAUSE_END}["”’»]?\s*${NAME}\s+(?:once\s+|famously\s+)?(?:wrote|writes)(?=\s*[.,;!?])`, 'gu'),
  // "So wrote Edward Gibbon", "So schrieb Goethe", "Ainsi écrivait Hugo", "These are the words of Lincoln"
  new RegExp(
    String.raw`${SENTENCE}(?:(?:So|Thus|Così|Ainsi|Así|Assim|Zo|Tak|Так)\s+(?:${WROTE}|said|says|spoke|speaks|sang|sagte|sprach|disait|dit|dijo|decía|disse|diceva|dizia|zei|mówił|powiedział|говорил|сказал)|(?:These|Those)\s+(?:are|were)\s+the\s+(?:\p{Ll}+\s+)?words\s+of)\s+${NAME}`,
    'gu',
  ),
  // "That is how Dickens opened his novel.", "This is what Thoreau meant."
  [
    new RegExp(
      String.raw`${SENTENCE}(?:That|This)\s+(?:is|was)\s+(?:how|what)\s+${NAME}\s+${ADVERB}(?:${VERB}|opened|began|ended|meant|described)${END}`,
      'gu',
    ),
    /(?:That|This) (?:is|was) (?:how|what)/,
  ],
  // 「…」と漱石は書いた; …と漱石は書いた
  [new RegExp(`と${CJK_NAME}(?:は|が)${CJK_VERB}`, 'gu'), /と/],
];
/** A paragraph that ends introducing what follows: a verb of saying or writing, then a colon. */
const introducerCue = (): RegExp => new RegExp(String.raw`${AT}${VERB}(?:\s+[^\s.!?]+){0,6}\s*[:：]\s*$`, 'u');
/** How far from its paragraph's edge a cue that reaches the paragraph beside it can start, in characters. */
const EDGE = 240;

/**
 * Which of a paragraph's cues are read: all of them (a paragraph read), or only those that reach the paragraph beside
 * it — the forward cues of its last {@link EDGE} characters (`'end'`: the paragraph before one read) or the backward
 * cues of its first (`'start'`: the paragraph after one read).
 */
export type CuesRead = 'all' | 'end' | 'start';

/** Words that start a capitalised phrase but name no one: pronouns, in the languages read. */
const NOT_NAMES = new Set(
  'I He She It We They You This That There Everyone Nobody Er Sie Es Wir Ihr Man Il Elle On Nous Vous Ils Elles Él Ella Ellos Lui Lei Loro Ele Ela Eles Hij Zij Ze Wij Ona Oni Ono My Wy Он Она Оно Они Мы Вы Я'.split(
    ' ',
  ),
);
/** Capitalised words that open a sentence before the name ("When Lincoln wrote:"): left out of the name. */
const OPENING_WORDS = new Set(
  'When Then And But So As Later Once In On At After Und Aber Dann Als Et Mais Puis Quand Y Pero Cuando Ma Quando En Maar Toen Ale Gdy И Но Когда'.split(
    ' ',
  ),
);
/** Words of classical Chinese that open a clause before the name ("故孔子曰"): left out of the name. */
const HAN_OPENERS = /^[故而乃遂則是以於且又亦]+/u;

/** The name an attribution gives, or null for a pronoun or a word that names no one. */
export function nameOf(raw: string | undefined): string | null {
  if (!raw) return null;
  if (/^[\p{Script=Han}\p{Script=Katakana}ー・]+$/u.test(raw)) return raw.replace(HAN_OPENERS, '') || null;
  let words = raw.replace(/\s+/g, ' ').trim().split(' ');
  while (words.length > 0 && OPENING_WORDS.has(words[0])) words = words.slice(1);
  const first = words[0] === 'the' ? words[1] : words[0];
  if (first === undefined || NOT_NAMES.has(first)) return null;
  // a possessive names its owner: "Melville's narrator" is Melville's
  return words.join(' ').replace(/['’]s?$/u, '');
}

/**
 * The regions the attributions of paragraph `at` mark (see the module comment): `paras` are the text's paragraphs
 * (`[start, end)`, in order), so a cue that opens or ends its paragraph reaches the one beside it.
 * @example attributionsIn('So it goes.\n\nSo wrote Vonnegut.', [[0, 11], [13, 31]], 1) // [{ start: 0, end: 11, attributed_to: 'Vonnegut', cue: [13, 30] }]
 */
export function attributionsIn(
  text: string,
  paras: ReadonlyArray<readonly [number, number]>,
  at: number,
  read: CuesRead = 'all',
): AttributedRegion[] {
  const [from, to] = paras[at];
  const { forward, backward, introducer } = cues();
  const para = text.slice(from, to);
  const out: AttributedRegion[] = [];
  const next = paras[at + 1];
  const previous = paras[at - 1];
  // the paragraph's end, from a word start: where a cue that reaches the next paragraph lies
  const tail = read === 'end' && para.length > EDGE ? para.indexOf(' ', para.length - EDGE) + 1 : 0;
  const scanned = read === 'end' ? para.slice(tail) : para;
  for (const m of read === 'start' ? [] : matchesOf(forward, scanned)) {
    const name = nameOf(m[1]);
    const cue = [from + tail + m.index, from + tail + m.index + m[0].length] as const;
    if (!name) continue;
    if (LETTER.test(text.slice(cue[1], to)))
      out.push(region(cue[1], Math.min(to, cue[1] + ATTRIBUTION_REACH), cue, name));
    else if (next) out.push(region(next[0], Math.min(next[1], next[0] + ATTRIBUTION_REACH), cue, name));
  }
  for (const m of read === 'end' ? [] : matchesOf(backward, read === 'start' ? para.slice(0, EDGE) : para)) {
    const name = nameOf(m[1]);
    // the cue's punctuation ends the quoted text ("…, wrote Thoreau": the comma is the quotation's)
    const lead = /^[\s,.;!?…"”’»«“—–]*/u.exec(m[0])?.[0].length ?? 0;
    const end = from + m.index + Math.min(lead, 1);
    const cue = [from + m.index + lead, from + m.index + m[0].length] as const;
    if (!name) continue;
    if (LETTER.test(text.slice(from, end))) out.push(region(Math.max(from, end - ATTRIBUTION_REACH), end, cue, name));
    else if (previous) out.push(region(Math.max(previous[0], previous[1] - ATTRIBUTION_REACH), previous[1], cue, name));
  }
  // "… she said:" ending the paragraph: the next paragraph is what was said
  const introduces = next && read !== 'start' && /[:：]\s*$/.test(scanned) ? introducer.exec(scanned) : null;
  if (next && introduces && !out.some((r) => r.start === next[0]))
    out.push(region(next[0], Math.min(next[1], next[0] + ATTRIBUTION_REACH), [from + tail + introduces.index, to]));
  return distinct(out);
}

const LETTER = /[\p{L}\p{N}]/u;

function* matchesOf(cues: readonly Cue[], para: string): Generator<RegExpExecArray> {
  for (const cue of cues) {
    const [re, guard] = cue instanceof RegExp ? [cue, undefined] : cue;
    if (guard && !guard.test(para)) continue;
    re.lastIndex = 0;
    for (let m = re.exec(para); m !== null; m = re.exec(para)) {
      yield m;
      if (m[0].length === 0) re.lastIndex++;
    }
  }
}

/** The regions without repeats (two forms of one cue: "As Lincoln said" is also "Lincoln said"). */
function distinct(regions: readonly AttributedRegion[]): AttributedRegion[] {
  const seen = new Set<string>();
  return regions.filter((r) => {
    const key = `${r.start}:${r.end}:${r.attributed_to ?? ''}`;
    return !seen.has(key) && seen.add(key) !== undefined;
  });
}

function region(start: number, end: number, cue: readonly [number, number], name?: string): AttributedRegion {
  return { start, end, cue, ...(name ? { attributed_to: name } : {}) };
}
