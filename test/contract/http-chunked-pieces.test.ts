/**
 * A chunked request body over a real socket to `serve`, cut in pieces of different sizes: in 64-byte chunks it is
 * answered as the same body sent whole; in 1-byte chunks (twelve bytes on the wire a body byte) it is refused 400
 * after a few thousand pieces, its rest not read, and the server answers the next request at once. A body answered
 * before it is read (401) and sent a byte a chunk is not read on either once its rest passes the same bound: a
 * client that sends on past the answer cannot hand the server more than the socket buffers hold.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';
import { BODY_FREE_PIECES } from '../../src/node/body-pages.js';

const FINGERPRINT = '/api/v1/attribution/fingerprint';

/** `body` sent chunked, `size` bytes a chunk, in writes of about 64 KiB; resolves with the raw answer. */
function chunked(port: number, key: string, body: string, size: number): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (got += c));
  socket.on('error', () => undefined); // a reset once the answer is out: the answer is what counts
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(got)));
  socket.write(
    `POST ${FINGERPRINT} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
  );
  const bytes = Buffer.from(body);
  let wire = '';
  for (let at = 0; at < bytes.length; at += size) {
    const piece = bytes.subarray(at, at + size);
    wire += `${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`;
    if (wire.length >= 65_536) {
      if (!socket.writable) break;
      socket.write(wire, 'latin1');
      wire = '';
    }
  }
  if (socket.writable) socket.write(`${wire}0\r\n\r\n`, 'latin1');
  return ended;
}

/**
 * `body` sent chunked a byte a chunk, with backpressure, and on after the answer and the server's end of the
 * connection (half-open: a client that ignores it), until the server closes the connection; resolves with the answer
 * and the bytes the server's side took (written, less what still waited here).
 */
function byteChunksUntilClosed(port: number, key: string, body: string): Promise<{ raw: string; taken: number }> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (got += c));
  socket.on('error', () => undefined);
  socket.write(
    `POST ${FINGERPRINT} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
  );
  let at = 0;
  let taken = 0;
  const pump = () => {
    while (at < body.length && socket.writable) {
      let wire = '';
      for (let n = 0; n < 4096 && at < body.length; n++, at++) wire += `1\r\n${body[at]}\r\n`;
      if (at >= body.length) wire += '0\r\n\r\n';
      if (!socket.write(wire, 'latin1')) return void socket.once('drain', pump);
    }
  };
  pump();
  return new Promise((resolve) =>
    socket.on('close', () => {
      taken = socket.bytesWritten - socket.writableLength;
      resolve({ raw: got, taken });
    }),
  );
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
/** The JSON body of a raw answer, its chunked transfer coding undone. */
function jsonOf(raw: string): Record<string, unknown> {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
  let rest = raw.slice(head.length + 4);
  if (!/transfer-encoding: chunked/i.test(head)) return JSON.parse(rest);
  let out = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const n = Number.parseInt(rest.slice(0, eol), 16);
    if (!(n > 0)) return JSON.parse(out);
    out += rest.slice(eol + 2, eol + 2 + n);
    rest = rest.slice(eol + 2 + n + 2);
  }
}

describe('chunked bodies cut small', () => {
  let server: Server;
  let key: string;
  let port: number;
  beforeAll(async () => {
    const engine = await createEngine();
    const keys = new KeyStore(engine.store);
    key = (await keys.createKey({ account: 'gus', plan: 'scale' })).key;
    server = await serve(createHandler(engine, { keys }), { port: 0 });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.close();
  });

  const text = 'The quick brown fox jumps over the lazy dog near the quiet river bank. '.repeat(3000);
  const body = JSON.stringify({ content: text });

  it('in 64-byte chunks: the same answer as in 64 KiB chunks', async () => {
    const small = await chunked(port, key, body, 64);
    const large = await chunked(port, key, body, 65_536);
    expect(statusOf(small)).toBe(200);
    expect(statusOf(large)).toBe(200);
    const { request_id: _a, ...a } = jsonOf(small);
    const { request_id: _b, ...b } = jsonOf(large);
    expect(a).toEqual(b);
  });

  it(`in 1-byte chunks: 400 past ${BODY_FREE_PIECES} pieces, naming them; the next request answered`, async () => {
    const raw = await chunked(port, key, body, 1);
    expect(statusOf(raw)).toBe(400);
    const error = jsonOf(raw).error as { code: string; message: string };
    expect(error.code).toBe('MALFORMED_REQUEST');
    expect(error.message).toMatch(/pieces/);
    expect(statusOf(await chunked(port, key, body, 4096))).toBe(200);
  });

  it('answered before it is read and sent a byte a chunk: its rest is not read past the same bound', async () => {
    // 4 MB a byte a chunk: 24 MB on the wire, several times what loopback sockets buffer
    const large = 'x'.repeat(4 << 20);
    // the server's side of each connection it accepts: how many bytes it read from the client
    const accepted: Socket[] = [];
    const onSocket = (message: unknown) => accepted.push((message as { socket: Socket }).socket);
    subscribe('net.server.socket', onSocket);
    let answer: { raw: string; taken: number };
    try {
      answer = await byteChunksUntilClosed(port, 'tp_live_notakeynotakeynotakeynotakey00', large);
    } finally {
      unsubscribe('net.server.socket', onSocket);
    }
    expect(statusOf(answer.raw)).toBe(401);
    expect(answer.taken).toBeGreaterThan(1 << 20); // the client did send on past the answer
    // the server read a few thousand pieces of the rest and stopped (the rest lay in the sockets' buffers): not the
    // tens of MB it parsed, a piece at a time, while the connection lingered
    expect(accepted.length).toBe(1);
    expect(accepted[0].bytesRead).toBeLessThan(1 << 20);
    expect(statusOf(await chunked(port, key, body, 4096))).toBe(200);
  }, 30_000);
});
