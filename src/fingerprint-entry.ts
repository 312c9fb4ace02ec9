/**
 * `trainprint/fingerprint` — the fingerprint engine alone: fingerprints, similarity, compare,
 * hashes, sketches and filters, without datasets, the knowledge base, the store or the services,
 * for programs that only fingerprint (a smaller bundle; docs/performance.md "Bundle size").
 *
 * @example
 * import { createEngine } from 'trainprint/fingerprint'
 * const engine = await createEngine()
 * const a = await engine.fingerprint('It was the best of times, it was the worst of times.')
 * const b = await engine.fingerprint('It was the best of times, it was the age of wisdom.')
 * engine.similarity(a, b).jaccard
 */
export {
  createFingerprintEngine as createEngine,
  createFingerprintEngine,
  FingerprintEngine,
  type FingerprintEngineOptions,
} from './fingerprint-engine.js';
export type { CoreVariant, SimdChoice } from './core/load.js';
export { CORE_BUILDS } from './core/load.js';
export { normalize, isAsciiOnly, NORMALIZER_ID } from './text/normalize.js';
export type { Normalized } from './text/normalize.js';
export { paramsId, resolveOptions, HASH_ID } from './fingerprint/options.js';
export { sha256Hex } from './fingerprint/sha256.js';
export { shingleCount } from './fingerprint/fingerprint.js';
export type { FingerprintOptions, ResolvedOptions } from './fingerprint/options.js';
export type { Fingerprint, ShingleSet, WinnowSet, Similarity } from './types.js';
export type {
  CompareOptions,
  Comparison,
  CompareLimitation,
  AlignedSpan,
  ComparedSpan,
} from './align/compare.js';
export { PASSAGE_KINDS, type PassageKind } from './align/reuse.js';
export { jaccardEstimate } from './sketch/minhash.js';
export { hammingDistance } from './sketch/simhash.js';
export { MembershipFilter } from './sketch/filter.js';
export type { MembershipFilterOptions } from './sketch/filter.js';
export type { MinhashOptions, MinhashMode } from './sketch/minhash.js';
export { TrainprintError, isTrainprintError, MESSAGES, HTTP_STATUS } from './errors.js';
// the rule a file is read by (its content type from its name, the bytes analyze takes), so that a program that
// fingerprints files — `trainprint fingerprint` among them — takes and refuses the files the service does
export {
  contentTypeOfFile,
  untypedFileReason,
  FILE_CONTENT_TYPES,
  TEXT_FILE_TYPES,
  type FileContentType,
} from './services/analyze/file-types.js';
export { ANALYZE_MAX_BYTES, ANALYZE_MAX_FILE_BYTES } from './services/analyze/limits.js';
export type { ErrorCode } from './errors.js';
