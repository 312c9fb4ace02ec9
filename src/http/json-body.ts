/**
 * JSON request bodies: UTF-8 decoding, parsing, the shape checks every body passes (nesting depth, lone
 * surrogates) and the route's schema, as one function. The handler runs it in its own thread, or, for a
 * large body and an offload that can ({@link JsonBodyOffload}: `trainprint/node`'s worker pool), on another
 * thread — the same function there, so a body gets the same value or the same error either way.
 */
import { isWellFormed, TrainprintError } from '../library.js';
import type { JsonSchema } from './context.js';
import { compileValidator } from './validate.js';

/**
 * Deepest nesting of a JSON body. Members whose schema admits any JSON (`meta`) end up in the
 * store, in dataset files (msgpack refuses depth > 100) and in responses; a body nested deeper
 * than anything the API needs is refused here, before any of that.
 * @example createHandler(engine) // a body like {"meta":[[[…65 levels…]]]} is 422
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Parses JSON bodies on another thread: exactly {@link parseJsonBody} with the route's schema, resolving to
 * the value or rejecting with the `TrainprintError` (code, detail and the `{ location, field, reason }`
 * cause of a schema failure) it gives. It may move `bytes` to that thread (leaving them empty here): pass a
 * copy to keep them. `createWorkerPool()` from `trainprint/node` is one.
 * @example
 * const pool = createWorkerPool()
 * createHandler(engine, { offload: pool }) // bodies of 1 MiB and more are parsed on the pool
 */
export interface JsonBodyOffload {
  parseJson(bytes: Uint8Array, schema?: JsonSchema): Promise<unknown>;
}

/**
 * A JSON body as a value: UTF-8 (else 400 MALFORMED_JSON), JSON (else 400 MALFORMED_JSON saying where),
 * nested at most {@link MAX_JSON_DEPTH} deep and free of lone surrogates (else 422 INVALID_INPUT naming the
 * field), then `check` (a route's schema).
 * @throws MALFORMED_JSON, INVALID_INPUT
 * @example parseJsonBody(new TextEncoder().encode('{"a":1}')) // { a: 1 }
 */
export function parseJsonBody(raw: Uint8Array, check?: (value: unknown) => unknown): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
  } catch {
    throw new TrainprintError('MALFORMED_JSON', 'the body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // SyntaxError messages say where ("… at position 12"); they hold no internals
    throw new TrainprintError('MALFORMED_JSON', e instanceof SyntaxError ? e.message : undefined);
  }
  checkJsonShape(value);
  return check ? check(value) : value;
}

/** Checkers by schema text: a thread that parses for many routes compiles each schema once. */
const checkers = new Map<string, (value: unknown) => unknown>();

/**
 * The checker of a body schema, compiled once per schema (by its JSON text) — for a thread that receives
 * the schema with each body.
 * @example parseJsonBody(bytes, bodyChecker(route.requestSchema))
 */
export function bodyChecker(schema: JsonSchema): (value: unknown) => unknown {
  const key = JSON.stringify(schema);
  let check = checkers.get(key);
  if (!check) {
    if (checkers.size >= 256) checkers.clear(); // a handful of routes in practice; bounded all the same
    checkers.set(key, (check = compileValidator(schema, 'body')));
  }
  return check;
}

/**
 * Refuse what JSON allows but the engine must not receive: nesting deeper than
 * {@link MAX_JSON_DEPTH}, and strings with lone surrogates (`"\ud800"`: not Unicode text; I-JSON,
 * RFC 7493 §2.1, forbids them). Iterative, so a deep body cannot exhaust the stack here.
 * @throws INVALID_INPUT naming the field
 */
function checkJsonShape(root: unknown): void {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: root, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    const fail = (reason: string): never => {
      const field = path.length > 200 ? `${path.slice(0, 200)}…` : path;
      throw new TrainprintError('INVALID_INPUT', `${field || 'the body'}: ${reason}`, {
        cause: { location: 'body', field, reason },
      });
    };
    if (typeof v === 'string') {
      if (!isWellFormed(v)) fail('contains a lone surrogate (not valid Unicode text)');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) fail(`is nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
    } else {
      for (const [k, x] of Object.entries(v)) {
        if (!isWellFormed(k)) fail('has a member name with a lone surrogate (not valid Unicode text)');
        stack.push({ v: x, depth: depth + 1, path: path === '' ? k : `${path}.${k}` });
      }
    }
  }
}
