/**
 * `resolveHost` of trainprint/node against a real server on 127.0.0.1: the addresses of a name
 * (every one classified by `isInternalAddress`), and the pinned fetch — method, headers and body
 * sent, status, headers and body received, no redirect followed, aborts honoured, and only URLs of
 * the name it resolved. `egressFetch(resolveHost)` refuses internal targets before connecting.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { egressFetch, isInternalAddress } from '../../src/http/index.js';
import { resolveHost } from '../../src/node/index.js';

let server: Server;
let port = 0;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/' });
        res.end();
        return;
      }
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.url === '/hang') return; // never answers: the caller aborts
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ echoed: body.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('resolveHost (Node)', () => {
  it("gives every address of a name; localhost's are all internal", async () => {
    const r = await resolveHost('localhost');
    expect(r.addresses.length).toBeGreaterThan(0);
    expect(r.addresses.every((a) => isInternalAddress(a))).toBe(true);
    await expect(resolveHost('no-such-host.invalid')).rejects.toThrow();
  });

  it('its fetch sends to the resolved address and answers like fetch', async () => {
    const { addresses, fetch: pinned } = await resolveHost('127.0.0.1');
    expect(addresses).toEqual(['127.0.0.1']);
    const res = await pinned(`http://127.0.0.1:${port}/v1/completions?x=1`, {
      method: 'POST',
      body: '{"prompt":"hello"}',
      redirect: 'error',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(await res.json()).toEqual({ echoed: 18 });
    const got = seen.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/v1/completions?x=1', body: '{"prompt":"hello"}' });
    expect(got.headers).toMatchObject({
      host: `127.0.0.1:${port}`,
      authorization: 'Bearer sk-test',
      'content-length': '18',
    });
    expect((await pinned(`http://127.0.0.1:${port}/empty`)).status).toBe(204);
  });

  it('follows no redirect, honours an abort, and serves only the name it resolved', async () => {
    const { fetch: pinned } = await resolveHost('127.0.0.1');
    await expect(pinned(`http://127.0.0.1:${port}/redirect`, { redirect: 'error' })).rejects.toThrow(/redirect/);
    expect((await pinned(`http://127.0.0.1:${port}/redirect`, { redirect: 'manual' })).status).toBe(302);
    const ctl = new AbortController();
    const hung = pinned(`http://127.0.0.1:${port}/hang`, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 50);
    await expect(hung).rejects.toThrow();
    await expect(pinned(`http://localhost:${port}/`)).rejects.toThrow(/pinned to 127\.0\.0\.1/);
  });

  it('egressFetch refuses internal targets before connecting', async () => {
    const before = seen.length;
    const send = egressFetch(resolveHost);
    await expect(send(`http://127.0.0.1:${port}/hook`, { method: 'POST', body: '{}' })).rejects.toThrow(/internal/);
    await expect(send(`http://localhost:${port}/hook`, { method: 'POST', body: '{}' })).rejects.toThrow(/internal/);
    expect(seen.length).toBe(before);
  });
});
