/**
 * The byte-level test model served with the OpenAI completions API (createByteGptHandler behind a real listening
 * server on 127.0.0.1): the package's OpenAI-compatible adapter reads the same log-probabilities and greedy
 * continuations over HTTP as in process, so the memorization operations run against it unchanged (an extraction of
 * a work inserted 16 times, verified); sampling is seeded; a generations-only server refuses log-probabilities; bad
 * requests get OpenAI's error envelope.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createByteGptHandler,
  createEngine,
  createOpenAICompatibleModel,
  loadByteGptModel,
  readByteGptWeights,
  withCors,
  type ByteGptModel,
} from '../../src/library.js';
import { serve, type Server } from '../../src/node/index.js';

const ROOT = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('models/byte-gpt-inserted/manifest.json', ROOT), 'utf8'));
const weights = readByteGptWeights(
  readFileSync(new URL(`models/byte-gpt-inserted/${manifest.weights}`, ROOT)),
  manifest.config,
);

let model: ByteGptModel;
let server: Server;
let blackBox: Server;
beforeAll(async () => {
  model = await loadByteGptModel(weights, { id: 'byte-gpt-inserted', access: 'top_k', topK: 20 });
  server = await serve(createByteGptHandler(model), { port: 0 });
  blackBox = await serve(createByteGptHandler(model, { generationsOnly: true, apiKey: 'sk-test' }), { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await blackBox?.close();
});

const post = async (base: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
};

describe('served over HTTP', () => {
  it('gives the OpenAI adapter the log-probabilities and greedy text of the model in process', async () => {
    const remote = createOpenAICompatibleModel({
      baseUrl: `${server.url}/v1`,
      model: 'byte-gpt-inserted',
      topLogprobs: 5,
    });
    const text = 'Fellow-Citizens of the Senate — naïve café.';
    const [here, there] = [await model.logprobs!(text), await remote.logprobs!(text)];
    expect(there.logprobs).toEqual(here.logprobs);
    expect(there.offsets).toEqual(here.offsets);
    expect(there.tokens.join('')).toBe(text);
    expect(there.top![3]).toHaveLength(5);
    const prompt = manifest.inserted[0].text.slice(0, 80);
    expect(await remote.generate(prompt, { maxTokens: 120, temperature: 0 })).toBe(
      await model.generate(prompt, { maxTokens: 120, temperature: 0 }),
    );
  });

  it('runs a memorization operation unchanged: a work inserted 16 times is extracted through the API', async () => {
    const remote = createOpenAICompatibleModel({ baseUrl: `${server.url}/v1`, model: 'byte-gpt-inserted' });
    const work = manifest.inserted.find(
      (d: { times: number; id: string }) => d.times === 16 && d.id.startsWith('work:'),
    );
    const engine = await createEngine();
    const e = await engine.memorization.extract({
      model: remote,
      text: work.text,
      prefix_tokens: 20,
      continuation_tokens: 50,
      prefixes: 3,
      max_tokens: 400,
    });
    expect(e.summary.verified).toBeGreaterThanOrEqual(1);
    engine.dispose();
  });

  it('samples reproducibly with a seed, greedily at temperature 0; echo with max_tokens 0 scores the prompt', async () => {
    const ask = (seed: number) =>
      post(server.url, '/v1/completions', { prompt: 'The Congress', max_tokens: 40, temperature: 0.9, seed });
    const [a, b, c] = [await ask(5), await ask(5), await ask(6)];
    expect(a.status).toBe(200);
    expect(a.json.choices[0].text).toBe(b.json.choices[0].text);
    expect(a.json.choices[0].text).not.toBe(c.json.choices[0].text);
    const e = await post(server.url, '/v1/completions', {
      prompt: 'We the people',
      max_tokens: 0,
      echo: true,
      logprobs: 0,
      temperature: 0,
    });
    expect(e.json.choices[0].text).toBe('We the people');
    expect(e.json.choices[0].logprobs.token_logprobs).toHaveLength('We the people'.length);
    expect(e.json.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 0 });
    const models = await (await fetch(`${server.url}/v1/models`)).json();
    expect(models.data[0].id).toBe('byte-gpt-inserted');
  });

  it('a generations-only server refuses log-probabilities and still generates (chat too)', async () => {
    const auth = { authorization: 'Bearer sk-test' };
    const lp = await post(blackBox.url, '/v1/completions', { prompt: 'x', logprobs: 1, echo: true }, auth);
    expect(lp.status).toBe(400);
    expect(lp.json.error.param).toBe('logprobs');
    const chat = await post(
      blackBox.url,
      '/v1/chat/completions',
      { messages: [{ role: 'user', content: 'The Union' }], max_tokens: 20, temperature: 0 },
      auth,
    );
    expect(chat.status).toBe(200);
    expect(typeof chat.json.choices[0].message.content).toBe('string');
    expect((await post(blackBox.url, '/v1/completions', { prompt: 'x' })).status).toBe(401);
  });

  it('answers bad requests with the OpenAI error envelope', async () => {
    const cases: Array<[unknown, number, string | null]> = [
      [{ prompt: 'x', temperature: 'hot' }, 400, 'temperature'],
      [{ prompt: 'x', max_tokens: -1 }, 400, 'max_tokens'],
      [{ prompt: 'x', logprobs: 99 }, 400, 'logprobs'],
      [{ prompt: ['x'] }, 400, 'prompt'],
      [{ prompt: 'x', seed: 1.5, temperature: 1 }, 400, 'seed'],
      [{ prompt: 'x', model: 'gpt-4' }, 404, 'model'],
      [{ prompt: 'x', stream: true }, 400, 'stream'],
    ];
    for (const [body, status, param] of cases) {
      const r = await post(server.url, '/v1/completions', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.json.error.param).toBe(param);
    }
    const bad = await fetch(`${server.url}/v1/completions`, { method: 'POST', body: '{' });
    expect(bad.status).toBe(400);
    expect((await fetch(`${server.url}/v1/completions`)).status).toBe(405);
    expect((await fetch(`${server.url}/v2/other`)).status).toBe(404);
  });

  it('withCors: the preflight and every answer allow the one origin given; none without it', async () => {
    const origin = 'http://127.0.0.1:3000';
    const open = await serve(withCors(createByteGptHandler(model), origin), { port: 0 });
    try {
      const pre = await fetch(`${open.url}/v1/completions`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pre.headers.get('access-control-allow-headers')).toContain('content-type');
      const r = await fetch(`${open.url}/v1/completions`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Fellow', max_tokens: 2, temperature: 0 }),
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
      expect(r.headers.get('vary')).toContain('Origin');
      const err = await fetch(`${open.url}/v2/other`, { headers: { origin } });
      expect([err.status, err.headers.get('access-control-allow-origin')]).toEqual([404, origin]);
    } finally {
      await open.close();
    }
    const plain = await fetch(`${server.url}/v1/models`, { headers: { origin: 'http://127.0.0.1:3000' } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
  });
});
