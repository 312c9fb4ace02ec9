/**
 * Target models for the memorization operations: the {@link TargetModel} contract, an
 * OpenAI-compatible HTTP adapter, and a local Kneser-Ney n-gram LM (with an OpenAI-compatible
 * fetch handler to serve it).
 */
export type {
  AccessLevel,
  DistributionMoments,
  GenerateOptions,
  TargetModel,
  TokenLogprobs,
  TopLogprob,
} from './types.js';
export { NgramLanguageModel, wordSpans, wordsOf, BOS, UNK } from './ngram.js';
export type { NgramOptions, NgramScore, WordTokenSpans } from './ngram.js';
export { createNgramHandler } from './ngram-server.js';
export type { NgramHandlerOptions } from './ngram-server.js';
export { createOpenAICompatibleModel } from './openai.js';
export type { OpenAICompatibleOptions } from './openai.js';
