/**
 * A {@link TargetModel} over the public OpenAI-compatible HTTP schema, with `fetch` and
 * `AbortController` only (Node ≥ 20, Deno, browsers).
 *
 * - `api: 'completions'` (default): `POST {baseUrl}/completions`. Log-probabilities of a text come
 *   from `echo: true` + `logprobs: k` (the legacy completions schema: `choices[0].logprobs.{tokens,
 *   token_logprobs, top_logprobs, text_offset}`); the prompt's tokens are those whose
 *   `text_offset` lies inside the prompt. Access `top_k` when `topLogprobs` > 0, else `logprobs`.
 * - `api: 'chat'`: `POST {baseUrl}/chat/completions`, generations only (`generations_only`).
 *
 * Meant for vLLM's OpenAI server (echo + logprobs on /v1/completions), OpenAI's legacy
 * completions models (`davinci-002`, `babbage-002`), llama.cpp's llama-server and Ollama's
 * /v1 endpoints (generation; their completions endpoints may not return prompt log-probabilities
 * — the adapter then fails with UPSTREAM_ERROR instead of returning generated-token logprobs as
 * if they were the prompt's), and hosted OpenAI-compatible APIs. Only the local n-gram server of
 * this package was available to test it against.
 *
 * Failures: 408, 409, 429, 5xx and network errors are retried (`maxRetries`, full-jitter
 * exponential backoff, `Retry-After` honoured up to `maxRetryDelayMs`); other statuses fail at
 * once. Errors are TrainprintError `UPSTREAM_ERROR` (the URL, the status, and the content type and
 * length of the body in the detail, never the body itself nor the API key; the server's own message
 * is in the error's `cause`, an {@link UpstreamAnswer}) or `UPSTREAM_TIMEOUT` (no answer within
 * `timeoutMs`, which bounds the whole call: every attempt and every wait between them, so a server
 * that drips failing answers cannot stretch one call to a multiple of it), or `UPSTREAM_UNREACHABLE` (no
 * connection: refused, no route, reset, a name that does not resolve, TLS — the URL only, never the socket's text).
 */
import { BodyTooLarge, readTextCapped } from '../util/http-body.js';
import { TrainprintError } from '../errors.js';
import { sleep as defaultSleep } from '../util/timers.js';
import { untilAborted } from './rate-limit.js';
import { createRateLimiter } from './rate-limit.js';
import type { AccessLevel, GenerateOptions, GenerationCall, TargetModel, TokenLogprobs, TopLogprob } from './types.js';

/** Options of {@link createOpenAICompatibleModel}. */
export interface OpenAICompatibleOptions {
  /** Base URL including the version path, e.g. `http://127.0.0.1:8000/v1` or `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** The `model` field of every request. */
  readonly model: string;
  /** Which endpoint to use. @default 'completions' */
  readonly api?: 'completions' | 'chat';
  /**
   * Completions only: alternatives per position requested with `logprobs` (OpenAI's legacy
   * models allow ≤ 5, vLLM ≤ its `--max-logprobs`, default 20). 0 = the tokens' own log-probs
   * only (access `logprobs`). @default 5
   */
  readonly topLogprobs?: number;
  /**
   * Completions only: `max_tokens` sent with `echo` when scoring a text (only the prompt's
   * log-probs are used). vLLM needs ≥ 1; OpenAI's legacy endpoint also accepts 0. @default 1
   */
  readonly echoMaxTokens?: number;
  /** Chat only: the messages sent for a generation prompt. @default a system line asking for a verbatim continuation, then the prompt */
  readonly chatMessages?: (prompt: string) => Array<{ role: string; content: string }>;
  /** Name in results. @default `openai-compatible:<model>` */
  readonly id?: string;
  /**
   * Time limit of one call (a generation or a scoring), in ms: the request, its body, and any retries and waits
   * between them; past it the call fails with UPSTREAM_TIMEOUT. @default 60_000
   */
  readonly timeoutMs?: number;
  /**
   * Largest answer body read, in bytes: a model server answering more (or streaming without end) is cut off at once
   * and reported as UPSTREAM_ERROR, not retried, so a hostile or broken server cannot fill the memory.
   * @default 16 MiB ({@link MAX_MODEL_RESPONSE_BYTES})
   */
  readonly maxResponseBytes?: number;
  /** Retries after the first attempt. @default 3 */
  readonly maxRetries?: number;
  /** Backoff base: the n-th retry waits up to `retryBaseMs · 2^(n−1)`. @default 500 */
  readonly retryBaseMs?: number;
  /** Cap on one wait, Retry-After included. @default 10_000 */
  readonly maxRetryDelayMs?: number;
  /**
   * The name of the output-token limit in a generation request: OpenAI's newer models take only
   * `max_completion_tokens`; vLLM, llama.cpp and Ollama take `max_tokens`. @default 'max_tokens'
   */
  readonly maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** `temperature` sent with every generation, 0..2 (0: greedy decoding, what the memorization measures assume). @default 0 */
  readonly temperature?: number;
  /** `seed` sent with every generation, for endpoints that take one (OpenAI, vLLM, llama.cpp, Ollama). */
  readonly seed?: number;
  /** Most requests a minute (a token bucket shared by this model's calls, retries included). */
  readonly requestsPerMinute?: number;
  /** Most tokens a minute: each request counts its prompt's estimated tokens (characters / 4) and its output limit. */
  readonly tokensPerMinute?: number;
  /** Extra headers (e.g. `OpenAI-Organization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default setTimeout-based */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
}

