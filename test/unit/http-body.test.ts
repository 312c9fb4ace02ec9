/** readTextCapped (src/util/http-body.ts): an upstream body read with a cap, declared or streamed. */
import { describe, expect, it } from 'vitest';
import { BodyTooLarge, readTextCapped } from '../../src/util/http-body.js';

const stream = (chunks: number, size: number, counter: { pulled: number }) =>
  new ReadableStream<Uint8Array>({
    pull(c) {
      if (counter.pulled >= chunks) return c.close();
      counter.pulled++;
      c.enqueue(new TextEncoder().encode('é'.repeat(size / 2)));
    },
  });

describe('readTextCapped', () => {
  it('reads a body up to the cap exactly, UTF-8 across chunk edges', async () => {
    const n = { pulled: 0 };
    expect(await readTextCapped(new Response(stream(4, 10, n)), 40)).toBe('é'.repeat(20));
    expect(await readTextCapped(new Response(''), 0)).toBe('');
    expect(await readTextCapped(new Response(null, { status: 204 }), 10)).toBe('');
  });

  it('stops one chunk past the cap and cancels the stream', async () => {
    const n = { pulled: 0 };
    const read = readTextCapped(new Response(stream(100, 1000, n)), 4500);
    await expect(read).rejects.toBeInstanceOf(BodyTooLarge);
    await expect(read).rejects.toMatchObject({ cap: 4500, declared: false, bytes: 5000 });
    expect(n.pulled).toBeLessThanOrEqual(6);
  });

  it('refuses a declared Content-Length over the cap before reading', async () => {
    const n = { pulled: 0 };
    const res = new Response(stream(100, 1000, n), { headers: { 'content-length': '100000' } });
    await expect(readTextCapped(res, 4500)).rejects.toMatchObject({ declared: true, bytes: 100000 });
    expect(n.pulled).toBeLessThanOrEqual(1);
  });
});
