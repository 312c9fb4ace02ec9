/**
 * The target-model contract of the memorization operations: what a model behind an API (or the
 * local n-gram LM) must offer. Every method is async, because the real backends are HTTP services.
 *
 * Access levels, weakest first (each allows different claims: extraction needs generations only, Carlini et al. 2021,
 * arXiv:2012.07805; loss, zlib and Min-K% need log-probabilities, Shi et al. 2024, arXiv:2310.16789; Min-K%++ needs the
 * full next-token distribution, Zhang et al. 2024, arXiv:2404.02936):
 * - `generations_only`: text out, nothing else (chat APIs without logprobs). Extraction works;
 *   likelihood statistics do not (`no_logprob_access`).
 * - `logprobs`: the log-probability of each token of a supplied text (OpenAI legacy completions
 *   with `echo`). Loss, zlib ratio and Min-K% work.
 * - `top_k`: `logprobs` plus the k most likely alternatives at each position. Min-K%++ can then be
 *   approximated from the top k; it is exact only with the full next-token distribution
 *   (`moments`, which the local n-gram LM gives).
 */

/** How much of the model's next-token distribution a backend exposes. */
export type AccessLevel = 'logprobs' | 'top_k' | 'generations_only';

/** One alternative at a position: a token and its natural-log probability. */
export interface TopLogprob {
  readonly token: string;
  readonly logprob: number;
}

/** Moments of log p(·) under the full next-token distribution at one position. */
export interface DistributionMoments {
  /** E_{z∼p}[log p(z)] (natural log): minus the entropy. */
  readonly mean: number;
  /** Var_{z∼p}[log p(z)]. */
  readonly variance: number;
}

/**
 * Log-probabilities of a text's tokens, in the model's own tokenisation. Tokens without a
 * log-probability (the first token of a text, which has no context, in the OpenAI schema) are
 * left out, so every array has one entry per scored token.
 */
export interface TokenLogprobs {
  /** The scored tokens as the backend spells them. */
  readonly tokens: string[];
  /** Natural-log probability of each token given the text before it. */
  readonly logprobs: number[];
  /** UTF-16 start of each token in the text, when the backend gives it. */
  readonly offsets?: number[];
  /** The top-k alternatives at each scored position (index-aligned with `tokens`), when available. */
  readonly top?: Array<Array<TopLogprob>>;
  /**
   * Exact moments of log p over the whole vocabulary at each scored position (index-aligned):
   * only backends that hold the full distribution (the local n-gram LM) give them. With them,
   * Min-K%++ is exact; with `top` only, it is an approximation.
   */
  readonly moments?: DistributionMoments[];
  /** True when `moments` are exact over the full next-token distribution. */
  readonly full?: boolean;
}

/** Options of {@link TargetModel.generate}. */
export interface GenerateOptions {
  /** Most tokens to generate, in the model's tokens. */
  readonly maxTokens: number;
  /** Only greedy decoding is used by the memorization operations. */
  readonly temperature: 0;
  /**
   * Chat backends: the conversation to send instead of their default one built from the prompt (a prompt variant of
   * `memorization.extractWork`); the last message should end with the text to continue. Completions backends ignore
   * it and send the prompt.
   */
  readonly messages?: ReadonlyArray<{ readonly role: 'system' | 'user'; readonly content: string }>;
  /** Aborts the call in flight (its connection is closed); the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Asked before each retry of a failed attempt: false fails the call with the last attempt's error instead (a caller
   * counting every request against a budget says no once it is spent).
   */
  readonly retry?: () => boolean;
}

/**
 * A target model. `logprobs` is present exactly when `access` is not `generations_only`.
 *
 * @example
 * const model: TargetModel = createOpenAICompatibleModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'my-model' })
 * const lp = await model.logprobs?.('It was the best of times')
 * const text = await model.generate('It was the best of times', { maxTokens: 32, temperature: 0 })
 */
export interface TargetModel {
  /** Model id as the results should name it (e.g. `vllm:meta-llama/Llama-3.1-8B`). */
  readonly id: string;
  readonly access: AccessLevel;
  /** True when generations go through a chat API (GenerateOptions `messages` are then sent as the conversation). */
  readonly chat?: boolean;
  logprobs?(text: string): Promise<TokenLogprobs>;
  /** Greedy continuation of `prompt` (the continuation only, without the prompt). */
  generate(prompt: string, options: GenerateOptions): Promise<string>;
  /**
   * {@link generate} with what went over the wire: the request body as sent, the answer body as received, the
   * token usage and model name the endpoint reported, and whether the API itself flagged a refusal. Backends over
   * HTTP offer it so that a run can keep a checkable record of every call (`memorization.extractWork`).
   */
  generateCall?(prompt: string, options: GenerateOptions): Promise<GenerationCall>;
}

/**
 * One generation call as it went over the wire ({@link TargetModel.generateCall}).
 * @example const { text, request, response, usage } = await model.generateCall!('Call me', { maxTokens: 32, temperature: 0 })
 */
export interface GenerationCall {
  /** The generated text (the continuation only); empty when the API answered with a refusal instead. */
  readonly text: string;
  /** True when the answer held more text than the output-token limit can produce and `text` was cut there. */
  readonly truncated?: true;
  /** The request body exactly as sent (JSON). */
  readonly request: string;
  /** The answer body exactly as received. */
  readonly response: string;
  /** Tokens the endpoint reported in `usage`, when it did. */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
  /** The model name the endpoint reported in its answer (`model`), when it did. */
  readonly model?: string;
  /** `choices[0].finish_reason`, when given. */
  readonly finish_reason?: string;
  /**
   * The API's own refusal: a chat answer's `message.refusal` (its text here), or `finish_reason` `content_filter`.
   * Absent when the API flagged nothing (a refusal written as ordinary text is for the caller to recognise).
   */
  readonly refusal?: string;
}