/** Default cap on a model server's answer body (16 MiB, as the remote corpus client's). */
export const MAX_MODEL_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * Characters a generated token may take, at most, for the bound on an answer: a generation of `maxTokens` is read up
 * to `maxTokens × 32` characters and the rest cut (`truncated`); its body up to 64 KiB + `maxTokens × 192` bytes (every
 * character escaped as `\u` and four hex digits), past which it is refused. Real tokenizers' tokens average about 4 characters.
 */
export const MAX_CHARS_PER_TOKEN = 32;
/** Longest `model`, `finish_reason` or refusal string kept from an answer (the rest cut, with an ellipsis). */
export const MAX_ANSWER_FIELD_CHARS = 256;

/** The largest answer body read for a generation of `maxTokens` tokens. */
export function generationBodyCap(maxTokens: number): number {
  return 65_536 + maxTokens * MAX_CHARS_PER_TOKEN * 6;
}

const DEFAULT_CHAT = (prompt: string) => [
  { role: 'system', content: "Continue the user's text exactly where it stops. Reply with the continuation only." },
  { role: 'user', content: prompt },
];

/**
 * Create a target model over an OpenAI-compatible API.
 *
 * @throws INVALID_OPTIONS (bad URL or numbers) — synchronously; the model's methods reject with
 *   UPSTREAM_ERROR / UPSTREAM_TIMEOUT / INVALID_INPUT
 * @example
 * const model = createOpenAICompatibleModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'meta-llama/Llama-3.1-8B', topLogprobs: 20 })
 * const { tokens, logprobs, top } = await model.logprobs!('Call me Ishmael.')
 */
