// The languages of the book packs (pack:books-<code>): each language's works, the texts kept out of its pack, its
// replacement words and modernised spelling, and its famous works' openings (bench/eval-languages.mjs reads this
// module; a module of bench/languages/ may export one language or an array of them).
import { bookLanguage, modernSpelling } from '../language-sources.mjs';

const NAMES = {
  fr: 'French',
  de: 'German',
  es: 'Spanish',
  it: 'Italian',
  pt: 'Portuguese',
  nl: 'Dutch',
  pl: 'Polish',
  ru: 'Russian',
};

/** Common words of the language that replace 1 word in 10 of an edited passage. */
// biome-ignore format: one line a language
const REPLACEMENTS = {
  fr: ['et', 'le', 'la', 'une', 'dans', 'mais', 'donc', 'puis', 'très', 'encore'],
  de: ['und', 'der', 'die', 'ein', 'auch', 'noch', 'dann', 'sehr', 'schon', 'aber'],
  es: ['y', 'el', 'la', 'un', 'muy', 'pero', 'luego', 'también', 'pues', 'todavía'],
  it: ['e', 'il', 'la', 'un', 'poi', 'ma', 'anche', 'ancora', 'molto', 'così'],
  pt: ['e', 'o', 'a', 'um', 'mas', 'muito', 'então', 'ainda', 'logo', 'também'],
  nl: ['en', 'de', 'het', 'een', 'maar', 'ook', 'nog', 'dan', 'zeer', 'toen'],
  pl: ['i', 'w', 'na', 'się', 'ale', 'już', 'jeszcze', 'bardzo', 'potem', 'także'],
  ru: ['и', 'в', 'на', 'не', 'но', 'уже', 'ещё', 'очень', 'потом', 'тоже'],
};

/** The famous works' openings: [work, document id in the pack, the words the opening starts with]. */
// biome-ignore format: one line a work
const FAMOUS = {
  fr: [['Les Misérables', 'pg17489', 'En 1815, M. Charles-François-Bienvenu Myriel'], ['Madame Bovary', 'eltec-FRA01302_Flaubert', "Nous étions à l'Étude"]],
  de: [['Faust', 'pg2229', 'Habe nun, ach! Philosophie'], ['Die Verwandlung', 'pg22367', 'Als Gregor Samsa eines Morgens']],
  es: [['Don Quijote', 'pg2000', 'En un lugar de la Mancha']],
  it: [['La Divina Commedia', 'pg1012', 'Nel mezzo del cammin'], ['I promessi sposi', 'eltec-IT18420_Manzoni_Promessi-Sposi', 'Quel ramo del lago di Como']],
  pt: [['Dom Casmurro', 'pg55752', 'Uma noite destas, vindo da cidade']],
  nl: [['Max Havelaar', 'pg11024', 'Ik ben makelaar in koffi,']],
  pl: [['Pan Tadeusz', 'pg31536', 'Litwo! Ojczyzno moja!']],
  ru: [['Анна Каренина', 'eltec-015-anna-karenina', 'Все счастливые семьи']],
};

/** Modernised spelling of the period texts (what a modern edition or a reader's retyping changes). */
// biome-ignore format: one line a language
const MODERNISE = {
  fr: modernSpelling({ enfans: 'enfants', parens: 'parents', momens: 'moments', longtems: 'longtemps', oeuvre: 'œuvre', coeur: 'cœur', soeur: 'sœur', oeil: 'œil' }),
  de: modernSpelling({ daß: 'dass', muß: 'muss', mußte: 'musste', wußte: 'wusste', läßt: 'lässt', laß: 'lass', thun: 'tun', thut: 'tut', that: 'tat', theil: 'teil', thür: 'tür', thüre: 'türe', seyn: 'sein', giebt: 'gibt', noth: 'not', muth: 'mut', thränen: 'tränen', bißchen: 'bisschen', roß: 'ross', schloß: 'schloss', gewiß: 'gewiss', blos: 'bloß', heirathen: 'heiraten', rath: 'rat' }),
  es: modernSpelling({ fué: 'fue', dió: 'dio', vió: 'vio', fuí: 'fui', á: 'a', é: 'e', ó: 'o', ú: 'u', mugeres: 'mujeres', muger: 'mujer', dixo: 'dijo', truxo: 'trujo', quando: 'cuando', qual: 'cual' }),
  it: modernSpelling({ perchè: 'perché', poichè: 'poiché', benchè: 'benché', finchè: 'finché', affinchè: 'affinché', nè: 'né', sè: 'sé', trè: 'tre', piè: 'pie', nol: 'non lo' }),
  pt: modernSpelling({ chapéo: 'chapéu', succedeu: 'sucedeu', mettesse: 'metesse', elle: 'ele', ella: 'ela', elles: 'eles', ellas: 'elas', cançado: 'cansado', comprimentou: 'cumprimentou', titulo: 'título', tres: 'três', póde: 'pode', accordando: 'acordando', pharmacia: 'farmácia', theatro: 'teatro', prompto: 'pronto', fallar: 'falar', fallou: 'falou', aquelle: 'aquele', aquella: 'aquela' }),
  // Multatuli's y for ij (blyft, zyn, hy): the spelling every modern edition changes
  nl: (text) => text.replace(/y/g, 'ij').replace(/Y(?=[a-z])/g, 'IJ'),
  // the é of 19th-century Polish print (całéj, téj) is e today
  pl: (text) => text.replace(/é/g, 'e').replace(/É/g, 'E'),
  // ё written as е, as most Russian print does
  ru: (text) => text.replace(/ё/g, 'е').replace(/Ё/g, 'Е'),
};

export default Object.entries(NAMES).map(([code, name]) =>
  bookLanguage({
    code,
    name,
    replacements: REPLACEMENTS[code],
    famous: FAMOUS[code].map(([work, document, starts]) => ({ work, document, starts })),
    modernise: MODERNISE[code],
  }),
);
