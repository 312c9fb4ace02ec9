/**
 * Quotations (src/text/quotations.ts, src/services/analyze/quotations.ts): what the content marks as quoted in plain
 * text, Markdown and HTML, the attribution phrases, passages held in several documents, and the headline rule — a
 * marked quotation of known text is reported as a quotation and does not lift the work's confidence, an excerpt
 * stays at 95, and `quotations: 'count'` counts it.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import type { PortraitMatch } from '../../src/datasets/types.js';
import { matchedShare, quotationsOf, widelyReproduced } from '../../src/services/analyze/quotations.js';
import { rederive } from '../../src/services/report/rederive.js';
import { extractText } from '../../src/text/index.js';
import { quotedRegions } from '../../src/text/quotations.js';

/** The regions of `content` as the quoted strings of the content. */
function quoted(content: string, type: 'text' | 'markdown' | 'html' = 'text'): Array<[string, string]> {
  return quotedRegions(content, type, extractText(content, type)).map((r) => [
    r.by,
    content.slice(r.start, r.end).trim(),
  ]);
}

const PREAMBLE =
  'We the People of the United States, in Order to form a more perfect Union, establish Justice, insure domestic ' +
  'Tranquility, provide for the common defence, promote the general Welfare, and secure the Blessings of Liberty ' +
  'to ourselves and our Posterity, do ordain and establish this Constitution for the United States of America.';
/** The round-6 reproduction: an invented family story quoting the preamble with marks. */
const ESSAY = readFileSync(
  new URL('../fixtures/quotations/essay-quoting-the-constitution.txt', import.meta.url),
  'utf8',
);

describe('quoted regions', () => {
  it('quotation marks: straight, curly, guillemets; an apostrophe closes nothing; an open quotation runs to its paragraph end', () => {
    expect(quoted('He said "four score" and “seven years” and «ago».')).toEqual([
      ['quotation_marks', 'four score'],
      ['quotation_marks', 'seven years'],
      ['quotation_marks', 'ago'],
    ]);
    expect(quoted('It’s the ‘best of times’ she’d say.')).toEqual([['quotation_marks', 'best of times']]);
    expect(quoted('“The first paragraph goes on\n\n“and the second closes.” Then prose.')).toEqual([
      ['quotation_marks', 'The first paragraph goes on'],
      ['quotation_marks', 'and the second closes.'],
    ]);
    // a stray mark (a cut speech, a typo) marks nothing
    expect(quoted('He began " and never finished the line.\n\nNext paragraph.')).toEqual([]);
  });

  it('block quotes: Markdown > lines, HTML <blockquote> and <q>, in the content as sent', () => {
    const md = 'Intro line.\n\n> We the People\n> of the United States\n\nAfter.';
    expect(quoted(md, 'markdown')).toEqual([['block_quote', '> We the People\n> of the United States']]);
    const html = '<p>Intro <q>a short one</q>.</p><blockquote><p>We the <b>People</b></p></blockquote><p>After</p>';
    expect(quoted(html, 'html')).toEqual([
      ['block_quote', 'a short one'],
      ['block_quote', '<p>We the <b>People</b></p>'],
    ]);
    // HTML quotation marks written as references are read on the text and mapped back to the markup
    expect(quoted('<p>She said &ldquo;We the People&rdquo; twice.</p>', 'html')).toEqual([
      ['quotation_marks', 'We the People'],
    ]);
  });

  it('an indented verse block in plain text, not a text indented throughout', () => {
    const text = 'The poem runs:\n\n    Shall I compare thee\n    to a summer’s day?\n\nAnd so on.';
    expect(quoted(text)).toContainEqual(['indented_block', 'Shall I compare thee\n    to a summer’s day?']);
    expect(quoted('    one\n    two\n    three').filter(([by]) => by === 'indented_block')).toEqual([]);
  });

  it('attributions mark the rest of their paragraph, or the text before "wrote X"; pronouns and dialogue tags do not', () => {
    const regions = (s: string) => quotedRegions(s, 'text', extractText(s, 'text'));
    const attributed = (s: string) => regions(s).map((r) => [r.attributed_to, s.slice(r.start, r.end).trim()]);
    expect(attributed('As Lincoln said at Gettysburg, four score and seven years ago.\n\nNext.')).toEqual([
      ['Lincoln', 'at Gettysburg, four score and seven years ago.'],
    ]);
    expect(attributed('In the words of Charles Dickens, it was the best of times.')).toEqual([
      ['Charles Dickens', ', it was the best of times.'],
    ]);
    expect(attributed('When Jefferson once wrote: all men are created equal.')).toEqual([
      ['Jefferson', 'all men are created equal.'],
    ]);
    expect(attributed('According to the Gospel of John, in the beginning was the Word.')[0][0]).toBe(
      'the Gospel of John',
    );
    expect(attributed('Simplify, simplify, wrote Thoreau in his cabin.')).toEqual([['Thoreau', 'Simplify, simplify,']]);
    expect(attributed('The Constitution begins, as the poster says: We the People.')).toEqual([
      ['The Constitution', 'We the People.'],
    ]);
    expect(attributed('The line she reads is Austen’s: It is a truth.')).toContainEqual(['Austen', 'It is a truth.']);
    expect(attributed('My teacher quoted Dickens at me: it was the best of times.')[0][0]).toBe('Dickens');
    expect(attributed('As Tolstoy puts it on the first page, happy families.')[0][0]).toBe('Tolstoy');
    expect(regions('As he said, the rain kept on.')).toEqual([]);
    // read only around given spans: the same regions there, none elsewhere
    const two = 'Plain talk here.\n\nAs Lincoln said, four score and seven years ago.';
    const x = extractText(two, 'text');
    expect(quotedRegions(two, 'text', x, [[20, 30]])).toEqual(quotedRegions(two, 'text', x));
    expect(quotedRegions(two, 'text', x, [[0, 10]])).toEqual([]);
    expect(regions('"Come in," said Tom, and the rain kept on.').filter((r) => r.by === 'attribution')).toEqual([]);
  });
});

