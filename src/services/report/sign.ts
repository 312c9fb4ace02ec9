/**
 * The engine's report key: an Ed25519 key pair (RFC 8032) that signs evidence bundles, made with WebCrypto (Node 20,
 * Deno, current browsers) the first time it is needed and kept in the engine's store under `engine-key/ed25519`, so
 * bundles made after a restart on the same store verify with the same public key. Ed25519 rather than the HMAC of the
 * registration receipts (src/services/registry/receipts.ts) because a bundle is checked by third parties: they need
 * the public key only, and cannot sign with it. The private key never leaves this module: what the engine publishes
 * is {@link ReportKey.publicKey} (`GET /api/v1/report-key`, and inside every bundle).
 */
import { TrainprintError } from '../../errors.js';
import { sha256Portable, toHex } from '../../fingerprint/sha256.js';
import type { Store } from '../../store/types.js';
import { acceptablePublicKey } from './ed25519-point.js';
import { base64url, fromBase64url } from '../registry/receipts.js';

/** Where the key pair is kept: the private key as a JWK (RFC 8037), which WebCrypto imports back. */
export const REPORT_KEY_RECORD = 'engine-key/ed25519';

/** The public half of the report key, as bundles and `GET /api/v1/report-key` give it. */
export interface ReportPublicKey {
  readonly alg: 'Ed25519';
  /** First 16 hex digits of the SHA-256 of the raw public key. */
  readonly key_id: string;
  /** The raw 32-byte public key, base64url. */
  readonly public_key: string;
  /** The same key as a JWK (RFC 8037). */
  readonly jwk: { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly x: string };
}

/** The engine's report key: signs bytes, and tells its public half. */
export interface ReportKey {
  readonly publicKey: ReportPublicKey;
  /** The Ed25519 signature of `bytes`, base64url. */
  sign(bytes: Uint8Array): Promise<string>;
}

interface PrivateJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly d: string;
  readonly x: string;
}

const loaded = new WeakMap<Store, Promise<ReportKey>>();

/**
 * The report key of the engine whose store is `store`: the one kept there, else a new one, stored for the next start
 * (read and created in one transaction, so two processes starting on one store end up with the same key). Loaded
 * once per store and process.
 * @throws NOT_SUPPORTED when the runtime's WebCrypto has no Ed25519
 * @example
 * const key = await loadReportKey(engine.store)
 * key.publicKey.key_id // '3f9c…'
 */
export function loadReportKey(store: Store): Promise<ReportKey> {
  let key = loaded.get(store);
  if (!key) {
    key = openReportKey(store);
    // a failure (a store that is down) is not remembered: the next call tries again
    key.catch(() => loaded.delete(store));
    loaded.set(store, key);
  }
  return key;
}

async function openReportKey(store: Store): Promise<ReportKey> {
  const subtle = webCrypto();
  const kept = await store.get(REPORT_KEY_RECORD);
  const jwk = isPrivateJwk(kept)
    ? kept
    : await store.transaction(async (tx) => {
        const again = await tx.get(REPORT_KEY_RECORD);
        if (isPrivateJwk(again)) return again;
        const fresh = await generateJwk(subtle);
        tx.put(REPORT_KEY_RECORD, fresh);
        return fresh;
      });
  const privateKey = await ed25519(() =>
    subtle.importKey('jwk', { ...jwk, ext: false }, { name: 'Ed25519' }, false, ['sign']),
  );
  const publicKey = publicKeyOf(jwk.x);
  return {
    publicKey,
    async sign(bytes) {
      const sig = await subtle.sign('Ed25519', privateKey, bytes as Uint8Array<ArrayBuffer>);
      return base64url(new Uint8Array(sig));
    },
  };
}

/** A fresh Ed25519 key pair's private JWK. */
async function generateJwk(subtle: SubtleCrypto): Promise<PrivateJwk> {
  const pair = (await ed25519(() =>
    subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']),
  )) as CryptoKeyPair;
  const jwk = await subtle.exportKey('jwk', pair.privateKey);
  return { kty: 'OKP', crv: 'Ed25519', d: String(jwk.d), x: String(jwk.x) };
}

function isPrivateJwk(v: unknown): v is PrivateJwk {
  const j = v as PrivateJwk | null | undefined;
  return !!j && typeof j === 'object' && j.kty === 'OKP' && j.crv === 'Ed25519' && !!j.d && !!j.x;
}

/**
 * The public key record of a raw Ed25519 public key given as base64url.
 * @example publicKeyOf(bundle.signature.public_key).key_id
 */
export function publicKeyOf(x: string): ReportPublicKey {
  const raw = fromBase64url(x);
  if (raw === null || raw.length !== 32)
    throw new TrainprintError('INVALID_INPUT', 'an Ed25519 public key is 32 bytes, base64url');
  return {
    alg: 'Ed25519',
    key_id: toHex(sha256Portable(raw)).slice(0, 16),
    public_key: x,
    jwk: { kty: 'OKP', crv: 'Ed25519', x },
  };
}

/**
 * True when `signature` (base64url) is the Ed25519 signature of `bytes` by the public key `x` (base64url). A key that
 * is not a point of the curve, or a point of small order (under which a signature can verify whatever the bytes), is
 * never valid. Never throws for malformed input: it is simply not valid.
 * @throws NOT_SUPPORTED when the runtime's WebCrypto has no Ed25519
 * @example await verifyEd25519(bundle.signature.public_key, bundle.signature.value, bytes)
 */
export async function verifyEd25519(x: string, signature: string, bytes: Uint8Array): Promise<boolean> {
  const subtle = webCrypto();
  const raw = fromBase64url(x);
  const sig = fromBase64url(signature);
  if (raw === null || raw.length !== 32 || sig === null || sig.length !== 64) return false;
  // a small-order key makes a signature that verifies for any bytes; one off the curve is no key: WebCrypto takes both
  if (!acceptablePublicKey(raw)) return false;
  let key: CryptoKey;
  try {
    key = await subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
  } catch (e) {
    if (isUnsupported(e)) throw unsupported(e);
    return false; // not a point of the curve
  }
  return subtle.verify('Ed25519', key, sig as Uint8Array<ArrayBuffer>, bytes as Uint8Array<ArrayBuffer>);
}

/** WebCrypto, or NOT_SUPPORTED naming what is missing (a page served over plain http has no `crypto.subtle`). */
function webCrypto(): SubtleCrypto {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) throw new TrainprintError('NOT_SUPPORTED', 'WebCrypto (crypto.subtle) is not available here');
  return subtle;
}

/** `op`, with a runtime whose WebCrypto has no Ed25519 (Node < 18.4, older browsers) said as NOT_SUPPORTED. */
async function ed25519<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw isUnsupported(e) ? unsupported(e) : e;
  }
}

const isUnsupported = (e: unknown): boolean => (e as { name?: unknown } | null)?.name === 'NotSupportedError';
const unsupported = (cause: unknown) =>
  new TrainprintError('NOT_SUPPORTED', "this runtime's WebCrypto has no Ed25519", { cause });
