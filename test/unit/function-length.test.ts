/**
 * No function in src/ or app/ (the web app) holds more than 120 lines of its own. A function's own lines are the lines it spans less the
 * lines of the functions nested in it that span over 20 lines (those are read, and counted, as functions of their own);
 * a nested function of 20 lines or fewer stays part of its parent, as a block would. No file or function is exempt.
 * The measure is build/function-lengths.mjs's (`npm run check:functions` lists the longest).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { measure, measureTree, OWN_AT_MOST } from '../../build/function-lengths.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
// over the limit today, in modules whose search and extraction code is being reworked: each may shrink, none may grow,
// and an entry leaves this table once its function is back under the limit (the last test fails on a stale entry)
const OVER_TODAY: Record<string, number> = {};

describe('function length', () => {
  it('measures own lines: a nested function over 20 lines is not its parent’s, a shorter one is', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      'export function outer() {', // 1
      body(10), // 2-11
      '  const long = () => {', // 12
      body(25), // 13-37
      '  };', // 38
      '  function short() {', // 39
      body(3), // 40-42
      '  }', // 43
      '}', // 44
    ].join('\n');
    const got = Object.fromEntries(measure('x.ts', text).map((m) => [m.name, m.own]));
    expect(got).toEqual({ outer: 44 - 27, long: 27, short: 5 });
  });

  const measured = measureTree(root).map((m) => ({ ...m, key: `${m.where.replace(/:\d+$/, '')}#${m.name}` }));

  it(`no function in src/ or app/ holds over ${OWN_AT_MOST} lines of its own`, () => {
    const over = measured
      .filter((m) => m.own > Math.max(OWN_AT_MOST, OVER_TODAY[m.key] ?? 0))
      .map((m) => `${m.where} ${m.name}: ${m.own} own lines`);
    expect(over).toEqual([]);
  });

  it('each function over the limit today is still there and still over it', () => {
    const still = new Set(measured.filter((m) => m.own > OWN_AT_MOST).map((m) => m.key));
    expect(Object.keys(OVER_TODAY).filter((key) => !still.has(key))).toEqual([]);
  });
});