/** A portrait match naming `title`, over [start, end) of the content, `tokens` words. */
function portrait(start: number, end: number, tokens: number, title: string, also = false): PortraitMatch {
  return {
    dataset_id: 'pack:gutenberg',
    document_id: title,
    document: { id: title, title },
    ...(also
      ? { also_in: [{ document_id: 'x', document: { id: 'x', title: 'X' }, source_words: [0, 9], shared: 1 }] }
      : {}),
    query_start: start,
    query_end: end,
    source_start: null,
    source_end: null,
    kind: 'portrait',
    tokens,
    score: 1,
  };
}

describe('which matches are quotations', () => {
  it('widely reproduced: other documents hold the passage (also_in, shared_documents, another title on the span)', () => {
    const a = portrait(0, 100, 20, 'North America');
    expect(widelyReproduced(a, [a])).toBe(false);
    expect(widelyReproduced(portrait(0, 100, 20, 'North America', true), [])).toBe(true);
    const b = portrait(10, 100, 18, 'The Federalist');
    expect(widelyReproduced(a, [a, b])).toBe(true);
    // an edition or a collection of the same author's work is one source, not a reprint by others
    const milton = { ...a, document: { id: 'pg26', title: 'Paradise Lost', author: 'John Milton' } };
    const works = { document_id: 'pg1745', document: { id: 'pg1745', title: 'Poetical Works', author: 'John Milton' } };
    expect(widelyReproduced({ ...milton, also_in: [{ ...works, source_words: [0, 9], shared: 1 }] }, [])).toBe(false);
    // the same title in another pack is the same text, not a reprint
    expect(widelyReproduced(a, [a, { ...a, dataset_id: 'pack:other' }])).toBe(false);
  });

  it('an excerpt (matches cover half the words or more) holds no quotation, however it is marked', () => {
    const text = `"${PREAMBLE}"`;
    const m = portrait(1, text.length - 1, 52, 'North America');
    expect(matchedShare([m], 54)).toBeGreaterThan(0.9);
    expect(quotationsOf(text, 'text', [m], 54)).toEqual([null]);
    const essay = `My grandmother recited it: ${text} ${'She ran a shop on Fulton Street for years. '.repeat(12)}`;
    const at = essay.indexOf('We the');
    expect(quotationsOf(essay, 'text', [portrait(at, at + PREAMBLE.length, 52, 'North America')], 160)).toEqual([
      { by: ['quotation_marks'], share: 0.325 },
    ]);
  });
});

