/**
 * Dense, self-repeating text (code) in the sampled search (src/remote/sampling.ts, src/remote/forms.ts): the windows
 * asked are code's own tokens (its operators are no form variant), and only those the work holds once; a find that
 * agrees with this place only over what the work repeats is a chance find, not an unchecked one; a calibration
 * passage counts only where its document holds a quarter of it the work has nowhere else.
 */
import { describe, expect, it } from 'vitest';
import { letters, quietWindows, type Window } from '../../src/remote/forms.js';
import { agreesOwnWord, holdsOwnQuarter, ownWindows } from '../../src/remote/sampling.js';
import { mulberry32 } from '../../src/util/random.js';

/** Functions of made-up C: each its own identifiers around stock lines every function shares. */
const STOCK = [
  'if (ctx == NULL) { return -EINVAL; }',
  'if (ret < 0) { goto cleanup; }',
  'cleanup: free(tmp); return ret;',
];
const fn = (i: number) =>
  `static int fooBar${i}(struct ctxNode${i} *ctx, const uint8_t *buf, size_t len) { ${STOCK[i % 3]} ` +
  `valKey${i} = segMap${i}(ptrIdx${i}, ${100 + i}); while (blkSeg${i} < cntHdr${i}) { nodeTbl${i} = keyVal${i}->next; } ` +
  `${STOCK[(i + 1) % 3]} }`;
const WORK = Array.from({ length: 12 }, (_, i) => fn(i)).join('\n\n');

describe('quietWindows on code', () => {
  it('windows hold the operators and identifiers of C, never quotes, emphasis marks or dashes', () => {
    const at = WORK.indexOf('valKey5');
    const ws = quietWindows(WORK, at, WORK.indexOf('}', WORK.indexOf('->next', at)) + 1, 4);
    expect(ws.length).toBeGreaterThanOrEqual(2);
    expect(ws.some((w) => /[=<{]|->/.test(w.query))).toBe(true);
    for (const w of ws) expect(w.query).not.toMatch(/["'*]|--|(^|\W)_|_(\W|$)/);
  });
  it('an underscore inside an identifier is quiet; one at a word edge (Markdown emphasis) is not', () => {
    const t = 'alpha size_t beta gamma_delta epsilon zeta eta theta';
    expect(quietWindows(t, 0, t.length, 1)[0].query).toContain('gamma_delta');
    const u = 'alpha _size beta gamma delta_ epsilon zeta eta theta iota kappa lambda';
    for (const w of quietWindows(u, 0, u.length, 3)) expect(w.query).not.toMatch(/_size|delta_/);
  });
});

describe('ownWindows', () => {
  const w = (query: string): Window => ({ q0: 0, q1: query.length, query });
  it('keeps the windows the work holds once, in order', () => {
    const work = letters(WORK);
    const got = ownWindows(
      [w('if (ctx == NULL) { return'), w('valKey5 = segMap5(ptrIdx5,'), w('cleanup: free(tmp);')],
      work,
    );
    expect(got.map((x) => x.query)).toEqual(['valKey5 = segMap5(ptrIdx5,']);
  });
  it('all of them where the work repeats every one', () => {
    const got = ownWindows([w('if (ctx == NULL) { return'), w('cleanup: free(tmp);')], letters(WORK));
    expect(got).toHaveLength(2);
  });
  it('property: a window kept is held once whenever any is (500 seeded draws)', () => {
    const work = letters(WORK);
    const once = (x: Window) => work.indexOf(letters(x.query)) === work.lastIndexOf(letters(x.query));
    const rand = mulberry32(88);
    for (let k = 0; k < 500; k++) {
      const stock = rand() < 0.5;
      const ws = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
        const i = Math.floor(rand() * 12);
        return w(stock && i % 2 ? STOCK[i % 3] : `valKey${i} = segMap${i}(ptrIdx${i},`);
      });
      const got = ownWindows(ws, work);
      if (ws.some(once)) expect(got.every(once)).toBe(true);
      else expect(got).toEqual(ws);
    }
  });
});

describe('agreesOwnWord', () => {
  const at = WORK.indexOf('if (ctx == NULL)');
  const q1 = at + 'if (ctx == NULL) { return'.length;
  it('a copy of this place agrees over its own identifiers', () => {
    const copy = WORK.slice(Math.max(0, at - 200), q1 + 200).replace(/ /g, '\n');
    expect(agreesOwnWord(WORK, at, q1, copy)).toBe(true);
  });
  it('unrelated code with the same stock line and a common number beside it does not: a chance find', () => {
    const other = 'static int zzz(void) { qqq = www(1); if (ctx == NULL) { return -EINVAL; } eee = rrr; }';
    expect(agreesOwnWord(WORK, at, q1, other)).toBe(false);
  });
  it('property: a document holding the stretch inside this place’s own text, whatever else it holds, agrees', () => {
    const rand = mulberry32(7);
    for (let k = 0; k < 200; k++) {
      const i = Math.floor(rand() * 12);
      const noise = Array.from({ length: Math.floor(rand() * 40) }, () =>
        String.fromCharCode(32 + Math.floor(rand() * 90)),
      ).join('');
      const f = fn(i);
      const a = WORK.indexOf(f) + f.indexOf('valKey');
      const b = a + `valKey${i} = segMap${i}`.length;
      expect(agreesOwnWord(WORK, a, b, `${noise} ${f} ${noise}`)).toBe(true);
    }
  });
});

describe('holdsOwnQuarter', () => {
  const p = { section: 0, q0: WORK.indexOf(fn(4)), q1: WORK.indexOf(fn(4)) + fn(4).length };
  it('a document holding the passage, hard-wrapped, or edited one word in twenty', () => {
    expect(holdsOwnQuarter(WORK, p, [letters(fn(4).replace(/(.{60}) /g, '$1\n'))])).toBe(true);
    const edited = fn(4)
      .split(' ')
      .map((w, i) => (i % 20 === 10 ? [...w].reverse().join('') : w))
      .join(' ');
    expect(holdsOwnQuarter(WORK, p, [letters('unrelated'), letters(edited)])).toBe(true);
  });
  it('not one holding only the stock lines an alignment ran on over, nor none', () => {
    expect(
      holdsOwnQuarter(WORK, p, [
        letters(`${STOCK.join(' ')} static int x(struct y *ctx, const uint8_t *buf, size_t len) {`),
      ]),
    ).toBe(false);
    expect(holdsOwnQuarter(WORK, p, [])).toBe(false);
  });
});
