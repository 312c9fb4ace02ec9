/**
 * `createWorkerPool()` from the built `trainprint/node`: its threads give what the engine gives in-thread
 * (fingerprints, content-word pairs, compare, markup extraction) and parse JSON bodies as the HTTP handler
 * does, errors come back
 * as the same TrainprintError codes (with a schema failure's field), tasks beyond its threads wait their turn,
 * and a closed pool refuses work: tasks not answered when it closes, and later ones, get SERVICE_UNAVAILABLE,
 * which a served request answers with 503 and the JSON error envelope. A thread idle for `idleMs` ends, and the next
 * task's new thread answers the same.
 */
import { describe, expect, it, vi } from 'vitest';
import { book } from '../fixtures/texts/index.js';

const dist = (entry: string) => import(new URL(`../../dist/${entry}`, import.meta.url).href);

describe('worker pool', () => {
  it('answers what runWork answers in this thread, for more tasks than it has threads', async () => {
    const { createEngine, resolveOptions } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const engine = await createEngine();
    const pool = createWorkerPool({ threads: 2 });
    try {
      const text = book('austen-persuasion');
      const options = resolveOptions({ minhash: { mode: 'oph', permutations: 128 }, simhash: false, workHash: false });
      const works = [
        { kind: 'fingerprint', text, options },
        { kind: 'pairs', text },
        { kind: 'compare', a: text.slice(0, 40_000), b: text.slice(20_000, 60_000) },
        { kind: 'compare', a: text.slice(100_000, 120_000), b: book('chesterton-thursday').slice(0, 20_000) },
        { kind: 'extract', content: `<p>${text.slice(0, 30_000).replaceAll('\n\n', '</p><p>')}</p>`, type: 'html' },
      ] as const;
      const answers = await Promise.all(works.map((w) => pool.run(w)));
      works.forEach((w, i) => {
        expect(answers[i]).toEqual(engine.runWork(w));
      });
      expect(answers[2].spans.length).toBeGreaterThan(0);
      expect(answers[4].map.out.length).toBeGreaterThan(10);
    } finally {
      await pool.close();
    }
  });

  it('sends a text of over 1 Mi units in pieces: the same answers, a pair across a cut, a lone surrogate refused', async () => {
    const { createEngine, resolveOptions } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const engine = await createEngine();
    const pool = createWorkerPool({ threads: 1 });
    try {
      const base = book('austen-persuasion');
      // 2.4 Mi units, a surrogate pair's halves on either side of the first cut (1 Mi units) and accents across it
      const cut = 1 << 20;
      let text = base.repeat(Math.ceil((2.4 * cut) / base.length)).slice(0, 2.4 * cut);
      text = `${text.slice(0, cut - 3)}é 😀 ${text.slice(cut + 3)}`;
      expect(text.charCodeAt(cut - 1) & 0xfc00).toBe(0xd800);
      const options = resolveOptions({ workHash: false });
      const works = [
        { kind: 'fingerprint', text, options },
        { kind: 'pairs', text },
        { kind: 'compare', a: text.slice(0, cut + 50_000), b: text.slice(cut - 30_000, cut + 20_000) },
      ] as const;
      for (const w of works) expect(await pool.run(w)).toEqual(engine.runWork(w));
      // a lone half in the second piece: the same error as in this thread
      const lone = `${text.slice(0, cut + 10)}\ud800${text.slice(cut + 11)}`;
      const work = { kind: 'fingerprint', text: lone, options, columns: {} } as const;
      const here = (() => {
        try {
          engine.runWork(work);
        } catch (e) {
          return e as { code: string; message: string };
        }
      })();
      expect(here?.code).toBe('INVALID_INPUT');
      await expect(pool.run(work)).rejects.toMatchObject({ code: here?.code, message: here?.message });
      // and the thread goes on: a short task after it
      expect(await pool.run({ kind: 'pairs', text: base.slice(0, 40_000) })).toEqual(
        engine.runWork({ kind: 'pairs', text: base.slice(0, 40_000) }),
      );
    } finally {
      await pool.close();
    }
  });

  it("sends a fingerprint's per-shingle columns its work names, and no others", async () => {
    const { createEngine, resolveOptions, shingleCount } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const engine = await createEngine();
    const pool = createWorkerPool({ threads: 1 });
    try {
      const text = book('austen-persuasion').slice(0, 120_000);
      const options = resolveOptions({ workHash: false });
      const here = engine.runWork({ kind: 'fingerprint', text, options, columns: { hashes: true, spans: true } });
      const none = await pool.run({ kind: 'fingerprint', text, options, columns: {} });
      const spans = await pool.run({ kind: 'fingerprint', text, options, columns: { spans: true } });
      for (const there of [none, spans]) {
        const { shingles, ...rest } = there;
        const { shingles: _, ...expected } = here;
        expect(rest).toEqual(expected);
        expect(shingleCount(shingles)).toBe(here.shingles.hashes.length);
        expect(() => shingles.hashes).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
      }
      expect(Object.keys(none.shingles)).toEqual([]);
      expect([spans.shingles.starts, spans.shingles.ends]).toEqual([here.shingles.starts, here.shingles.ends]);
    } finally {
      await pool.close();
    }
  });

  it('rejects with the TrainprintError the work throws, and refuses work once closed', async () => {
    const { isTrainprintError } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const pool = createWorkerPool({ threads: 1 });
    const bad = await pool
      .run({ kind: 'compare', a: 'one', b: 'two', options: { maxGap: -1 } })
      .catch((e: unknown) => e);
    expect(isTrainprintError(bad, 'INVALID_OPTIONS')).toBe(true);
    // the thread is still usable after an error
    expect((await pool.run({ kind: 'compare', a: 'same words here', b: 'same words here' })).similarity).toBe(1);
    await pool.close();
    const closed = await pool.run({ kind: 'pairs', text: 'x' }).catch((e: unknown) => e);
    expect(isTrainprintError(closed, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(
      isTrainprintError(
        await pool.parseJson(new Uint8Array([123, 125])).catch((e: unknown) => e),
        'SERVICE_UNAVAILABLE',
      ),
    ).toBe(true);
    expect(() => createWorkerPool({ threads: 0 })).toThrow(/threads/);
  });

  it('ends a thread idle for idleMs; the next task starts a new one that answers the same', async () => {
    const { createWorkerPool } = await dist('node.js');
    const pool = createWorkerPool({ threads: 1, idleMs: 50 });
    try {
      const work = { kind: 'compare', a: book('austen-persuasion').slice(0, 20_000), b: book('austen-persuasion') };
      const first = await pool.run(work);
      expect([pool.started, pool.live]).toEqual([1, 1]);
      await vi.waitFor(() => expect(pool.live).toBe(0), { timeout: 10_000 });
      expect(await pool.run(work)).toEqual(first);
      expect([pool.started, pool.live]).toEqual([2, 1]);
    } finally {
      await pool.close();
    }
    expect(pool.live).toBe(0);
  });

  it('parses JSON bodies as the handler does: the same value, the same errors with the field', async () => {
    const { isTrainprintError } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const { parseJsonBody, bodyChecker, ROUTES } = await dist('http.js');
    const schema = ROUTES.find((r: { operationId: string }) => r.operationId === 'analyze').requestSchema;
    const pool = createWorkerPool({ threads: 1 });
    const encode = (s: string) => new TextEncoder().encode(s);
    try {
      const text = book('austen-persuasion');
      const good = JSON.stringify({ content: text, content_type: 'text', metadata: { title: 'Persuasion' } });
      expect(await pool.parseJson(encode(good), schema)).toEqual(parseJsonBody(encode(good), bodyChecker(schema)));
      const bytes = encode(good);
      await pool.parseJson(bytes, schema);
      expect(bytes.byteLength).toBe(0); // a body that fills its buffer moves to the thread: no copy
      for (const bad of [
        good.slice(0, -1),
        JSON.stringify({ content: text, content_type: 'rtf' }),
        '{"a":"\\ud800"}',
      ]) {
        const off = await pool.parseJson(encode(bad), schema).catch((e: unknown) => e);
        let here: unknown;
        try {
          parseJsonBody(encode(bad), bodyChecker(schema));
        } catch (e) {
          here = e;
        }
        expect(isTrainprintError(off)).toBe(true);
        expect({ code: off.code, message: off.message, cause: off.cause }).toEqual({
          code: (here as any).code,
          message: (here as any).message,
          cause: (here as any).cause,
        });
      }
    } finally {
      await pool.close();
    }
  });

  it('answers a request whose work is still on the pool when it closes with 503 and the error envelope', async () => {
    const { createEngine } = await dist('index.js');
    const { createWorkerPool } = await dist('node.js');
    const { createHandler, KeyStore } = await dist('http.js');
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    const { key } = await keys.createKey({ account: 'acme', plan: 'enterprise' });
    const pool = createWorkerPool({ threads: 1 });
    let queued!: () => void;
    const onPool = new Promise<void>((resolve) => (queued = resolve));
    const offload = {
      run: (work: never) => {
        const answer = pool.run(work);
        queued();
        return answer;
      },
    };
    const handler = createHandler(engine, { keys, offload });
    const answer = handler(
      new Request('http://api.test/api/v1/attribution/analyze', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: book('austen-persuasion'), content_type: 'text' }),
      }),
    );
    await onPool; // the analysis waits for its first piece of work on the pool …
    await pool.close(); // … when the server shuts down
    const res = await answer;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', details: { request_id: expect.any(String) } },
    });
  });
});
