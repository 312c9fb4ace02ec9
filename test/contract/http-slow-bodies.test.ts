/**
 * Slow request bodies over real sockets to `serve` on 127.0.0.1 (round 6's H1): a body that declares 2 MiB and then
 * arrives a byte at a time holds no place among the service's large requests, so another account's 2 MB analyze is
 * answered while four of them still hang; a body that stops, or crawls under the least rate, is answered 408
 * `REQUEST_TIMEOUT` (the deadlines are made short here, so nothing waits long); nothing is timed.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type BodyDeadlines } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';

const ANALYZE = '/api/v1/attribution/analyze';

/** A request over a raw socket: the headers (declaring `declared` bytes of JSON) and the start of the body. */
interface SlowBody {
  readonly socket: Socket;
  /** Whatever the server has sent back so far. */
  readonly answer: () => string;
  /** Resolves with the answer's text once the server has ended or closed the connection. */
  readonly ended: Promise<string>;
  /** Sends one more byte of the body (nothing once the socket is closed). */
  readonly drip: () => void;
}

function slowBody(port: number, key: string, declared: number): SlowBody {
  const socket = connect(port, '127.0.0.1');
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (got += c));
  const ended = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(got));
    socket.on('error', () => undefined); // a reset after the answer: the answer is what counts
  });
  socket.write(
    `POST ${ANALYZE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${declared}\r\n\r\n{"content":"`,
  );
  return {
    socket,
    answer: () => got,
    ended,
    drip: () => {
      if (!socket.destroyed && socket.writable) socket.write('a');
    },
  };
}

/** The status and error code of a raw HTTP answer. */
function statusOf(raw: string): { status: number; code: string | undefined } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const code = /"code":"([A-Z_]+)"/.exec(raw)?.[1];
  return { status, code };
}

async function server(
  deadlines: BodyDeadlines,
): Promise<{ server: Server; engine: Engine; scale: string; pro: string; port: number }> {
  const engine = await createEngine();
  const keys = new KeyStore(engine.store);
  const scale = (await keys.createKey({ account: 'dave', plan: 'scale' })).key;
  const pro = (await keys.createKey({ account: 'carol', plan: 'pro' })).key;
  const s = await serve(createHandler(engine, { keys, bodyDeadlines: deadlines }), { port: 0 });
  return { server: s, engine, scale, pro, port: Number(new URL(s.url).port) };
}

describe('four slow 2 MiB bodies from one account beside another account large analyze', () => {
  let ctx: Awaited<ReturnType<typeof server>>;
  // deadlines far beyond the test: the slow bodies hang for as long as it runs
  beforeAll(async () => {
    ctx = await server({ idleMs: 600_000, minBytesPerSecond: 0 });
  });
  afterAll(async () => {
    await ctx?.server.close();
  });

  it('answers the other account while the four still hang: they hold no large-request place', async () => {
    const slow = Array.from({ length: 4 }, () => slowBody(ctx.port, ctx.scale, 2 << 20));
    const drip = setInterval(() => {
      for (const s of slow) s.drip();
    }, 50);
    try {
      // the service's four places (largeRequests.running) would all be held by the slow bodies if they took them
      // before being read; the victim's 2 MB text takes one once its own body is in
      const content = 'Permission is hereby granted, free of charge, to any person. '.repeat(34_000);
      const res = await fetch(`${ctx.server.url}${ANALYZE}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.pro}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content, content_type: 'text', search_remote: false }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ success: true });
      for (const s of slow) expect(s.answer()).toBe(''); // still being read: nothing answered them
    } finally {
      clearInterval(drip);
      for (const s of slow) s.socket.destroy();
    }
  });
});

describe('a body that stops or crawls', () => {
  let ctx: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    ctx = await server({ idleMs: 300, minBytesPerSecond: 2000, graceMs: 400 });
  });
  afterAll(async () => {
    await ctx?.server.close();
  });

  it('is answered 408 REQUEST_TIMEOUT when no byte comes for idleMs', async () => {
    const s = slowBody(ctx.port, ctx.scale, 2 << 20);
    const raw = await s.ended;
    expect(statusOf(raw)).toEqual({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(raw).toContain('no byte of the body came');
  });

  it('is answered 408 REQUEST_TIMEOUT when its bytes come under the least rate once the grace is over', async () => {
    const s = slowBody(ctx.port, ctx.scale, 2 << 20);
    // a byte every 50 ms: never idle for 300 ms, but 20 bytes a second against the 2,000 asked
    const drip = setInterval(s.drip, 50);
    try {
      const raw = await s.ended;
      expect(statusOf(raw)).toEqual({ status: 408, code: 'REQUEST_TIMEOUT' });
      expect(raw).toContain('bytes a second');
    } finally {
      clearInterval(drip);
    }
  });

  it('a chunked body that stops is cut the same way, and the server goes on', async () => {
    const socket = connect(ctx.port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (raw += c));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.write(
      `POST ${ANALYZE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.pro}\r\nContent-Type: application/json\r\n` +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"con\r\n',
    );
    await closed;
    expect(statusOf(raw)).toEqual({ status: 408, code: 'REQUEST_TIMEOUT' });
    const ok = await fetch(`${ctx.server.url}/api/v1/status`);
    expect(ok.status).toBe(200);
  });
});
