/**
 * Health probes and graceful shutdown of `serve()` (src/node/serve.ts) on real sockets, 127.0.0.1:
 * `/healthz` and `/readyz` outside the handler, readiness from a check, and a close that drains (503 on
 * `/readyz` while still serving), answers the request in flight, and then stops accepting connections.
 */
import { describe, expect, it } from 'vitest';
import { serve } from '../../src/node/serve.js';
import { MESSAGES, TrainprintError } from '../../src/library.js';

const json = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

describe('serve(): health probes', () => {
  it('/healthz and /readyz are answered before the handler, with no key', async () => {
    let handled = 0;
    const server = await serve(
      async () => {
        handled++;
        return new Response('{}');
      },
      { port: 0 },
    );
    try {
      expect(await json(`${server.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await json(`${server.url}/readyz?verbose=1`)).toEqual({ status: 200, body: { status: 'ready' } });
      expect(handled).toBe(0);
      expect((await fetch(`${server.url}/api/v1/status`)).status).toBe(200);
      expect(handled).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('/readyz is 503 with the reason while the readiness check says no or fails', async () => {
    let state: 'up' | 'down' | 'broken' | 'thrown' = 'down';
    const ready = () => {
      if (state === 'broken')
        throw new TrainprintError('STORE_UNAVAILABLE', 'postgres://app@db:5432/trainprint: cannot reach the server');
      if (state === 'thrown') throw new Error('postgres://app@db:5432/trainprint');
      return state === 'up';
    };
    const server = await serve(async () => new Response('{}'), { port: 0, ready });
    try {
      const down = await json(`${server.url}/readyz`);
      expect(down).toEqual({ status: 503, body: { status: 'not_ready', reason: 'not ready' } });
      state = 'broken';
      const broken = await json(`${server.url}/readyz`);
      expect(broken.status).toBe(503);
      // the kind of failure in the error table's words: the probe answers anyone, so no user, host or database
      expect(broken.body.reason).toBe(`STORE_UNAVAILABLE: ${MESSAGES.STORE_UNAVAILABLE}`);
      state = 'thrown';
      expect((await json(`${server.url}/readyz`)).body).toEqual({
        status: 'not_ready',
        reason: 'the readiness check failed',
      });
      state = 'up';
      expect((await json(`${server.url}/readyz`)).status).toBe(200);
      expect((await json(`${server.url}/healthz`)).status).toBe(200); // liveness never asks the check
    } finally {
      await server.close();
    }
  });
});

describe('serve(): graceful close', () => {
  it('drains (503 on /readyz, still serving), answers the request in flight, then refuses connections', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => {
      release = r;
    });
    let reached!: () => void;
    const arrived = new Promise<void>((r) => (reached = r));
    const server = await serve(
      async (req) => {
        if (new URL(req.url).pathname === '/slow') {
          reached();
          await slow;
        }
        const body = JSON.stringify({ path: new URL(req.url).pathname });
        return new Response(body, { headers: { 'content-type': 'application/json' } });
      },
      { port: 0 },
    );
    const inFlight = fetch(`${server.url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await arrived; // the slow request has reached the handler
    let closed = false;
    const closing = server.close({ drainMs: 400 }).then(() => {
      closed = true;
    });
    // during the drain: not ready, yet serving
    expect(await json(`${server.url}/readyz`)).toEqual({ status: 503, body: { status: 'draining' } });
    expect(await json(`${server.url}/other`)).toEqual({ status: 200, body: { path: '/other' } });
    expect((await json(`${server.url}/healthz`)).status).toBe(200);
    // after the drain the server waits for the request in flight
    await new Promise((r) => setTimeout(r, 500));
    expect(closed).toBe(false);
    release();
    expect(await inFlight).toEqual({ status: 200, body: { path: '/slow' } });
    await closing;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
