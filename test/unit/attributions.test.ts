/**
 * Quotation marks and attributions of other languages, and attributions as a reader reads them
 * (src/text/quotations.ts, src/text/attributions.ts): the marks of French, German, Polish, Japanese and Chinese text,
 * dialogue dashes, the attribution forms of eleven languages, reported speech, a possessive narrator, an attribution
 * in the paragraph before or after, a name that never runs over a sentence end; and in the analysis
 * (src/services/analyze/quotations.ts) an attribution inside the matched text, which is the copied book's own.
 */
import { describe, expect, it } from 'vitest';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { QUOTED_WORK_SHARE, quotationsOf } from '../../src/services/analyze/quotations.js';
import { countedMatches } from '../../src/services/policy/evidence-policy.js';
import { nameOf } from '../../src/text/attributions.js';
import { extractText } from '../../src/text/index.js';
import { quotedRegions } from '../../src/text/quotations.js';

const regions = (s: string) => quotedRegions(s, 'text', extractText(s, 'text'));
/** The attributions of `s`: [name, the region's text]. */
const attributed = (s: string) =>
  regions(s)
    .filter((r) => r.by === 'attribution')
    .map((r) => [r.attributed_to ?? null, s.slice(r.start, r.end).trim()]);
const marked = (s: string) =>
  regions(s)
    .filter((r) => r.by === 'quotation_marks')
    .map((r) => s.slice(r.start, r.end).trim());

describe('quotation marks of other languages', () => {
  it('guillemets with and without inner spaces, reversed guillemets, low-high marks, single low marks', () => {
    expect(marked('Il disait « Je reviendrai demain » puis partit, et «\u00a0jamais\u00a0» ensuite.')).toEqual([
      'Je reviendrai demain',
      'jamais',
    ]);
    expect(marked('Sie las »Die Verwandlung« laut vor.')).toEqual(['Die Verwandlung']);
    expect(marked('Er rief „Halt!“ und sie flüsterte ‚leise‘.')).toEqual(['Halt!', 'leise']);
    expect(marked('Powiedział „Dobrze”, a potem wyszedł.')).toEqual(['Dobrze']);
    // a French closing » seen without its opening (a cut) opens nothing
    expect(marked('fin de la phrase » et la suite du texte.')).toEqual([]);
  });

  it('corner brackets of Japanese and Chinese, nested ones inside the outer quotation', () => {
    expect(marked('先生は「吾輩は猫である。『名前』はまだ無い」と言った。')).toEqual([
      '吾輩は猫である。『名前』はまだ無い',
    ]);
    expect(marked('他说：“学而时习之。”')).toEqual(['学而时习之。']);
  });

  it('dialogue dashes: each line a speech of its own, to the dash that opens the narrator’s words', () => {
    expect(marked('—Ven aquí —dijo Pedro—. Ahora.\n—No quiero.')).toEqual(['Ven aquí', 'No quiero.']);
    expect(marked('— Здравствуйте, — сказал он.\n– Bonjour, dit-elle.')).toEqual([
      'Здравствуйте,',
      'Bonjour, dit-elle.',
    ]);
    // a dash inside a line is punctuation, not dialogue
    expect(marked('The road — long and wet — ran on.')).toEqual([]);
  });
});

