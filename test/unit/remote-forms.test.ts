/**
 * The query forms of the sampled search (src/remote/forms.ts) and the verified share (src/corpus/share.ts):
 * canonical text with its map back to the work, windows a copy in another form holds, containment forms aside, and
 * the share's interval from found, verified and detected passages.
 */
import { describe, expect, it } from 'vitest';
import {
  canaryWindows,
  canonicalPiece,
  holdsText,
  letters,
  plainPiece,
  quietWindows,
  DENSE_WINDOW,
  WINDOW_MIN_CHARS,
  windowTerms,
} from '../../src/remote/forms.js';
import { countAny, find, MAX_OR_TERMS } from '../../src/remote/api.js';
import { RemoteCallError } from '../../src/remote/transport.js';
import { estimateShare, verifiedShare, wilson } from '../../src/corpus/share.js';
import { countWords, wordSpans } from '../../src/remote/search.js';
import { placeReach, refutesStretch } from '../../src/remote/sampling.js';
import {
  buildCharIndex,
  buildTokenIndex,
  CharEngine,
  createTokenizer,
  startInfiniGramServer,
} from '../fixtures/infini-gram/index.mjs';

describe('canonicalPiece', () => {
  it('folds every white-space run to one space and maps each character back', () => {
    const text = 'x  It was\r\n\r\nthe  best\tof ﬁne times ';
    const p = canonicalPiece(text, 3, text.length);
    expect(p.text).toBe('It was the best of fine times');
    for (let i = 0; i < p.text.length; i++) {
      const c = p.text[i];
      if (c === ' ') expect(/\s/.test(text[p.at[i]])).toBe(true);
      else if (c === 'f' || c === 'i') expect(['f', 'i', 'ﬁ']).toContain(text[p.at[i]]);
      else expect(text[p.at[i]]).toBe(c);
    }
    expect(p.at[p.text.length]).toBe(text.length);
  });
  it('hard-wrapped, blank-line, single-newline and CRLF paragraphs read alike', () => {
    const forms = ['a b\nc d', 'a b\n\nc d', 'a  b\r\nc   d', 'a b c d'];
    for (const f of forms) expect(canonicalPiece(f, 0, f.length).text).toBe('a b c d');
  });
});

describe('plainPiece', () => {
  it('spells typographic quotes, primes and dashes as a typed copy has them, each character mapped to its place', () => {
    const text = '\u201cYes\u2014no,\u201d he said; \u2018twas 5\u2032 \u2013 a\u2019s';
    const p = plainPiece(canonicalPiece(text, 0, text.length));
    expect(p.text).toBe("\"Yes--no,\" he said; 'twas 5' - a's");
    expect(p.at.length).toBe(p.text.length + 1);
    expect(p.at[p.text.length]).toBe(text.length);
    // both hyphens of the em dash point at it; every other character at itself
    expect(p.at[4]).toBe(4);
    expect(p.at[5]).toBe(4);
    expect(text[p.at[6]]).toBe('n');
  });
  it('a piece without typography is returned as it is', () => {
    const c = canonicalPiece('plain "words" -- here', 0, 21);
    expect(plainPiece(c)).toBe(c);
  });
});

