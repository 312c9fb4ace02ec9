/**
 * Uploads in flight per account, over real sockets to `serve` on 127.0.0.1: an account on a plan of one upload at
 * once holds it with a body it has only half sent; its next upload waits (unanswered), the one after that is 429
 * `RATE_LIMITED` at once with `Retry-After`, naming the plan's limit; meanwhile another account's small analysis and
 * its own upload are answered. When the held body ends, it is answered, and the waiting upload takes the place and
 * is answered too. An upload that waits past the line's time is 429 as well. Nothing is timed: each step waits for
 * an answer (or for round trips of /status that show the server got further), and the order of the answers is what
 * is checked.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';

const BOUNDARY = 'upload-boundary-7f3a';
/** A multipart analyze request of a small text file: an upload whatever its size (a form on a route of files). */
const form = (text: string) =>
  new TextEncoder().encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${BOUNDARY}--\r\n`,
  );

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: { success: boolean; error?: { code: string; message: string } };
}
interface Upload {
  readonly answer: Promise<Answer>;
  /** Whether the answer has come. */
  readonly answered: () => boolean;
  /** Sends the rest of the body (when only a part was sent). */
  readonly finish: () => void;
}

/** POST the form to analyze with `key`, sending its first `first` bytes now (all by default). */
function upload(url: string, key: string, body: Uint8Array, first = body.length): Upload {
  let answered = false;
  let req!: ReturnType<typeof request>;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = request(
      `${url}/api/v1/attribution/analyze`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': body.length,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          answered = true;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
  });
  req.write(body.subarray(0, first));
  if (first >= body.length) req.end();
  return {
    answer,
    answered: () => answered,
    finish: () => {
      req.end(body.subarray(first));
    },
  };
}

/** Round trips of /status: requests sent before them have been taken further by the server meanwhile. */
async function roundTrips(url: string, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) expect((await fetch(`${url}/api/v1/status`)).status).toBe(200);
}

describe('uploads in flight per account', () => {
  let engine: Engine;
  const servers: Server[] = [];
  let keys: KeyStore;
  let solo = '';
  let other = '';
  beforeAll(async () => {
    engine = await createEngine();
    keys = new KeyStore(engine.store, { plans: { solo: { daily: null, uploads: 1 } } });
    solo = (await keys.createKey({ account: 'one-at-a-time', plan: 'solo' })).key;
    other = (await keys.createKey({ account: 'another', plan: 'free' })).key;
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    engine.dispose();
  });
  const start = async (uploads: { waiting: number; waitMs?: number }) => {
    const handler = createHandler(engine, { keys, plans: { solo: { daily: null, uploads: 1 } }, uploads });
    const server = await serve(handler, { port: 0 });
    servers.push(server);
    return server.url;
  };

  it("one account's uploads past its plan wait, then 429 naming the limit; another account is answered meanwhile", async () => {
    const url = await start({ waiting: 1 });
    const body = form('The keeper counted herons over the estuary at dawn, and wrote their number down. '.repeat(20));
    const held = upload(url, solo, body, body.length >> 1); // holds the account's one place, its body half sent
    await roundTrips(url);
    const waiting = upload(url, solo, body); // the line's one waiter
    await roundTrips(url);
    const refused = await upload(url, solo, body).answer; // the line is full
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json.success).toBe(false);
    expect(refused.json.error?.code).toBe('RATE_LIMITED');
    expect(refused.json.error?.message).toContain('plan "solo" allows 1 uploads at once');
    expect(refused.json.error?.message).toContain('1 are in flight and 1 wait');

    // another account: a small analysis and an upload of its own are answered while the first account's wait
    const small = await fetch(`${url}/api/v1/attribution/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'A short text of another account.', content_type: 'text' }),
    });
    expect(small.status).toBe(200);
    expect((await upload(url, other, body).answer).status).toBe(200);
    expect(held.answered()).toBe(false);
    expect(waiting.answered()).toBe(false);

    // the held body ends: it is answered, then the waiting upload takes the place
    held.finish();
    expect((await held.answer).status).toBe(200);
    const next = await waiting.answer;
    expect(next.status).toBe(200);
    expect(next.json.success).toBe(true);
    // the places are all given back: one more upload of the account runs at once
    expect((await upload(url, solo, body).answer).status).toBe(200);
  });

  it('an upload that waits longer than the line allows is 429, and the held one is still answered', async () => {
    const url = await start({ waiting: 4, waitMs: 300 });
    const body = form('A second note about herons and the tide. '.repeat(10));
    const held = upload(url, solo, body, 10);
    await roundTrips(url);
    const late = await upload(url, solo, body).answer;
    expect(late.status).toBe(429);
    expect(late.headers['retry-after']).toBe('5');
    expect(late.json.error?.code).toBe('RATE_LIMITED');
    expect(late.json.error?.message).toContain('this one waited 0.3 s for a place');
    expect(held.answered()).toBe(false);
    held.finish();
    expect((await held.answer).status).toBe(200);
  });
});
