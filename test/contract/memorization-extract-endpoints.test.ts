/**
 * extractWork against stubs that answer as OpenAI's, vLLM's, llama.cpp's and Ollama's OpenAI-compatible servers do
 * (their error bodies, usage fields, refusal fields, 429s), and against the hostile services of an attack round:
 * - errors: the endpoint's own message reaches the error and the result (never the key), a result after each;
 * - H2: an 8 MiB `model` name or answer is refused or cut, the result stays small;
 * - M2: every request, retries included, counts against budget_calls;
 * - L2: a refusal sentence before the verbatim continuation does not hide it;
 * - L3: an absurd `usage` is not summed;
 * - L5: a journal whose text was edited is refused on replay;
 * - the output-token limit's name, the seed and the temperature go out as asked; `x-ratelimit-*` holds the calls.
 */
import { describe, expect, it } from 'vitest';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import { memoryExtractionJournal } from '../../src/services/memorization/extraction-journal.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import { MemoryStore } from '../../src/store/memory.js';
import { syntheticWork } from '../fixtures/memorised-chat-server.js';

const store = new MemoryStore();
const { text, words } = syntheticWork(2, 600, 3);
const KEY = 'sk-secret-key-0123456789';

/** The work's next `k` words after a prompt whose last 8 words it holds, else a few unrelated words. */
function continuation(prompt: string, k = 120): string {
  const tail = prompt.split(/\s+/).filter(Boolean).slice(-8).join(' ');
  for (let i = 8; i < words.length; i++)
    if (words.slice(i - 8, i).join(' ') === tail) return words.slice(i, i + k).join(' ');
  return 'nothing of the kind';
}

type Answer = (body: Record<string, any>, n: number) => Response;
/** A fetch that answers each request with `answer(parsed body, request number)`, keeping the bodies. */
function stub(answer: Answer) {
  const bodies: Array<Record<string, any>> = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body));
    bodies.push(body);
    return answer(body, bodies.length);
  }) as typeof globalThis.fetch;
  return { fetch, bodies };
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const chatAnswer = (
  content: string | null,
  extra: Record<string, unknown> = {},
  message: Record<string, unknown> = {},
) =>
  json(200, {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content, ...message }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 80, completion_tokens: 100, total_tokens: 180 },
    ...extra,
  });
const lastPrompt = (b: Record<string, any>) => b.messages.at(-1).content as string;
const model = (fetch: typeof globalThis.fetch, more: Record<string, unknown> = {}) =>
  createOpenAICompatibleModel({
    baseUrl: 'https://models.example.org/v1',
    model: 'm',
    api: 'chat',
    apiKey: KEY,
    fetch,
    retryBaseMs: 0,
    sleep: async () => {},
    ...more,
  });

