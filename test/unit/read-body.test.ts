/**
 * readBody: the bytes of a body however its chunks come and whatever length it declared, and its deadlines (fake
 * timers: a body that stops is 408 after idleMs, one under the least rate after its grace; nothing waits for real).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BODY_DEADLINES, bodyDeadlinesOf, readBody } from '../../src/http/pipeline/read-body.js';

afterEach(() => vi.useRealTimers());

/** A POST whose body is `parts`, declaring `declared` bytes (none when null). */
function requestOf(parts: Uint8Array[], declared: number | null): Request {
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = parts.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (declared !== null) headers['content-length'] = String(declared);
  return new Request('http://x/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

describe('readBody', () => {
  it('gives the bytes as sent, declared exactly, shorter, or not at all, in chunks of any size', async () => {
    const all = Uint8Array.from({ length: 10_000 }, (_, i) => i % 251);
    for (const declared of [10_000, 20_000, null]) {
      for (const size of [1, 333, 4999, 10_000]) {
        const parts: Uint8Array[] = [];
        for (let i = 0; i < all.length; i += size) parts.push(all.slice(i, i + size));
        const got = await readBody(requestOf(parts, declared), 'json', 1 << 20);
        expect(Buffer.from(got).equals(Buffer.from(all)), `declared ${declared}, chunks of ${size}`).toBe(true);
      }
    }
  });

  it('is 408 REQUEST_TIMEOUT when no byte comes for idleMs', async () => {
    vi.useFakeTimers();
    const stalled = new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '100' },
      body: new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array(10)) }),
      duplex: 'half',
    } as RequestInit);
    const read = readBody(stalled, 'json', 1000, undefined, { deadlines: bodyDeadlinesOf({ idleMs: 5000 }) });
    const outcome = read.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(4999);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: 'REQUEST_TIMEOUT', detail: expect.stringContaining('for 5 s') });
  });

  it('is 408 REQUEST_TIMEOUT when the bytes come under minBytesPerSecond once the grace is over', async () => {
    vi.useFakeTimers();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const trickle = new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) }),
      duplex: 'half',
    } as RequestInit);
    const deadlines = bodyDeadlinesOf({ idleMs: 2000, minBytesPerSecond: 100, graceMs: 3000 });
    const outcome = readBody(trickle, 'json', 1 << 20, undefined, { deadlines }).catch((e: unknown) => e);
    // 10 bytes a second: never idle for 2 s; by 3 s + 30 bytes / 100 B/s = 3.3 s it is under the rate
    let sent = 0;
    for (let s = 0; s < 10; s++) {
      try {
        controller.enqueue(new Uint8Array(10));
      } catch {
        break; // cancelled: the body was refused
      }
      sent += 10;
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(sent).toBe(40); // refused between 3 s and 4 s
    const e = await outcome;
    expect(e).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(String((e as Error).message)).toContain('less than 100 bytes a second');
  });

  it('checks its deadlines', () => {
    expect(bodyDeadlinesOf(undefined)).toEqual(BODY_DEADLINES);
    expect(() => bodyDeadlinesOf({ idleMs: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => bodyDeadlinesOf({ minBytesPerSecond: -1 })).toThrow(/minBytesPerSecond/);
    expect(bodyDeadlinesOf({ minBytesPerSecond: 0 }).minBytesPerSecond).toBe(0);
  });
});