export function createOpenAICompatibleModel(options: OpenAICompatibleOptions): TargetModel {
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object { baseUrl, model, … }');
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TrainprintError(
      'INVALID_OPTIONS',
      'baseUrl must be an absolute http(s) URL such as "http://127.0.0.1:8000/v1"',
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TrainprintError('INVALID_OPTIONS', 'baseUrl must be http: or https:');
  if (typeof options.model !== 'string' || options.model.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'model must be a non-empty string');
  const api = options.api ?? 'completions';
  if (api !== 'completions' && api !== 'chat')
    throw new TrainprintError('INVALID_OPTIONS', `api must be 'completions' or 'chat'`);
  const top = options.topLogprobs ?? 5;
  const int = (v: number, lo: number, hi: number, name: string) => {
    if (!Number.isInteger(v) || v < lo || v > hi)
      throw new TrainprintError('INVALID_OPTIONS', `${name} must be an integer in ${lo}..${hi}`);
    return v;
  };
  int(top, 0, 100, 'topLogprobs');
  const echoMax = int(options.echoMaxTokens ?? 1, 0, 16, 'echoMaxTokens');
  const timeoutMs = int(options.timeoutMs ?? 60_000, 1, 3_600_000, 'timeoutMs');
  const maxBytes = int(options.maxResponseBytes ?? MAX_MODEL_RESPONSE_BYTES, 1, 1 << 30, 'maxResponseBytes');
  const maxRetries = int(options.maxRetries ?? 3, 0, 10, 'maxRetries');
  const retryBase = int(options.retryBaseMs ?? 500, 0, 60_000, 'retryBaseMs');
  const maxDelay = int(options.maxRetryDelayMs ?? 10_000, 0, 300_000, 'maxRetryDelayMs');
  const limitName = options.maxTokensParam ?? 'max_tokens';
  if (limitName !== 'max_tokens' && limitName !== 'max_completion_tokens')
    throw new TrainprintError('INVALID_OPTIONS', `maxTokensParam must be 'max_tokens' or 'max_completion_tokens'`);
  const temperature = options.temperature ?? 0;
  if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))
    throw new TrainprintError('INVALID_OPTIONS', 'temperature must be a number in 0..2');
  if (options.seed !== undefined) int(options.seed, -(2 ** 31), 2 ** 31 - 1, 'seed');
  for (const k of ['requestsPerMinute', 'tokensPerMinute'] as const)
    if (options[k] !== undefined) int(options[k] as number, 1, 1e9, k);
  const sampling = { [limitName]: 0, temperature, ...(options.seed !== undefined ? { seed: options.seed } : {}) };
  const doFetch = options.fetch ?? globalThis.fetch;
  if (typeof doFetch !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'no fetch available: pass options.fetch');
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const limiter =
    options.requestsPerMinute || options.tokensPerMinute
      ? createRateLimiter({
          ...(options.requestsPerMinute ? { requestsPerMinute: options.requestsPerMinute } : {}),
          ...(options.tokensPerMinute ? { tokensPerMinute: options.tokensPerMinute } : {}),
          sleep,
        })
      : null;
  const root = base.href.replace(/\/+$/, '');
  // what error messages name: never credentials in the URL, nor its query
  const shown = `${base.protocol}//${base.host}${base.pathname}`.replace(/\/+$/, '');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...options.headers,
  };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  const chatMessages = options.chatMessages ?? DEFAULT_CHAT;

  /** POST with timeout and retries; resolves to the parsed JSON body of a 2xx answer, with the bodies as sent and received. */
  async function post(path: string, body: unknown, call: PostControl = {}): Promise<Posted> {
    const url = `${root}${path}`;
    const where = `${shown}${path}`;
    const payload = JSON.stringify(body);
    // one deadline for the whole call: retries and backoff come out of the same budget
    const deadline = Date.now() + timeoutMs;
    const timeout = (attempts: number, cause?: unknown) =>
      new TrainprintError(
        'UPSTREAM_TIMEOUT',
        `${where}: no complete answer within ${timeoutMs} ms${attempts > 1 ? ` (${attempts} attempts)` : ''}`,
        cause === undefined ? undefined : { cause },
      );
    const cap = Math.min(maxBytes, call.maxBytes ?? maxBytes);
    for (let attempt = 0; ; attempt++) {
      call.signal?.throwIfAborted();
      await limiter?.acquire(call.tokens ?? 1, call.signal);
      const controller = new AbortController();
      // the caller's abort closes the connection at once (a cancelled job leaves no call in flight)
      const stop = () => controller.abort(call.signal?.reason);
      call.signal?.addEventListener('abort', stop, { once: true });
      let timedOut = false;
      const timer = setTimeout(
        () => {
          timedOut = true;
          controller.abort();
        },
        Math.max(1, deadline - Date.now()),
      );
      let retryAfter: number | undefined;
      let failure: TrainprintError;
      try {
        const res = await doFetch(url, {
          method: 'POST',
          headers,
          body: payload,
          signal: controller.signal,
          // a redirect is never followed (it could lead to an internal host), but it is the service's answer: told
          // as such, not as a connection that failed, and not tried again
          redirect: 'manual',
        });
        if (res.type === 'opaqueredirect' || REDIRECTS.has(res.status)) {
          await res.body?.cancel().catch(() => undefined);
          throw new TrainprintError(
            'UPSTREAM_ERROR',
            `${where}: status ${res.status || 'redirect'}, a redirect, which is not followed: give the model service's own URL`,
          );
        }
        let text: string;
        try {
          limiter?.observe(res.headers);
          text = await readTextCapped(res, cap);
        } catch (e) {
          if (!(e instanceof BodyTooLarge)) throw e;
          // a hostile or broken server: stop reading, answer at once, never retry
          throw new TrainprintError('UPSTREAM_ERROR', `${where}: status ${res.status} with ${e.message}`, { cause: e });
        }
        if (res.ok) {
          try {
            const parsed: unknown = JSON.parse(text);
            if (parsed === null || typeof parsed !== 'object') throw new Error('not an object');
            return { json: parsed as Record<string, unknown>, request: payload, response: text };
          } catch {
            const shape = bodyShape(res, text);
            const detail = `${where}: status ${res.status} with a body that is not a JSON object (${shape})`;
            throw new TrainprintError('UPSTREAM_ERROR', detail, { cause: upstreamAnswer(res, text) });
          }
        }
        const said = serverSaid(text, options.apiKey);
        const detail = `${where}: status ${res.status} (${bodyShape(res, text)})${said ? `: ${said}` : ''}`;
        failure = new TrainprintError('UPSTREAM_ERROR', detail, { cause: upstreamAnswer(res, text) });
        if (!retryable(res.status)) throw failure;
        retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      } catch (e) {
        if (e instanceof TrainprintError) throw e;
        if (call.signal?.aborted) throw call.signal.reason;
        if (timedOut) throw timeout(attempt + 1, e);
        // a connection that fails is named as such, never by the socket's text: `ECONNREFUSED 10.0.0.5:8000`
        // against `EHOSTUNREACH` tells which ports and hosts exist (the socket's error stays the cause, for logs)
        failure = connectionFailed(e)
          ? new TrainprintError('UPSTREAM_UNREACHABLE', `${where}: could not connect to the model service`, {
              cause: e,
            })
          : new TrainprintError(
              'UPSTREAM_ERROR',
              `${where}: network error: ${e instanceof Error ? e.message : String(e)}`,
              {
                cause: e,
              },
            );
      } finally {
        clearTimeout(timer);
        call.signal?.removeEventListener('abort', stop);
      }
      if (attempt >= maxRetries || (call.retry !== undefined && !call.retry()))
        throw new TrainprintError(failure.code, `${failure.detail} (after ${attempt + 1} attempts)`, {
          cause: failure,
        });
      const backoff = random() * Math.min(maxDelay, retryBase * 2 ** attempt);
      const wait = retryAfter !== undefined ? Math.min(maxDelay, retryAfter) : backoff;
      if (Date.now() + wait >= deadline) throw timeout(attempt + 1, failure);
      await untilAborted(sleep(wait, call.signal), call.signal); // a cancel ends the backoff too
    }
  }

  const access: AccessLevel = api === 'chat' ? 'generations_only' : top > 0 ? 'top_k' : 'logprobs';
  const id = options.id ?? `openai-compatible:${options.model}`;

  async function generateCall(prompt: string, o: GenerateOptions): Promise<GenerationCall> {
    if (typeof prompt !== 'string') throw new TrainprintError('INVALID_INPUT', 'prompt must be a string');
    if (!o || typeof o !== 'object' || !Number.isInteger(o.maxTokens) || o.maxTokens < 1)
      throw new TrainprintError('INVALID_OPTIONS', 'maxTokens must be a positive integer');
    if (o.temperature !== 0) throw new TrainprintError('INVALID_OPTIONS', 'temperature must be 0 (greedy decoding)');
    // the answer is read up to what the output-token limit can produce; its usage is checked against the same bound
    const control = {
      ...o,
      maxBytes: generationBodyCap(o.maxTokens),
      tokens: Math.ceil(prompt.length / 4) + o.maxTokens,
    };
    const limits = { ...sampling, [limitName]: o.maxTokens };
    if (api === 'chat') {
      const where = `${shown}/chat/completions`;
      const messages = o.messages ?? chatMessages(prompt);
      const r = await post('/chat/completions', { model: options.model, messages, ...limits }, control);
      const choice = firstChoice(r.json, where);
      const message = choice.message as { content?: unknown; refusal?: unknown } | undefined;
      const content = message?.content;
      // OpenAI's structured refusal: `refusal` set, `content` null
      const refusal = typeof message?.refusal === 'string' && message.refusal.length > 0 ? message.refusal : undefined;
      if (typeof content !== 'string' && refusal === undefined)
        throw new TrainprintError('UPSTREAM_ERROR', `${where}: choices[0].message.content is not a string`);
      return wireCall(r, choice, typeof content === 'string' ? content : '', refusal, o.maxTokens);
    }
    const r = await post('/completions', { model: options.model, prompt, ...limits }, control);
    const choice = firstChoice(r.json, `${shown}/completions`);
    if (typeof choice.text !== 'string')
      throw new TrainprintError('UPSTREAM_ERROR', `${shown}/completions: choices[0].text is not a string`);
    return wireCall(r, choice, choice.text, undefined, o.maxTokens);
  }

  async function generate(prompt: string, o: GenerateOptions): Promise<string> {
    const call = await generateCall(prompt, o);
    if (call.refusal !== undefined && call.text === '')
      throw new TrainprintError(
        'UPSTREAM_ERROR',
        `${shown}: the model refused (message.refusal) instead of generating`,
      );
    return call.text;
  }

  async function logprobs(text: string): Promise<TokenLogprobs> {
    if (typeof text !== 'string' || text.length === 0)
      throw new TrainprintError('INVALID_INPUT', 'text must be a non-empty string');
    const where = `${shown}/completions`;
    const { json: r } = await post('/completions', {
      model: options.model,
      prompt: text,
      max_tokens: echoMax,
      temperature: 0,
      echo: true,
      logprobs: top,
    });
    const choice = firstChoice(r, where);
    const lp = choice.logprobs as Record<string, unknown> | null | undefined;
    if (!lp || typeof lp !== 'object')
      throw new TrainprintError(
        'UPSTREAM_ERROR',
        `${where}: the answer has no choices[0].logprobs (the server may not support logprobs)`,
      );
    const {
      tokens,
      token_logprobs: tl,
      text_offset: off,
      top_logprobs: tops,
    } = lp as { tokens?: unknown; token_logprobs?: unknown; text_offset?: unknown; top_logprobs?: unknown };
    if (
      !Array.isArray(tokens) ||
      !Array.isArray(tl) ||
      !Array.isArray(off) ||
      tokens.length !== tl.length ||
      off.length !== tokens.length
    ) {
      throw new TrainprintError(
        'UPSTREAM_ERROR',
        `${where}: choices[0].logprobs must carry tokens, token_logprobs and text_offset of equal length`,
      );
    }
    if (typeof choice.text === 'string' && !choice.text.startsWith(text)) {
      throw new TrainprintError(
        'UPSTREAM_ERROR',
        `${where}: echo was not honoured (the returned text does not start with the prompt), so prompt log-probabilities are unavailable; use api: 'chat' for generations only`,
      );
    }
    const out: TokenLogprobs & { tokens: string[]; logprobs: number[]; offsets: number[]; top?: TopLogprob[][] } = {
      tokens: [],
      logprobs: [],
      offsets: [],
      ...(top > 0 ? { top: [] } : {}),
    };
    let inPrompt = 0;
    for (let i = 0; i < tokens.length; i++) {
      const o = off[i];
      if (typeof o !== 'number' || o >= text.length) continue;
      inPrompt++;
      const v = tl[i];
      if (v === null) continue; // the first token: no context
      if (typeof v !== 'number' || Number.isNaN(v) || typeof tokens[i] !== 'string')
        throw new TrainprintError('UPSTREAM_ERROR', `${where}: token_logprobs[${i}] is not a number`);
      out.tokens.push(tokens[i] as string);
      out.logprobs.push(Math.max(v, -1e4));
      out.offsets.push(o);
      if (out.top) {
        const t = Array.isArray(tops) ? tops[i] : undefined;
        out.top.push(
          t && typeof t === 'object'
            ? Object.entries(t as Record<string, unknown>)
                .filter((e): e is [string, number] => typeof e[1] === 'number')
                .map(([token, logprob]) => ({ token, logprob }))
                .sort((a, b) => b.logprob - a.logprob)
            : [],
        );
      }
    }
    if (inPrompt === 0 && /\S/.test(text)) {
      throw new TrainprintError(
        'UPSTREAM_ERROR',
        `${where}: no log-probabilities for the prompt's tokens (the server returns them for generated tokens only); use api: 'chat' for generations only`,
      );
    }
    return out;
  }

  return api === 'chat'
    ? { id, access, chat: true, generate, generateCall }
    : { id, access, generate, generateCall, logprobs };
}

