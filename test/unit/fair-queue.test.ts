/**
 * The worker pool's fair queue (FairQueue of src/node/fair-queue.ts, which the pools of src/node/offload.ts and src/node/extract-pool.ts share): each owner's items in order, the owners in turn, a newcomer
 * served after at most one item of each owner already waiting; and the HTTP handler giving each request's offloaded
 * work (its analysis's pieces, its large JSON body) to its own account's line through `forOwner`.
 */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/node/fair-queue.js';
import { createEngine, type Offload } from '../../src/library.js';
import { createHandler, KeyStore, type JsonBodyOffload } from '../../src/http/index.js';
import { recordingOffload } from '../fixtures/offload.js';
import { parseJsonBody } from '../../src/http/json-body.js';

describe('FairQueue', () => {
  it("takes the owners' lines in turn, each in order", () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 4; i++) q.push('flood', `f${i}`);
    q.push('carol', 'c0');
    q.push('carol', 'c1');
    q.push('erin', 'e0');
    expect(q.length).toBe(7);
    const order: string[] = [];
    for (let x = q.shift(); x !== undefined; x = q.shift()) order.push(x);
    expect(order).toEqual(['f0', 'c0', 'e0', 'f1', 'c1', 'f2', 'f3']);
    expect(q.length).toBe(0);
  });

  it('a newcomer waits for at most one item of each other owner, however many they queued', () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 90; i++) q.push('flood', `f${i}`);
    const served: string[] = [];
    served.push(q.shift() as string); // the flood's first is running when carol comes
    q.push('carol', 'c0');
    served.push(q.shift() as string, q.shift() as string);
    expect(served).toEqual(['f0', 'f1', 'c0']);
    q.push('carol', 'c1'); // carol's next piece, after her first came back
    expect([q.shift(), q.shift()]).toEqual(['f2', 'c1']);
  });

  it('drains every line', () => {
    const q = new FairQueue<number>();
    q.push('a', 1);
    q.push('b', 2);
    q.push('a', 3);
    expect(q.drain().sort()).toEqual([1, 2, 3]);
    expect(q.shift()).toBeUndefined();
    expect(q.length).toBe(0);
  });
});

/**
 * Deficit round robin as plainly as it can be written (one quantum to one owner a step, no rounds skipped): what
 * FairQueue must give, item for item.
 */
class ReferenceDrr {
  lines = new Map<string, { waiting: { item: string; cost: number }[]; deficit: number }>();
  constructor(readonly quantum: number) {}
  push(owner: string, item: string, cost: number): void {
    const line = this.lines.get(owner);
    if (line) line.waiting.push({ item, cost });
    else this.lines.set(owner, { waiting: [{ item, cost }], deficit: 0 });
  }
  shift(): string | undefined {
    while (this.lines.size > 0) {
      const [owner, line] = [...this.lines][0];
      this.lines.delete(owner);
      if (line.deficit < line.waiting[0].cost) {
        line.deficit += this.quantum;
        this.lines.set(owner, line);
        continue;
      }
      const { item, cost } = line.waiting.shift()!;
      line.deficit -= cost;
      if (line.waiting.length > 0) {
        // its turn goes on while what it has covers its next item: it stays first
        if (line.deficit >= line.waiting[0].cost) this.lines = new Map([[owner, line], ...this.lines]);
        else this.lines.set(owner, line);
      }
      return item;
    }
    return undefined;
  }
}

