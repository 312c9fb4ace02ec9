/**
 * Reference sets are the account's (src/http/routes/memorization.ts): the id a client chooses lives
 * in the account's namespace, and every answer names it as the client knows it, never with the
 * account's prefix. The route asks for the account's own set before it calls the engine:
 *
 * - creating an id the account already has is 409, with the id as the client sent it; another
 *   account may create the same id;
 * - a probe or an assessment naming a set the account does not have (or another account's) is
 *   404 `no reference set "<id>"`, before any call to the model service;
 * - an assessment with a model that gives no log-probabilities runs no probe, so there an unknown
 *   set is no error (as the engine has it).
 *
 * The model service is never reached here (every answer comes before a model call), so its URL
 * points at a closed port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, MESSAGES, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type Handler } from '../../src/http/index.js';

const MODEL = { base_url: 'http://127.0.0.1:9/v1', model: 'never-called' };
const TEXTS = ['One reference passage that was never published.', 'Another one, also held back from release.'];
const WORK = 'A short work of the account, registered with its text for the memorization routes. '.repeat(20);

let engine: Engine;
let handler: Handler;
let acme = '';
let globex = '';
let globexWork = '';

async function post(key: string, path: string, json: unknown) {
  const res = await handler(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    }),
  );
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

beforeAll(async () => {
  engine = await createEngine();
  const keys = new KeyStore(engine.store);
  handler = createHandler(engine, { keys, allowPrivateModelHosts: true });
  acme = (await keys.createKey({ account: 'acme', plan: 'pro' })).key;
  globex = (await keys.createKey({ account: 'globex', plan: 'pro' })).key;
  const set = { id: 'withheld', texts: TEXTS, basis: 'randomized_split' };
  expect((await post(acme, '/api/v1/memorization/reference-sets', set)).status).toBe(201);
  const tracked = await post(globex, '/api/v1/memorization/register-work', { work: { content: WORK } });
  expect(tracked.status).toBe(200);
  globexWork = tracked.json.work_id;
});
afterAll(() => engine?.dispose());

describe('reference sets are named as the account knows them', () => {
  it('an id the account already has is 409 naming that id; another account may take it', async () => {
    const set = { id: 'withheld', texts: TEXTS, basis: 'randomized_split' };
    const dup = await post(acme, '/api/v1/memorization/reference-sets', set);
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({
      success: false,
      error: { code: 'ALREADY_EXISTS', message: `${MESSAGES.ALREADY_EXISTS}: reference set "withheld" exists` },
    });
    const other = await post(globex, '/api/v1/memorization/reference-sets', { ...set, id: 'own' });
    expect(other.status).toBe(201);
    expect(other.json.id).toBe('own');
  });

  it("a probe naming a set the account does not have, or another account's, is 404 naming the id", async () => {
    for (const id of ['nope', 'withheld']) {
      const r = await post(globex, '/api/v1/memorization/probe', {
        text: WORK,
        model: MODEL,
        reference: { reference_set: id },
      });
      expect(r.status, id).toBe(404);
      expect(r.json).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: `${MESSAGES.NOT_FOUND}: no reference set "${id}"` },
      });
      expect(r.text).not.toContain('acme/');
      expect(r.text).not.toContain('globex/');
    }
  });

  it('an assessment with a probe against a set the account does not have is 404 naming the id', async () => {
    const r = await post(globex, '/api/v1/assess', {
      work_id: globexWork,
      model: MODEL,
      extract: false,
      traps: false,
      probe: { reference: { reference_set: 'withheld' } },
    });
    expect(r.status).toBe(404);
    expect(r.json.error).toEqual({ code: 'NOT_FOUND', message: `${MESSAGES.NOT_FOUND}: no reference set "withheld"` });
  });

  it('a model without log-probabilities runs no probe: the unknown set is then no error', async () => {
    const r = await post(globex, '/api/v1/memorization/assess', {
      work_id: globexWork,
      model: { ...MODEL, api: 'chat' },
      extract: false,
      probe: { reference: { reference_set: 'nope' } },
    });
    expect(r.status).toBe(200);
    expect(r.json.probe).toBeNull();
    expect(r.json.limitations).toContain('no_logprob_access');
  });
});