describe('quietWindows', () => {
  const passage =
    'She had been forced into prudence in her youth, she learned romance as she grew older: "the natural sequel" of an unnatural beginning. ' +
    'Anne was\nnow thirty years of age and she remained in the house at Kellynch with her father and her sister through the winter months';
  it('windows inside one line of the work, without quotes or sentence ends before their last word', () => {
    const ws = quietWindows(passage, 0, passage.length, 4);
    expect(ws.length).toBeGreaterThanOrEqual(3);
    for (const w of ws) {
      const body = passage.slice(w.q0, w.q1);
      expect(body).not.toMatch(/\n|"/);
      expect(body.slice(0, -1)).not.toMatch(/[.!?]\s/);
      expect(w.query.length).toBeGreaterThanOrEqual(WINDOW_MIN_CHARS);
      expect(w.query).toBe(body.replace(/\s+/g, ' '));
    }
    // disjoint, from the end back
    for (let i = 1; i < ws.length; i++) expect(ws[i].q1).toBeLessThanOrEqual(ws[i - 1].q0);
  });
  it('a passage of long words gets windows of fewer words, short enough for a line of a copy wrapped at 70 columns', () => {
    const code =
      'kazuMorqen vilTrapex(dri,412) 0x3fa2 shoLunbix morqenGaw qenVilsho(tra,17) pexDriNef yorBixCul kazuZuMor 0x11c0 gawNefYor luncul(mor,88)';
    const ws = quietWindows(code, 0, code.length, 3);
    expect(ws.map((w) => w.query)).toEqual([
      'kazuZuMor 0x11c0 gawNefYor luncul(mor,88)',
      'qenVilsho(tra,17) pexDriNef yorBixCul',
      'vilTrapex(dri,412) 0x3fa2 shoLunbix morqenGaw',
    ]);
    for (const w of ws) {
      expect(w.query.length).toBeGreaterThanOrEqual(DENSE_WINDOW.chars);
      expect(w.query.length).toBeLessThan(50);
    }
    // English keeps five words: its windows are as short as before
    expect(quietWindows(passage, 0, passage.length, 4).every((w) => w.query.split(' ').length >= 5)).toBe(true);
  });
  it('a passage with no quiet stretch still gives its last words', () => {
    const t = '"A—b" "c—d" "e—f" "g—h" "i—j" "k—l" "m—n" "o—p" "q—r" "s—t" "u—v"';
    expect(quietWindows(t, 0, t.length, 3)).toHaveLength(1);
  });
});

describe('countWords', () => {
  it('counts the runs of non-space as /\\S+/g does, over every white space of ECMAScript', () => {
    const alphabet = [
      'a',
      'é',
      '\u{1F600}',
      ' ',
      '\n',
      '\r',
      '\t',
      '\v',
      '\f',
      '\u00a0',
      '\u1680',
      '\u2003',
      '\u2028',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
      '\u200b',
      '\u0085',
    ];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let k = 0; k < 500; k++) {
      const text = Array.from({ length: next() % 40 }, () => alphabet[next() % alphabet.length]).join('');
      expect(countWords(text)).toBe((text.match(/\S+/g) ?? []).length);
    }
    // every code unit, one at a time between letters (mismatches collected: one expectation)
    const wrong: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      if (countWords(text) !== (text.match(/\S+/g) ?? []).length) wrong.push(c);
    }
    expect(wrong).toEqual([]);
  });
  it("leaves the work's remembered word spans in place", () => {
    const work = 'one two three four five';
    const spans = wordSpans(work);
    expect(countWords('six seven')).toBe(2);
    expect(wordSpans(work)).toBe(spans);
  });
});

describe('canaryWindows', () => {
  const work = 'It was the best of times and the worst of times that year. Years later the best of times came back.';
  const at = (query: string) => ({ q0: work.indexOf(query), q1: work.indexOf(query) + query.length, query });
  it('windows of the work with their words reversed, as many words and characters, up to `count`', () => {
    const ws = [at('the best of times and'), at('the worst of times that year.'), at('Years later the best of')];
    const c = canaryWindows(ws, letters(work), 2);
    expect(c).toEqual(['and times of best the', 'year. that times of worst the']);
    for (const [i, q] of c.entries()) {
      expect(q.length).toBe(ws[i].query.length);
      expect(holdsText(work, q)).toBe(false);
    }
  });
  it('leaves out a reversed window the work holds (a palindrome of words, or a phrase the work has both ways)', () => {
    const text = 'dogs bite men and men bite dogs';
    const both = { q0: 0, q1: 14, query: 'dogs bite men' };
    expect(canaryWindows([both], letters(text), 2)).toEqual([]);
    expect(canaryWindows([{ q0: 0, q1: 5, query: 'a b a' }], letters('x a b a y'), 1)).toEqual([]);
  });
  it('leaves out a reversed window the API would read as a CNF, and repeats', () => {
    const w = { q0: 0, q1: 12, query: 'AND OR time' };
    expect(canaryWindows([w], letters('nothing here'), 1)).toEqual([]);
    const v = { q0: 0, q1: 14, query: 'the cat sat up' };
    expect(canaryWindows([v, v], letters('the cat sat up'), 2)).toEqual(['up sat cat the']);
  });
});