describe('the marks of a copied page are not the work’s', () => {
  it('dialogue inside a copied passage (words between the speeches) is no quotation; one quotation of two paragraphs is', () => {
    const page =
      '“Come in,” said Tom, and he held the door against the wind. “The rain will not stop before morning,” he ' +
      'went on, “and the road to the mill is under water already.” She shook out her cloak and sat by the fire.';
    const text = `${'My week was ordinary and I wrote it down. '.repeat(20)}${page} ${'Then the week went on. '.repeat(20)}`;
    const at = text.indexOf('“Come');
    expect(quotationsOf(text, 'text', [portrait(at, at + page.length, 50, 'A Novel')], 300)).toEqual([null]);
    const long = `${'I read it twice. '.repeat(30)}\n\n“${PREAMBLE.slice(0, 120)}\n\n“${PREAMBLE.slice(120)}”\n\n${'And so on. '.repeat(30)}`;
    const q = long.indexOf('We the');
    expect(quotationsOf(long, 'text', [portrait(q, long.indexOf('America.') + 8, 52, 'North America')], 200)).toEqual([
      { by: ['quotation_marks'], share: 0.26 },
    ]);
  });
});

describe('the turns of a copied dialogue are the book’s marks', () => {
  const turns =
    '"Oh! as to being her acquaintance," said Mary, "I think he is rather my acquaintance, for I have been seeing ' +
    'him every day this last fortnight." "Well, as your joint acquaintance, then, I shall be very happy to see him." ' +
    '"You will not find anything very agreeable in him, I assure you, ma\'am. He is one of the dullest young men ' +
    'that ever lived. I am sure you will not like him." "There we differ, Mary," said Anne.';
  const page = (t: string) =>
    `${'My week was ordinary and I wrote it down. '.repeat(30)}${t} ${'Then the week went on. '.repeat(30)}`;

  it('speeches each closed by their mark, with nothing between them, are separate quotations: the copy counts', () => {
    const text = page(turns);
    const at = text.indexOf('being her');
    expect(quotationsOf(text, 'text', [portrait(at, at + turns.length - 20, 90, 'Persuasion')], 400)).toEqual([null]);
    // curly marks, the same
    const curly = page(turns.replace(/"(?=[A-Z])/g, '“').replace(/"/g, '”'));
    const c = curly.indexOf('being her');
    expect(quotationsOf(curly, 'text', [portrait(c, c + turns.length - 20, 90, 'Persuasion')], 400)).toEqual([null]);
  });

  it('a page of dialogue whose one long speech covers most of the match is still the copy: its own marks', () => {
    const long =
      '"Oh! as to that," said Mary, "I think so." "You will not find anything very agreeable in him, I assure you, ' +
      "ma'am. He is one of the dullest young men that ever lived. He has walked with me, sometimes, from one end of " +
      'the sands to the other, without saying a word. He is not at all a well-bred young man. I am sure you will not ' +
      'like him at all." She turned to the window.';
    const text = page(long);
    const at = text.indexOf('as to that');
    const m = portrait(at, at + long.length, 80, 'Persuasion');
    expect(quotationsOf(text, 'text', [m], 400)).toEqual([null]);
    // the long speech alone, marked by the author: a quotation
    const speech = long.slice(long.indexOf('"You'), long.indexOf(' She'));
    const one = page(`I read the chapter twice. ${speech}`);
    const s = one.indexOf('You will');
    expect(quotationsOf(one, 'text', [portrait(s, s + speech.length - 2, 70, 'Persuasion')], 400)[0]?.by).toEqual([
      'quotation_marks',
    ]);
  });

  it('the same turns quoted by the author (a lead before them, or nested in her marks) stay one quotation', () => {
    const led = page(`As Jane Austen wrote, ${turns}`);
    const at = led.indexOf('"Oh!');
    const [q] = quotationsOf(led, 'text', [portrait(at, at + turns.length, 90, 'Persuasion')], 400);
    expect(q?.by).toContain('attribution');
    const nested = page(`The scene reads: “${turns.replace(/"/g, "'")}”`);
    const n = nested.indexOf("'Oh!");
    expect(quotationsOf(nested, 'text', [portrait(n, n + turns.length, 90, 'Persuasion')], 400)[0]?.by).toEqual([
      'quotation_marks',
    ]);
  });
});

