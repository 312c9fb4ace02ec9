/**
 * Input checks shared by analyze, the registry, score and monitors: every failure is an
 * INVALID_INPUT naming the field, so a caller (or the HTTP adapter's 422 body) can fix it.
 */
import { TrainprintError } from '../errors.js';
import { invalidField, readRequest } from './schema-check.js';

/** A lone surrogate (UTF-8 would turn it into U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether `s` holds no lone surrogate (native `isWellFormed` where the runtime has it): store keys and values,
 * snapshot texts.
 * @example isWellFormed('a\ud800') // false
 */
export function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === 'function' ? native.call(s) : !LONE_SURROGATE.test(s);
}

/**
 * The rule a JSON body's decoder applies to every string (I-JSON, RFC 7493 §2.1), for the library's door too: each of
 * `names` that `o` holds is valid Unicode, else INVALID_INPUT naming it, in the words of the HTTP adapter's refusal.
 * @example wellFormedMembers({ title: 'a\ud800' }, ['title'], 'metadata.') // "metadata.title: contains a lone surrogate …"
 */
export function wellFormedMembers(o: object | undefined, names: readonly string[], prefix: string): void {
  for (const k of names) {
    const v = (o as Record<string, unknown> | undefined)?.[k];
    if (typeof v === 'string' && !isWellFormed(v))
      invalidField(`${prefix}${k}`, 'contains a lone surrogate (not valid Unicode text)');
  }
}

/** Throw INVALID_INPUT with `detail`. */
export function fail(detail: string): never {
  throw new TrainprintError('INVALID_INPUT', detail);
}

/**
 * `v` must be a plain object (not null, not an array). Returns it read once into a copy
 * ({@link readRequest}): a throwing getter is INVALID_INPUT, and the caller checks and uses the same values.
 */
export function checkObject(v: unknown, where: string): Record<string, unknown> {
  const copy = readRequest(v, where);
  if (copy === null || typeof copy !== 'object' || Array.isArray(copy)) fail(`${where} must be an object`);
  return copy as Record<string, unknown>;
}

/** Refuse members outside `allowed` (unknown fields are not silently dropped). */
export function onlyKeys(o: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) fail(`${where}: unknown field "${k}" (allowed: ${allowed.join(', ')})`);
  }
}

/** A string of 1..max characters. */
export function checkString(v: unknown, where: string, max = 1000): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max)
    fail(`${where} must be a non-empty string of at most ${max} characters`);
  return v as string;
}

const DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Whether `v` is an ISO 8601 date or date-time that names a real day.
 * @example isIsoDate('2024-05-01') // true; isIsoDate('2024-13-01') // false
 */
export const isIsoDate = (v: string): boolean => DATE.test(v) && !Number.isNaN(Date.parse(v));

/**
 * A request's date, when given: an ISO 8601 date or date-time naming a real day, else INVALID_INPUT naming `field`.
 * @example realDate('soon', 'declarations.since') // throws 'declarations.since: must be an ISO 8601 date such as …'
 */
export function realDate(v: string | undefined, field: string): void {
  if (v !== undefined && !isIsoDate(v)) invalidField(field, 'must be an ISO 8601 date such as "2024-05-01"');
}

/** An ISO 8601 date or date-time. */
export function parseDate(v: unknown, where: string): Date {
  if (typeof v !== 'string' || !isIsoDate(v)) fail(`${where} must be an ISO 8601 date such as "2024-05-01"`);
  return new Date(v as string);
}

/** `an_`/`wk_`/… + 32 random hex digits (WebCrypto, every runtime). */
export function newId(prefix: string): string {
  return prefix + randomHex(16);
}

/**
 * `bytes` random bytes from the platform's CSPRNG, as lower-case hex (ids, key ids, token ids).
 * @example randomHex(8) // 'f3a09c1d2b7e4455'
 */
export function randomHex(bytes: number): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (x) =>
    x.toString(16).padStart(2, '0'),
  ).join('');
}

/**
 * An option that must be a positive integer (at most `max` when given): `fallback` when not given, else
 * INVALID_OPTIONS naming it, its range and the value.
 * @example
 * positiveInt('maxBodyBytes', options.maxBodyBytes, 1_048_576) // 1048576 when not given
 * positiveInt('leaseSeconds', 0, 120, 86_000)                  // INVALID_OPTIONS: leaseSeconds must be an integer in 1..86000, got 0
 */
export function positiveInt(
  name: string,
  value: number | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const v = value ?? fallback;
  if (Number.isInteger(v) && v >= 1 && v <= max) return v;
  const range = max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer in 1..${max}`;
  throw new TrainprintError('INVALID_OPTIONS', `${name} must be ${range}, got ${String(value)}`);
}

/**
 * A `signal` option: undefined, or an AbortSignal (anything with a boolean `aborted` and an `addEventListener`,
 * so a polyfill's signal is one); else INVALID_OPTIONS.
 * @example checkSignal(AbortSignal.timeout(1000)) // returns it
 * checkSignal({}) // INVALID_OPTIONS: signal must be an AbortSignal
 */
export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (
    signal !== undefined &&
    (typeof signal !== 'object' ||
      signal === null ||
      typeof (signal as AbortSignal).aborted !== 'boolean' ||
      typeof (signal as AbortSignal).addEventListener !== 'function')
  )
    throw new TrainprintError('INVALID_OPTIONS', 'signal must be an AbortSignal');
  return signal as AbortSignal | undefined;
}
