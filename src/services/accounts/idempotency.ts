/**
 * `Idempotency-Key` on POSTs that create things (draft-ietf-httpapi-idempotency-key-header): the
 * first successful (2xx) response to a key is kept for 24 hours per account and replayed, with
 * `Idempotency-Replayed: true`, to a retry carrying the same key and the same request (method,
 * path, query and body bytes, compared by SHA-256). The same key with a different request is 409
 * `CONFLICT`, as is a retry that arrives while the first request is still running. Errors are not
 * kept, so a request that failed may be retried with the same key after fixing it.
 *
 * Records: `http/idem/<account>/<sha256(key)>` in the store (the key is hashed: it is the
 * client's string, of any shape), and `http/idem-claim/<account>/<sha256(key)>` while a request with the key
 * runs. Expired records are dropped when next looked up.
 */
import { TrainprintError } from '../../errors.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import type { Store } from '../../store/types.js';

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
 * How long a running request's claim on its key holds in the store when its process dies before the request
 * ends (10 min): until then a retry is 409 "still being processed"; after it, the key can be used again.
 * @example IDEMPOTENCY_CLAIM_MS / 60_000 // 10
 */
export const IDEMPOTENCY_CLAIM_MS = 10 * 60_000;

interface Claim {
  readonly token: string;
  readonly until: number;
}

type Slot =
  | { replay: StoredResponse; finish?: undefined; release(): Promise<void> }
  | { replay?: undefined; finish(r: StoredResponse): Promise<void>; release(): Promise<void> };

/**
 * The idempotency records of one store. A request running with a key holds a claim on it in the store
 * (`http/idem-claim/…`, taken in one store transaction with the look-up of a kept response), so a retry that
 * reaches another process serving the same store while the first still runs is refused too, not run twice.
 *
 * @example
 * const idem = new Idempotency(engine.store, Date.now)
 * const slot = await idem.begin('acme', key, requestHash)
 * if (slot.replay) return slot.replay
 * try { …; await slot.finish(response) } finally { await slot.release() }
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
  async begin(account: string, key: string, requestHash: string): Promise<Slot> {
    if (!KEY_FORMAT.test(key)) {
      const reason = 'must be 1–255 visible ASCII characters';
      throw new TrainprintError('INVALID_INPUT', `Idempotency-Key: ${reason}`, {
        cause: { location: 'header', field: 'Idempotency-Key', reason },
      });
    }
    const hash = await sha256Hex(key);
    const recordKey = `http/idem/${account}/${hash}`;
    const claimKey = `http/idem-claim/${account}/${hash}`;
    // this process first (checked and added with no await in between), then every process through the store
    if (this.running.has(recordKey)) throw stillRunning();
    this.running.add(recordKey);
    const token = `${this.now()}-${Math.random().toString(36).slice(2)}`;
    let claimed = false;
    const release = async () => {
      this.running.delete(recordKey);
      if (!claimed) return;
      claimed = false;
      // only our own claim: after IDEMPOTENCY_CLAIM_MS another request may hold the key
      await this.store
        .transaction(async (tx) => {
          if (((await tx.get(claimKey)) as Claim | undefined)?.token === token) tx.delete(claimKey);
        })
        .catch(() => undefined); // a claim left behind lapses by itself
    };
    try {
      const found = await this.store.transaction(async (tx) => {
        const now = this.now();
        const kept = (await tx.get(recordKey)) as IdempotencyRecord | undefined;
        if (kept && kept.expires_at > now) return { kept };
        if (kept) tx.delete(recordKey);
        const claim = (await tx.get(claimKey)) as Claim | undefined;
        if (claim && claim.until > now) return { running: true };
        tx.put(claimKey, { token, until: now + IDEMPOTENCY_CLAIM_MS } satisfies Claim);
        return {};
      });
      if (found.running) throw stillRunning();
      if (found.kept) {
        const { kept } = found;
        if (kept.request_hash !== requestHash) {
          throw new TrainprintError('CONFLICT', 'this Idempotency-Key was used for a different request');
        }
        this.running.delete(recordKey);
        const replay = { status: kept.status, body: kept.body, content_type: kept.content_type };
        return { replay, release: async () => undefined };
      }
      claimed = true;
    } catch (e) {
      this.running.delete(recordKey);
      throw e;
    }
    return {
      finish: async (r: StoredResponse) => {
        const expires_at = this.now() + IDEMPOTENCY_TTL_MS;
        const record: IdempotencyRecord = { ...r, request_hash: requestHash, expires_at };
        // the response kept and the claim given up together
        await this.store.batch([
          { type: 'put', key: recordKey, value: record },
          { type: 'delete', key: claimKey },
        ]);
        claimed = false;
      },
      release,
    };
  }
}

function stillRunning(): TrainprintError {
  return new TrainprintError('CONFLICT', 'a request with this Idempotency-Key is still being processed');
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