describe('attribution forms of eleven languages', () => {
  const cases: Array<[string, string, string]> = [
    ['As Lincoln said, four score and seven years ago.', 'Lincoln', 'four score'],
    ['Wie Goethe schrieb, grau ist alle Theorie.', 'Goethe', 'grau ist'],
    ['Wie schon Goethe sagte: grau ist alle Theorie.', 'Goethe', 'grau ist'],
    ["Comme l'écrit Hugo, la nuit tombait sur la ville.", 'Hugo', 'la nuit'],
    ["Comme Hugo l'a écrit, la nuit tombait sur la ville.", 'Hugo', 'la nuit'],
    ['Selon Victor Hugo, la nuit tombait sur la ville.', 'Victor Hugo', 'la nuit'],
    ['Como dice Cervantes, en un lugar de la Mancha.', 'Cervantes', 'en un lugar'],
    ['En palabras de Miguel de Cervantes, en un lugar de la Mancha.', 'Miguel de Cervantes', 'en un lugar'],
    ['Come scrive Dante, nel mezzo del cammin di nostra vita.', 'Dante', 'nel mezzo'],
    ['Come ha scritto Dante, nel mezzo del cammin di nostra vita.', 'Dante', 'nel mezzo'],
    ['Como escreveu Machado, uma noite destas, vindo da cidade.', 'Machado', 'uma noite'],
    ['Zoals Multatuli schreef, ik ben makelaar in koffie.', 'Multatuli', 'ik ben'],
    ['Jak pisał Mickiewicz, Litwo, ojczyzno moja.', 'Mickiewicz', 'Litwo'],
    ['Według Mickiewicza, Litwo, ojczyzno moja.', 'Mickiewicza', 'Litwo'],
    ['Как писал Толстой, все счастливые семьи похожи.', 'Толстой', 'все счастливые'],
    ['По словам Толстого, все счастливые семьи похожи.', 'Толстого', 'все счастливые'],
    ['子曰：學而時習之，不亦說乎？', '子', '學而時習之'],
    ['故孔子曰學而時習之。', '孔子', '學而時習之'],
    ['詩云：如切如磋。', '詩', '如切如磋'],
  ];
  for (const [text, name, starts] of cases)
    it(`${text.slice(0, 28)}… → ${name}`, () => {
      const a = attributed(text);
      expect(a.length).toBeGreaterThan(0);
      expect(a[0][0]).toBe(name);
      expect(
        String(a[0][1])
          .replace(/^[\s,:：]+/u, '')
          .startsWith(starts),
      ).toBe(true);
    });

  it('backward forms: "…, schrieb Goethe", "…», écrit Hugo", 「…」と漱石は書いた mark the text before', () => {
    expect(attributed('Grau ist alle Theorie, schrieb Goethe in seinem Faust.')).toEqual([
      ['Goethe', 'Grau ist alle Theorie,'],
    ]);
    expect(attributed('« La nuit tombait », écrit Hugo.')[0]).toEqual(['Hugo', '« La nuit tombait »,']);
    expect(attributed('吾輩は猫である。名前はまだ無いと漱石は書いた。')[0]).toEqual([
      '漱石',
      '吾輩は猫である。名前はまだ無い',
    ]);
  });

  it('pronouns name no one, in any language; dialogue tags of saying after a quotation are not attributions', () => {
    for (const s of [
      'As he said, the rain kept on.',
      'Wie er schrieb, das Wetter war schlecht.',
      "Comme il l'écrit, la nuit tombait.",
      'Как он писал, было холодно.',
      '"Come in," said Tom, and the rain kept on.',
      '—Ven aquí —dijo Pedro—. Ahora.',
      '„Komm herein“, sagte Anna leise.',
    ])
      expect(attributed(s)).toEqual([]);
    expect(nameOf('Er')).toBeNull();
    expect(nameOf('When Lincoln')).toBe('Lincoln');
    expect(nameOf("Melville's")).toBe('Melville');
  });
});

describe('attributions as a reader reads them', () => {
  it('reported speech after "wrote that" (and its kin in other languages)', () => {
    expect(attributed('Mark Twain wrote that it was not such a hollow world, after all.')).toEqual([
      ['Mark Twain', 'it was not such a hollow world, after all.'],
    ]);
    expect(attributed('Goethe schrieb, dass alle Theorie grau sei.')[0][0]).toBe('Goethe');
    expect(attributed('Hugo écrit que la nuit tombait.')[0][0]).toBe('Hugo');
  });

  it('a possessive narrator names its author', () => {
    expect(attributed("As Melville's narrator tells it, some years ago, never mind how long.")).toEqual([
      ['Melville', ', some years ago, never mind how long.'],
    ]);
    expect(attributed('In Dickens’s own words, it was the best of times.')[0][0]).toBe('Dickens');
  });

  it('an attribution in the next paragraph marks the paragraph before; one ending its paragraph, the next', () => {
    const after = 'The empire stood on the loyalty of its legions.\n\nSo wrote Edward Gibbon in his first volume.';
    expect(attributed(after)).toEqual([['Edward Gibbon', 'The empire stood on the loyalty of its legions.']]);
    const these = 'All happy families are alike.\n\nThese are the words of Tolstoy, and they open his novel.';
    expect(attributed(these)[0]).toEqual(['Tolstoy', 'All happy families are alike.']);
    const before = 'Jefferson once wrote:\n\nWe hold these truths to be self-evident.\n\nAnd so on.';
    expect(attributed(before)).toEqual([['Jefferson', 'We hold these truths to be self-evident.']]);
    // an unmarked block after "… said:" on its own paragraph is what was said, whoever said it
    const block = 'At the meeting she stood up and said:\n\nWe the People of the United States.\n\nThen she sat.';
    expect(attributed(block)).toEqual([[null, 'We the People of the United States.']]);
  });

  it('"… in these words." before the paragraph quoted, "That is how … opened" after it', () => {
    const before = 'Gibbon described the decline in these words.\n\nThe empire stood on its legions.\n\nNext.';
    expect(attributed(before)).toEqual([['Gibbon', 'The empire stood on its legions.']]);
    const after = 'It was the best of times, it was the worst of times.\n\nThat is how Dickens opened his novel.';
    expect(attributed(after)).toEqual([['Dickens', 'It was the best of times, it was the worst of times.']]);
    // narration is not an attribution: "As the war began" names no one, "This is how it was" neither
    expect(attributed('As the war began, the town emptied.\n\nThis is how it was done.')).toEqual([]);
  });

  it('the paragraph beside a paragraph read is read for its attribution', () => {
    const text = 'So it goes, and it went on like that.\n\nSo wrote Vonnegut.';
    const x = extractText(text, 'text');
    expect(quotedRegions(text, 'text', x, [[0, 10]]).map((r) => r.attributed_to)).toEqual(['Vonnegut']);
  });

  it('a name never runs over a sentence end', () => {
    const s = 'The fleet sailed between Lilliput and Blefuscu. Swift wrote: the emperor was a tall man.';
    expect(attributed(s)).toEqual([['Swift', 'the emperor was a tall man.']]);
    expect(attributed('He came from Blefuscu. Swift said: it was small.')[0][0]).toBe('Swift');
    expect(attributed('As J. R. R. Tolkien wrote, not all who wander are lost.')[0][0]).toBe('J. R. R. Tolkien');
    expect(attributed('As St. Paul wrote, love is patient.')[0][0]).toBe('St. Paul');
  });

  it('every attribution keeps the span of its cue', () => {
    const s = 'It was late. As Lincoln said, four score years.';
    const r = regions(s).find((x) => x.by === 'attribution');
    expect(r?.cue && s.slice(r.cue[0], r.cue[1])).toBe('As Lincoln said');
  });
});