// the error bodies the four servers answer (as they document or answer them)
const ERRORS = {
  openai: {
    404: {
      error: {
        message: 'The model `m` does not exist or you do not have access to it.',
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    },
    400: {
      error: {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: 'unsupported_parameter',
      },
    },
    401: {
      error: {
        message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    },
    429: {
      error: {
        message:
          'Rate limit reached for m in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
    500: {
      error: {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        param: null,
        code: null,
      },
    },
  },
  vllm: {
    404: { object: 'error', message: 'The model `m` does not exist.', type: 'NotFoundError', param: null, code: 404 },
    400: {
      object: 'error',
      message: "This model's maximum context length is 4096 tokens.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
    401: { error: 'Unauthorized' },
    429: { object: 'error', message: 'Too many requests', type: 'TooManyRequests', param: null, code: 429 },
    500: { object: 'error', message: 'Internal server error', type: 'InternalServerError', param: null, code: 500 },
  },
  'llama.cpp': {
    404: { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } },
    400: {
      error: {
        code: 400,
        message: 'the request exceeds the available context size',
        type: 'exceed_context_size_error',
      },
    },
    401: { error: { code: 401, message: 'Invalid API Key', type: 'authentication_error' } },
    429: { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } },
    500: { error: { code: 500, message: 'slot unavailable', type: 'server_error' } },
  },
  ollama: {
    404: {
      error: { message: 'model "m" not found, try pulling it first', type: 'api_error', param: null, code: null },
    },
    400: { error: { message: 'invalid max_tokens', type: 'invalid_request_error', param: null, code: null } },
    401: { error: { message: 'unauthorized', type: 'api_error', param: null, code: null } },
    429: {
      error: {
        message: 'server busy, please try again.  maximum pending requests exceeded',
        type: 'api_error',
        param: null,
        code: null,
      },
    },
    500: {
      error: {
        message: 'llama runner process has terminated: exit status 2',
        type: 'api_error',
        param: null,
        code: null,
      },
    },
  },
} as const;

describe('errors of the four servers: the message reaches the result, never the key', () => {
  for (const [server, table] of Object.entries(ERRORS))
    for (const [status, body] of Object.entries(table))
      it(`${server} ${status}`, async () => {
        const s = stub(() => json(Number(status), body));
        const r = await runWorkExtraction(store, { text, model: model(s.fetch, { maxRetries: 1 }), budget_calls: 20 });
        expect(r.stopped).toBe('upstream_errors');
        expect(r.failed_calls).toBe(3);
        const message = r.error?.message ?? '';
        expect(message).toContain(`status ${status}`);
        const said =
          typeof (body as any).error === 'string'
            ? (body as any).error
            : ((body as any).error?.message ?? (body as any).message);
        expect(message).toContain(JSON.stringify(said.replace(KEY, '[api key]')).slice(1, 40));
        expect(JSON.stringify(r)).not.toContain(KEY);
        // every request counted against the budget: retries of 429 and 5xx included
        expect(s.bodies.length).toBeLessThanOrEqual(20);
      });
});

describe('a model service that cannot be reached', () => {
  it('is UPSTREAM_UNREACHABLE naming the URL, never the socket error, in the call and in the result', async () => {
    const details: string[] = [];
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', 'UND_ERR_SOCKET']) {
      const refused = (async () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error(`connect ${code} 10.9.8.7:8000`), { code }),
        });
      }) as typeof globalThis.fetch;
      const e = await model(refused, { maxRetries: 1 })
        .generate('x', { maxTokens: 16, temperature: 0 })
        .then(
          () => null,
          (x: unknown) => x as { code: string; detail: string },
        );
      expect(e?.code).toBe('UPSTREAM_UNREACHABLE');
      expect(e?.detail).toBe(
        'https://models.example.org/v1/chat/completions: could not connect to the model service (after 2 attempts)',
      );
      const r = await runWorkExtraction(store, { text, model: model(refused, { maxRetries: 0 }), budget_calls: 10 });
      expect(r.stopped).toBe('upstream_errors');
      expect(r.error?.code).toBe('UPSTREAM_UNREACHABLE');
      expect(r.record.calls.map((c) => c.error)).toEqual(Array(3).fill('UPSTREAM_UNREACHABLE'));
      expect(JSON.stringify(r)).not.toMatch(new RegExp(`${code}|10\\.9\\.8\\.7|fetch failed`));
      details.push(r.error?.message ?? '');
    }
    expect(new Set(details).size).toBe(1); // one answer whatever the socket said
  });

  it('an answer that is not a connection failure stays UPSTREAM_ERROR', async () => {
    const broken = (async () => {
      throw new Error('unexpected end of stream');
    }) as typeof globalThis.fetch;
    const e = await model(broken, { maxRetries: 0 })
      .generate('x', { maxTokens: 16, temperature: 0 })
      .catch((x: unknown) => x as { code: string; message: string });
    expect((e as { code: string }).code).toBe('UPSTREAM_ERROR');
  });
});