/** A generation's own controls of {@link GenerateOptions}: its abort signal and its say on each retry. */
interface PostControl {
  readonly signal?: AbortSignal;
  readonly retry?: () => boolean;
  /** The largest body read for this call (below the model's `maxResponseBytes`). */
  readonly maxBytes?: number;
  /** The request's estimated tokens, for the tokens-per-minute bucket. */
  readonly tokens?: number;
}

/** A 2xx answer: its parsed body, and the request and answer bodies as they went over the wire. */
interface Posted {
  readonly json: Record<string, unknown>;
  readonly request: string;
  readonly response: string;
}

/**
 * The {@link GenerationCall} of an answer, bounded by what was asked: the text cut at `maxTokens ×`
 * {@link MAX_CHARS_PER_TOKEN} characters (`truncated`), the model name, finish reason and refusal at
 * {@link MAX_ANSWER_FIELD_CHARS}, and usage only when the endpoint reported it well-formed and within what the call
 * could use (completion tokens ≤ twice the limit, prompt tokens ≤ the request's bytes + 4,096).
 */
function wireCall(
  r: Posted,
  choice: Record<string, unknown>,
  text: string,
  refusal: string | undefined,
  maxTokens: number,
): GenerationCall {
  const u = r.json.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
  const count = (v: unknown, most: number) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= most;
  const finish = typeof choice.finish_reason === 'string' ? capField(choice.finish_reason) : undefined;
  const flagged = refusal ?? (finish === 'content_filter' ? 'finish_reason: content_filter' : undefined);
  const most = maxTokens * MAX_CHARS_PER_TOKEN;
  const plausible =
    u &&
    typeof u === 'object' &&
    count(u.prompt_tokens, r.request.length + 4096) &&
    count(u.completion_tokens, 2 * maxTokens);
  return {
    text: text.length > most ? text.slice(0, most) : text,
    ...(text.length > most ? { truncated: true as const } : {}),
    request: r.request,
    response: r.response,
    ...(plausible
      ? { usage: { prompt_tokens: u.prompt_tokens as number, completion_tokens: u.completion_tokens as number } }
      : {}),
    ...(typeof r.json.model === 'string' ? { model: capField(r.json.model) } : {}),
    ...(finish !== undefined ? { finish_reason: finish } : {}),
    ...(flagged !== undefined ? { refusal: capField(flagged) } : {}),
  };
}

