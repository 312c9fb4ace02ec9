// The remote corpora's Node poster (src/remote/node-post.ts) against a real server on 127.0.0.1: it must answer as the
// transport reads a fetch Response, and fail where fetch fails.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeJsonPost, RedirectRefused } from '../../src/remote/node-post.js';
import { CallBudget, createTransport, RemoteCallError } from '../../src/remote/transport.js';
import { BodyTooLarge } from '../../src/util/http-body.js';
import { closedPort } from '../fixtures/closed-port.js';

let server: Server;
let base: string;
const seen: Array<{ length: string | undefined; body: string }> = [];

function route(req: IncomingMessage, res: ServerResponse, body: string) {
  seen.push({ length: req.headers['content-length'], body });
  if (req.url === '/echo') {
    res.setHeader('content-type', 'application/json');
    res.setHeader('retry-after', '7');
    res.end(JSON.stringify({ got: JSON.parse(body) }));
  } else if (req.url === '/redirect') {
    res.writeHead(302, { location: '/echo' }).end();
  } else if (req.url === '/declared-large') {
    res.writeHead(200, { 'content-length': String(1 << 20) });
    res.write('x');
  } else if (req.url === '/stream-large') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'y'.repeat(4096);
    const timer = setInterval(() => res.write(chunk), 1);
    res.on('close', () => clearInterval(timer));
  } else if (req.url === '/cut') {
    res.writeHead(200, { 'content-length': '100' });
    res.write('{"partial":');
    setTimeout(() => res.socket?.destroy(), 20);
  } else if (req.url === '/slow') {
    setTimeout(() => res.end('{}'), 2_000);
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => route(req, res, Buffer.concat(parts).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = nodeJsonPost()!;
const signal = () => new AbortController().signal;

describe('nodeJsonPost', () => {
  it('is there in Node', () => {
    expect(post).toBeTypeOf('function');
  });

  it('posts the payload with its UTF-8 length and answers status, headers and body', async () => {
    const payload = JSON.stringify({ query: 'naïve café — 𝒜' });
    const res = await post(`${base}/echo`, payload, signal(), 1 << 20);
    expect(res.status).toBe(200);
    expect(res.header('Retry-After')).toBe('7');
    expect(res.header('x-absent')).toBeNull();
    expect(JSON.parse(await res.text())).toEqual({ got: { query: 'naïve café — 𝒜' } });
    expect(seen.at(-1)).toEqual({ length: String(new TextEncoder().encode(payload).length), body: payload });
  });

  it('keeps the connection for the next call (keep-alive) and answers many concurrent calls', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) =>
        JSON.parse(await (await post(`${base}/echo`, `{"i":${i}}`, signal(), 1 << 20)).text()),
      ),
    );
    expect(answers.map((a) => a.got.i)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('refuses a redirect (never followed), as fetch with redirect: error', async () => {
    await expect(post(`${base}/redirect`, '{}', signal(), 1 << 20)).rejects.toBeInstanceOf(RedirectRefused);
  });

  it('a redirect is said as one, not as an engine that did not answer, and not retried', async () => {
    const transport = createTransport(`${base}/redirect`, { retryBaseMs: 1 });
    const budget = new CallBudget(10);
    for (let k = 0; k < 4; k++) {
      const e = await transport({ q: k }, { budget }).catch((x) => x);
      expect(e).toBeInstanceOf(RemoteCallError);
      expect((e as RemoteCallError).kind).toBe('rejected');
      expect((e as RemoteCallError).message).toMatch(/redirect \(status 302 to \/echo\)/);
      expect((e as RemoteCallError).message).not.toMatch(/did not answer/);
    }
    expect(budget.used).toBe(4);
  });

  it('refuses a body declared or streamed past the cap, with BodyTooLarge', async () => {
    const declared = await post(`${base}/declared-large`, '{}', signal(), 1000);
    await expect(declared.text()).rejects.toBeInstanceOf(BodyTooLarge);
    const streamed = await post(`${base}/stream-large`, '{}', signal(), 64 * 1024);
    const e = await streamed.text().catch((x) => x);
    expect(e).toBeInstanceOf(BodyTooLarge);
    expect((e as BodyTooLarge).declared).toBe(false);
  });

  it('rejects a body the server cuts off', async () => {
    const res = await post(`${base}/cut`, '{}', signal(), 1 << 20);
    await expect(res.text()).rejects.toThrow();
  });

  it('rejects when the caller aborts, and a refused connection rejects', async () => {
    const controller = new AbortController();
    const pending = post(`${base}/slow`, '{}', controller.signal, 1 << 20);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
    const port = await closedPort();
    await expect(post(`http://127.0.0.1:${port}/`, '{}', signal(), 1 << 20)).rejects.toThrow();
  });
});
