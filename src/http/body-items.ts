/**
 * Counting a job body's items while it is read, so that a body with more items than the caller's plan allows is
 * refused (413) at the first item too many — milliseconds and a few KB into a million-line body — instead of after
 * the whole body was read and parsed (seconds, and hundreds of MB of parsed values kept by the heap afterwards).
 * The count is a scan of the bytes, not a parse: JSON lines count their non-blank lines; a JSON body counts the
 * elements of its top-level `items` array (strings and nesting followed, so a `,` or `]` inside an item does not
 * count). The parse after the read stays the judge of what the body holds: the scan only refuses early what the
 * parse would refuse anyway.
 */
import { TrainprintError } from '../library.js';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Whitespace between JSON tokens (RFC 8259 §2). */
function blank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/** The bytes of a key kept to compare it with `items` (a longer key is not `items`, even escaped). */
const KEY_BYTES = 64;

/**
 * A watch for `readBody` that throws 413 `PAYLOAD_TOO_LARGE` as soon as the body holds more than `max` items:
 * the lines of JSON lines (`ndjson`), else the elements of the top-level object's `items` array.
 * @example
 * const watch = itemCounter(true, 100, 'a job on plan "free" holds at most 100 items (jobItems)')
 * watch(new TextEncoder().encode('{"text":"a"}\n'.repeat(101))) // throws PAYLOAD_TOO_LARGE
 */
export function itemCounter(ndjson: boolean, max: number, what: string): (chunk: Uint8Array) => void {
  const refuse = (): never => {
    throw new TrainprintError('PAYLOAD_TOO_LARGE', `${what}; this one has more`);
  };
  return ndjson ? lineCounter(max, refuse) : arrayCounter(max, refuse);
}

/** Non-blank lines, counted at their first byte that is not whitespace. */
function lineCounter(max: number, refuse: () => never): (chunk: Uint8Array) => void {
  let lines = 0;
  let counted = false; // the current line was counted
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === NEWLINE) counted = false;
      else if (!counted && !blank(b)) {
        counted = true;
        if (++lines > max) refuse();
      }
    }
  };
}

/** The elements of the top-level object's `items` array (each `items` member counted on its own). */
function arrayCounter(max: number, refuse: () => never): (chunk: Uint8Array) => void {
  let depth = 0;
  let topIsObject = false;
  let inString = false;
  let escaped = false;
  let key: number[] = []; // the last string closed at depth 1 (its first KEY_BYTES bytes), a member's key
  let keyLong = false;
  let counting = false; // inside the top-level `items` array (its own level is depth 2)
  let expectElement = false;
  let count = 0;
  const isItems = (): boolean => {
    if (keyLong) return false;
    const raw = String.fromCharCode(...key);
    if (!raw.includes('\\')) return raw === 'items';
    try {
      return JSON.parse(`"${raw}"`) === 'items';
    } catch {
      return false;
    }
  };
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (inString) {
        if (depth === 1 && !counting) {
          if (key.length < KEY_BYTES) key.push(b);
          else keyLong = true;
        }
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) {
          inString = false;
          if (depth === 1) key.pop(); // the closing quote
        }
        continue;
      }
      if (blank(b)) continue;
      if (counting && depth === 2 && expectElement && b !== CLOSE_ARRAY) {
        expectElement = false;
        if (++count > max) refuse();
      }
      if (b === QUOTE) {
        inString = true;
        if (depth === 1) {
          key = [];
          keyLong = false;
        }
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        if (depth === 0) topIsObject = b === OPEN_OBJECT;
        else if (depth === 1 && b === OPEN_ARRAY && topIsObject && isItems()) {
          counting = true;
          expectElement = true;
          count = 0;
        }
        depth++;
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth--;
        if (depth === 1) counting = false;
      } else if (b === COMMA && counting && depth === 2) expectElement = true;
    }
  };
}
