/**
 * Remote corpora: web-scale training corpora searched through the infini-gram engines' APIs (token-level
 * infini-gram, character-level infini-gram mini). Loaded by the engine only when a remote dataset is added, so
 * nothing of it is in the code of an engine that uses none.
 *
 * @example
 * const { openRemoteDataset } = await import('./remote/index.js')
 * const pile = openRemoteDataset({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' }, { core, kit: ALIGNMENT_KIT })
 */
export { openRemoteDataset, checkRemoteConfig } from './dataset.js';
export type { RemoteDatasetDeps } from './dataset.js';
export { callBudget, textPieces, HIT_TOKENS } from './search.js';
export { mapTokens, tokenSpelling, tokenBytes } from './token-map.js';
export { endpointHealth, resetEndpoints, RemoteCallError } from './transport.js';
export { sharedCache, CACHE_PREFIX } from './cache.js';
