/**
 * Two `trainprint serve` processes (the built CLI, dist/cli.js) on one PostgreSQL database, one of them killed
 * with SIGKILL while writes and webhook deliveries are in flight, then the other stopped with SIGTERM while one of
 * its deliveries is:
 *
 * - 50 concurrent registrations (each with an Idempotency-Key) spread over both; one process is killed while they
 *   run. Every registration that got a 2xx is read back through the survivor, and every one retried there with
 *   its key succeeds (a replay of the same work when the first answer was acknowledged). The survivor keeps
 *   answering, its status page listing both instances' heartbeats before the kill.
 * - Monitors whose webhooks fire in both processes, their requests held by a receiver on 127.0.0.1 until the
 *   kill (so no delivery was acknowledged before it), then dropped: the survivor sends every delivery, those the
 *   dead process had leased once their lease lapsed, and no delivery or event is acknowledged twice.
 * - SIGTERM with `--drain-ms` while a delivery is in flight: the request is cut off when the drain ends and its
 *   lease released (no lease is left in the store, no attempt logged), and a process started next sends it.
 *
 * Bounded: a server must print its URL within 30 s; waits are polled, at most 150 s (a dead process's lease lapses
 * 15 s after it was taken, and the survivor looks for due deliveries every 5 s). Only 127.0.0.1. The lease is the
 * request timeout (10 s) plus `--webhook-lease-margin-s 5` rather than the default 30 s, which the first test would
 * otherwise wait out: still longer than any request, so no attempt goes out twice at once, and the dead process's
 * attempts are taken over the same way at any margin.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import type { Delivery } from '../../src/services/monitors/webhook.js';
import { describePostgres } from '../pg/postgres.js';
import { book } from '../fixtures/texts/index.js';
import { passageAt } from '../reference/core.js';
import {
  createKey,
  exited,
  requireBuiltCli,
  startServe,
  stopProcess,
  type ServeProcess,
} from '../fixtures/serve-process.js';

const WRITES = 50;
const SECRET = 'whsec_kill_test_secret_0123456789';
const running: ChildProcess[] = [];

/**
 * `trainprint serve` (one process) on `store`, sending webhooks to 127.0.0.1 (each attempt leased for 15 s), draining
 * 1 s on SIGTERM.
 */
const start = (store: string): Promise<ServeProcess> =>
  startServe(
    [
      '--port',
      '0',
      '--packs',
      'none',
      '--workers',
      '1',
      '--drain-ms',
      '1000',
      '--allow-private-webhook-hosts',
      '--webhook-lease-margin-s',
      '5',
      '--store',
      store,
    ],
    { running },
  );

async function call(url: string, key: string, method: string, path: string, json?: unknown, headers = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

/** Polls `probe` every 250 ms until it returns a value, at most `seconds`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, seconds = 150): Promise<T> {
  for (let i = 0; i < seconds * 4; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The webhook receiver: while `holding`, a request is kept unanswered (and dropped by `drop()`); otherwise it is
 * answered 200 at once. Counts requests and 2xx answers per delivery id, and 2xx answers per event id.
 */
function webhookReceiver() {
  const r = {
    server: null as unknown as Server,
    url: '',
    holding: true,
    held: [] as Array<{ delivery: string; res: ServerResponse }>,
    received: new Map<string, number>(),
    acked: new Map<string, number>(),
    ackedEvents: new Map<string, number>(),
    drop(): void {
      for (const { res } of r.held.splice(0)) res.socket?.destroy();
    },
  };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  r.server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const delivery = String(req.headers['trainprint-delivery']);
      const event = (JSON.parse(body) as { id: string }).id;
      bump(r.received, delivery);
      if (r.holding) {
        r.held.push({ delivery, res });
        return;
      }
      res.on('finish', () => {
        bump(r.acked, delivery);
        bump(r.ackedEvents, event);
      });
      res.writeHead(200).end();
    });
  });
  return r;
}

beforeAll(() => {
  requireBuiltCli();
});
afterAll(async () => {
  await Promise.all(running.map(stopProcess));
});

