/**
 * Target models for the memorization operations: the {@link TargetModel} contract, an
 * OpenAI-compatible HTTP adapter, a local Kneser-Ney n-gram LM (with an OpenAI-compatible
 * fetch handler to serve it), and byte-level GPTs (the test models of models/, run in the
 * WebAssembly core or in TypeScript).
 */
// the contract (./types.ts) whole: every type a backend implements or a caller reads
export type * from './types.js';
export { NgramLanguageModel, wordSpans } from './ngram.js';
export type { NgramOptions, NgramScore, WordTokenSpans } from './ngram.js';
export { createNgramHandler } from './ngram-server.js';
export { withCors } from './openai-wire.js';
export type { NgramHandlerOptions } from './ngram-server.js';
export { createOpenAICompatibleModel } from './openai.js';
export type { OpenAICompatibleOptions } from './openai.js';
export { createByteGptModel, loadByteGptModel } from './byte-gpt/model.js';
export type { ByteGptModel, ByteGptModelOptions, SampleOptions } from './byte-gpt/model.js';
export { createByteGptHandler } from './byte-gpt/server.js';
export type { ByteGptHandlerOptions } from './byte-gpt/server.js';
export { readByteGptWeights, checkByteGptConfig, byteGptParameters } from './byte-gpt/weights.js';
export type { ByteGptConfig, ByteGptWeights, ByteGptBlock } from './byte-gpt/weights.js';
export { ByteGptRunner } from './byte-gpt/runner.js';
export type { TokenRunner } from './byte-gpt/runner.js';
export { WasmByteGptRunner } from './byte-gpt/wasm-runner.js';
export { referenceLogits } from './byte-gpt/reference.js';