describe('what the servers answer when they answer', () => {
  it("OpenAI's structured refusal is counted, its completion_tokens_details ignored; llama.cpp's timings too", async () => {
    const s = stub((b, n) =>
      n % 2
        ? chatAnswer(
            null,
            { usage: { prompt_tokens: 9, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: 0 } } },
            { refusal: "I can't help with that." },
          )
        : chatAnswer(continuation(lastPrompt(b)), { timings: { predicted_ms: 12 } }),
    );
    const r = await runWorkExtraction(store, { text, model: model(s.fetch), budget_calls: 60 });
    expect(r.refusals).toBeGreaterThan(0);
    expect(r.usage?.calls_reporting).toBe(r.calls);
    expect(r.nv_recall).toBeGreaterThan(0);
  });

  it('sends max_completion_tokens, the seed and the temperature when asked', async () => {
    const s = stub((b) => chatAnswer(continuation(lastPrompt(b))));
    await runWorkExtraction(store, {
      text,
      model: model(s.fetch, { maxTokensParam: 'max_completion_tokens', seed: 7, temperature: 0 }),
      budget_calls: 3,
    });
    expect(s.bodies[0]).toMatchObject({ max_completion_tokens: 256, seed: 7, temperature: 0 });
    expect('max_tokens' in s.bodies[0]).toBe(false);
  });

  it('holds every call until x-ratelimit-reset-requests when none is left (and counts each 429 retry)', async () => {
    const waits: number[] = [];
    const s = stub((b, n) =>
      n === 1
        ? json(429, ERRORS.openai[429], { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' })
        : chatAnswer(continuation(lastPrompt(b))),
    );
    const r = await runWorkExtraction(store, {
      text,
      model: model(s.fetch, {
        requestsPerMinute: 600,
        sleep: async (ms: number) => {
          waits.push(ms);
        },
      }),
      budget_calls: 5,
      concurrency: 1,
    });
    expect(waits.some((w) => w >= 1000)).toBe(true);
    expect(s.bodies.length).toBeLessThanOrEqual(5);
    expect(r.record.calls[0].attempts).toBe(2);
  });
});

describe('a hostile model service is bounded by what was asked', () => {
  it('H2: an 8 MiB model name is cut to 256 characters in every call; the result stays small', async () => {
    const s = stub((b) => chatAnswer(continuation(lastPrompt(b), 40), { model: 'M'.repeat(8 << 20) }));
    const r = await runWorkExtraction(store, { text, model: model(s.fetch), budget_calls: 20 });
    // the body is over what 256 tokens can produce: refused, not read whole
    expect(r.stopped).toBe('upstream_errors');
    expect(r.error?.message).toMatch(/a body over \d+ bytes/);
    expect(JSON.stringify(r).length).toBeLessThan(1_000_000);
    const small = stub((b) => chatAnswer(continuation(lastPrompt(b), 40), { model: 'M'.repeat(4000) }));
    const ok = await runWorkExtraction(store, { text, model: model(small.fetch), budget_calls: 20 });
    expect(ok.record.calls.every((c) => (c.model ?? '').length <= 256)).toBe(true);
    expect(ok.reported_models.every((m) => m.length <= 256)).toBe(true);
  });

  it('H2: an answer longer than max_tokens can produce is cut and marked truncated; the journal keeps the cut text', async () => {
    const s = stub((b) => chatAnswer(`${continuation(lastPrompt(b), 40)} ${'zq '.repeat(6000)}`));
    const journal = memoryExtractionJournal();
    const r = await runWorkExtraction(store, {
      text,
      model: model(s.fetch),
      budget_calls: 10,
      max_tokens: 64,
      journal,
    });
    expect(r.record.calls.every((c) => c.truncated === true)).toBe(true);
    expect(JSON.stringify(r).length).toBeLessThan(200_000);
    const again = await runWorkExtraction(store, {
      text,
      model: model(s.fetch),
      budget_calls: 10,
      max_tokens: 64,
      journal,
    });
    expect(again.record.transcript_sha256).toBe(r.record.transcript_sha256);
  });

  it('M2: a service failing every other request with 502 receives no more requests than budget_calls', async () => {
    const s = stub((b, n) => (n % 2 ? chatAnswer(continuation(lastPrompt(b))) : json(502, {})));
    const r = await runWorkExtraction(store, { text, model: model(s.fetch), budget_calls: 10 });
    expect(s.bodies.length).toBeLessThanOrEqual(10);
    expect(r.calls).toBeLessThanOrEqual(10);
  });

  it('L2: "I\'m sorry, but I can\'t continue that text." before the verbatim continuation still measures it', async () => {
    const sorry = stub((b) =>
      chatAnswer(`I'm sorry, but I can't continue that text. ${continuation(lastPrompt(b), 300)}`),
    );
    const bare = stub((b) => chatAnswer(continuation(lastPrompt(b), 300)));
    const a = await runWorkExtraction(store, { text, model: model(sorry.fetch), budget_calls: 30 });
    const b = await runWorkExtraction(store, { text, model: model(bare.fetch), budget_calls: 30 });
    // the answers that continued the work are not refusals (those of prompts the stub could not continue are)
    expect(a.hits).toBe(b.hits);
    expect(a.nv_recall).toBeGreaterThan(0.5);
    expect(a.nv_recall).toBe(b.nv_recall);
  });

  it('L3: usage of 2^53 − 1 tokens a call is not summed', async () => {
    const huge = Number.MAX_SAFE_INTEGER;
    const s = stub((b) =>
      chatAnswer(continuation(lastPrompt(b)), { usage: { prompt_tokens: huge, completion_tokens: huge } }),
    );
    const r = await runWorkExtraction(store, {
      text,
      model: model(s.fetch),
      budget_calls: 10,
      prices: { prompt_per_million: 1, completion_per_million: 1 },
    });
    expect(r.usage).toBeNull();
    expect(r.cost?.amount).toBe(0);
  });

  it('L5: a journal whose text was edited to the true continuation is refused on replay', async () => {
    const echo = stub((b) => chatAnswer(lastPrompt(b).split(/\s+/).slice(-30).join(' ')));
    const journal = memoryExtractionJournal();
    const first = await runWorkExtraction(store, { text, model: model(echo.fetch), budget_calls: 10, journal });
    expect(first.nv_recall).toBe(0);
    const edited = memoryExtractionJournal();
    for (const c of first.record.calls) {
      const kept = await journal.get(c.key);
      await edited.put(c.key, {
        ...kept!,
        text: continuation(first.record.calls.length ? text.slice(0, c.position) : ''),
      });
    }
    await expect(
      runWorkExtraction(store, { text, model: model(echo.fetch), budget_calls: 10, journal: edited }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('not the text of its answer'),
    });
  });
});