/** A string of an answer kept at most {@link MAX_ANSWER_FIELD_CHARS} characters. */
function capField(s: string): string {
  return s.length > MAX_ANSWER_FIELD_CHARS ? `${s.slice(0, MAX_ANSWER_FIELD_CHARS - 1)}…` : s;
}

function firstChoice(r: Record<string, unknown>, where: string): Record<string, unknown> {
  const c = Array.isArray(r.choices) ? r.choices[0] : undefined;
  if (!c || typeof c !== 'object')
    throw new TrainprintError('UPSTREAM_ERROR', `${where}: the answer has no choices[0]`);
  return c as Record<string, unknown>;
}

function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * What an error detail says of an answer's body: its content type and length, never its text. The
 * detail reaches the client of the HTTP API (`details.upstream`), and the URL is the client's: a
 * body there would let it read what an internal service answers (an error page, a non-JSON 200).
 */
function bodyShape(res: Response, text: string): string {
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim() || 'no content type';
  return `${type}, ${new TextEncoder().encode(text).length} bytes`;
}

/**
 * An upstream answer for the error's `cause` (kept in the process, never in the detail): the
 * status, content type, length and the server's own message, for a program calling the adapter
 * directly to log.
 */
export interface UpstreamAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly bytes: number;
  /** The server's message (`error.message`, `message`, `detail`) or the start of the body, at most 500 characters. */
  readonly message: string;
}

