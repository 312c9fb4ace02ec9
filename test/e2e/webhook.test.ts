/**
 * Webhook signing and delivery (src/services/monitors/): known-answer HMAC vectors against node:crypto, header
 * verification edge cases, and real deliveries to an HTTP receiver on 127.0.0.1. Scheduling runs on a
 * fake clock (injected now/sleep/random), so retries are instant and deterministic; the only real
 * waiting is HTTP round trips and one short request timeout.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isTrainprintError } from '../../src/errors.js';
import { SIGNATURE_HEADER, signPayload, verifySignature } from '../../src/services/monitors/signature.js';
import { WebhookDeliverer, type Delivery, type WebhookDelivererOptions } from '../../src/services/monitors/webhook.js';
import type { BatchOp, ScanOptions, Store, Transaction } from '../../src/store/types.js';
import { closedPort } from '../fixtures/closed-port.js';

// ---------------------------------------------------------------------------------------------------
// A tiny Map-based Store (the real memory store is being written elsewhere): sorted keys, copies on
// read and write, transactions serialised in arrival order and applied as one batch.

class MapStore implements Store {
  readonly data = new Map<string, unknown>();
  #tail: Promise<unknown> = Promise.resolve();

  async get(key: string) {
    return structuredClone(this.data.get(key));
  }
  put(key: string, value: unknown) {
    return this.#serial(async () => void this.data.set(key, structuredClone(value)));
  }
  delete(key: string) {
    return this.#serial(async () => this.data.delete(key));
  }
  async scan(prefix: string, options: ScanOptions = {}) {
    return scanMap(this.data, prefix, options);
  }
  batch(ops: readonly BatchOp[]) {
    return this.#serial(async () => this.#apply(ops));
  }
  transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T> {
    return this.#serial(async () => {
      const overlay = new Map(this.data);
      const ops: BatchOp[] = [];
      const tx: Transaction = {
        get: async (key) => structuredClone(overlay.get(key)),
        put: (key, value) => {
          overlay.set(key, structuredClone(value));
          ops.push({ type: 'put', key, value });
        },
        delete: (key) => {
          overlay.delete(key);
          ops.push({ type: 'delete', key });
        },
        scan: async (prefix, options) => scanMap(overlay, prefix, options ?? {}),
      };
      const result = await fn(tx);
      this.#apply(ops);
      return result;
    });
  }
  async close() {}

  #apply(ops: readonly BatchOp[]) {
    for (const op of ops) {
      if (op.type === 'put') this.data.set(op.key, structuredClone(op.value));
      else this.data.delete(op.key);
    }
  }
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn);
    this.#tail = run.catch(() => {});
    return run;
  }
}

function scanMap(map: Map<string, unknown>, prefix: string, options: ScanOptions): Array<[string, unknown]> {
  const keys = [...map.keys()]
    .filter((k) => k.startsWith(prefix) && (options.after === undefined || k > options.after))
    .sort();
  return keys.slice(0, options.limit ?? keys.length).map((k) => [k, structuredClone(map.get(k))]);
}

// ---------------------------------------------------------------------------------------------------
// A real receiver. Each test sets `respond`; every request is recorded with its raw body.

interface Received {
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}
type Respond = (req: Received, n: number) => { status: number; headers?: Record<string, string> } | 'hang';

let server: Server;
let base: string;
let received: Received[] = [];
let respond: Respond = () => ({ status: 200 });
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const r: Received = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    received.push(r);
    const answer = respond(r, received.length);
    if (answer === 'hang') {
      hanging.push(res);
      return;
    }
    res.writeHead(answer.status, answer.headers).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  respond = () => ({ status: 200 });
});

// ---------------------------------------------------------------------------------------------------

const SECRET = 'whsec_0123456789abcdef';
const T0 = Date.UTC(2025, 0, 1); // the fake clock's start, epoch ms

function hmacHex(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

/** A deliverer on a fresh store with a fake clock: `sleep` advances it, `random` is fixed. */
function setup(options: Partial<WebhookDelivererOptions> = {}) {
  const clock = { ms: T0 };
  const store = options.store ?? new MapStore();
  const deliverer = new WebhookDeliverer({
    now: () => clock.ms,
    sleep: async (ms) => void (clock.ms += ms),
    random: () => 0.5,
    timeoutMs: 2000,
    ...options,
    store,
  });
  const subscription = { id: 'sub_1', url: `${base}/hooks`, secret: SECRET };
  const event = {
    id: 'evt_1',
    type: 'match.found',
    created_at: '2025-01-01T00:00:00.000Z',
    data: { work_id: 'w1', score: 0.93 },
  };
  return { clock, store, deliverer, subscription, event };
}

