/**
 * What every OpenAI-compatible endpoint of the package checks before its model is asked anything (the n-gram LM's
 * and the byte-level GPT's servers): the key, the path and method, the body's size and JSON, the model name, and
 * the options neither supports (`stream`, `n` > 1); errors in OpenAI's envelope `{ error: { message, type, param,
 * code } }`.
 */

/**
 * `handler` answering browsers of `origin` (a web page calling the model directly, e.g. the web app in its
 * in-browser mode): the preflight `OPTIONS` gets 204 with the allowed methods and headers, every response
 * `Access-Control-Allow-Origin`. `'*'` allows any page, as vLLM's OpenAI server does by default; without this
 * wrapper browsers of other origins cannot read the answers.
 * @example serve(withCors(createByteGptHandler(model), 'http://127.0.0.1:3000'))
 */
export function withCors(
  handler: (request: Request) => Promise<Response>,
  origin: string,
): (request: Request) => Promise<Response> {
  const allow = (h: Headers) => {
    h.set('access-control-allow-origin', origin);
    if (origin !== '*') h.append('vary', 'Origin');
  };
  return async (request) => {
    if (request.method === 'OPTIONS') {
      const headers = new Headers({
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
      });
      allow(headers);
      return new Response(null, { status: 204, headers });
    }
    const response = await handler(request);
    const headers = new Headers(response.headers);
    allow(headers);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** A JSON response. */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** An error in OpenAI's envelope (type `invalid_request_error`). */
export function oaiError(
  status: number,
  message: string,
  code: string | null = null,
  param: string | null = null,
): Response {
  return json(status, { error: { message, type: 'invalid_request_error', param, code } });
}

/** What the server checks a request against. */
export interface WireOptions {
  /** The model name the endpoint reports and accepts. */
  readonly name: string;
  /** When set, requests need `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Largest body, in UTF-16 units. */
  readonly maxBody: number;
}

/**
 * The request's body when it is a completions or chat completions call that passed the common checks; otherwise
 * the response to send (an error, or the model list of `GET …/v1/models`).
 * @example
 * const r = await readCompletionsRequest(request, { name: 'ngram', maxBody: 1 << 20 })
 * if (r instanceof Response) return r
 */
async function readCompletionsRequest(
  request: Request,
  options: WireOptions,
): Promise<Response | { chat: boolean; body: Record<string, unknown> }> {
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/+$/, '');
  if (options.apiKey !== undefined && request.headers.get('authorization') !== `Bearer ${options.apiKey}`) {
    return oaiError(401, 'Incorrect API key provided.', 'invalid_api_key');
  }
  if (path.endsWith('/v1/models')) {
    if (request.method !== 'GET') return oaiError(405, `Method ${request.method} not allowed`);
    return json(200, {
      object: 'list',
      data: [{ id: options.name, object: 'model', created: 0, owned_by: 'trainprint' }],
    });
  }
  const chat = path.endsWith('/v1/chat/completions');
  if (!chat && !path.endsWith('/v1/completions')) return oaiError(404, `Unknown path ${url.pathname}`);
  if (request.method !== 'POST') return oaiError(405, `Method ${request.method} not allowed`);
  if (Number(request.headers.get('content-length') ?? 0) > 3 * options.maxBody)
    return oaiError(413, 'The request body is too large.');
  const raw = await request.text();
  if (raw.length > options.maxBody) return oaiError(413, 'The request body is too large.');
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    body = parsed as Record<string, unknown>;
  } catch {
    return oaiError(400, 'The request body is not a JSON object.');
  }
  if (body.model !== undefined && body.model !== options.name)
    return oaiError(404, `The model \`${String(body.model)}\` does not exist.`, 'model_not_found', 'model');
  if (body.stream === true) return oaiError(400, 'stream is not supported by this server.', null, 'stream');
  if (body.n !== undefined && body.n !== 1) return oaiError(400, 'n must be 1.', null, 'n');
  return { chat, body };
}

/**
 * The prompt of a chat completion (the last message's content), or the error response for bad `messages` or a
 * request for log-probabilities (these servers give them on `/v1/completions` only).
 * @example const prompt = chatPrompt(body); if (prompt instanceof Response) return prompt
 */
export function chatPrompt(body: Record<string, unknown>): string | Response {
  const messages = body.messages;
  if (
    !Array.isArray(messages) ||
    messages.length === 0 ||
    messages.some((m) => !m || typeof m !== 'object' || typeof (m as { content?: unknown }).content !== 'string')
  ) {
    return oaiError(400, 'messages must be a non-empty array of { role, content: string }.', null, 'messages');
  }
  if (body.logprobs !== undefined && body.logprobs !== false)
    return oaiError(
      400,
      'logprobs are not supported on chat completions by this server; use /v1/completions.',
      null,
      'logprobs',
    );
  return (messages[messages.length - 1] as { content: string }).content;
}

