/**
 * A key whose large bodies were refused unread too often is answered from its headers (src/node/refusals.ts,
 * docs/http.md "Robustness and load"): after 16 such refusals in 10 s, its next request with a large body is answered
 * 429 with a Retry-After within the window, without the handler or the body's reading; another key, and the same
 * key's small bodies, are still the handler's.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixHandler } from '../../bench/wire-mix.mjs';
import { REFUSALS_IN_WINDOW } from '../../src/node/refusals.js';
import { type Server, serve } from '../../src/node/index.js';

let server: Server;
let handled = 0;
beforeAll(async () => {
  const handler = mixHandler();
  server = await serve(
    async (request: Request) => {
      handled++;
      return handler(request);
    },
    { port: 0, keepAliveMs: 7000 },
  );
});
afterAll(async () => {
  await server.close();
});

/** One request on a connection of its own, `length` bytes announced and only its first KiB sent: its answer's head. */
async function send(
  path: string,
  key: string,
  length: number,
): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  await new Promise((r) => socket.once('connect', r));
  let received = '';
  let ended = false;
  socket.setEncoding('latin1');
  socket.on('data', (c: string) => {
    received += c;
  });
  socket.on('end', () => {
    ended = true;
  });
  socket.on('error', () => undefined);
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/octet-stream\r\ncontent-length: ${length}\r\n\r\n${'a'.repeat(Math.min(length, 1024))}`,
  );
  // the answer is whole at the server's end of the connection, at its declared length, or at a chunked body's end
  const whole = () => {
    const at = received.indexOf('\r\n\r\n');
    if (at < 0) return false;
    const declared = /content-length: (\d+)/i.exec(received.slice(0, at))?.[1];
    return declared !== undefined ? received.length >= at + 4 + Number(declared) : received.endsWith('\r\n0\r\n\r\n');
  };
  for (let i = 0; i < 3000 && !ended && !whole(); i++) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  const at = received.indexOf('\r\n\r\n');
  return {
    status: Number(received.slice(9, 12)),
    head: received.slice(0, at).toLowerCase(),
    body: received.slice(at + 4),
  };
}

describe('refusals of unread bodies, bounded per key', () => {
  it('past the bound a large body is answered 429 from its headers; other keys and small bodies are not', async () => {
    for (let i = 0; i < REFUSALS_IN_WINDOW; i++) {
      const r = await send('/quota', 'flood', 1 << 20);
      expect(r.status).toBe(429);
      // the handler's own answer
      expect(r.head).toContain('retry-after: 60');
    }
    const before = handled;
    const r = await send('/quota', 'flood', 1 << 20);
    expect(r.status).toBe(429);
    expect(r.head).toContain('connection: close');
    const retryAfter = Number(/retry-after: (\d+)/.exec(r.head)?.[1]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(JSON.parse(r.body)).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(handled).toBe(before);
    // the same key's small body, and another key's large one, are still answered by the handler
    const small = await send('/ok', 'flood', 3);
    expect(small.status).toBe(200);
    const other = await send('/quota', 'honest', 1 << 20);
    expect(other.head).toContain('retry-after: 60');
    expect(handled).toBe(before + 2);
  });
});
