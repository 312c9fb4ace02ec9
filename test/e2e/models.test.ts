/**
 * Target models: the Kneser-Ney n-gram LM (proper distributions, counts, discounts, exact
 * moments, greedy generation) and the OpenAI-compatible adapter against the n-gram LM served on
 * 127.0.0.1 over real HTTP (echo logprobs, generation, retries, timeout, errors).
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNgramHandler } from '../../src/models/ngram-server.js';
import { NgramLanguageModel } from '../../src/models/ngram.js';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import { TrainprintError } from '../../src/errors.js';
import { sampleDocuments, serveFetchHandler, type Served } from '../fixtures/memorization/http.js';

const docs = sampleDocuments();
const lm = NgramLanguageModel.train(
  docs.slice(0, 12).map((d) => d.text),
  { order: 4 },
);
const noSleep = async () => {};

async function rejection(p: Promise<unknown>): Promise<TrainprintError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TrainprintError);
    return e as TrainprintError;
  }
  throw new Error('expected a rejection');
}

describe('NgramLanguageModel', () => {
  it('every next-token distribution sums to 1 and matches probability/score', () => {
    const contexts = [
      '',
      'the',
      'sir walter elliot of',
      'zzqx unknown words here',
      docs[0].text.slice(0, 400),
      'of the',
    ];
    for (const c of contexts) {
      const p = lm.distribution(c);
      let sum = 0;
      for (const x of p) {
        expect(x).toBeGreaterThanOrEqual(0);
        sum += x;
      }
      expect(sum).toBeCloseTo(1, 12);
      expect(p[0]).toBe(0); // <s> is never predicted
      expect(p[1]).toBeGreaterThan(0); // <unk>
      for (const w of ['the', 'elliot', 'of'])
        expect(lm.probability(c, w)).toBeCloseTo(p[lm.vocabulary.indexOf(w)], 14);
    }
    // score: each word's log-prob given the words before it
    const text = 'The baronet approved the lease on Thursday.';
    const s = lm.score(text);
    s.tokens.forEach((t, i) => {
      expect(s.logprobs[i]).toBeCloseTo(Math.log(lm.probability(s.tokens.slice(0, i), t)), 12);
    });
    expect(s.tokens).toEqual(['the', 'baronet', 'approved', 'the', 'lease', 'on', 'thursday']);
    expect(text.slice(s.starts[1], s.ends[1])).toBe('baronet');
  });

  it('interpolated modified Kneser-Ney on a hand-checked corpus', () => {
    const tiny = NgramLanguageModel.train(['a b a b a c'], { order: 2 });
    // raw bigram counts at the highest order; continuation counts at order 1
    expect(tiny.count(['a', 'b'])).toBe(2);
    expect(tiny.count(['a', 'c'])).toBe(1);
    expect(tiny.count(['b', 'a'])).toBe(2);
    expect(tiny.count(['a'])).toBe(2); // preceded by <s> and b
    expect(tiny.count(['b'])).toBe(1);
    expect(tiny.count(['c'])).toBe(1);
    // order 2: counts {1, 2, 2, 1} → n1 = 2, n2 = 2, Y = 1/3, D1 = 1 − 2Y·n2/n1 = 1/3
    const [d1, d2] = tiny.discounts(2);
    expect(d1).toBeCloseTo(1 / 3, 12);
    // order 1: continuation counts {a: 2, b: 1, c: 1} → n1 = 2, n2 = 1, Y = 1/2, D1 = 1/2
    const [u1, u2] = tiny.discounts(1);
    expect(u1).toBeCloseTo(0.5, 12);
    const T1 = 4;
    const uni = { a: (2 - u2) / T1, b: (1 - u1) / T1, c: (1 - u1) / T1 };
    const unk = 1 - uni.a - uni.b - uni.c;
    expect(unk).toBeCloseTo((u2 + 2 * u1) / T1, 12); // the discounted unigram mass is <unk>'s
    // after "a": followers b (2) and c (1), total 3, γ = (D2 + D1) / 3
    const gamma = (d2 + d1) / 3;
    expect(tiny.probability('a', 'b')).toBeCloseTo((2 - d2) / 3 + gamma * uni.b, 12);
    expect(tiny.probability('a', 'c')).toBeCloseTo((1 - d1) / 3 + gamma * uni.c, 12);
    expect(tiny.probability('a', 'a')).toBeCloseTo(gamma * uni.a, 12);
    expect(tiny.probability('a', 'never-seen')).toBeCloseTo(gamma * unk, 12);
    // an unseen context passes everything to order 1
    expect(tiny.probability('zzz', 'a')).toBeCloseTo(uni.a, 12);
  });

  it('exact moments and top-k agree with the full distribution; greedy = argmax', () => {
    const text = docs[3].text.slice(0, 600);
    const s = lm.score(text, { top: 5, moments: true });
    for (let i = 0; i < s.tokens.length; i += 7) {
      const p = lm.distribution(s.tokens.slice(0, i));
      let m1 = 0,
        m2 = 0;
      for (const x of p)
        if (x > 0) {
          m1 += x * Math.log(x);
          m2 += x * Math.log(x) ** 2;
        }
      expect(s.moments![i].mean).toBeCloseTo(m1, 9);
      expect(s.moments![i].variance).toBeCloseTo(m2 - m1 * m1, 8);
      const order = [...p.keys()].sort((a, b) => p[b] - p[a]).slice(0, 5);
      expect(s.top![i].map((t) => t.token)).toEqual(order.map((w) => lm.vocabulary[w]));
    }
    const prompt = 'sir walter';
    const gen = lm.generateTokens(prompt, 3);
    const p = lm.distribution(prompt);
    let best = -1;
    for (let w = 2; w < p.length; w++) if (best < 0 || p[w] > p[best]) best = w;
    expect(gen[0]).toBe(lm.vocabulary[best]);
    expect(lm.generateText(prompt, 3)).toBe(' ' + gen.join(' '));
  });

  it('rejects bad input', () => {
    expect(() => NgramLanguageModel.train(['x'], { order: 7 })).toThrow(/order/);
    expect(() => NgramLanguageModel.train([' .. ! '])).toThrow(/no word tokens/);
    expect(() => NgramLanguageModel.train([42 as never])).toThrow(/must be a string/);
  });
});

describe('OpenAI-compatible adapter over HTTP (n-gram LM on 127.0.0.1)', () => {
  let server: Served;
  let faults: Map<number, { status?: number; delayMs?: number; message?: string }>;
  beforeAll(async () => {
    faults = new Map();
    server = await serveFetchHandler(createNgramHandler(lm, { model: 'ngram-books', apiKey: 'sk-test-123' }), (n) =>
      faults.get(n),
    );
  });
  afterAll(() => server.close());
  const model = (o: Partial<Parameters<typeof createOpenAICompatibleModel>[0]> = {}) =>
    createOpenAICompatibleModel({
      baseUrl: `${server.url}/v1`,
      apiKey: 'sk-test-123',
      model: 'ngram-books',
      sleep: noSleep,
      ...o,
    });

  it('the completions endpoint follows the legacy schema (echo + logprobs)', async () => {
    const prompt = 'Committee approval of the act seemed certain,';
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test-123', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ngram-books', prompt, max_tokens: 2, temperature: 0, echo: true, logprobs: 3 }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.object).toBe('text_completion');
    const c = body.choices[0];
    expect(c.text.startsWith(prompt)).toBe(true);
    const lp = c.logprobs;
    expect(lp.tokens.length).toBe(7 + 2);
    expect(lp.tokens.slice(0, 7).join('')).toBe(prompt); // prompt tokens concatenate to the prompt
    expect(lp.token_logprobs[0]).toBeNull();
    expect(lp.top_logprobs[0]).toBeNull();
    expect(Object.keys(lp.top_logprobs[3])).toHaveLength(3);
    for (let i = 1; i < lp.text_offset.length; i++) expect(lp.text_offset[i]).toBeGreaterThan(lp.text_offset[i - 1]);
    expect(c.text.slice(lp.text_offset[7])).toBe(lp.tokens.slice(7).join(''));
    expect(body.usage).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
  });

  it('logprobs(text) through echo equal the local model; top-k alternatives sorted', async () => {
    const m = model({ topLogprobs: 5 });
    expect(m.access).toBe('top_k');
    const text = docs[20].text.slice(0, 800);
    const remote = await m.logprobs!(text);
    const local = lm.score(text, { top: 5 });
    expect(remote.logprobs.length).toBe(local.logprobs.length - 1); // the first token has no context
    remote.logprobs.forEach((v, i) => {
      expect(v).toBeCloseTo(local.logprobs[i + 1], 9);
    });
    expect(remote.offsets![0]).toBe(local.ends[0]);
    remote.top!.forEach((alts, i) => {
      expect(alts.map((a) => a.token.trim())).toEqual(local.top![i + 1].map((t) => t.token));
      for (let j = 1; j < alts.length; j++) expect(alts[j].logprob).toBeLessThanOrEqual(alts[j - 1].logprob);
    });
    expect(model({ topLogprobs: 0 }).access).toBe('logprobs');
  });

  it('generation: completions and chat (generations only) equal the greedy continuation', async () => {
    const prompt = docs[5].text.slice(0, 300);
    const expected = lm.generateText(prompt, 20);
    expect(await model().generate(prompt, { maxTokens: 20, temperature: 0 })).toBe(expected);
    const chat = model({ api: 'chat' });
    expect(chat.access).toBe('generations_only');
    expect(chat.logprobs).toBeUndefined();
    expect(await chat.generate(prompt, { maxTokens: 20, temperature: 0 })).toBe(expected.trimStart());
  });

  it('500 → retry → success; 429 until the retries run out → UPSTREAM_ERROR', async () => {
    const before = server.requests();
    faults.set(before + 1, { status: 500 });
    faults.set(before + 2, { status: 503 });
    const out = await model({ maxRetries: 3 }).generate('sir walter', { maxTokens: 3, temperature: 0 });
    expect(out).toBe(lm.generateText('sir walter', 3));
    expect(server.requests() - before).toBe(3);

    const b2 = server.requests();
    for (let i = 1; i <= 3; i++) faults.set(b2 + i, { status: 429, message: 'Rate limit reached for requests' });
    const e = await rejection(model({ maxRetries: 2 }).generate('the', { maxTokens: 1, temperature: 0 }));
    expect(e.code).toBe('UPSTREAM_ERROR');
    // the endpoint's own message is shown (one line, capped, any API key blanked): a production endpoint's reason
    expect(e.message).toMatch(
      /status 429 \([^)]*, \d+ bytes\): "Rate limit reached for requests" \(after 3 attempts\)/,
    );
    // and the whole answer stays in the process, in the cause (the last attempt's error, then its answer)
    expect((e.cause as { cause?: { message?: string } }).cause?.message).toBe('Rate limit reached for requests');
    expect(server.requests() - b2).toBe(3);
  });

  it('a slow answer → UPSTREAM_TIMEOUT (not retried)', async () => {
    const before = server.requests();
    faults.set(before + 1, { delayMs: 1500 });
    const e = await rejection(model({ timeoutMs: 150 }).generate('the', { maxTokens: 1, temperature: 0 }));
    expect(e.code).toBe('UPSTREAM_TIMEOUT');
    expect(server.requests() - before).toBe(1);
  });

  it('a server dripping failing answers: one deadline for the whole call, retries and waits included', async () => {
    // each answer is a 503 whose body drips for ~150 ms: under a per-attempt timer the call would last
    // attempts × 150 ms; with one deadline it stops at timeoutMs (1,200 ms: room for several attempts even when a
    // loaded CI machine runs the drip's timers late; at 600 ms a first attempt once outlasted the whole deadline)
    let requests = 0;
    const drip = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      let sent = 0;
      const t = setInterval(() => {
        if (++sent === 6) {
          clearInterval(t);
          res.end('{}');
        } else res.write('  ');
      }, 25);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => drip.listen(0, '127.0.0.1', r));
    try {
      const port = (drip.address() as { port: number }).port;
      const m = createOpenAICompatibleModel({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'x',
        timeoutMs: 1200,
        maxRetries: 10,
        retryBaseMs: 0,
      });
      const e = await rejection(m.generate('x', { maxTokens: 1, temperature: 0 }));
      expect(e.code).toBe('UPSTREAM_TIMEOUT');
      expect(e.message).toMatch(/no complete answer within 1200 ms \(\d+ attempts\)/);
      expect(requests).toBeGreaterThan(1);
      expect(requests).toBeLessThan(11); // 11 = every retry run out, each under its own timer
    } finally {
      drip.closeAllConnections();
      await new Promise((r) => drip.close(r));
    }
  });

  it('401 → UPSTREAM_ERROR with the status and the endpoint message, at once, without the key', async () => {
    const before = server.requests();
    const e = await rejection(model({ apiKey: 'sk-wrong-key' }).logprobs!('some text here'));
    expect(e.code).toBe('UPSTREAM_ERROR');
    expect(e.message).toMatch(/status 401 \(application\/json, \d+ bytes\): "Incorrect API key provided\."/);
    expect((e.cause as { message?: string }).message).toBe('Incorrect API key provided.');
    expect(e.message).not.toContain('sk-wrong-key');
    expect(server.requests() - before).toBe(1);
    expect(server.authorizations.at(-1)).toBe('Bearer sk-wrong-key');
    // unknown model → 404 from the server, also not retried
    const e2 = await rejection(model({ model: 'gpt-nope' }).generate('x', { maxTokens: 1, temperature: 0 }));
    expect(e2.message).toMatch(/status 404 \(/);
    expect((e2.cause as { message?: string }).message).toMatch(/The model `gpt-nope` does not exist/);
  });

  it('a server that ignores echo is refused, not misread; a refused connection is retried then reported as unreachable', async () => {
    // like llama-server issue #27174: logprobs only for generated tokens
    const stub = await serveFetchHandler(
      async () =>
        new Response(
          JSON.stringify({
            choices: [
              {
                text: ' world',
                logprobs: {
                  tokens: [' world'],
                  token_logprobs: [-0.5],
                  top_logprobs: [{ ' world': -0.5 }],
                  text_offset: [0],
                },
              },
            ],
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    );
    try {
      const m = createOpenAICompatibleModel({ baseUrl: `${stub.url}/v1`, model: 'x' });
      const e = await rejection(m.logprobs!('hello there'));
      expect(e.code).toBe('UPSTREAM_ERROR');
      expect(e.message).toMatch(/echo was not honoured/);
    } finally {
      await stub.close();
    }
    const dead = await serveFetchHandler(async () => new Response('{}'));
    const url = dead.url;
    await dead.close();
    const before = { n: 0 };
    const m = createOpenAICompatibleModel({
      baseUrl: `${url}/v1`,
      model: 'x',
      maxRetries: 2,
      sleep: async () => {
        before.n++;
      },
    });
    const e = await rejection(m.generate('x', { maxTokens: 1, temperature: 0 }));
    // a closed port: UPSTREAM_UNREACHABLE naming the URL, never the socket's text (which ports and hosts exist)
    expect(e.code).toBe('UPSTREAM_UNREACHABLE');
    expect(e.message).toContain(`${url}/v1/completions: could not connect to the model service (after 3 attempts)`);
    expect(e.message).not.toMatch(/ECONN|fetch failed|network error/);
    expect(before.n).toBe(2);
  });

  it('option and argument checks', async () => {
    expect(() => createOpenAICompatibleModel({ baseUrl: 'not a url', model: 'x' })).toThrow(/baseUrl/);
    expect(() => createOpenAICompatibleModel({ baseUrl: 'ftp://x/v1', model: 'x' })).toThrow(/http/);
    expect(() => createOpenAICompatibleModel({ baseUrl: 'http://x/v1', model: '' })).toThrow(/model/);
    expect(() => createOpenAICompatibleModel({ baseUrl: 'http://x/v1', model: 'x', topLogprobs: -1 })).toThrow(
      /topLogprobs/,
    );
    await expect(model().generate('x', { maxTokens: 1, temperature: 0.7 as 0 })).rejects.toThrow(/temperature/);
  });
});
