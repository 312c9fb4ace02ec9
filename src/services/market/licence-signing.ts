/**
 * Licence signatures: HMAC-SHA256 with the engine's receipt key (the same key and algorithm as
 * registration receipts, src/services/registry/receipts.ts) over the licence's own canonical message, so a
 * receipt can never pass for a licence or the other way round.
 *
 * The message is a fixed prefix line and then one JSON array of every signed field in a fixed
 * order. JSON (not one field per line, as receipts do) because licensor and licensee are free
 * account strings: a newline inside one could otherwise shift the fields and sign something else.
 */
import type { ReceiptKey } from '../registry/receipts.js';
import type { Licence, LicenceFields, OutputCap, RateUnit } from './types.js';
import { base64url, fromBase64url } from '../registry/receipts.js';

const PREFIX = 'trainprint-licence/v1\n';

/**
 * The signed message of a licence.
 * @example
 * licenceMessage(fields) // 'trainprint-licence/v1\n["lic_…","lst_…",…]'
 */
export function licenceMessage(f: LicenceFields): string {
  const cap = f.output_cap === null ? null : [f.output_cap.max_consecutive_words, f.output_cap.max_percent];
  return (
    PREFIX +
    JSON.stringify([
      f.licence_id,
      f.listing_id,
      f.offer_id,
      f.work_id,
      f.work_hash,
      f.licensor,
      f.licensee,
      f.licence_type,
      f.territory,
      f.term.start,
      f.term.end,
      f.amount.amount_minor,
      f.amount.currency,
      f.per,
      f.exclusive,
      cap,
      f.issued_at,
    ])
  );
}

/**
 * Sign licence fields with key `k`.
 * @example
 * const licence = await signLicence(await loadReceiptKey(store), fields)
 * licence.alg // 'HMAC-SHA256'
 */
export async function signLicence(k: ReceiptKey, fields: LicenceFields): Promise<Licence> {
  const sig = await globalThis.crypto.subtle.sign('HMAC', k.key, new TextEncoder().encode(licenceMessage(fields)));
  return { version: 1, alg: 'HMAC-SHA256', key_id: k.id, ...fields, signature: base64url(new Uint8Array(sig)) };
}

/**
 * True when `licence` was signed by key `k` and no signed field changed (constant-time compare
 * inside WebCrypto). Never throws: anything malformed is simply not valid.
 * @example
 * await checkLicence(key, licence)                          // true
 * await checkLicence(key, { ...licence, licensee: 'other' }) // false
 */
export async function checkLicence(k: ReceiptKey, licence: unknown): Promise<boolean> {
  const f = readFields(licence);
  if (f === null || !onlySignedMembers(licence as Record<string, unknown>)) return false;
  const l = licence as Record<string, unknown>;
  if (l.version !== 1 || l.alg !== 'HMAC-SHA256' || l.key_id !== k.id || typeof l.signature !== 'string') return false;
  const sig = fromBase64url(l.signature);
  if (sig === null) return false;
  return globalThis.crypto.subtle.verify(
    'HMAC',
    k.key,
    sig as Uint8Array<ArrayBuffer>,
    new TextEncoder().encode(licenceMessage(f)),
  );
}

/**
 * `start` plus `months` calendar months (UTC), clamped to the month's last day (Jan 31 + 1 → Feb 28/29).
 * @example addMonths('2024-01-31T10:00:00.000Z', 1) // '2024-02-29T10:00:00.000Z'
 */
export function addMonths(start: string, months: number): string {
  const d = new Date(start);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.toISOString();
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNumOrNull = (v: unknown): v is number | null => v === null || isNum(v);

/** The string fields a licence opens with, in its order: ids, parties and type. */
const ID_FIELDS = [
  'licence_id',
  'listing_id',
  'offer_id',
  'work_id',
  'work_hash',
  'licensor',
  'licensee',
  'licence_type',
] as const;

/** The members a licence has: its signed fields, its signature's, and `verified` (a read-back's own check). */
const LICENCE_MEMBERS = new Set([
  ...ID_FIELDS,
  'territory',
  'term',
  'amount',
  'per',
  'exclusive',
  'output_cap',
  'issued_at',
  'version',
  'alg',
  'key_id',
  'signature',
  'verified',
]);

/** Whether `o`'s members are all among `names`. */
const onlyMembers = (o: object, names: readonly string[]) => Object.keys(o).every((k) => names.includes(k));

/**
 * Whether a licence holds no member that was not signed (a term added to a signed licence — `sublicensable: true` —
 * would otherwise read as the marketplace's), at its top and inside its term, amount and output cap.
 */
function onlySignedMembers(l: Record<string, unknown>): boolean {
  return (
    Object.keys(l).every((k) => LICENCE_MEMBERS.has(k)) &&
    onlyMembers(l.term as object, ['start', 'end']) &&
    onlyMembers(l.amount as object, ['amount_minor', 'currency']) &&
    (l.output_cap === null || onlyMembers(l.output_cap as object, ['max_consecutive_words', 'max_percent']))
  );
}

/** The signed fields of `v` when every one has the right type, else null. */
function readFields(v: unknown): LicenceFields | null {
  if (v === null || typeof v !== 'object') return null;
  const l = v as Record<string, unknown>;
  const term = l.term as Record<string, unknown> | null;
  const amount = l.amount as Record<string, unknown> | null;
  const cap = l.output_cap as Record<string, unknown> | null;
  const ok =
    ID_FIELDS.every((k) => isStr(l[k])) &&
    isStr(l.issued_at) &&
    Array.isArray(l.territory) &&
    l.territory.every(isStr) &&
    term !== null &&
    typeof term === 'object' &&
    isStr(term.start) &&
    isStr(term.end) &&
    amount !== null &&
    typeof amount === 'object' &&
    isNum(amount.amount_minor) &&
    isStr(amount.currency) &&
    (l.per === null || isStr(l.per)) &&
    typeof l.exclusive === 'boolean' &&
    (cap === null ||
      (typeof cap === 'object' && isNumOrNull(cap.max_consecutive_words) && isNumOrNull(cap.max_percent)));
  if (!ok) return null;
  // the fields in the order a licence has them (the ids first, issued_at last)
  const ids = Object.fromEntries(ID_FIELDS.map((k) => [k, l[k]])) as Pick<LicenceFields, (typeof ID_FIELDS)[number]>;
  return {
    ...ids,
    territory: l.territory as string[],
    term: { start: term.start as string, end: term.end as string },
    amount: { amount_minor: amount.amount_minor as number, currency: amount.currency as string },
    per: l.per as RateUnit | null,
    exclusive: l.exclusive as boolean,
    output_cap: cap === null ? null : (cap as unknown as OutputCap),
    issued_at: l.issued_at as string,
  };
}
