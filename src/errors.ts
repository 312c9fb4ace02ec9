/**
 * One error class for the whole library, with a closed table of codes.
 *
 * Every failure that a caller can act on is a {@link TrainprintError} whose `code`
 * is one of {@link ErrorCode}; the human-readable message comes from {@link MESSAGES}
 * (so docs/errors.md can list them) plus an optional detail. Sync methods throw it,
 * async functions reject with it — never both from one function.
 */

/** Stable, machine-readable error codes. The HTTP status for each is in {@link HTTP_STATUS}. */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'INVALID_OPTIONS'
  | 'PARAMS_MISMATCH'
  | 'SNAPSHOT_INCOMPATIBLE'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'WASM_UNSUPPORTED'
  | 'WASM_ABORT'
  | 'OUT_OF_MEMORY'
  | 'ENGINE_DISPOSED'
  | 'STORE_LOCKED'
  | 'STORE_CLOSED'
  | 'STORE_CORRUPT'
  | 'STORE_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'CONFLICT'
  | 'FORBIDDEN'
  | 'UNAUTHORIZED'
  | 'RATE_LIMITED'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_UNREACHABLE'
  | 'REQUEST_TIMEOUT'
  | 'METHOD_NOT_ALLOWED'
  | 'MALFORMED_JSON'
  | 'INTERNAL'
  | 'MALFORMED_REQUEST'
  | 'NOT_SUPPORTED';

/** The message table: one sentence per code. Details are appended after a colon. */
export const MESSAGES: Readonly<Record<ErrorCode, string>> = Object.freeze({
  INVALID_INPUT: 'The input is not valid',
  INVALID_OPTIONS: 'The options are not valid',
  PARAMS_MISMATCH: 'The fingerprints were made with different parameters and cannot be compared',
  SNAPSHOT_INCOMPATIBLE: 'The snapshot is truncated, corrupted or was written by an incompatible version',
  NOT_FOUND: 'The requested item does not exist',
  ALREADY_EXISTS: 'An item with this id already exists',
  PAYLOAD_TOO_LARGE: 'The input is larger than the configured limit',
  UNSUPPORTED_MEDIA_TYPE: 'The content type is not supported',
  WASM_UNSUPPORTED: 'This runtime cannot run the WebAssembly core',
  WASM_ABORT: 'The WebAssembly core aborted; the engine must be recreated',
  OUT_OF_MEMORY: 'The WebAssembly core could not grow its memory',
  ENGINE_DISPOSED: 'The engine has been disposed',
  STORE_LOCKED: 'The store is locked by another process',
  STORE_CLOSED: 'The store has been closed',
  STORE_CORRUPT: 'The store file is corrupted beyond its last acknowledged write',
  STORE_UNAVAILABLE: 'The database behind the store cannot be reached or refused the connection',
  SERVICE_UNAVAILABLE: 'The service cannot take or finish this request now',
  CONFLICT: 'The request conflicts with the current state',
  FORBIDDEN: 'The caller may not do this',
  UNAUTHORIZED: 'Authentication is missing or not valid',
  RATE_LIMITED: "A limit of the caller's plan is reached (calls per day, or work at once)",
  UPSTREAM_ERROR: 'The model service returned an error',
  UPSTREAM_TIMEOUT: 'The model service did not answer in time',
  UPSTREAM_UNREACHABLE: 'The model service could not be reached',
  REQUEST_TIMEOUT: 'The request body came too slowly',
  METHOD_NOT_ALLOWED: 'The method is not allowed on this path',
  MALFORMED_JSON: 'The request body is not valid JSON',
  INTERNAL: 'An unexpected error occurred',
  MALFORMED_REQUEST: 'The request could not be parsed as HTTP',
  NOT_SUPPORTED: 'The operation is not supported for this item',
});

/** HTTP status used by the HTTP adapter for each code. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  INVALID_INPUT: 422,
  INVALID_OPTIONS: 422,
  PARAMS_MISMATCH: 422,
  SNAPSHOT_INCOMPATIBLE: 422,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  WASM_UNSUPPORTED: 500,
  WASM_ABORT: 500,
  OUT_OF_MEMORY: 507,
  ENGINE_DISPOSED: 500,
  STORE_LOCKED: 503,
  STORE_CLOSED: 503,
  STORE_CORRUPT: 500,
  STORE_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  RATE_LIMITED: 429,
  UPSTREAM_ERROR: 502,
  UPSTREAM_TIMEOUT: 504,
  UPSTREAM_UNREACHABLE: 502,
  REQUEST_TIMEOUT: 408,
  METHOD_NOT_ALLOWED: 405,
  MALFORMED_JSON: 400,
  INTERNAL: 500,
  MALFORMED_REQUEST: 400,
  NOT_SUPPORTED: 501,
});

/** Marks instances; registered (Symbol.for) so every bundle of the library shares it. */
const BRAND = Symbol.for('trainprint.TrainprintError');

/**
 * The library's error. `code` is stable; `message` is `MESSAGES[code]` plus the detail.
 *
 * @example
 * try { normalize(42 as never) } catch (e) {
 *   if (e instanceof TrainprintError && e.code === 'INVALID_INPUT') console.log(e.detail)
 * }
 */
export class TrainprintError extends Error {
  /**
   * `instanceof` recognises errors of every copy of the library in a program (the main entry and
   * `trainprint/fingerprint` are separate bundles), by a registered symbol rather than by identity.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
  override readonly name = 'TrainprintError';
  /** Machine-readable code from the table above. */
  readonly code: ErrorCode;
  /** The specific reason, without the generic sentence. */
  readonly detail: string | undefined;

  constructor(code: ErrorCode, detail?: string, options?: { cause?: unknown }) {
    super(detail ? `${MESSAGES[code]}: ${detail}` : MESSAGES[code], options);
    this.code = code;
    this.detail = detail;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True when `value` is a {@link TrainprintError} (with the given code, if one is passed); works across copies of
 * the package, where `instanceof` does not.
 * @example
 * try { await engine.score(request) } catch (e) { if (isTrainprintError(e, 'NOT_FOUND')) console.log(e.detail) }
 */
export function isTrainprintError(value: unknown, code?: ErrorCode): value is TrainprintError {
  return value instanceof TrainprintError && (code === undefined || value.code === code);
}