describe('refutesStretch', () => {
  const work = 'It was the best of times and the worst of times that year. Years later the best of times came back.';
  const second = work.lastIndexOf('the best of times');
  it('a document holding the stretch sent and nothing of the work beside it refutes it', () => {
    expect(refutesStretch(work, 7, 24, 'Notes: the best of times\n\nother words')).toBe(true);
    expect(refutesStretch(work, 7, 24, 'the best of times')).toBe(true);
    // an engine echoing its queries: the stretch among other queries
    expect(refutesStretch(work, 7, 24, 'worst of times that\n\nthe best of times\n\nYears later')).toBe(true);
  });
  it('a copy holds a neighbour on one side at least, in any form', () => {
    expect(refutesStretch(work, 7, 24, 'it was the best of times and')).toBe(false);
    expect(refutesStretch(work, 7, 24, 'IT  WAS\r\nthe best of times')).toBe(false);
    expect(refutesStretch(work, 7, 24, 'the best of times \u2014 and')).toBe(false);
  });
  it('one word beside the stretch is chance, unless the document ends there', () => {
    // "and" after the stretch, as in the work, then another text: a line of it that begins with a common word
    expect(refutesStretch(work, 7, 24, 'Notes: the best of times and so on')).toBe(true);
    expect(refutesStretch(work, 7, 24, 'so was the best of times in a while')).toBe(true);
    // the document ends one word past the stretch: the work's words beyond are in the next document
    expect(refutesStretch(work, 7, 24, 'Notes: the best of times and')).toBe(false);
    expect(refutesStretch(work, 7, 24, 'was the best of times, in a while')).toBe(false);
  });
  it('a phrase the work repeats, found at its other place, refutes nothing (the real mini engine showed it)', () => {
    // the stretch asked is the second "the best of times"; the document is a copy of the first one's place
    expect(refutesStretch(work, second, second + 17, 'It was the best of times and the worst')).toBe(false);
    expect(refutesStretch(work, second, second + 17, 'a clerk: the best of times, he said')).toBe(true);
  });
  it('nothing to test: no word on either side', () => {
    expect(refutesStretch('the best of times', 0, 17, 'other words')).toBe(false);
  });
});

describe('placeReach: another place of the work', () => {
  const holdsElsewhere = (work: string, q0: number, q1: number, doc: string) => {
    const r = placeReach(work, q0, q1, doc);
    return r !== null && r.other > r.own + 8;
  };
  // code repeats its stock lines: the second function's check is the first one's, with other code around it
  const work =
    'int open_file(ctx) { if (ctx == NULL) { return -EINVAL; } fd = open(path); } ' +
    'int close_file(ctx) { if (ctx == NULL) { return -EINVAL; } close(fd); }';
  const line = 'if (ctx == NULL) { return -EINVAL; }';
  const first = work.indexOf(line),
    second = work.lastIndexOf(line);
  const copyOfFirst = 'int open_file(ctx) { if (ctx == NULL) { return -EINVAL; } fd = open(path); }';
  it('a document holding the stretch as another place of the work has it holds that place, not this one', () => {
    expect(holdsElsewhere(work, second, second + line.length, copyOfFirst)).toBe(true);
    expect(holdsElsewhere(work, first, first + line.length, copyOfFirst)).toBe(false);
    // the neighbour test alone cannot tell: code's next words are mostly marks ("} close(fd)" → "closefd")
    expect(refutesStretch(work, second, second + line.length, copyOfFirst)).toBe(false);
  });
  it('a copy of this place, in another form, is this place', () => {
    const copyOfSecond = 'int close_file(ctx) {\n  if (ctx == NULL) {\n    return -EINVAL;\n  }\n  close(fd);';
    expect(holdsElsewhere(work, second, second + line.length, copyOfSecond)).toBe(false);
    expect(holdsElsewhere(work, first, first + line.length, copyOfSecond)).toBe(true);
  });
  it('a document holding only the stretch, or too little around it to tell the places apart, is no other place', () => {
    expect(holdsElsewhere(work, second, second + line.length, `other code ${line} unrelated`)).toBe(false);
    expect(holdsElsewhere(work, second, second + line.length, `(ctx) { ${line}`)).toBe(false);
    expect(holdsElsewhere(work, second, second + line.length, 'nothing of it')).toBe(false);
  });
});

describe('placeReach', () => {
  const work = 'ab cd ef. xy cd zz.';
  it('how far a document runs on as this place and as another place with the same stretch', () => {
    expect(placeReach(work, 3, 5, 'ab cd ef')).toMatchObject({ own: 4, other: 0 });
    expect(placeReach(work, 13, 15, 'ab cd ef')).toMatchObject({ own: 0, other: 4 });
    expect(placeReach(work, 3, 5, 'nothing')).toBeNull();
  });
  it('a stretch the work has once: no other place', () => {
    expect(placeReach('one two three four', 4, 13, 'x one two three y')).toMatchObject({ own: 3, other: 0 });
  });
});

