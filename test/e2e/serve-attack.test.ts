/**
 * The evidence-planting attack against a real `trainprint serve` (the built CLI on 127.0.0.1, a file store, monitors
 * evaluated every second, webhooks to a real receiver): a Free key with `datasets:write` uploads the victim's text as
 * a dataset declared a sample of Project Gutenberg. Before, the victim's analyze then named facebook/opt-66b and
 * meta/llama-65b at confidence 95 and the victim's monitor fired `match.found`. Here the victim's analysis, score and
 * webhooks are exactly what they were — and the monitor, restarted on the same store, sends nothing — while the
 * attacker's own analysis sees its upload. The same server then meets the reliability cases over its socket: TRACE is a 405 with a
 * request id, HEAD is served wherever GET is, and clients that hang up mid-body leave the public status operational.
 *
 * Bounded: each server must start within 30 s; every wait polls with a deadline.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, startServe, stopProcess, type ServeProcess } from '../fixtures/serve-process.js';

// a 150-word original text (numbered sentences keep it distinct): the victim's work
const VICTIM_TEXT = Array.from(
  { length: 15 },
  (_, i) =>
    `In the ${i + 1}th chapter of her unpublished memoir the narrator counts ${(i * 37) % 91} lanterns along the quay at dusk.`,
).join(' ');
const SCOPES = ['analyze', 'registry:read', 'registry:write', 'monitors', 'datasets:read', 'datasets:write'];

const running: ChildProcess[] = [];
let dir = '';
let receiver: Server;
let hookUrl = '';
/** Every webhook delivery the receiver got, by path. */
const deliveries: Array<{ path: string; type: string }> = [];

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-attack-'));
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      try {
        deliveries.push({ path: req.url ?? '', type: String(JSON.parse(body).type) });
      } catch {
        deliveries.push({ path: req.url ?? '', type: 'unparsable' });
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all(running.map(stopProcess));
  await new Promise((resolve) => receiver?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const start = (store: string): Promise<ServeProcess> =>
  startServe(
    [
      '--port',
      '0',
      '--packs',
      'none',
      '--store',
      store,
      '--admin-key',
      '--allow-private-webhook-hosts',
      '--monitor-interval-s',
      '1',
    ],
    { running },
  );

async function call(url: string, key: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** What an analysis or score tells, without what differs between two calls (ids, times). */
function told(r: Record<string, any>): Record<string, unknown> {
  const { analysis_id: _a, created_at: _c, success: _s, ...rest } = r;
  return rest;
}

/** Polls `check` every 100 ms until it returns a value, or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves once the monitor has been evaluated after `since` (ISO time) for every model. */
const evaluatedAfter = (url: string, key: string, id: string, since: string) =>
  until(`an evaluation of ${id} after ${since}`, async () => {
    const m = await call(url, key, 'GET', `/api/v1/monitors/${id}`);
    const last = Object.values(m.json.last ?? {}) as Array<{ evaluated_at: string }>;
    return last.length === 2 && last.every((x) => x.evaluated_at > since) ? m.json : undefined;
  });

describe('trainprint serve: an account cannot plant evidence for another', () => {
  it("the victim's analyze, score and webhooks are unchanged by the attacker's declared upload, across a restart", async () => {
    const store = join(dir, 'store');
    let srv = await start(store);
    const keyFor = async (account: string, plan: string) => {
      const r = await call(srv.url, srv.admin!, 'POST', '/api/v1/admin/keys', { account, plan, scopes: SCOPES });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json.key as string;
    };
    const victim = await keyFor('victim', 'pro');
    const attacker = await keyFor('attacker', 'free');

    const work = await call(srv.url, victim, 'POST', '/api/v1/content/register', {
      content: VICTIM_TEXT,
      title: 'Memoir',
    });
    expect(work.status).toBe(201);
    const monitor = await call(srv.url, victim, 'POST', '/api/v1/monitors/create', {
      work_id: work.json.work_id,
      models: ['meta/llama-65b', 'facebook/opt-66b'],
      webhook: { url: `${hookUrl}/victim`, secret: 'whsec_victim_0123456789abcdef' },
    });
    expect(monitor.status, JSON.stringify(monitor.json)).toBe(201);
    const id = monitor.json.monitor_id as string;
    const analyze = (url: string, key = victim) =>
      call(url, key, 'POST', '/api/v1/attribution/analyze', { content: VICTIM_TEXT, content_type: 'text' });
    const score = (url: string) =>
      call(url, victim, 'POST', '/api/v1/attribution/score', {
        work_hash: work.json.work_hash,
        target_model: 'meta/llama-65b',
        jurisdiction: 'US',
      });

    // the attacker watches the same text: its monitor shows that webhooks do reach this receiver
    const theirs = await call(srv.url, attacker, 'POST', '/api/v1/content/register', { content: VICTIM_TEXT });
    const theirMonitor = await call(srv.url, attacker, 'POST', '/api/v1/monitors/create', {
      work_id: theirs.json.work_id,
      models: ['meta/llama-65b'],
      webhook: { url: `${hookUrl}/attacker`, secret: 'whsec_attacker_0123456789abcdef' },
    });
    expect(theirMonitor.status, JSON.stringify(theirMonitor.json)).toBe(201);
    const first = await evaluatedAfter(srv.url, victim, id, '1970');
    const before = await analyze(srv.url);
    const scoreBefore = await score(srv.url);
    expect(before.json.confidence).toBe(0);
    expect(before.json.attribution_sources).toEqual([]);
    const hooksBefore = deliveries.filter((d) => d.path === '/victim').length;

    // the attack
    const attackAt = new Date().toISOString();
    const planted = await call(srv.url, attacker, 'POST', '/api/v1/datasets', {
      id: 'totally-gutenberg',
      kb_dataset: 'project-gutenberg',
      documents: [{ id: 'memoir', text: VICTIM_TEXT }],
    });
    expect(planted.status, JSON.stringify(planted.json)).toBe(201);
    // the attacker sees its own upload at work
    const own = await analyze(srv.url, attacker);
    expect(own.json.confidence).toBeGreaterThan(50);
    expect(own.json.attribution_sources[0].supplied_by).toBe('account');

    // two evaluations later (the monitor runs every second), nothing changed for the victim
    const later = await evaluatedAfter(srv.url, victim, id, attackAt);
    await evaluatedAfter(
      srv.url,
      victim,
      id,
      Object.values(later.last as Record<string, { evaluated_at: string }>)[0].evaluated_at,
    );
    expect(told((await analyze(srv.url)).json)).toEqual(told(before.json));
    expect(told((await score(srv.url)).json)).toEqual(told(scoreBefore.json));
    const m = await call(srv.url, victim, 'GET', `/api/v1/monitors/${id}`);
    for (const model of ['meta/llama-65b', 'facebook/opt-66b']) {
      expect(m.json.last[model]).toMatchObject({
        score: first.last[model].score,
        tier: first.last[model].tier,
        flagged_chunks: 0,
      });
    }
    expect((await call(srv.url, victim, 'GET', '/api/v1/datasets/totally-gutenberg')).status).toBe(404);
    await until("match.found at the attacker's receiver", async () =>
      deliveries.some((d) => d.path === '/attacker' && d.type === 'match.found') ? true : undefined,
    );

    // the monitor goes on after a restart on the same store, and still nothing reaches the victim
    await stopProcess(srv.child);
    srv = await start(store);
    const restarted = new Date().toISOString();
    await evaluatedAfter(srv.url, victim, id, restarted);
    expect(told((await analyze(srv.url)).json)).toEqual(told(before.json));
    // no event reached the victim's receiver since the attack
    await new Promise((r) => setTimeout(r, 1500));
    expect(deliveries.filter((d) => d.path === '/victim').length).toBe(hooksBefore);
    expect(deliveries.filter((d) => d.path === '/victim' && d.type === 'match.found')).toEqual([]);
    await stopProcess(srv.child);
  }, 120_000);
});

describe('trainprint serve: the reliability cases over its socket', () => {
  it('TRACE is 405 with a request id, HEAD is served wherever GET is, a hang-up mid-body is no server error', async () => {
    const srv = await start(join(dir, 'store-reliability'));
    const port = Number(new URL(srv.url).port);
    const raw = (method: string, path: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path, method, headers: { authorization: `Bearer ${srv.dev}` } },
          (r) => {
            let body = '';
            r.on('data', (c) => {
              body += c;
            });
            r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    // (TRACK and other unregistered methods never reach the handler: node's parser answers them 400)
    for (const method of ['TRACE']) {
      const t = await raw(method, '/api/v1/kb/models');
      expect([method, t.status]).toEqual([method, 405]);
      expect(t.headers['x-request-id']).toMatch(/^req_/);
      expect(JSON.parse(t.body).error.code).toBe('METHOD_NOT_ALLOWED');
    }
    for (const path of ['/api/v1/kb/models', '/api/v1/usage', '/api/v1/status', '/api/v1/openapi.json']) {
      const [g, h] = [await raw('GET', path), await raw('HEAD', path)];
      expect([path, h.status, h.body]).toEqual([path, g.status, '']);
      expect(h.headers['content-type']).toBe(g.headers['content-type']);
    }
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /api/v1/attribution/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${srv.dev}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"content":"half a body',
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', () => resolve());
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    const status = (await (await fetch(`${srv.url}/api/v1/status`)).json()) as any;
    expect(status.requests.server_errors).toBe(0);
    expect(status.incidents).toEqual([]);
    expect(status.components.find((c: { name: string }) => c.name === 'api').status).toBe('operational');
    await stopProcess(srv.child);
  }, 60_000);
});
