/**
 * A catalogue's request read through its contract with turns of the event loop
 * (src/services/memorization/read-through-sliced.ts):
 * the same copy as the one-step readThrough, the same refusals word for word, and turns while 100,000 works are read.
 */
import { describe, expect, it } from 'vitest';
import { AUDIT_REQUEST } from '../../src/services/memorization/schemas.js';
import { readThroughSliced } from '../../src/services/memorization/read-through-sliced.js';
import { readThrough } from '../../src/util/schema-check.js';

const works = (n: number, seed = 1) =>
  Array.from({ length: n }, (_, i) => ({
    id: `w${i}-${seed}`,
    text: `word${(i * seed) % 97} `.repeat(1 + (i % 9)),
    ...(i % 5 === 0 ? { sections: [{ start: 0, end: 3 + (i % 4) }] } : {}),
  }));

/** What a read throws, as code and message (undefined when it returns). */
async function refusal(read: () => unknown): Promise<string | undefined> {
  try {
    await read();
    return undefined;
  } catch (e) {
    const { code, message } = e as { code?: string; message: string };
    return `${code}: ${message}`;
  }
}

describe('readThroughSliced', () => {
  it('returns the copy readThrough returns: equal, separate, for catalogues around the slicing line', async () => {
    for (const n of [3, 1023, 1024, 5000]) {
      const value = { works: works(n, n), budget_calls: 2000, level: 0.5 };
      const sliced = await readThroughSliced(AUDIT_REQUEST, value, { jobItems: 100_000 });
      expect(sliced).toEqual(readThrough(AUDIT_REQUEST, value, { jobItems: 100_000 }));
      expect(sliced).not.toBe(value);
      expect(sliced.works[0]).not.toBe(value.works[0]);
    }
  });

  it('refuses what readThrough refuses, with the same code and message, wherever the fault lies', async () => {
    const faults: [string, (v: { works: Record<string, unknown>[] } & Record<string, unknown>) => void][] = [
      ['an empty id at the end', (v) => (v.works[4999].id = '')],
      ['a number for a text in the middle', (v) => (v.works[2500].text = 7)],
      ['an unknown member of a work', (v) => (v.works[10].title = 'x')],
      ['a section out of its type', (v) => (v.works[5].sections = [{ start: 'a', end: 1 }])],
      ['a work that is not an object', (v) => (v.works[3] = 'w' as never)],
      ['an option out of range beside a bad work', (v) => ((v.level = 2), (v.works[9].id = ''))],
      ['an unknown member of the request', (v) => (v.budget = 1)],
      ['a repeated id (the rules)', (v) => (v.works[4000].id = v.works[17].id)],
      ['more works than the plan holds (the rules)', (v) => v.works.push({ id: 'extra', text: 'x' })],
      ['more works than the schema holds', (v) => v.works.push(...works(95_001, 3))],
    ];
    for (const [what, fault] of faults) {
      const value = { works: works(5000) as Record<string, unknown>[], budget_calls: 2000 } as Parameters<
        (typeof faults)[number][1]
      >[0];
      fault(value);
      const context = { plan: 'pro', jobItems: 5000 };
      const expected = await refusal(() => readThrough(AUDIT_REQUEST, value, context));
      expect(expected, what).toBeDefined();
      expect(await refusal(() => readThroughSliced(AUDIT_REQUEST, value, context)), what).toBe(expected);
    }
  });

  it('turns the event loop while it reads 100,000 works', async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      const value = { works: works(100_000) };
      const request = await readThroughSliced(AUDIT_REQUEST, value, {});
      expect(turns).toBeGreaterThan(0);
      expect(request.works).toHaveLength(100_000);
      expect(request.works[99_999]).toEqual(value.works[99_999]);
    } finally {
      clearInterval(tick);
    }
  });
});