describe('holdsText', () => {
  it('compares letters and digits only: quotes, dashes, ligatures and line breaks aside', () => {
    expect(holdsText('He said, “It is\nso—indeed.”', 'said, "It is so--indeed')).toBe(true);
    expect(holdsText('the ﬁne print', 'fine print')).toBe(true);
    expect(holdsText('an unrelated document', 'fine print')).toBe(false);
    expect(holdsText('anything', '“ — ”')).toBe(false);
    expect(letters('Ça Va!')).toBe('çava');
  });
});

describe('verifiedShare', () => {
  it('every found passage fetched and verified, all calibration found: v/n with the Wilson interval', () => {
    const sample = { passages: 100, found: 50, fetched: 50, verified: 50, detection: { hits: 30, trials: 30 } };
    const s = verifiedShare({ ...sample, ciRule: 'product' });
    expect(s.estimate).toBe(0.5);
    const [lo, hi] = wilson(50, 100);
    expect(s.ci_95[0]).toBeCloseTo(lo, 4);
    expect(s.ci_95[1]).toBeCloseTo(hi / wilson(30, 30)[0], 4);
    // joint: a detection rate of 1 leaves the lower end at v/n's; the upper end adds the two distances in quadrature
    const j = verifiedShare(sample);
    expect(j.ci_95[0]).toBeCloseTo(lo, 4);
    const up = Math.hypot(Math.log(hi / 0.5), Math.log(1 / wilson(30, 30)[0]));
    expect(j.ci_95[1]).toBeCloseTo(0.5 * Math.exp(up), 4);
  });
  it('a detection rate below one raises the estimate and widens the upper end', () => {
    const full = verifiedShare({
      passages: 100,
      found: 40,
      fetched: 40,
      verified: 40,
      detection: { hits: 20, trials: 20 },
    });
    const half = verifiedShare({
      passages: 100,
      found: 40,
      fetched: 40,
      verified: 40,
      detection: { hits: 10, trials: 20 },
    });
    expect(half.estimate).toBe(0.8);
    expect(half.ci_95[1]).toBeGreaterThan(full.ci_95[1]);
    const few = verifiedShare({
      passages: 100,
      found: 40,
      fetched: 40,
      verified: 40,
      detection: { hits: 3, trials: 3 },
    });
    expect(few.ci_95[1]).toBeGreaterThan(full.ci_95[1]);
  });
  it('found passages their documents do not hold never count', () => {
    const s = verifiedShare({ passages: 100, found: 100, fetched: 30, verified: 0, detection: { hits: 0, trials: 0 } });
    expect(s.estimate).toBe(0);
    expect(s.ci_95[1]).toBeLessThanOrEqual(0.2);
  });
  it('nothing found: the upper end allows for the least detection rate measured over forms', () => {
    const s = verifiedShare({ passages: 100, found: 0, fetched: 0, verified: 0 });
    expect(s.estimate).toBe(0);
    expect(s.ci_95[1]).toBeGreaterThan(wilson(0, 100)[1]);
    expect(s.ci_95[1]).toBeLessThanOrEqual(0.1);
  });
  it('some found passages not fetched count at the rate the fetched ones were verified', () => {
    const s = verifiedShare({
      passages: 100,
      found: 60,
      fetched: 30,
      verified: 15,
      detection: { hits: 10, trials: 10 },
    });
    expect(s.estimate).toBe(0.3);
    expect(s.ci_95[0]).toBeLessThan(0.3);
    expect(s.ci_95[1]).toBeGreaterThan(0.3);
  });
  it('estimateShare takes the verified path when the counts are given, and refuses impossible counts', () => {
    const a = { passages: 80, found: 20, fetched: 20, verified: 18, detection: { hits: 9, trials: 10 } };
    expect(estimateShare(a)).toEqual(verifiedShare(a));
    expect(() => verifiedShare({ passages: 80, found: 20, fetched: 21, verified: 1 })).toThrow(RangeError);
    expect(() => verifiedShare({ passages: 80, found: 20, fetched: 5, verified: 6 })).toThrow(RangeError);
  });
});

