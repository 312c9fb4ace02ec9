/**
 * The language of a stretch of text (src/text/languages.ts), as the quotation rule reads it: named by its script, or in
 * Latin letters by its function words, and null when the evidence is not plain (short, mixed, or a language it does
 * not know).
 */
import { describe, expect, it } from 'vitest';
import { languageOf } from '../../src/text/languages.js';

describe('languageOf', () => {
  it('names the languages of the packs from a sentence or two of their prose and verse', () => {
    const cases: Array<[string, string]> = [
      [
        'en',
        'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.',
      ],
      [
        'de',
        'Habe nun, ach! Philosophie, Juristerei und Medizin, Und leider auch Theologie Durchaus studiert, mit heißem Bemühn. Da steh ich nun, ich armer Tor! Und bin so klug als wie zuvor.',
      ],
      [
        'de',
        'Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt.',
      ],
      [
        'fr',
        "Longtemps, je me suis couché de bonne heure. Parfois, à peine ma bougie éteinte, mes yeux se fermaient si vite que je n'avais pas le temps de me dire: « Je m'endors. »",
      ],
      [
        'fr',
        "En 1815, M. Charles-François-Bienvenu Myriel était évêque de Digne. C'était un vieillard d'environ soixante-quinze ans; il occupait le siège de Digne depuis 1806.",
      ],
      [
        'es',
        'En un lugar de la Mancha, de cuyo nombre no quiero acordarme, no ha mucho tiempo que vivía un hidalgo de los de lanza en astillero, adarga antigua, rocín flaco y galgo corredor.',
      ],
      [
        'it',
        'Nel mezzo del cammin di nostra vita mi ritrovai per una selva oscura, ché la diritta via era smarrita. Ahi quanto a dir qual era è cosa dura esta selva selvaggia e aspra e forte che nel pensier rinova la paura!',
      ],
      [
        'nl',
        'Ik ben makelaar in koffie, en woon op de Lauriergracht, No. 37. Het is mijn gewoonte niet, romans te schrijven, of zulke dingen, en het heeft dan ook lang geduurd, voor ik er toe overging.',
      ],
      [
        'pl',
        'Litwo! Ojczyzno moja! ty jesteś jak zdrowie. Ile cię trzeba cenić, ten tylko się dowie, kto cię stracił. Dziś piękność twą w całej ozdobie widzę i opisuję, bo tęsknię po tobie.',
      ],
      [
        'la',
        'Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae, aliam Aquitani, tertiam qui ipsorum lingua Celtae, nostra Galli appellantur. Hi omnes lingua, institutis, legibus inter se differunt.',
      ],
      ['hangul', '모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다.'],
      ['cyrillic', 'Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему.'],
      ['ja', '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。'],
      ['zh', '子曰：學而時習之，不亦說乎？有朋自遠方來，不亦樂乎？'],
      ['thai', 'ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอน'],
    ];
    for (const [lang, text] of cases) expect(languageOf(text), text).toBe(lang);
  });

  it('says nothing when the evidence is not plain: too short, no letters, or two languages alike', () => {
    expect(languageOf('Faust')).toBeNull();
    expect(languageOf('1815 — 1862, 37.')).toBeNull();
    expect(languageOf('')).toBeNull();
    // as many English as German function words: neither is plainly the language
    expect(languageOf('the and of to und der die das')).toBeNull();
  });

  it('a few kana among Han characters are Japanese; Han alone is Chinese', () => {
    expect(languageOf('學而時習之不亦說乎有朋自遠方來の')).toBe('ja');
    expect(languageOf('學而時習之不亦說乎有朋自遠方來')).toBe('zh');
  });
});
