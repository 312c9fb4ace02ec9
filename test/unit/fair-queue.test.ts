/**
 * The worker pool's fair queue (FairQueue of src/node/extract-pool.ts, which the pool of src/node/offload.ts shares): each owner's items in order, the owners in turn, a newcomer
 * served after at most one item of each owner already waiting; and the HTTP handler giving each request's offloaded
 * work (its analysis's pieces, its large JSON body) to its own account's line through `forOwner`.
 */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/node/extract-pool.js';
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