describePostgres('two trainprint serve processes on one PostgreSQL store, one killed, one stopped', (db) => {
  let storeUrl = '';
  let store: Store;
  let key = '';
  let a: ServeProcess;
  let b: ServeProcess;
  const hooks = webhookReceiver();
  const text = book('chesterton-thursday');
  let workId = '';

  /** The delivery records in the store. */
  const deliveries = async () => (await store.scan('delivery/')).map(([, v]) => v as Delivery);
  /** A monitor of the work whose webhook fires when `dataset` is loaded where it is evaluated. */
  const monitor = async (url: string, dataset: string) => {
    const m = await call(url, key, 'POST', '/api/v1/monitors/create', {
      work_id: workId,
      models: ['meta/llama-7b'],
      events: ['match.found'],
      datasets: [dataset],
      webhook: { url: `${hooks.url}/${dataset}`, secret: SECRET },
    });
    expect(m.status, JSON.stringify(m.json)).toBe(201);
  };
  /** Load the chapter holding the work as `dataset` into the process at `url`: the monitors of `dataset` fire there. */
  const load = async (url: string, dataset: string) => {
    const r = await call(url, key, 'POST', '/api/v1/datasets', {
      id: dataset,
      kb_dataset: 'project-gutenberg',
      documents: [{ id: 'thursday', text: text.slice(30_000, 60_000) }],
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
  };

  beforeAll(async () => {
    await new Promise<void>((r) => hooks.server.listen(0, '127.0.0.1', r));
    hooks.url = `http://127.0.0.1:${(hooks.server.address() as AddressInfo).port}/hooks`;
    const url = new URL(db.url);
    const schema = db.schema();
    url.searchParams.set('schema', schema);
    storeUrl = url.toString();
    [a, b] = await Promise.all([start(storeUrl), start(storeUrl)]);
    store = await openPostgresStore(db.url, { schema });
    const scopes = 'registry:read,registry:write,monitors,datasets:read,datasets:write';
    key = await createKey(storeUrl, ['--account', 'acme', '--plan', 'pro', '--scopes', scopes]);
    const w = await call(a.url, key, 'POST', '/api/v1/content/register', {
      content: passageAt(text, 40_000, 1_000).text,
      title: 'Thursday, a passage',
    });
    expect(w.status, JSON.stringify(w.json)).toBe(201);
    workId = w.json.work_id;
  }, 120_000);

  afterAll(async () => {
    hooks.drop();
    await store?.close();
    await new Promise((r) => hooks.server.close(r));
  });

  it(`SIGKILL during ${WRITES} concurrent writes and webhook deliveries: every acknowledged write is kept, ` +
    'the survivor answers, no webhook is acknowledged twice', { timeout: 300_000 }, async () => {
    for (let i = 0; i < 3; i++) await monitor(i % 2 ? a.url : b.url, 'on-a');
    for (let i = 0; i < 3; i++) await monitor(i % 2 ? a.url : b.url, 'on-b');
    // both heartbeat to the store: the survivor's status lists both, live
    const live = await until(
      'both instances heartbeating',
      async () => {
        const s = await call(b.url, key, 'GET', '/api/v1/status');
        const n = (s.json.availability.instances as Array<{ live: boolean }>).filter((i) => i.live).length;
        return n >= 2 ? s.json.availability : undefined;
      },
      30,
    );
    expect(live.last_24h.percent).toBe(100);

    // the monitors of `on-a` fire in a, those of `on-b` in b: each sends its deliveries, held by the receiver
    await Promise.all([load(a.url, 'on-a'), load(b.url, 'on-b')]);
    const runners = await until(
      'deliveries leased by both processes',
      async () => {
        const leases = (await store.scan('delivery-lease/')).map(([, v]) => (v as { by: string }).by);
        return hooks.held.length >= 6 && new Set(leases).size === 2 ? new Set(leases) : undefined;
      },
      60,
    );
    expect(runners.size).toBe(2);

    // 50 registrations with Idempotency-Keys over both; a is killed once it has acknowledged five
    const content = (i: number) => passageAt(book('austen-persuasion'), 2_000 + i * 3_000, 60).text;
    const acked = new Map<number, string>();
    let ackedByA = 0;
    const write = async (i: number) => {
      const target = i % 2 ? a : b;
      try {
        const r = await call(
          target.url,
          key,
          'POST',
          '/api/v1/content/register',
          { content: content(i), title: `w${i}` },
          { 'idempotency-key': `kill-${i}` },
        );
        if (r.status >= 200 && r.status < 300) {
          acked.set(i, r.json.work_id);
          if (target === a && ++ackedByA === 5) a.child.kill('SIGKILL');
        }
      } catch {
        // the connection died with the process: not acknowledged
      }
    };
    await Promise.all(Array.from({ length: WRITES }, (_, i) => write(i)));
    await exited(a.child);
    expect(a.child.signalCode).toBe('SIGKILL');
    expect(ackedByA).toBeGreaterThanOrEqual(5);

    // every acknowledged write is there, read through the survivor
    for (const [i, id] of acked) {
      const r = await call(b.url, key, 'GET', `/api/v1/content/${id}`);
      expect(r.status, `w${i}`).toBe(200);
      expect(r.json.work_id).toBe(id);
    }
    // a client retries every write on the survivor with its key: an acknowledged one is replayed; one that was in
    // flight in the killed process succeeds, unless that process had claimed its key — then it is 409 "still being
    // processed" until the claim lapses (docs/http.md), never run twice and never lost
    let heldByTheDead = 0;
    for (let i = 0; i < WRITES; i++) {
      const r = await call(
        b.url,
        key,
        'POST',
        '/api/v1/content/register',
        { content: content(i), title: `w${i}` },
        { 'idempotency-key': `kill-${i}` },
      );
      if (!acked.has(i) && r.status === 409) {
        expect(r.json.error.message, `w${i}`).toMatch(/still being processed/);
        heldByTheDead++;
        continue;
      }
      expect(r.status, `w${i}: ${JSON.stringify(r.json)}`).toBeGreaterThanOrEqual(200);
      expect(r.status, `w${i}: ${JSON.stringify(r.json)}`).toBeLessThan(300);
      if (acked.has(i)) expect(r.json.work_id, `w${i}`).toBe(acked.get(i));
    }
    // only writes the killed process was running can be held: at most its share of the writes not acknowledged
    expect(heldByTheDead).toBeLessThanOrEqual(WRITES / 2 - ackedByA);
    const status = await call(b.url, key, 'GET', '/api/v1/status');
    expect(status.status).toBe(200);
    expect(status.json.status).toBe('operational');

    // no delivery was acknowledged before the kill; drop the held requests and answer every later one
    const before = (await deliveries()).map((d) => d.id);
    expect(before.length).toBeGreaterThanOrEqual(6);
    expect(hooks.acked.size).toBe(0);
    hooks.holding = false;
    hooks.drop();
    // the survivor sends them all: its own again after the dropped requests, the dead one's once their leases lapse
    await until('every delivery made before the kill delivered', async () => {
      const states = new Map((await deliveries()).map((d) => [d.id, d.state]));
      return before.every((id) => states.get(id) === 'delivered') ? true : undefined;
    });
    for (const id of before) expect(hooks.acked.get(id), id).toBe(1);
    expect([...hooks.acked.values()].every((n) => n === 1)).toBe(true);
    expect([...hooks.ackedEvents.values()].every((n) => n === 1)).toBe(true);
  });

  it('SIGTERM with a delivery in flight: the drain ends it and releases its lease; the next process sends it', {
    timeout: 240_000,
  }, async () => {
    await monitor(b.url, 'hand-back');
    hooks.holding = true;
    const received = hooks.received.size;
    await load(b.url, 'hand-back');
    const mine = await until(
      'its delivery in flight',
      async () => {
        const [d] = (await deliveries()).filter((x) => x.url.endsWith('/hand-back'));
        return d && hooks.held.some((h) => h.delivery === d.id) ? d : undefined;
      },
      60,
    );
    expect(await store.get(`delivery-lease/${mine.id}`)).toBeDefined();

    const code = new Promise<number | null>((r) => b.child.once('exit', (c) => r(c)));
    b.child.kill('SIGTERM');
    expect(await code).toBe(0);
    // handed back, not left leased until the lease lapses; no attempt logged for the request cut off
    expect(await store.scan('delivery-lease/')).toEqual([]);
    expect(await store.get(`delivery/${mine.id}`)).toMatchObject({ state: 'pending', attempts: [] });
    expect(hooks.received.size).toBeGreaterThan(received);
    expect(hooks.acked.has(mine.id)).toBe(false);

    hooks.holding = false;
    hooks.drop();
    const c = await start(storeUrl);
    await until(
      'the handed-back delivery sent by the next process',
      async () => (((await store.get(`delivery/${mine.id}`)) as Delivery).state === 'delivered' ? true : undefined),
      60,
    );
    expect(hooks.acked.get(mine.id)).toBe(1);
    expect([...hooks.acked.values()].every((n) => n === 1)).toBe(true);
    await stopProcess(c.child);
  });
});