describe('the fixture engines break lines as the real ones do', () => {
  it('token index: a line’s first word is spelt apart from the same word after a space; CRLF is two bytes', () => {
    const tok = createTokenizer('llama', 'the cat sat on the mat. The cat sat on the mat.\nThe dog sat. the dog sat');
    const tokensAfter = (s: string) => tok.idsToTokens(tok.encode(s)).slice(2);
    expect(tokensAfter('the cat\nThe dog')[0]).toBe('<0x0A>');
    expect(tokensAfter('the cat The dog')[0]).not.toBe('<0x0A>');
    expect(tokensAfter('the cat\nThe dog').slice(1)).not.toEqual(tokensAfter('the cat The dog'));
    expect(tokensAfter('the cat\r\nThe dog').slice(0, 2)).toEqual(['<0x0D>', '<0x0A>']);
  });
  it('character index: exact bytes, so a query with a space does not find a line break', () => {
    const engine = new CharEngine(
      buildCharIndex({ documents: [{ text: 'it was the best\nof times' }, { text: 'x' }] }),
    );
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(engine.count(bytes('best\nof')).count).toBe(1);
    expect(engine.count(bytes('best of')).count).toBe(0);
  });
});

describe('windowTerms', () => {
  it('a quiet window is asked as it is; one with typography in its typed forms as well', () => {
    expect(windowTerms({ q0: 0, q1: 30, query: 'the voice of the chairman clove' })).toEqual([
      'the voice of the chairman clove',
    ]);
    expect(windowTerms({ q0: 0, q1: 17, query: '\u201cYes\u2014no,\u201d he said' })).toEqual([
      '\u201cYes\u2014no,\u201d he said',
      '"Yes--no," he said',
    ]);
  });
  it('a window the API would read as a CNF (" OR ", " AND ") is not asked', () => {
    expect(windowTerms({ q0: 0, q1: 30, query: 'to be OR not to be' })).toEqual([]);
    expect(windowTerms({ q0: 0, q1: 30, query: 'salt AND pepper on the table' })).toEqual([]);
  });
});

describe('countAny (infini-gram count of terms OR-ed)', () => {
  // a hard-wrapped copy: "clove his speech with a cold accent" crosses the copy's line break, the others do not
  const COPY =
    'The voice of the chairman clove his\nspeech with a cold accent. Does anyone second\nthis amendment, he said.';
  const post = (url: string) => async (body: Record<string, unknown>) => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { body: (await r.json()) as Record<string, unknown>, ms: 0 };
  };
  const withServer = async (run: (p: ReturnType<typeof post>) => Promise<void>) => {
    const index = buildTokenIndex({ documents: [{ text: COPY }, { text: 'nothing of it here' }], tokenizer: 'llama' });
    const server = await startInfiniGramServer({ kind: 'infini-gram', indexes: { copy: index } });
    try {
      await run(post(server.url));
    } finally {
      await server.close();
    }
  };

  it('counts the occurrences of any term, each tokenized on its own: a window inside a line is found', async () => {
    await withServer(async (p) => {
      const across = 'clove his speech with a cold accent';
      const inside = 'with a cold accent. Does anyone second';
      const a = await countAny(p, 'copy', [across]);
      expect(a.count).toBe(0); // the copy's line break: "speech" after it is another token
      const b = await countAny(p, 'copy', [across, inside, 'not in the copy at all']);
      expect(b.termIds).toHaveLength(3);
      const each = await Promise.all(b.termIds.map((ids) => find(p, 'copy', ids)));
      expect(b.count).toBe(each.reduce((t, f) => t + f.cnt, 0));
      expect(b.count).toBe(1);
      expect(each.map((f) => f.cnt)).toEqual([0, 1, 0]);
    });
  });
  it(`refuses no term, more than ${MAX_OR_TERMS}, and a term the API would split`, async () => {
    const never = async () => {
      throw new Error('not asked');
    };
    await expect(countAny(never, 'x', [])).rejects.toThrow(RangeError);
    await expect(countAny(never, 'x', ['a b', 'c d', 'e f', 'g h', 'i j'])).rejects.toThrow(RangeError);
    await expect(countAny(never, 'x', ['a OR b'])).rejects.toThrow(RangeError);
  });
  it('an answer whose token_ids are not one clause of the terms sent is invalid_response', async () => {
    const answer = (body: Record<string, unknown>) => async () => ({ body, ms: 0 });
    const two = ['the cat sat down', 'a dog lay there'];
    await expect(countAny(answer({ count: 3, token_ids: [[1, 2], [3]] }), 'x', two)).rejects.toThrow(RemoteCallError);
    await expect(countAny(answer({ count: 3, token_ids: [[[1, 2]]] }), 'x', two)).rejects.toThrow(RemoteCallError);
    await expect(countAny(answer({ count: -1, token_ids: [[[1], [2]]] }), 'x', two)).rejects.toThrow(RemoteCallError);
    expect((await countAny(answer({ count: 2, token_ids: [[[1], [2]]] }), 'x', two)).termIds).toEqual([[1], [2]]);
  });
});
