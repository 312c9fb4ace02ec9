/**
 * Fingerprint options: defaults, validation, and the canonical parameter id.
 *
 * The parameter id (`Fingerprint.params`) names every choice that changes the numbers, so
 * fingerprints made with different settings (or a different normaliser/hash version) are
 * refused when compared instead of silently giving a wrong similarity.
 */
import { TrainprintError } from '../errors.js';
import { NORMALIZER_ID } from '../text/normalize.js';

/** Options of {@link Engine.fingerprint}. Every member is optional; defaults in `@default`. */
export interface FingerprintOptions {
  /**
   * Text normalisation before shingling. `'nfkc-casefold'`: pinned Unicode 17 NFKC_Casefold,
   * then word tokens (see `normalize`). `'none'`: the raw text (only with `shingle.unit: 'char'`,
   * e.g. for source code).
   * @default 'nfkc-casefold'
   */
  readonly normalize?: 'nfkc-casefold' | 'none';
  /**
   * Shingle unit and size: word n-grams (tokens) or character k-grams (code points).
   * @default { unit: 'word', size: 5 } (size 12 when unit is 'char')
   */
  readonly shingle?: { readonly unit: 'word' | 'char'; readonly size?: number };
  /** Seed of the shingle hashes, MinHash and SimHash (an unsigned 32-bit integer). @default 0 */
  readonly seed?: number;
  /** Winnowing window over shingle hashes, or `false` to skip. @default { window: 8 } */
  readonly winnow?: { readonly window: number } | false;
  /**
   * MinHash signature: `'oph'` one-permutation hashing with optimal densification
   * (permutations a power of two), or `'classic'` k independent hash functions; `false` to skip.
   * @default { mode: 'oph', permutations: 128 }
   */
  readonly minhash?: { readonly mode?: 'oph' | 'classic'; readonly permutations?: number } | false;
  /** Compute the 64-bit SimHash. @default true */
  readonly simhash?: boolean;
  /** Compute `work_hash` (SHA-256 of the raw UTF-8). @default true */
  readonly workHash?: boolean;
}

/** Options with every default filled in. */
export interface ResolvedOptions {
  readonly normalize: 'nfkc-casefold' | 'none';
  readonly unit: 'word' | 'char';
  readonly size: number;
  readonly seed: number;
  readonly window: number; // 0 = off
  readonly minhashMode: 'oph' | 'classic' | 'off';
  readonly permutations: number;
  readonly simhash: boolean;
  readonly workHash: boolean;
}

/** Version of the hashing scheme: XXH64 tokens and ids, Rabin–Karp shingles; bump on any change. */
export const HASH_ID = 'xxh64-rk.v1';

/** Largest accepted shingle size. Words: a shingle spans at most this many tokens. */
export const MAX_WORD_SHINGLE = 64;
/** Largest accepted character k (the core keeps k pending code points in a static ring). */
export const MAX_CHAR_SHINGLE = 256;
/** Largest accepted winnowing window. */
export const MAX_WINDOW = 4096;

function invalid(detail: string): never {
  throw new TrainprintError('INVALID_OPTIONS', detail);
}

function isInt(v: unknown, lo: number, hi: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;
}

/**
 * Validate `options` and fill defaults. Throws INVALID_OPTIONS naming the first bad member.
 * @example resolveOptions({ shingle: { unit: 'char' } }).size // 12
 */