describe('FairQueue with costs (the worker pool: units of text)', () => {
  it("takes another owner's small item before one owner's large one, each owner's items in order", () => {
    const q = new FairQueue<string>(100);
    q.push('flood', 'f0', 1000);
    q.push('flood', 'f1', 1000);
    q.push('ada', 'a0', 80);
    q.push('ada', 'a1', 80);
    q.push('ada', 'a2', 300);
    const order: string[] = [];
    for (let x = q.shift(); x !== undefined; x = q.shift()) order.push(x);
    expect(order).toEqual(['a0', 'a1', 'a2', 'f0', 'f1']);
  });

  it('starves no one: a large item is taken within its cost in turns however many small ones keep coming', () => {
    const q = new FairQueue<string>(100);
    q.push('big', 'B', 1000);
    q.push('small', 's0', 50);
    let n = 0;
    const taken: string[] = [];
    for (let x = q.shift(); x !== undefined && taken.length < 100; x = q.shift()) {
      taken.push(x);
      if (x.startsWith('s')) q.push('small', `s${++n}`, 50); // the small owner always has one more waiting
    }
    // the big owner needs 10 turns of 100, and between two of its turns the small owner has one (two items at most)
    const at = taken.indexOf('B');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(20);
    expect(taken.filter((x) => x.startsWith('s'))).toEqual(Array.from({ length: 99 }, (_, i) => `s${i}`));
  });

  it('gives item for item what plain deficit round robin gives (random owners, costs and turns)', () => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    for (let run = 0; run < 200; run++) {
      const quantum = 1 + Math.floor(random() * 50);
      const q = new FairQueue<string>(quantum);
      const ref = new ReferenceDrr(quantum);
      const got: Array<string | undefined> = [];
      const want: Array<string | undefined> = [];
      for (let step = 0; step < 60; step++) {
        if (random() < 0.55) {
          const owner = `o${Math.floor(random() * 4)}`;
          const cost = 1 + Math.floor(random() ** 3 * 2000);
          q.push(owner, `${owner}-${step}`, cost);
          ref.push(owner, `${owner}-${step}`, cost);
        } else {
          got.push(q.shift());
          want.push(ref.shift());
        }
      }
      for (let x = q.shift(); x !== undefined; x = q.shift()) got.push(x);
      for (let x = ref.shift(); x !== undefined; x = ref.shift()) want.push(x);
      expect(got).toEqual(want);
      expect(q.length).toBe(0);
    }
  });

  it('takes an item out of its line (remove), and refuses a quantum that is not a positive number', () => {
    const q = new FairQueue<string>(10);
    q.push('a', 'a0', 5);
    q.push('a', 'a1', 5);
    q.push('b', 'b0', 5);
    expect(q.remove('a', 'a0')).toBe(true);
    expect(q.remove('a', 'a0')).toBe(false);
    expect(q.remove('c', 'a1')).toBe(false);
    expect(q.length).toBe(2);
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['a1', 'b0', undefined]);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new FairQueue(bad)).toThrow(RangeError);
  });
});

describe('the handler and an offload with forOwner', () => {
  it("gives each request's offloaded work and large body to its own account's line", async () => {
    const { offload: inner } = await recordingOffload();
    const owners: string[] = [];
    const ownerOf = (owner: string): Offload & JsonBodyOffload => ({
      run: (work) => {
        owners.push(`${owner}:${work.kind}`);
        return inner.run(work);
      },
      parseJson: async (bytes, schema) => {
        owners.push(`${owner}:json`);
        const { bodyChecker } = await import('../../src/http/index.js');
        return parseJsonBody(bytes, schema === undefined ? undefined : bodyChecker(schema));
      },
    });
    const offload = { ...ownerOf('(none)'), forOwner: ownerOf };
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const { key } = await keys.createKey({ account: 'carol', plan: 'enterprise' });
    const handler = createHandler(engine, { keys, offload });
    const words = 'river stone light window garden paper morning silver'.split(' ');
    const content = Array.from({ length: 200_000 }, (_, i) => words[(i * 7) % words.length]).join(' ');
    const res = await handler(
      new Request('http://api.test/api/v1/attribution/analyze', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content, content_type: 'text' }),
      }),
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(owners).toContain('carol:json');
    expect(owners.some((o) => o.startsWith('carol:') && !o.endsWith(':json'))).toBe(true);
    expect(owners.filter((o) => !o.startsWith('carol:'))).toEqual([]);
  });
});
