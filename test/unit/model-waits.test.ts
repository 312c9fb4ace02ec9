/**
 * What a model service's answers can make a call wait for, and what they are told as: an endpoint's
 * `x-ratelimit-reset-*` and a retry's backoff end at the call's cancel (they held a call up to 300 s past it); a
 * redirect is the service's answer, told as a redirect once, not as a connection that failed, and not tried again.
 */
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/models/rate-limit.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import { TrainprintError } from '../../src/errors.js';

/** A sleep that never ends by itself: it ends only when its signal aborts (or never, without one). */
const neverSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((_, reject) => {
    void ms;
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** Whether `p` has settled once the microtasks and a macrotask have run. */
async function settled(p: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  let state: 'resolved' | 'rejected' | 'pending' = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  await new Promise((r) => setImmediate(r));
  return state;
}

describe('rate limiter', () => {
  it("an endpoint's reset of 99999h holds a call only until its cancel, and a call queued behind it too", async () => {
    const limiter = createRateLimiter({ requestsPerMinute: 600, sleep: neverSleep });
    limiter.observe(new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '99999h' }));
    const first = new AbortController();
    const second = new AbortController();
    const a = limiter.acquire(1, first.signal);
    const b = limiter.acquire(1, second.signal);
    expect(await settled(a)).toBe('pending');
    second.abort(new Error('second cancelled'));
    await expect(b).rejects.toThrow('second cancelled'); // leaves the line while the first still waits
    expect(await settled(a)).toBe('pending');
    first.abort(new Error('first cancelled'));
    await expect(a).rejects.toThrow('first cancelled');
  });

  it('a call already cancelled does not wait at all', async () => {
    const limiter = createRateLimiter({ requestsPerMinute: 1, sleep: neverSleep });
    await limiter.acquire(1);
    await expect(limiter.acquire(1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});

describe('OpenAI-compatible model', () => {
  const make = (fetch: typeof globalThis.fetch) =>
    createOpenAICompatibleModel({
      baseUrl: 'https://models.example.org/v1',
      model: 'm',
      api: 'chat',
      fetch,
      sleep: neverSleep,
      maxRetries: 3,
    });

  for (const status of [301, 302, 307, 308]) {
    it(`a ${status} is told as a redirect, asked once, never followed`, async () => {
      const asked: RequestInit[] = [];
      const model = make((async (_url: string, init: RequestInit) => {
        asked.push(init);
        return new Response(null, { status, headers: { location: 'http://127.0.0.1/v1/chat/completions' } });
      }) as typeof globalThis.fetch);
      const e = await model.generate('a prompt', { maxTokens: 8, temperature: 0 }).catch((x) => x);
      expect(e).toBeInstanceOf(TrainprintError);
      expect(e.code).toBe('UPSTREAM_ERROR');
      expect(e.message).toContain(`status ${status}, a redirect, which is not followed`);
      expect(e.message).not.toContain('could not connect');
      expect(asked.length).toBe(1);
      expect(asked[0].redirect).toBe('manual');
    });
  }

  it("a retry's backoff ends at the call's cancel", async () => {
    let calls = 0;
    const model = make((async () => {
      calls++;
      return new Response('{"error":{"message":"busy"}}', { status: 503 });
    }) as typeof globalThis.fetch);
    const controller = new AbortController();
    const p = model.generate('a prompt', { maxTokens: 8, temperature: 0, signal: controller.signal });
    while (calls === 0) await new Promise((r) => setImmediate(r));
    expect(await settled(p)).toBe('pending'); // in its backoff, which never ends by itself here
    controller.abort(new Error('cancelled'));
    await expect(p).rejects.toThrow('cancelled');
    expect(calls).toBe(1);
  });
});