export function resolveOptions(options: FingerprintOptions | undefined): ResolvedOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') invalid('options must be an object');
  const known = new Set(['normalize', 'shingle', 'seed', 'winnow', 'minhash', 'simhash', 'workHash']);
  for (const key of Object.keys(options)) if (!known.has(key)) invalid(`unknown option "${key}"`);

  const normalize = options.normalize ?? 'nfkc-casefold';
  if (normalize !== 'nfkc-casefold' && normalize !== 'none') invalid(`normalize must be 'nfkc-casefold' or 'none'`);

  const shingle = options.shingle ?? { unit: 'word' };
  if (typeof shingle !== 'object' || shingle === null) invalid('shingle must be an object { unit, size }');
  const unit = shingle.unit;
  if (unit !== 'word' && unit !== 'char') invalid(`shingle.unit must be 'word' or 'char'`);
  const size = shingle.size ?? (unit === 'word' ? 5 : 12);
  const maxSize = unit === 'word' ? MAX_WORD_SHINGLE : MAX_CHAR_SHINGLE;
  if (!isInt(size, 1, maxSize)) invalid(`shingle.size must be an integer in 1..${maxSize}`);
  if (normalize === 'none' && unit === 'word') invalid(`normalize 'none' is only available with shingle.unit 'char'`);

  const seed = options.seed ?? 0;
  if (!isInt(seed, 0, 0xffff_ffff)) invalid('seed must be an unsigned 32-bit integer');

  let window = 8;
  if (options.winnow === false) window = 0;
  else if (options.winnow !== undefined) {
    if (typeof options.winnow !== 'object' || options.winnow === null) invalid('winnow must be { window } or false');
    window = options.winnow.window;
    if (!isInt(window, 1, MAX_WINDOW)) invalid(`winnow.window must be an integer in 1..${MAX_WINDOW}`);
  }

  let minhashMode: ResolvedOptions['minhashMode'] = 'oph';
  let permutations = 128;
  if (options.minhash === false) minhashMode = 'off';
  else if (options.minhash !== undefined) {
    if (typeof options.minhash !== 'object' || options.minhash === null)
      invalid('minhash must be { mode, permutations } or false');
    minhashMode = options.minhash.mode ?? 'oph';
    if (minhashMode !== 'oph' && minhashMode !== 'classic') invalid(`minhash.mode must be 'oph' or 'classic'`);
    permutations = options.minhash.permutations ?? 128;
    if (minhashMode === 'oph') {
      if (!isInt(permutations, 1, 1024) || (permutations & (permutations - 1)) !== 0)
        invalid('minhash.permutations must be a power of two in 1..1024 for oph');
    } else if (!isInt(permutations, 4, 1024) || permutations % 4 !== 0) {
      invalid('minhash.permutations must be a multiple of 4 in 4..1024 for classic');
    }
  }

  const simhash = options.simhash ?? true;
  if (typeof simhash !== 'boolean') invalid('simhash must be a boolean');
  const workHash = options.workHash ?? true;
  if (typeof workHash !== 'boolean') invalid('workHash must be a boolean');

  return { normalize, unit, size, seed, window, minhashMode, permutations, simhash, workHash };
}

/**
 * The canonical parameter id: `tp1;<normaliser>;<hash>;<unit><size>;seed=<seed>;win=<w|off>;mh=<mode><k|off>;sh=<64|off>`.
 * @example paramsId(resolveOptions({})) // 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1;word5;seed=0;win=8;mh=oph128;sh=64'
 */
export function paramsId(o: ResolvedOptions): string {
  // the options resolved (resolveOptions' result): a raw options object would make an id of 'undefined's
  if (o === null || typeof o !== 'object' || typeof o.unit !== 'string' || !Number.isInteger(o.size))
    throw new TrainprintError('INVALID_OPTIONS', 'paramsId takes resolved options: paramsId(resolveOptions(options))');
  const norm = o.normalize === 'none' ? 'raw' : NORMALIZER_ID;
  const mh = o.minhashMode === 'off' ? 'off' : `${o.minhashMode}${o.permutations}`;
  return `tp1;${norm};${HASH_ID};${o.unit}${o.size};seed=${o.seed};win=${o.window || 'off'};mh=${mh};sh=${o.simhash ? 64 : 'off'}`;
}

/** The part of a params id that decides whether two shingle sets are comparable. */
export function shingleParams(params: string): string {
  return params.split(';').slice(0, 5).join(';');
}

/**
 * What to tell the owner of data whose params `had` are refused where `want` are expected, when an older normaliser
 * made it: its tokens differ from this version's, so its fingerprints can never match and only a rebuild from the
 * texts helps. '' when the normalisers are the same or `had`'s is not older.
 * @example olderNormalizer('tp1;nfkccf-u17.0.0.t1;xxh64-rk.v1', 'tp1;nfkccf-u17.0.0.t2;xxh64-rk.v1')
 *   // '; it was made by an older normaliser (nfkccf-u17.0.0.t1, this version has nfkccf-u17.0.0.t2) and must be rebuilt from its texts'
 */
export function olderNormalizer(had: string, want: string): string {
  const h = had.split(';')[1] ?? '';
  const w = want.split(';')[1] ?? '';
  const [hv, wv] = [h, w].map((id) => (id.startsWith('nfkccf-') ? (id.match(/\d+/g) ?? []).map(Number) : []));
  const i = hv.findIndex((n, k) => n !== wv[k]);
  if (hv.length === 0 || hv.length !== wv.length || i < 0 || hv[i] > wv[i]) return '';
  return `; it was made by an older normaliser (${h}, this version has ${w}) and must be rebuilt from its texts`;
}

/** The value of one `key=value` member of a params id (undefined when absent). */
export function paramValue(params: string, key: string): string | undefined {
  for (const part of params.split(';')) if (part.startsWith(key + '=')) return part.slice(key.length + 1);
  return undefined;
}
