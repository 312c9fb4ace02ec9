/**
 * The document pool's queue (src/node/extract-pool.ts): one line per owner, taken in turn, each line in order — an
 * owner with twenty items waiting holds another's one back by one turn at most; an item can leave its line.
 */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/node/extract-pool.js';

describe('FairQueue', () => {
  it('takes the owners in turn, each in the order its items came', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 20; i++) q.push('mallory', `m${i}`);
    q.push('ada', 'a1');
    q.push('ada', 'a2');
    q.push('bob', 'b1');
    expect(q.length).toBe(23);
    const taken = Array.from({ length: 8 }, () => q.shift());
    expect(taken).toEqual(['m1', 'a1', 'b1', 'm2', 'a2', 'm3', 'm4', 'm5']);
    q.push('ada', 'a3'); // a newcomer waits one turn, not behind mallory's fifteen
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['m6', 'a3', 'm7']);
    expect(q.length).toBe(13);
  });

  it('lets an item leave its line, and drains what waits', () => {
    const q = new FairQueue<string>();
    q.push('', 'x1');
    q.push('ada', 'a1');
    q.push('', 'x2');
    expect(q.remove('ada', 'a1')).toBe(true);
    expect(q.remove('ada', 'a1')).toBe(false);
    expect(q.remove('', 'nothing')).toBe(false);
    expect(q.length).toBe(2);
    expect(q.drain()).toEqual(['x1', 'x2']);
    expect(q.length).toBe(0);
    expect(q.shift()).toBeUndefined();
  });
});
