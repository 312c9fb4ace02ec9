/**
 * Serve an {@link NgramLanguageModel} as an OpenAI-compatible endpoint: a fetch-style handler
 * `(Request) => Promise<Response>` with no runtime-specific imports, so it runs under
 * `Deno.serve(handler)`, in a browser service worker, or behind a small node:http bridge.
 *
 * Routes (under any prefix ending in `/v1`):
 * - `POST …/v1/completions` — the legacy completions schema: `prompt` (one string), `max_tokens`
 *   (default 16), `temperature` (0 only: the model is greedy), `echo`, `logprobs` (0..`maxLogprobs`
 *   alternatives). The response carries `choices[0].logprobs.{tokens, token_logprobs,
 *   top_logprobs, text_offset}`; as in the OpenAI API the first prompt token has a `null`
 *   log-probability (it has no context) and `text_offset` counts UTF-16 units of the returned text.
 * - `POST …/v1/chat/completions` — generation only: the last message's content is continued greedily.
 * - `GET …/v1/models` — the one model.
 * Errors use the OpenAI envelope `{ error: { message, type, param, code } }` (400, 401, 404, 405, 413).
 *
 * Tokens are the model's word tokens; each token's string is its slice of the original text
 * with the separators before it (the last one also takes the text's trailing separators), so
 * the tokens concatenate to the prompt. Generated tokens are the words with one leading space.
 */
import { wordSpans, type NgramLanguageModel } from './ngram.js';
import { chatPrompt, completionOptions, maxTokensOf, oaiError, serveCompletions } from './openai-wire.js';

/** Options of {@link createNgramHandler}. */
export interface NgramHandlerOptions {
  /** The model name the endpoint reports (and accepts in `model`). @default 'ngram' */
  readonly model?: string;
  /** When set, requests need `Authorization: Bearer <apiKey>` (401 otherwise). */
  readonly apiKey?: string;
  /** Largest `logprobs` (top alternatives per position) accepted. @default 20 */
  readonly maxLogprobs?: number;
  /** Largest `max_tokens`. @default 4096 */
  readonly maxTokens?: number;
  /** Largest request body, in UTF-16 units (413 beyond). @default 10 MiB */
  readonly maxBodyChars?: number;
}

interface Tokenised {
  tokens: string[];
  words: string[];
  offsets: number[];
}

/**
 * A fetch handler serving `lm` with the OpenAI completions and chat completions schemas.
 * @example
 * const handler = createNgramHandler(lm, { model: 'ngram-brown', apiKey: 'sk-test' })
 * Deno.serve({ port: 8000 }, handler)   // or a node:http bridge
 */
export function createNgramHandler(
  lm: NgramLanguageModel,
  options: NgramHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const name = options.model ?? 'ngram';
  const maxLogprobs = options.maxLogprobs ?? 20;
  const maxTokens = options.maxTokens ?? 4096;
  const maxBody = options.maxBodyChars ?? 10 * 1024 * 1024;
  return serveCompletions({ name, maxBody, apiKey: options.apiKey }, async (call) => {
    const { chat, body } = call;
    const temperature = body.temperature ?? 1;
    if (typeof temperature !== 'number' || temperature !== 0)
      return oaiError(400, 'This model decodes greedily: temperature must be 0.', null, 'temperature');
    const mt = maxTokensOf(body, maxTokens);
    if (mt instanceof Response) return mt;
    call.start();

    if (chat) {
      const prompt = chatPrompt(body);
      if (prompt instanceof Response) return prompt;
      const messages = body.messages as Array<{ content: string }>;
      const words = lm.generateTokens(wordSpans(prompt).tokens, mt);
      const promptTokens = wordSpans(messages.map((m) => m.content).join('\n')).tokens.length;
      return { content: words.join(' '), logprobs: null, usage: { prompt: promptTokens, completion: words.length } };
    }

    const asked = completionOptions(body, maxLogprobs);
    if (asked instanceof Response) return asked;
    const { prompt, echo, logprobs: lp } = asked;
    const p = tokenise(prompt);
    const gen = lm.generateTokens(p.words, mt);
    const completion = gen.map((w) => ' ' + w).join('');
    const text = echo ? prompt + completion : completion;
    let logprobs: unknown = null;
    if (lp !== null) {
      const all = [...p.words, ...gen];
      const score = lm.score(all.join(' '), { top: lp });
      const tokens: string[] = [],
        tokenLogprobs: Array<number | null> = [],
        top: Array<Record<string, number> | null> = [],
        offsets: number[] = [];
      const base = echo ? prompt.length : 0;
      if (echo) {
        p.tokens.forEach((t, i) => {
          tokens.push(t);
          offsets.push(p.offsets[i]);
          tokenLogprobs.push(i === 0 ? null : score.logprobs[i]);
          top.push(i === 0 ? null : topRecord(score.top?.[i]));
        });
      }
      let at = base;
      gen.forEach((w, g) => {
        const i = p.words.length + g;
        tokens.push(' ' + w);
        offsets.push(at);
        at += w.length + 1;
        tokenLogprobs.push(score.logprobs[i]);
        top.push(topRecord(score.top?.[i]));
      });
      logprobs = { tokens, token_logprobs: tokenLogprobs, top_logprobs: top, text_offset: offsets };
    }
    return { content: text, logprobs, usage: { prompt: p.words.length, completion: gen.length } };
  });
}

/** Word tokens of a prompt as strings that concatenate to it, with their offsets. */
function tokenise(prompt: string): Tokenised {
  const { tokens: words, ends } = wordSpans(prompt);
  const tokens: string[] = [],
    offsets: number[] = [];
  let prev = 0;
  for (let i = 0; i < words.length; i++) {
    const end = i === words.length - 1 ? prompt.length : ends[i];
    tokens.push(prompt.slice(prev, end));
    offsets.push(prev);
    prev = end;
  }
  return { tokens, words, offsets };
}

function topRecord(top: ReadonlyArray<{ token: string; logprob: number }> | undefined): Record<string, number> {
  const r: Record<string, number> = {};
  for (const t of top ?? []) r[' ' + t.token] = t.logprob;
  return r;
}
