/**
 * The refusals the routes make themselves, beyond what the schemas and the engine check: each
 * throws the `TrainprintError` the adapter turns into the error envelope.
 */
import { TrainprintError } from '../../library.js';

/**
 * 404 `NOT_FOUND` with the detail given.
 * @example (await ctx.keys.revokeKey(account, id)) ?? notFound(`no API key "${id}"`)
 */
export function notFound(detail: string): never {
  throw new TrainprintError('NOT_FOUND', detail);
}

/**
 * 422 `INVALID_INPUT` naming a body field, for what a schema alone cannot require (one of two, not both).
 * @example if (!b.content && !b.fingerprint) invalidField('content', 'is required (or give fingerprint)')
 */
export function invalidField(field: string, reason: string): never {
  throw new TrainprintError('INVALID_INPUT', `${field}: ${reason}`, { cause: { location: 'body', field, reason } });
}