async function expectCode(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTrainprintError(error), String(error)).toBe(true);
  expect((error as { code: string }).code).toBe(code);
}

// ---------------------------------------------------------------------------------------------------

describe('signPayload / verifySignature', () => {
  it('matches HMAC-SHA256 from node:crypto (known-answer vectors)', async () => {
    const vectors: Array<[string, string, number]> = [
      ['whsec_test', '{"a":1}', 1_700_000_000],
      [SECRET, '', 0],
      ['clé-ü', '{"text":"naïve café 日本語 🎉"}', 1_735_689_600], // UTF-8 in secret and body
    ];
    for (const [secret, body, t] of vectors) {
      expect(await signPayload(secret, body, t)).toBe(`t=${t},v1=${hmacHex(secret, `${t}.${body}`)}`);
    }
    // A fixed literal too, so the oracle itself is pinned.
    expect(await signPayload('whsec_test', '{"a":1}', 1_700_000_000)).toBe(
      't=1700000000,v1=' + hmacHex('whsec_test', '1700000000.{"a":1}'),
    );
    expect(hmacHex('key', 'The quick brown fox jumps over the lazy dog')).toBe(
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8', // RFC-style published HMAC-SHA256 vector
    );
    expect(SIGNATURE_HEADER).toBe('Trainprint-Signature');
  });

  it('accepts a correct header, also when only one of several v1 values matches', async () => {
    const body = '{"id":"evt_1"}';
    const t = 1_700_000_000;
    const header = await signPayload(SECRET, body, t);
    expect(await verifySignature(SECRET, body, header, { now: t })).toBe(true);
    expect(await verifySignature(SECRET, body, header, { now: t + 300 })).toBe(true); // edge of the window
    const rotated = `t=${t},v1=${hmacHex('old-secret', `${t}.${body}`)},v0=whatever,v1=${hmacHex(SECRET, `${t}.${body}`)}`;
    expect(await verifySignature(SECRET, body, rotated, { now: t })).toBe(true);
    expect(await verifySignature(SECRET, body, ` t=${t} , v1=${hmacHex(SECRET, `${t}.${body}`)} `, { now: t })).toBe(
      true,
    );
  });

  it('rejects a wrong secret, a tampered body and timestamps outside the window', async () => {
    const body = '{"id":"evt_1","data":{"score":0.5}}';
    const t = 1_700_000_000;
    const header = await signPayload(SECRET, body, t);
    expect(await verifySignature('wrong-secret', body, header, { now: t })).toBe(false);
    expect(await verifySignature(SECRET, body.replace('0.5', '0.9'), header, { now: t })).toBe(false);
    expect(await verifySignature(SECRET, body + ' ', header, { now: t })).toBe(false);
    expect(await verifySignature(SECRET, body, header, { now: t + 301 })).toBe(false); // replayed too late
    expect(await verifySignature(SECRET, body, header, { now: t - 301 })).toBe(false); // from the future
    expect(await verifySignature(SECRET, body, header, { now: t + 60, toleranceSeconds: 30 })).toBe(false);
    expect(await verifySignature(SECRET, body, header, { now: t + 3600, toleranceSeconds: 7200 })).toBe(true);
    // Default `now` is the real clock: a 2023 timestamp is long expired.
    expect(await verifySignature(SECRET, body, header)).toBe(false);
  });

  it('returns false for malformed headers and never throws on them', async () => {
    const body = '{}';
    const t = 1_700_000_000;
    const mac = hmacHex(SECRET, `${t}.${body}`);
    const malformed: unknown[] = [
      '',
      'garbage',
      `v1=${mac}`,
      `t=${t}`,
      `t=${t},v0=${mac}`,
      `t=abc,v1=${mac}`,
      `t=-1,v1=${mac}`,
      `t=${t},t=${t},v1=${mac}`,
      `t=${t},v1=${mac.toUpperCase()}`,
      `t=${t},v1=${mac.slice(1)}`,
      `t=${t},v1=`,
      `t=${t},=x,v1=${mac}`,
      `t=${t};v1=${mac}`,
      `t=${t},v1=${mac},junk`,
      `t=${t},v1=${mac}`.padEnd(5000, ' '),
      undefined,
      null,
      42,
      [`t=${t},v1=${mac}`],
      { t },
    ];
    for (const header of malformed) {
      expect(await verifySignature(SECRET, body, header as string, { now: t }), JSON.stringify(header)).toBe(false);
    }
  });

  it('rejects (INVALID_INPUT) only for an unusable secret or body', async () => {
    await expectCode(verifySignature(42 as never, '{}', 't=1,v1=00'), 'INVALID_INPUT');
    await expectCode(verifySignature(SECRET, Buffer.from('{}') as never, 't=1,v1=00'), 'INVALID_INPUT');
    await expectCode(verifySignature('', '{}', 't=1,v1=00'), 'INVALID_INPUT');
    await expectCode(signPayload(SECRET, {} as never, 1), 'INVALID_INPUT');
    await expectCode(signPayload(SECRET, '{}', 1.5), 'INVALID_INPUT');
    await expectCode(verifySignature(SECRET, '{}', 't=1,v1=00', { toleranceSeconds: -1 }), 'INVALID_OPTIONS');
  });
});

