/**
 * How exact-dataset documents are fingerprinted, and the params id every exact dataset carries: in
 * memory, in a snapshot file and in a database alike (the id names the fingerprints, so a dataset made
 * with other settings is refused wherever it comes from).
 */
import { paramsId, resolveOptions } from '../fingerprint/options.js';
import { NEAR_K } from './exact.js';

/**
 * The MinHash of exact datasets: one-permutation, k = 128, seed 0, over all word 5-grams (`mh=oph128`).
 * @example resolveOptions({ minhash: NEAR_MINHASH })
 */
export const NEAR_MINHASH = { mode: 'oph', permutations: NEAR_K } as const;

/**
 * How exact-dataset documents are fingerprinted: winnowed word 5-grams and {@link NEAR_MINHASH}.
 * @example winnowCore(core, text, DATASET_OPTIONS)
 */
export const DATASET_OPTIONS = resolveOptions({ minhash: NEAR_MINHASH, simhash: false, workHash: false });

/**
 * Params id of exact datasets: the fingerprint params plus the index layout (`idx=swap32`: keys
 * stored with their 32-bit halves swapped), so a file whose keys mean something else is refused.
 * A dataset in a database stores the fingerprints themselves and checks the same id: its own layout
 * is versioned by its catalog's migrations.
 * @example stats.params === DATASET_PARAMS
 */
export const DATASET_PARAMS = `${paramsId(DATASET_OPTIONS)};idx=swap32`;
