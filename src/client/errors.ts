/**
 * The one error class of the HTTP client. Every failure of a call rejects with it: an error body
 * of the API (`{ success: false, error: { code, message, details? } }`), an OAuth token error
 * (RFC 6749 `{ error, error_description }`), a body the client cannot read, a network failure,
 * a timeout or an abort.
 */

/**
 * Codes the client itself gives, next to the API's own (`UNAUTHORIZED`, `RATE_LIMITED`,
 * `NOT_FOUND`, … — docs/errors.md):
 * - `NETWORK_ERROR` — no response (connection refused or reset, DNS, CORS); `status` 0;
 * - `TIMEOUT` — no response within `timeoutMs`; `status` 0;
 * - `ABORTED` — the caller's `signal` aborted the call; `status` 0;
 * - `HTTP_ERROR` — an error status whose body is not an error envelope (a proxy's page).
 *
 * @example
 * try { await client.getWork(id) } catch (e) { if (e instanceof TrainprintApiError && e.code === CLIENT_ERROR_CODES.NETWORK) retryLater() }
 */
export const CLIENT_ERROR_CODES = Object.freeze({
  NETWORK: 'NETWORK_ERROR',
  TIMEOUT: 'TIMEOUT',
  ABORTED: 'ABORTED',
  HTTP: 'HTTP_ERROR',
} as const);

/**
 * A failed call.
 *
 * @example
 * try {
 *   await client.analyze({ content: '', content_type: 'text' })
 * } catch (e) {
 *   if (e instanceof TrainprintApiError) console.log(e.status, e.code, e.details?.field) // 422 INVALID_INPUT content
 * }
 */
export class TrainprintApiError extends Error {
  override readonly name = 'TrainprintApiError';
  /** HTTP status; 0 when there was no response (network error, timeout, abort). */
  readonly status: number;
  /** The API's code (`RATE_LIMITED`, `NOT_FOUND`, …) or one of {@link CLIENT_ERROR_CODES}. */
  readonly code: string;
  /** The envelope's `details` (e.g. `{ location, field, reason }` for 422, `{ allow }` for 405). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** `X-Request-Id` of the response (or `details.request_id`): quote it to the operator. */
  readonly request_id: string | null;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retry_after: number | null;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
    request_id?: string | null;
    retry_after?: number | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.request_id = init.request_id ?? null;
    this.retry_after = init.retry_after ?? null;
  }
}

/**
 * Whether a value is a {@link TrainprintApiError} (also across bundles, where `instanceof` fails).
 * @example if (isTrainprintApiError(e) && e.status === 404) return null
 */
export function isTrainprintApiError(e: unknown): e is TrainprintApiError {
  return (
    e instanceof TrainprintApiError ||
    (typeof e === 'object' &&
      e !== null &&
      (e as { name?: unknown }).name === 'TrainprintApiError' &&
      typeof (e as { code?: unknown }).code === 'string' &&
      typeof (e as { status?: unknown }).status === 'number')
  );
}