describe('WebhookDeliverer', () => {
  it('validates subscriptions and never stores the secret', async () => {
    const { deliverer, subscription, event, store } = setup();
    for (const url of [
      'ftp://example.com/x',
      'javascript:alert(1)',
      'not a url',
      'file:///etc/passwd',
      'http://u:p@example.com/',
    ]) {
      await expectCode(deliverer.enqueue({ ...subscription, url }, event), 'INVALID_INPUT');
    }
    await expectCode(deliverer.enqueue({ ...subscription, secret: '' }, event), 'INVALID_INPUT');
    await expectCode(deliverer.enqueue(subscription, { ...event, data: { n: 1n } }), 'INVALID_INPUT');
    expect(() => new WebhookDeliverer({ store, maxAttempts: 0 })).toThrow(/maxAttempts/);

    const d = await deliverer.enqueue(subscription, event);
    expect(d).toMatchObject({
      subscription_id: 'sub_1',
      event_id: 'evt_1',
      event_type: 'match.found',
      state: 'pending',
      attempts: [],
    });
    expect(d.id).toMatch(/^dlv_[0-9a-f]{32}$/);
    expect(d.next_attempt_at).toBe(new Date(T0).toISOString());
    const stored = JSON.stringify([...(store as MapStore).data]);
    expect(stored).not.toContain(SECRET);
    expect(await deliverer.get(d.id)).toEqual(d);
  });

  it('delivers a signed POST that the receiver verifies', async () => {
    const { deliverer, subscription, event, clock } = setup();
    const d = await deliverer.enqueue(subscription, event);
    expect(await deliverer.runDue()).toBe(1);

    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req.url).toBe('/hooks');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('trainprint-webhooks/1');
    expect(req.headers['trainprint-event']).toBe('match.found');
    expect(req.headers['trainprint-delivery']).toBe(d.id);
    expect(JSON.parse(req.body)).toEqual(event);
    const header = req.headers['trainprint-signature'] as string;
    expect(header).toMatch(new RegExp(`^t=${Math.floor(clock.ms / 1000)},v1=[0-9a-f]{64}$`));
    expect(await verifySignature(SECRET, req.body, header, { now: clock.ms / 1000 })).toBe(true);
    expect(await verifySignature('other', req.body, header, { now: clock.ms / 1000 })).toBe(false);

    const after = (await deliverer.get(d.id))!;
    expect(after.state).toBe('delivered');
    expect(after.next_attempt_at).toBeNull();
    expect(after.attempts).toHaveLength(1);
    expect(after.attempts[0]).toMatchObject({ at: new Date(T0).toISOString(), status: 200 });
    expect(after.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(await deliverer.runDue()).toBe(0); // nothing left: no second request
    expect(received).toHaveLength(1);
  });

  it('500, 500, 200 → delivered on attempt 3 after jittered exponential backoff', async () => {
    const { deliverer, subscription, event, clock } = setup({ baseDelayMs: 1000 });
    respond = (_r, n) => ({ status: n <= 2 ? 500 : 200 });
    const d = await deliverer.enqueue(subscription, event);

    expect(await deliverer.runDue()).toBe(1);
    let rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('failed_retrying');
    expect(rec.last_error).toBe('HTTP 500');
    expect(rec.next_attempt_at).toBe(new Date(T0 + 500).toISOString()); // 0.5 · min(60 s, 1 s · 2⁰)

    clock.ms += 499;
    expect(await deliverer.runDue()).toBe(0); // not yet due
    clock.ms += 1;
    expect(await deliverer.runDue()).toBe(1);
    rec = (await deliverer.get(d.id))!;
    expect(rec.next_attempt_at).toBe(new Date(clock.ms + 1000).toISOString()); // 0.5 · 2 s

    clock.ms += 1000;
    expect(await deliverer.runDue()).toBe(1);
    rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('delivered');
    expect(rec.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(rec.attempts.map((a) => a.at)).toEqual([T0, T0 + 500, T0 + 1500].map((ms) => new Date(ms).toISOString()));
    // Each attempt is signed afresh with its own timestamp, and every one verifies.
    for (const r of received) {
      const t = Number(/^t=(\d+)/.exec(r.headers['trainprint-signature'] as string)![1]);
      expect(await verifySignature(SECRET, r.body, r.headers['trainprint-signature'] as string, { now: t })).toBe(true);
    }
    expect(new Set(received.map((r) => r.body)).size).toBe(1); // identical bytes every time
  });

  it('always 500 → dead_letter after maxAttempts; retry() starts a new cycle and keeps the log', async () => {
    const { deliverer, subscription, event } = setup({ maxAttempts: 4 });
    respond = () => ({ status: 503 });
    const d = await deliverer.enqueue(subscription, event);
    expect(await deliverer.drain()).toBe(4);

    let rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('dead_letter');
    expect(rec.next_attempt_at).toBeNull();
    expect(rec.attempts.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    expect(received).toHaveLength(4);
    expect(await deliverer.list({ state: 'dead_letter' })).toHaveLength(1);
    expect(await deliverer.list({ state: 'pending' })).toHaveLength(0);

    respond = () => ({ status: 204 });
    rec = await deliverer.retry(d.id);
    expect(rec).toMatchObject({ state: 'pending', cycle_start: 4 });
    expect(rec.attempts).toHaveLength(4);
    expect(await deliverer.runDue()).toBe(1);
    rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('delivered');
    expect(rec.attempts.map((a) => a.status)).toEqual([503, 503, 503, 503, 204]);
    await expectCode(deliverer.retry(d.id), 'CONFLICT');
    await expectCode(deliverer.retry('dlv_missing'), 'NOT_FOUND');
  });

  it('caps backoff at maxDelayMs (full jitter: random · min(max, base · 2^(n−1)))', async () => {
    const { deliverer, subscription, event, clock } = setup({
      baseDelayMs: 1000,
      maxDelayMs: 3000,
      maxAttempts: 5,
      random: () => 0.999,
    });
    respond = () => ({ status: 500 });
    const d = await deliverer.enqueue(subscription, event);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await deliverer.runDue();
      const rec = (await deliverer.get(d.id))!;
      if (rec.next_attempt_at === null) break;
      const due = Date.parse(rec.next_attempt_at);
      delays.push(due - clock.ms);
      clock.ms = due;
    }
    expect(delays).toEqual([999, 1998, 2997, 2997]);
    expect((await deliverer.get(d.id))!.state).toBe('dead_letter');
  });

  it('410 → dead_letter at once; a redirect is neither followed nor retried', async () => {
    const { deliverer, subscription, event } = setup();
    respond = () => ({ status: 410 });
    const gone = await deliverer.enqueue(subscription, event);
    await deliverer.drain();
    const rec = (await deliverer.get(gone.id))!;
    expect(rec.state).toBe('dead_letter');
    expect(rec.attempts).toEqual([expect.objectContaining({ status: 410 })]);
    expect(rec.last_error).toBe('HTTP 410');

    received = [];
    respond = (r) =>
      r.url === '/hooks' ? { status: 302, headers: { location: `${base}/elsewhere` } } : { status: 200 };
    const moved = await deliverer.enqueue(subscription, { ...event, id: 'evt_2' });
    await deliverer.drain();
    const movedRec = (await deliverer.get(moved.id))!;
    expect(movedRec.state).toBe('dead_letter');
    expect(movedRec.attempts).toEqual([expect.objectContaining({ status: 302, error: 'redirect not followed' })]);
    expect(received.map((r) => r.url)).toEqual(['/hooks']);
  });

  it('a receiver that never answers → timeout recorded, then retried', async () => {
    const { deliverer, subscription, event, clock } = setup({ timeoutMs: 150 });
    respond = (_r, n) => (n === 1 ? 'hang' : { status: 200 });
    const d = await deliverer.enqueue(subscription, event);
    expect(await deliverer.runDue()).toBe(1);
    let rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('failed_retrying');
    expect(rec.attempts[0]).toMatchObject({ error: 'timeout after 150 ms' });
    expect(rec.attempts[0].status).toBeUndefined();
    expect(rec.attempts[0].duration_ms).toBeGreaterThanOrEqual(100);

    clock.ms = Date.parse(rec.next_attempt_at!);
    expect(await deliverer.runDue()).toBe(1);
    rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('delivered');
    expect(rec.attempts.map((a) => a.status ?? a.error)).toEqual(['timeout after 150 ms', 200]);
  });

  it('429 with Retry-After is honoured (and capped at maxDelayMs)', async () => {
    const { deliverer, subscription, event, clock } = setup({ maxDelayMs: 60_000 });
    respond = (_r, n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '7' } }
        : n === 2
          ? { status: 503, headers: { 'retry-after': '3600' } }
          : { status: 200 };
    const d = await deliverer.enqueue(subscription, event);
    await deliverer.runDue();
    let rec = (await deliverer.get(d.id))!;
    expect(rec.attempts[0].status).toBe(429);
    expect(Date.parse(rec.next_attempt_at!) - clock.ms).toBe(7000);
    clock.ms += 6999;
    expect(await deliverer.runDue()).toBe(0);
    clock.ms += 1;
    expect(await deliverer.runDue()).toBe(1);
    rec = (await deliverer.get(d.id))!;
    expect(Date.parse(rec.next_attempt_at!) - clock.ms).toBe(60_000); // 3600 s asked, 60 s cap
    expect(await deliverer.drain()).toBe(1);
    expect((await deliverer.get(d.id))!.state).toBe('delivered');
  });

  it('a refused connection is a network error and is retried', async () => {
    const port = await closedPort();

    const { deliverer, subscription, event } = setup({ maxAttempts: 2 });
    const d = await deliverer.enqueue({ ...subscription, url: `http://127.0.0.1:${port}/` }, event);
    expect(await deliverer.drain()).toBe(2);
    const rec = (await deliverer.get(d.id))!;
    expect(rec.state).toBe('dead_letter');
    expect(rec.attempts).toHaveLength(2);
    for (const a of rec.attempts) expect(a.error).toMatch(/^network error: /);
  });

  it('after a restart, waits for a secret ("secret unavailable"), then uses resolveSecret', async () => {
    const first = setup();
    const d = await first.deliverer.enqueue(first.subscription, first.event);

    // A new process on the same store: the in-memory secret is gone.
    const second = setup({ store: first.store });
    expect(await second.deliverer.runDue()).toBe(0);
    let rec = (await second.deliverer.get(d.id))!;
    expect(rec).toMatchObject({ state: 'pending', last_error: 'secret unavailable', attempts: [] });
    expect(await second.deliverer.drain()).toBe(0); // stuck, but drain returns instead of spinning
    expect(received).toHaveLength(0);

    const asked: string[] = [];
    const third = setup({
      store: first.store,
      resolveSecret: async (id) => (asked.push(id), id === 'sub_1' ? SECRET : undefined),
    });
    expect(await third.deliverer.runDue()).toBe(1);
    rec = (await third.deliverer.get(d.id))!;
    expect(rec.state).toBe('delivered');
    expect(asked).toEqual(['sub_1']);
    const [req] = received;
    expect(
      await verifySignature(SECRET, req.body, req.headers['trainprint-signature'] as string, { now: T0 / 1000 }),
    ).toBe(true);
  });

  it('list filters by state and subscription, in creation order', async () => {
    const { deliverer, subscription, event, clock } = setup();
    respond = (r) => ({ status: JSON.parse(r.body).id === 'evt_b' ? 400 : 200 });
    const a = await deliverer.enqueue(subscription, { ...event, id: 'evt_a' });
    clock.ms += 1;
    const b = await deliverer.enqueue({ ...subscription, id: 'sub_2' }, { ...event, id: 'evt_b' });
    clock.ms += 1;
    const c = await deliverer.enqueue(subscription, { ...event, id: 'evt_c' });
    expect((await deliverer.list()).map((x) => x.id)).toEqual([a.id, b.id, c.id]);
    await deliverer.runDue();
    expect((await deliverer.list({ state: 'delivered' })).map((x) => x.event_id)).toEqual(['evt_a', 'evt_c']);
    expect((await deliverer.list({ subscription_id: 'sub_2' })).map((x) => x.state)).toEqual(['dead_letter']);
    expect(await deliverer.list({ state: 'delivered', subscription_id: 'sub_2' })).toEqual([]);
    await expectCode(deliverer.list({ state: 'bogus' as never }), 'INVALID_INPUT');
  });

  it('start/stop: runs never overlap; stop() lets the request in flight finish and starts no other', async () => {
    const { subscription, event } = setup();
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    const slowFetch: typeof fetch = async (input, init) => {
      calls++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const slow = new WebhookDeliverer({ store: new MapStore(), fetch: slowFetch, concurrency: 1, now: () => T0 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await slow.enqueue(subscription, { ...event, id: `evt_${i}` })).id);

    slow.start(5); // ticks every 5 ms while one run takes ≥ 120 ms
    expect(() => slow.start(5)).toThrow(/already started/);
    // Wait until the first request is under way (however long a loaded machine takes), then stop mid-run.
    while (calls === 0) await new Promise((r) => setTimeout(r, 5));
    expect(received.length).toBeLessThan(3);
    await slow.stop();
    const states = async () => (await Promise.all(ids.map(async (id) => (await slow.get(id))!.state))).sort();
    // the request in flight finished; the run started no other: the rest stay due (for the next run, or another
    // process on the store), with no lease left behind
    expect(await states()).toEqual(['delivered', 'pending', 'pending']);
    expect(received).toHaveLength(1);
    expect(await slow.runDue()).toBe(2); // a run after the stop sends them
    expect(await states()).toEqual(['delivered', 'delivered', 'delivered']);
    expect(received).toHaveLength(3); // each sent once: no overlapping run resent anything
    expect(calls).toBe(3);
    expect(maxInFlight).toBe(1);
    await slow.stop(); // idempotent
  });

  it('concurrent runDue calls are serialised: each delivery is sent once', async () => {
    const { deliverer, subscription, event } = setup();
    for (let i = 0; i < 5; i++) await deliverer.enqueue(subscription, { ...event, id: `evt_${i}` });
    const counts = await Promise.all([deliverer.runDue(), deliverer.runDue(), deliverer.runDue()]);
    expect(counts).toEqual([5, 0, 0]);
    expect(received).toHaveLength(5);
    const deliveries: Delivery[] = await deliverer.list({ state: 'delivered' });
    expect(deliveries).toHaveLength(5);
  });
});
