/**
 * The bound on refusals of unread bodies per key (src/node/refusals.ts), with the clock passed in: a key is answered
 * by the handler until its window holds the limit of refusals, then told the seconds left in that window; the window
 * ends and begins again; other keys are counted apart; the keys remembered are bounded.
 */
import { describe, expect, it } from 'vitest';
import { REFUSAL_WINDOW_MS, REFUSALS_IN_WINDOW, UnreadRefusals } from '../../src/node/refusals.js';

describe('UnreadRefusals', () => {
  it('lets a key through until its window holds the limit, then gives the seconds left in the window', () => {
    let now = 1000;
    const refusals = new UnreadRefusals(3, 10_000, 16, () => now);
    for (let i = 0; i < 3; i++) {
      expect(refusals.retryAfterS('a')).toBe(0);
      refusals.record('a');
    }
    expect(refusals.retryAfterS('a')).toBe(10);
    now += 2500;
    expect(refusals.retryAfterS('a')).toBe(8);
    now += 7499;
    expect(refusals.retryAfterS('a')).toBe(1);
    // the window ends: the key is the handler's again, and its count begins anew
    now += 1;
    expect(refusals.retryAfterS('a')).toBe(0);
    refusals.record('a');
    expect(refusals.retryAfterS('a')).toBe(0);
  });

  it('counts each key apart', () => {
    const refusals = new UnreadRefusals(2, 10_000, 16, () => 0);
    refusals.record('a');
    refusals.record('a');
    refusals.record('b');
    expect(refusals.retryAfterS('a')).toBe(10);
    expect(refusals.retryAfterS('b')).toBe(0);
    expect(refusals.retryAfterS('c')).toBe(0);
  });

  it('remembers at most maxKeys keys, forgetting the one whose window began first', () => {
    const refusals = new UnreadRefusals(1, 10_000, 3, () => 0);
    for (const k of ['a', 'b', 'c', 'd']) refusals.record(k);
    expect(refusals.size).toBe(3);
    expect(refusals.retryAfterS('a')).toBe(0);
    expect(refusals.retryAfterS('d')).toBe(1 * 10);
  });

  it('the defaults: 16 refusals in 10 s', () => {
    expect([REFUSALS_IN_WINDOW, REFUSAL_WINDOW_MS]).toEqual([16, 10_000]);
    const refusals = new UnreadRefusals(undefined, undefined, undefined, () => 0);
    for (let i = 0; i < 15; i++) refusals.record('k');
    expect(refusals.retryAfterS('k')).toBe(0);
    refusals.record('k');
    expect(refusals.retryAfterS('k')).toBe(10);
  });
});