describe('the headline is about the work’s own text', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    // a dataset linked to models (as the Gutenberg pack is) whose one document holds the preamble
    const constitution = `${PREAMBLE} Article I. Section 1. All legislative Powers herein granted shall be vested in a Congress of the United States, which shall consist of a Senate and House of Representatives.`;
    await engine.addDataset({ id: 'pg', kb_dataset: 'project-gutenberg' }, [
      { id: 'constitution', text: constitution },
    ]);
  });

  it('a marked quotation: role quotation, its source named, factor quotes_known_text, confidence < 50', async () => {
    const r = await engine.analyze({ content: ESSAY, content_type: 'text' });
    const q = r.matches.filter((m) => m.role === 'quotation');
    expect(q.length).toBeGreaterThan(0);
    expect(q[0]).toMatchObject({ document_id: 'constitution', quotation: { by: ['quotation_marks'] } });
    expect(r.risk_assessment.factors).toContain('quotes_known_text');
    expect(r.confidence).toBeLessThan(50);
    expect(r.attribution_sources).toEqual([]);
    expect(r.evidence.quotations).toBe('exclude');
    expect(r.evidence.datasets[0]).toMatchObject({ checkable: 0, counted: false });
    expect(r.evidence.datasets[0].quoted).toBe(q.length);
    expect(r.limitations).not.toContain('scattered_common_phrases');
    expect(r.corpus_evidence.summary).toMatch(/^No corpus evidence about the work's own text/);
    expect(r.corpus_evidence.summary).toMatch(/quotes text the datasets hold: .*"constitution"/);
    // reproducible from the result and the text: the roles and the counts are computed again
    const again = rederive(r, ESSAY);
    expect(again.checks.filter((c) => !c.ok)).toEqual([]);
    expect(again.checks.map((c) => c.name)).toContain('quotations');
    // a result read by the first rule (no quotation_rule, no share) is not recomputed with this one
    expect(r.evidence.quotation_rule).toBe(4);
    const older = { ...r, evidence: { ...r.evidence, quotation_rule: undefined } };
    const skipped = rederive(older, ESSAY);
    expect(skipped.checks.map((c) => c.name)).not.toContain('quotations');
    expect(skipped.skipped.join(' ')).toMatch(/quotations: read by rule 1, this verifier recomputes rule 4/);
  });

  it("quotations: 'count' counts it (≥ 95), and rederive agrees", async () => {
    const r = await engine.analyze({ content: ESSAY, content_type: 'text', quotations: 'count' });
    expect(r.matches.some((m) => m.role === 'quotation')).toBe(true);
    expect(r.confidence).toBeGreaterThanOrEqual(94);
    expect(r.evidence.quotations).toBe('count');
    expect(r.corpus_evidence.summary).toMatch(/counted as the work's text/);
    expect(rederive(r, ESSAY).checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('an excerpt stays at 95; a Markdown or HTML block quote is a quotation', async () => {
    const excerpt = await engine.analyze({ content: `From the Constitution: ${PREAMBLE}`, content_type: 'text' });
    expect(excerpt.matches.some((m) => m.role === 'quotation')).toBe(false);
    expect(excerpt.confidence).toBeGreaterThanOrEqual(94);
    const story = ESSAY.replace(/"[^"]+"/, '').split('. ');
    const md = `${story.slice(0, 3).join('. ')}.\n\n> ${PREAMBLE}\n\n${story.slice(3).join('. ')}`;
    const r = await engine.analyze({ content: md, content_type: 'markdown' });
    expect(r.matches.find((m) => m.role === 'quotation')?.quotation?.by).toContain('block_quote');
    expect(r.confidence).toBeLessThan(50);
    const html = `<p>${story.slice(0, 3).join('. ')}.</p><blockquote>${PREAMBLE}</blockquote><p>${story.slice(3).join('. ')}</p>`;
    const h = await engine.analyze({ content: html, content_type: 'html' });
    expect(h.matches.find((m) => m.role === 'quotation')?.quotation?.by).toContain('block_quote');
    expect(h.confidence).toBeLessThan(50);
    expect(rederive(h, html).checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('an unknown quotations value is INVALID_INPUT', async () => {
    await expect(
      engine.analyze({ content: ESSAY, content_type: 'text', quotations: 'ignore' as never }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