/** `max_tokens` (default 16, 0 allowed: with `echo` it scores the prompt only), or the error response. */
export function maxTokensOf(body: Record<string, unknown>, limit: number): number | Response {
  const mt = body.max_tokens ?? 16;
  if (typeof mt !== 'number' || !Number.isInteger(mt) || mt < 0 || mt > limit)
    return oaiError(400, `max_tokens must be an integer in 0..${limit}.`, null, 'max_tokens');
  return mt;
}

/** A legacy completion's `prompt`, `echo` and `logprobs` (null when not asked for), or the error response. */
export function completionOptions(
  body: Record<string, unknown>,
  maxLogprobs: number,
): { prompt: string; echo: boolean; logprobs: number | null } | Response {
  const prompt = body.prompt;
  if (typeof prompt !== 'string')
    return oaiError(
      400,
      'prompt must be a string (arrays and token ids are not supported by this server).',
      null,
      'prompt',
    );
  const echo = body.echo ?? false;
  if (typeof echo !== 'boolean') return oaiError(400, 'echo must be a boolean.', null, 'echo');
  const lp = body.logprobs ?? null;
  if (lp !== null && (typeof lp !== 'number' || !Number.isInteger(lp) || lp < 0 || lp > maxLogprobs))
    return oaiError(400, `logprobs must be an integer in 0..${maxLogprobs}.`, null, 'logprobs');
  return { prompt, echo, logprobs: lp as number | null };
}

/** What every answer of one request carries: its id (`cmpl-…`, `chatcmpl-…`), creation time and model name. */
interface AnswerHead {
  readonly chat: boolean;
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/** The head of the `n`-th answer of a server. */
function answerHead(chat: boolean, n: number, model: string): AnswerHead {
  return {
    chat,
    id: `${chat ? 'chatcmpl' : 'cmpl'}-${n.toString(16).padStart(8, '0')}`,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}

/**
 * A chat completion (`content` = the assistant message) or a legacy completion (`content` = the choice's text,
 * with its `logprobs`), usage counted in the server's own tokens; every answer stops at `max_tokens`.
 */
function completionAnswer(
  head: AnswerHead,
  content: string,
  logprobs: unknown,
  usage: { prompt: number; completion: number },
): Response {
  const { chat, ...fields } = head;
  return json(200, {
    ...fields,
    object: chat ? 'chat.completion' : 'text_completion',
    choices: [
      chat
        ? { index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'length' }
        : { text: content, index: 0, logprobs, finish_reason: 'length' },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  });
}

/** A request that passed the common checks, for the server's model to answer. */
export interface CompletionCall {
  /** A chat completion (`/v1/chat/completions`), else a legacy one. */
  readonly chat: boolean;
  readonly body: Record<string, unknown>;
  /**
   * Takes the call on once the model's own options are checked: numbers its answer (the server's n-th, which the
   * answer's id carries) and stamps its creation time. Returns n.
   */
  start(): number;
}

/** What the model answers a call with: the text, a legacy completion's `logprobs`, the usage in its own tokens. */
export interface CompletionContent {
  readonly content: string;
  readonly logprobs: unknown;
  readonly usage: { prompt: number; completion: number };
}

/**
 * A fetch handler serving a model with the OpenAI schemas: every request is read and checked
 * ({@link readCompletionsRequest}), then `answer` checks the model's own options, takes the call on
 * ({@link CompletionCall.start}) and answers it; its content goes out as a completion, an error as is.
 * @example
 * const handler = serveCompletions({ name: 'echo', maxBody: 1 << 20 }, async (call) => {
 *   call.start()
 *   return { content: 'hello', logprobs: null, usage: { prompt: 1, completion: 1 } }
 * })
 */
export function serveCompletions(
  options: WireOptions,
  answer: (call: CompletionCall) => Promise<CompletionContent | Response>,
): (request: Request) => Promise<Response> {
  let counter = 0;
  return async (request: Request): Promise<Response> => {
    const read = await readCompletionsRequest(request, options);
    if (read instanceof Response) return read;
    let head: AnswerHead | undefined;
    const start = (): number => {
      const n = ++counter;
      head = answerHead(read.chat, n, options.name);
      return n;
    };
    const answered = await answer({ ...read, start });
    if (answered instanceof Response) return answered;
    if (head === undefined) throw new Error('an answer before start()'); // a server's bug, not a request's
    return completionAnswer(head, answered.content, answered.logprobs, answered.usage);
  };
}
