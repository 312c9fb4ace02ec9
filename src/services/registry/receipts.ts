/**
 * Registration receipts: HMAC-SHA256 (WebCrypto, every runtime) over the work hash, the owner and
 * the registration time, so a holder can later prove that this service registered that content
 * for them at that time. HMAC is symmetric: a receipt is verified by whoever holds the key (this
 * service, `verifyReceipt`), not by third parties; keep the key secret and stable (configure
 * `receiptKey`, or let the engine generate one and keep it in its store).
 */
import { TrainprintError } from '../../errors.js';
import { toHex } from '../../fingerprint/sha256.js';
import type { Store } from '../../store/types.js';

/** A signed receipt. */
export interface Receipt {
  readonly version: 1;
  readonly alg: 'HMAC-SHA256';
  /** First 16 hex digits of SHA-256(key): which key signed it. */
  readonly key_id: string;
  readonly work_hash: string;
  readonly owner: string;
  readonly registered_at: string;
  /** base64url of the HMAC over {@link receiptMessage}. */
  readonly signature: string;
}

/** The signed message: a fixed prefix and the three fields, one per line. */
export function receiptMessage(r: Pick<Receipt, 'work_hash' | 'owner' | 'registered_at'>): string {
  return `trainprint-receipt/v1\n${r.work_hash}\n${r.owner}\n${r.registered_at}`;
}

/** The signing key of an engine, ready for WebCrypto. */
export interface ReceiptKey {
  readonly id: string;
  readonly key: CryptoKey;
}

const KEY_RECORD = 'config/receipt-key';

/**
 * The engine's receipt key: `configured` when given (≥ 32 bytes), else the one kept in the store,
 * else a new random 32-byte key, stored for the next start.
 */
export async function loadReceiptKey(store: Store, configured?: string | Uint8Array): Promise<ReceiptKey> {
  let raw: Uint8Array;
  if (configured !== undefined) {
    raw = typeof configured === 'string' ? new TextEncoder().encode(configured) : configured;
    if (!(raw instanceof Uint8Array) || raw.length < 32)
      throw new TrainprintError('INVALID_OPTIONS', 'receiptKey must be a string or Uint8Array of at least 32 bytes');
  } else {
    // Read and create in one transaction: two engines starting on one store must end up with the same key,
    // or receipts signed by the one whose write lost would stop verifying after a restart.
    raw = await store.transaction(async (tx) => {
      const kept = await tx.get(KEY_RECORD);
      if (kept instanceof Uint8Array && kept.length >= 32) return kept;
      const fresh = globalThis.crypto.getRandomValues(new Uint8Array(32));
      tx.put(KEY_RECORD, fresh);
      return fresh;
    });
  }
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', raw as Uint8Array<ArrayBuffer>));
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    raw as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  return { id: toHex(digest.subarray(0, 8)), key };
}

/** Sign a receipt. */
export async function signReceipt(
  k: ReceiptKey,
  fields: Pick<Receipt, 'work_hash' | 'owner' | 'registered_at'>,
): Promise<Receipt> {
  const sig = await globalThis.crypto.subtle.sign('HMAC', k.key, new TextEncoder().encode(receiptMessage(fields)));
  return { version: 1, alg: 'HMAC-SHA256', key_id: k.id, ...fields, signature: base64url(new Uint8Array(sig)) };
}

/** True when `receipt` was signed by key `k` and is unaltered (constant-time check inside WebCrypto). */
export async function checkReceipt(k: ReceiptKey, receipt: unknown): Promise<boolean> {
  if (receipt === null || typeof receipt !== 'object') return false;
  const r = receipt as Record<string, unknown>;
  if (r.version !== 1 || r.alg !== 'HMAC-SHA256' || r.key_id !== k.id) return false;
  if ([r.work_hash, r.owner, r.registered_at, r.signature].some((x) => typeof x !== 'string')) return false;
  const sig = fromBase64url(r.signature as string);
  if (!sig) return false;
  const msg = receiptMessage(r as unknown as Receipt);
  return globalThis.crypto.subtle.verify('HMAC', k.key, sig as Uint8Array<ArrayBuffer>, new TextEncoder().encode(msg));
}

/** Bytes → base64url without padding (RFC 4648 §5). */
export function base64url(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url → bytes; null when `s` is not base64url. */
export function fromBase64url(s: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return null;
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