/** A portrait match over [start, end) of the content, `tokens` words, of the book `title`. */
function portrait(start: number, end: number, tokens: number, title: string): PortraitMatch {
  return {
    dataset_id: 'pack:gutenberg',
    document_id: title,
    document: { id: title, title, author: title },
    query_start: start,
    query_end: end,
    source_start: null,
    source_end: null,
    kind: 'portrait',
    tokens,
    score: 1,
  };
}

const OWN = 'My week was ordinary and I wrote it down in the evenings. ';
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

describe('an attribution inside the matched text is the copied book’s', () => {
  it('the book’s own "and Peter said:--" inside the match does not make it a quotation; the author’s attribution does', () => {
    const page =
      'The boats came in at dusk and the men stood about the fire, talking of the catch and of the weather, and of ' +
      'the old woman at the end of the quay who had watched the harbour every evening for forty years, until the ' +
      'lamps were lit and the children called in, and Peter said:--Come to me now, all of you, for the night is ' +
      'long and the sea is high, and we have far to go before the morning, and the nets are not yet mended, and ' +
      'the wind has turned against us twice since the bell rang for the evening prayers in the town.';
    const copy = `${OWN.repeat(14)}\n\n${page}\n\n${OWN.repeat(14)}`;
    const at = copy.indexOf('The boats');
    const m = portrait(at, at + page.length, words(page), 'A Novel');
    expect(quotationsOf(copy, 'text', [m], words(copy))).toEqual([null]);
    const quoting = `${OWN.repeat(14)}\n\nAs Dickens wrote, ${page}\n\n${OWN.repeat(14)}`;
    const q = quoting.indexOf('The boats');
    const quoted = quotationsOf(
      quoting,
      'text',
      [portrait(q, q + page.length, words(page), 'A Novel')],
      words(quoting),
    );
    expect(quoted[0]).toMatchObject({ by: ['attribution'], attributed_to: 'Dickens' });
  });
});

describe('no cliff: the share quoted from one work', () => {
  const passage =
    'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a ' +
    'wife. However little known the feelings or views of such a man may be on his first entering a neighbourhood. ';
  /** A content quoting `passage` repeated `n` times in one block quote, with `own` sentences of the author's. */
  const essay = (n: number, own: number) => {
    const quote = passage.repeat(n).trim();
    const text = `${OWN.repeat(own)}\n\n> ${quote}\n\n${OWN.repeat(own)}`;
    const at = text.indexOf('It is');
    return { text, m: portrait(at, at + quote.length, words(quote), 'Pride and Prejudice') };
  };

  it('a quotation under a third of the text is excluded, with its share; over a third it counts for the work', () => {
    const small = essay(2, 20);
    const [q] = quotationsOf(small.text, 'markdown', [small.m], words(small.text));
    expect(q).toMatchObject({ by: ['block_quote'] });
    expect(q?.share).toBeCloseTo(small.m.tokens / words(small.text), 2);
    expect(q?.counts).toBeUndefined();
    expect(countedMatches([{ ...small.m, role: 'quotation', quotation: q! }], 'exclude')).toEqual([]);
    const large = essay(5, 10); // about 46 % of the words
    const [l] = quotationsOf(large.text, 'markdown', [large.m], words(large.text));
    expect(l?.share).toBeGreaterThan(QUOTED_WORK_SHARE);
    expect(l?.share).toBeLessThan(0.5);
    expect(l).toMatchObject({ by: ['block_quote'], counts: true });
    expect(countedMatches([{ ...large.m, role: 'quotation', quotation: l! }], 'exclude')).toHaveLength(1);
  });

  it('the share is of one work: two works each under a third stay quotations', () => {
    const a = essay(3, 10);
    const half = Math.floor((a.m.query_start + a.m.query_end) / 2);
    const two = [
      { ...a.m, query_end: half, tokens: Math.floor(a.m.tokens / 2) },
      { ...portrait(half, a.m.query_end, Math.ceil(a.m.tokens / 2), 'Emma') },
    ];
    const qs = quotationsOf(a.text, 'markdown', two, words(a.text));
    expect(qs.every((q) => q !== null && q.counts === undefined)).toBe(true);
  });
});
