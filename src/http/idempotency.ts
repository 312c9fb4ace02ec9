/**
 * `Idempotency-Key` on POSTs that create things (draft-ietf-httpapi-idempotency-key-header): the
 * first successful (2xx) response to a key is kept for 24 hours per account and replayed, with
 * `Idempotency-Replayed: true`, to a retry carrying the same key and the same request (method,
 * path, query and body bytes, compared by SHA-256). The same key with a different request is 409
 * `CONFLICT`, as is a retry that arrives while the first request is still running. Errors are not
 * kept, so a request that failed may be retried with the same key after fixing it.
 *
 * Records: `http/idem/<account>/<sha256(key)>` in the store (the key is hashed: it is the
 * client's string, of any shape). Expired records are dropped when next looked up.
 */
import { TrainprintError, type Store } from '../index.js';
import { sha256Hex } from './auth.js';

/**
 * How long a response is kept, in ms (24 h).
 * @example IDEMPOTENCY_TTL_MS / 3_600_000 // 24
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * A kept response.
 * @example const r: StoredResponse = { status: 201, body: '{"success":true}', content_type: 'application/json; charset=utf-8' }
 */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly content_type: string;
}

interface IdempotencyRecord extends StoredResponse {
  readonly request_hash: string;
  readonly expires_at: number;
}

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/**
 * The idempotency records of one store.
 *
 * @example
 * const idem = new Idempotency(engine.store, Date.now)
 * const slot = await idem.begin('acme', key, requestHash)
 * if (slot.replay) return slot.replay
 * try { …; await slot.finish(response) } finally { slot.release() }
 */
export class Idempotency {
  private readonly running = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * Look the key up: a kept response to replay, or a slot to fill. Call `release()` when the
   * request is over (filled or not).
   * @throws INVALID_INPUT (malformed key), CONFLICT (key used for another request, or still running)
   */
  async begin(account: string, key: string, requestHash: string): Promise<
    { replay: StoredResponse; finish?: undefined; release(): void } | { replay?: undefined; finish(r: StoredResponse): Promise<void>; release(): void }
  > {
    if (!KEY_FORMAT.test(key)) {
      throw new TrainprintError('INVALID_INPUT', 'Idempotency-Key: must be 1–255 visible ASCII characters', { cause: { location: 'header', field: 'Idempotency-Key', reason: 'must be 1–255 visible ASCII characters' } });
    }
    const recordKey = `http/idem/${account}/${await sha256Hex(key)}`;
    if (this.running.has(recordKey)) throw new TrainprintError('CONFLICT', 'a request with this Idempotency-Key is still being processed');
    const kept = (await this.store.get(recordKey)) as IdempotencyRecord | undefined;
    if (kept && kept.expires_at > this.now()) {
      if (kept.request_hash !== requestHash) throw new TrainprintError('CONFLICT', 'this Idempotency-Key was used for a different request');
      return { replay: { status: kept.status, body: kept.body, content_type: kept.content_type }, release: () => undefined };
    }
    if (kept) await this.store.delete(recordKey);
    // checked and added with no await in between: one slot per key in this process
    if (this.running.has(recordKey)) throw new TrainprintError('CONFLICT', 'a request with this Idempotency-Key is still being processed');
    this.running.add(recordKey);
    return {
      finish: async (r: StoredResponse) => {
        const record: IdempotencyRecord = { ...r, request_hash: requestHash, expires_at: this.now() + IDEMPOTENCY_TTL_MS };
        await this.store.put(recordKey, record);
      },
      release: () => { this.running.delete(recordKey); },
    };
  }
}

/**
 * The hash a retry must match: method, path, query and the exact body bytes.
 * @example await requestHash('POST', '/api/v1/content/register', '', bytes)
 */
export async function requestHash(method: string, path: string, query: string, body: Uint8Array): Promise<string> {
  const head = new TextEncoder().encode(`${method} ${path}?${query}\n`);
  const all = new Uint8Array(head.length + body.length);
  all.set(head);
  all.set(body, head.length);
  return sha256Hex(all);
}
