/**
 * Serve a byte-level GPT as an OpenAI-compatible endpoint (a fetch handler, no runtime-specific imports), so every
 * memorization operation and the HTTP routes run against it over HTTP as against vLLM:
 * - `POST …/v1/completions` (the legacy schema): `prompt` (a string), `max_tokens` (default 16; 0 with `echo`
 *   scores the prompt only), `temperature` (0 = greedy, else sampled; default 1), `seed`, `echo`, `logprobs` (the
 *   number of alternatives, 0..20) → `choices[0].logprobs.{tokens, token_logprobs, top_logprobs, text_offset}`;
 * - `POST …/v1/chat/completions`: the last message's content continued (generation only);
 * - `GET …/v1/models`.
 * Tokens are bytes. In `tokens`, the first byte of a character carries the whole character and the other bytes
 * of it are empty strings, so the tokens concatenate to the text and each `text_offset` is its character's UTF-16
 * offset. Every byte has a log-probability (the model reads from a boundary byte), the first one included.
 * With `generationsOnly`, log-probabilities are refused (400), as a chat-only API would.
 */
import { chatPrompt, completionOptions, maxTokensOf, oaiError, serveCompletions } from '../openai-wire.js';
import type { TokenLogprobs } from '../types.js';
import type { ByteGptModel } from './model.js';

/** Options of {@link createByteGptHandler}. */
export interface ByteGptHandlerOptions {
  /** The model name the endpoint reports (and accepts in `model`). @default the model's id */
  readonly model?: string;
  /** When set, requests need `Authorization: Bearer <apiKey>` (401 otherwise). */
  readonly apiKey?: string;
  /** Refuse log-probabilities: a black-box model. @default false */
  readonly generationsOnly?: boolean;
  /** Largest `max_tokens`. @default 4096 */
  readonly maxTokens?: number;
  /** Largest request body, in UTF-16 units (413 beyond). @default 1 MiB */
  readonly maxBodyChars?: number;
}

const MAX_LOGPROBS = 20;

/**
 * A fetch handler serving a byte-level GPT with the OpenAI completions and chat completions schemas.
 * @example
 * const handler = createByteGptHandler(await loadByteGptModel(weights, { id: 'byte-gpt-base' }))
 * Deno.serve({ port: 8000 }, handler)   // or `trainprint model serve --model byte-gpt-base`
 */
export function createByteGptHandler(
  model: ByteGptModel,
  options: ByteGptHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const name = options.model ?? model.id;
  const maxTokens = options.maxTokens ?? 4096;
  const maxBody = options.maxBodyChars ?? 1024 * 1024;
  return serveCompletions({ name, maxBody, apiKey: options.apiKey }, async (call) => {
    const { chat, body } = call;
    const temperature = body.temperature ?? 1;
    if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))
      return oaiError(400, 'temperature must be a number in 0..2.', null, 'temperature');
    const seed = body.seed ?? null;
    if (seed !== null && !Number.isSafeInteger(seed)) return oaiError(400, 'seed must be an integer.', null, 'seed');
    const mt = maxTokensOf(body, maxTokens);
    if (mt instanceof Response) return mt;
    const n = call.start();
    const continuation = (prompt: string): Promise<string> =>
      temperature === 0
        ? model.generate(prompt, { maxTokens: mt, temperature: 0 })
        : model.sample(prompt, { maxTokens: mt, temperature, seed: (seed as number | null) ?? n });

    if (chat) {
      const prompt = chatPrompt(body);
      if (prompt instanceof Response) return prompt;
      const content = await continuation(prompt);
      return { content, logprobs: null, usage: { prompt: byteLength(prompt), completion: byteLength(content) } };
    }

    const asked = completionOptions(body, MAX_LOGPROBS);
    if (asked instanceof Response) return asked;
    const { prompt, echo, logprobs: lp } = asked;
    if (lp !== null && (options.generationsOnly || !model.logprobs))
      return oaiError(400, 'This model gives generations only: logprobs are not available.', null, 'logprobs');
    const completion = await continuation(prompt);
    let logprobs: unknown = null;
    if (lp !== null && model.logprobs) {
      const scored = await model.logprobs(prompt + completion);
      logprobs = choiceLogprobs(prompt + completion, scored, echo ? 0 : prompt.length, lp);
    }
    return {
      content: echo ? prompt + completion : completion,
      logprobs,
      usage: { prompt: byteLength(prompt), completion: byteLength(completion) },
    };
  });
}

/**
 * The `logprobs` object of a choice over `full` (prompt + completion): the tokens from UTF-16 offset `from` on
 * (0 with echo, the completion's start without), offsets relative to the returned text.
 */
function choiceLogprobs(full: string, scored: TokenLogprobs, from: number, top: number): unknown {
  const tokens: string[] = [];
  const tokenLogprobs: number[] = [];
  const topLogprobs: Array<Record<string, number> | null> = [];
  const offsets: number[] = [];
  const at = scored.offsets ?? [];
  for (let i = 0; i < scored.logprobs.length; i++) {
    const o = at[i];
    if (o === undefined || o < from) continue;
    const first = i === 0 || at[i - 1] !== o;
    const cp = full.codePointAt(o);
    tokens.push(first && cp !== undefined ? String.fromCodePoint(cp) : '');
    tokenLogprobs.push(scored.logprobs[i]);
    offsets.push(o - from);
    if (top > 0) {
      const alternatives: Record<string, number> = {};
      for (const t of (scored.top?.[i] ?? []).slice(0, top)) alternatives[t.token] = t.logprob;
      topLogprobs.push(alternatives);
    } else topLogprobs.push(null);
  }
  return { tokens, token_logprobs: tokenLogprobs, top_logprobs: topLogprobs, text_offset: offsets };
}

const byteLength = (s: string): number => new TextEncoder().encode(s).length;
