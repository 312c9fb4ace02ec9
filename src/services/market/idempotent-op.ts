/**
 * Idempotency keys: the first call with a key stores `{ request, result }` under
 * `idem/<scope>/<caller>/<key>` in the same transaction as its change; a later call with the same
 * key, caller and request gets that result back without changing anything, and the same key with a
 * different request is a CONFLICT (the key was reused by mistake). A call that fails stores nothing,
 * so it can be retried with the same key. Records are kept (no expiry): they are small, and a
 * retry days later must not sell twice.
 */
import { TrainprintError } from '../../errors.js';
import { K } from './keys.js';
import type { Op } from './op.js';

interface IdemRecord {
  readonly request: string;
  readonly result: unknown;
  readonly created_at: string;
}

/**
 * JSON with object keys sorted, so equal requests give equal strings whatever their key order.
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, (x as Record<string, unknown>)[k]]),
        )
      : x,
  );
}

/**
 * The stored result for this key, or undefined when the key is new.
 * @throws CONFLICT when the key was used with a different request
 * @example
 * const hit = await idemLookup(op, 'accept', 'estate', 'k1', offerId)
 */
export async function idemLookup(
  op: Op,
  scope: string,
  caller: string,
  key: string,
  request: string,
): Promise<{ result: unknown } | undefined> {
  const rec = (await op.get(K.idem(scope, caller, key))) as IdemRecord | undefined;
  if (rec === undefined) return undefined;
  if (rec.request !== request)
    throw new TrainprintError('CONFLICT', `idempotency key "${key}" was already used for a different ${scope} request`);
  return { result: rec.result };
}

/**
 * Store the result of the first call with this key.
 * @example idemRemember(op, 'accept', 'estate', 'k1', offerId, licence)
 */
export function idemRemember(
  op: Op,
  scope: string,
  caller: string,
  key: string,
  request: string,
  result: unknown,
): void {
  op.put(K.idem(scope, caller, key), { request, result, created_at: op.nowIso } satisfies IdemRecord);
}
