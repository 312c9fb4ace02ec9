/**
 * The canonical serialization an evidence bundle is signed over: the JSON Canonicalization Scheme (RFC 8785, JCS) for
 * the values a bundle holds — object members sorted by their names' UTF-16 code units, no whitespace, strings and
 * numbers written as ECMAScript's `JSON.stringify` writes them (RFC 8785 §3.2.2 adopts exactly that number form).
 * Members whose value is `undefined` are left out, as `JSON.stringify` leaves them out, so a bundle and the same
 * bundle written to a file and read back give the same bytes.
 */
import { TrainprintError } from '../../errors.js';

/**
 * `value` as canonical JSON text (RFC 8785). Its UTF-8 is what a bundle's signature signs.
 * @throws INVALID_INPUT for a value JSON cannot carry as it is: a non-finite number, a bigint, a function, a cycle
 * @example
 * canonicalJson({ b: [1, 'x'], a: 0.5 }) // '{"a":0.5,"b":[1,"x"]}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, open: Set<object>): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TrainprintError('INVALID_INPUT', `canonical JSON has no ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value !== 'object') throw new TrainprintError('INVALID_INPUT', `canonical JSON has no ${typeof value}`);
  // a cycle would recurse forever; a value reached twice without a cycle is written twice, as JSON.stringify does
  if (open.has(value)) throw new TrainprintError('INVALID_INPUT', 'canonical JSON of a cyclic value');
  open.add(value);
  let out: string;
  if (Array.isArray(value)) {
    // undefined in an array is null in JSON
    out = `[${value.map((v) => (v === undefined ? 'null' : write(v, open))).join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort(compareUtf16);
    out = `{${keys.map((k) => `${JSON.stringify(k)}:${write(record[k], open)}`).join(',')}}`;
  }
  open.delete(value);
  return out;
}

/** Order by UTF-16 code units (RFC 8785 §3.2.3): JavaScript's default string comparison. */
function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
