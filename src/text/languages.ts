/**
 * The language a stretch of text is written in, as far as telling a quotation from its context needs: an English
 * essay that copies a tercet of Dante in Italian, or a line of Goethe in German, without marks or attribution, still
 * quotes it — the passage is not in the language of the essay's own prose. Not a language identifier for its own
 * sake: it answers only when the evidence is plain, and null otherwise.
 *
 * A text mostly in a script other than Latin is named by it (Japanese where kana are among the Han characters, else
 * Chinese; Cyrillic, Greek, Hangul, Thai, Arabic, Hebrew, Devanagari as scripts). A text in Latin letters is named by
 * its function words: the short words every sentence of a language uses (articles, pronouns, conjunctions,
 * prepositions, auxiliaries), the most frequent words of each language's corpora, which carry no topic — the method of
 * Grefenstette, "Comparing two language identification schemes" (JADT 1995), whose short-word lists tell the
 * languages of Europe apart on a sentence or two.
 */

/** The function words of each language (lower case), the most frequent of its prose. */
const FUNCTION_WORDS: Readonly<Record<string, string>> = {
  en: 'the and of to a in is that it was for with as his he on be at by had not are but from or have they which you were her she this we my me',
  de: 'der die und das den dem des ist nicht ich sich mit ein eine einen auch auf zu es von sie wie wir noch bin als aus was wenn hat war mir mich nun er',
  fr: 'le la les et des est une un du que qui dans pour pas ne au sur se son sa il elle je me ma mes nous vous avec mais ce cette ses aux était qu c j n m s l d',
  es: 'el la los las y que de en un una es por con no se del al lo su para como más pero sus le ya muy yo',
  it: 'il la di che e è un una per non in del della con si mi lo gli le ma nel nella al come più era ch io l',
  pt: 'o a os as de que e do da em um uma não para com por se no na mais dos das ao seu sua é eu',
  nl: 'de het een en van is dat niet op te ik je hij zijn met voor maar ook wat aan bij heeft werd zij',
  pl: 'i w nie na się z że do to jest jak a o ale co po za od jego tak już mnie ja ten go',
  la: 'et est ad cum quod qui quae sed ut ex esse sunt enim nec atque autem quam etiam in inter hi hic haec hoc eius ab',
};

/** Language → its words, once. */
let words: Map<string, Set<string>> | null = null;

/** Scripts whose letters name a language (or a family) at once: the name is the script's, in lower case. */
const SCRIPTS = 'Cyrillic Greek Hangul Thai Arabic Hebrew Devanagari'.split(' ');
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const HAN = /\p{Script=Han}/gu;
const LETTERS = /\p{L}/gu;
const WORD = /\p{L}+/gu;
/** The fewest function words a text in Latin letters needs to be named, and how far ahead the first must be. */
const MIN_HITS = 4;
const LEAD = 1.5;

const countOf = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

/**
 * The language `text` is written in — a code (`en`, `de`, `fr`, `es`, `it`, `pt`, `nl`, `pl`, `la`, `ja`, `zh`) or a
 * script's name (`cyrillic`, `greek`, `hangul`, `thai`, `arabic`, `hebrew`, `devanagari`) — or null when it is too
 * short or too mixed to say.
 * @example languageOf('Nel mezzo del cammin di nostra vita mi ritrovai per una selva oscura') // 'it'
 */
export function languageOf(text: string): string | null {
  const letters = countOf(text, LETTERS);
  if (letters === 0) return null;
  const kana = countOf(text, KANA);
  const han = countOf(text, HAN);
  if (2 * (kana + han) > letters) return kana * 20 >= kana + han ? 'ja' : 'zh';
  for (const name of SCRIPTS)
    if (2 * countOf(text, new RegExp(`\\p{Script=${name}}`, 'gu')) > letters) return name.toLowerCase();
  return byFunctionWords(text);
}

/** The language whose function words `text` uses most, at least {@link MIN_HITS} and {@link LEAD} times the next. */
function byFunctionWords(text: string): string | null {
  words ??= new Map(Object.entries(FUNCTION_WORDS).map(([k, v]) => [k, new Set(v.split(' '))]));
  const hits = new Map<string, number>();
  for (const w of text.toLowerCase().match(WORD) ?? [])
    for (const [lang, set] of words) if (set.has(w)) hits.set(lang, (hits.get(lang) ?? 0) + 1);
  const ranked = [...hits].sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first || first[1] < MIN_HITS || (second && first[1] < LEAD * second[1])) return null;
  return first[0];
}
