/**
 * `trainprint/models` — the target models of the memorization probes: the `TargetModel` contract, the
 * OpenAI-compatible HTTP adapter, a local Kneser-Ney n-gram language model with an OpenAI-compatible handler to
 * serve it, byte-level GPTs (run in the WebAssembly core or in TypeScript) with the reference logits they are
 * checked against, and the egress policy that keeps model URLs (and webhooks) off internal hosts.
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { NgramLanguageModel, createNgramHandler, createOpenAICompatibleModel } from 'trainprint/models'
 * const lm = NgramLanguageModel.train(['the cat sat on the mat', 'the dog sat on the log'], { order: 3 })
 * const handler = createNgramHandler(lm, { model: 'tiny' })
 * const model = createOpenAICompatibleModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'tiny',
 *   fetch: (url, init) => handler(new Request(url, init)) })
 * const engine = await createEngine() // engine.memorization.extract({ work_id, model, … })
 */
export {
  createOpenAICompatibleModel,
  NgramLanguageModel,
  wordSpans,
  createNgramHandler,
  withCors,
  createByteGptModel,
  loadByteGptModel,
  createByteGptHandler,
  readByteGptWeights,
  checkByteGptConfig,
  byteGptParameters,
  ByteGptRunner,
  WasmByteGptRunner,
  referenceLogits,
  isInternalHost,
  isInternalAddress,
  defaultModelHosts,
  egressFetch,
  type TargetModel,
  type AccessLevel,
  type DistributionMoments,
  type GenerateOptions,
  type TokenLogprobs,
  type GenerationCall,
  type TopLogprob,
  type OpenAICompatibleOptions,
  type NgramOptions,
  type NgramScore,
  type WordTokenSpans,
  type NgramHandlerOptions,
  type ByteGptModel,
  type ByteGptModelOptions,
  type SampleOptions,
  type ByteGptHandlerOptions,
  type ByteGptConfig,
  type ByteGptWeights,
  type ByteGptBlock,
  type TokenRunner,
  type HostResolver,
  type ResolvedHost,
} from '../library.js';