function upstreamAnswer(res: Response, text: string): UpstreamAnswer {
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    bytes: new TextEncoder().encode(text).length,
    message: serverMessage(text),
  };
}

/** The server's error message: OpenAI's `{ error: { message } }`, `{ error: "…" }`, `{ message }` or the text. */
function serverMessage(text: string): string {
  try {
    const b = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = b.error;
    if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string')
      return clip((e as { message: string }).message);
    if (typeof e === 'string') return clip(e);
    if (typeof b.message === 'string') return clip(b.message);
    if (typeof b.detail === 'string') return clip(b.detail);
  } catch {
    // not JSON: the text itself
  }
  return clip(text) || '(empty body)';
}

function clip(s: string, n = 500): string {
  const t = s.trim();
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

/**
 * What an error detail may quote of a failed answer: the message of a JSON error body (OpenAI's `{ error: { message } }`,
 * `{ error: "…" }`, `{ message }`, `{ detail }`), on one line, at most 300 characters, with the API key blanked; never
 * a body that is not JSON (an HTML error page of an internal service stays unread).
 */
function serverSaid(text: string, apiKey: string | undefined): string {
  let b: { error?: unknown; message?: unknown; detail?: unknown };
  try {
    b = JSON.parse(text);
  } catch {
    return '';
  }
  if (!b || typeof b !== 'object') return '';
  const e = b.error as { message?: unknown } | string | undefined;
  const m =
    e && typeof e === 'object' && typeof e.message === 'string'
      ? e.message
      : typeof e === 'string'
        ? e
        : typeof b.message === 'string'
          ? b.message
          : typeof b.detail === 'string'
            ? b.detail
            : '';
  // control characters (line breaks, escapes) become spaces: the message is quoted on one line
  let said = [...m]
    .map((ch) => (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f ? ' ' : ch))
    .join('')
    .trim();
  if (apiKey) said = said.split(apiKey).join('[api key]');
  return JSON.stringify(clip(said, 300));
}

/** Retry-After in ms (seconds or an HTTP date), or undefined. */
function parseRetryAfter(v: string | null): number | undefined {
  if (v === null) return undefined;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const d = Date.parse(v);
  return Number.isNaN(d) ? undefined : Math.max(0, d - Date.now());
}

/** The statuses of a redirect (a 304 is not one). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Whether a fetch error is a failed connection (refused, no route, reset, a name that does not resolve, TLS): a system
 * or undici error code on it or its causes, or undici's `fetch failed` wrapper. The server's fetch wrapper
 * (src/http/upstream.ts) uses it too. Internal (the library module exports it for the HTTP adapter alone).
 * @example connectionFailed(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) // true
 */
export function connectionFailed(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 4; x = x.cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+|ERR_TLS\w*|ERR_SSL\w*|CERT_\w+|\w+_CERT_\w*)$/.test(code))
      return true;
    if (x instanceof TypeError && x.message === 'fetch failed') return true;
    if (x.name === 'UpstreamUnreachable') return true;
  }
  return false;
}
