/** The query parameters of a request, coerced to the types of the route's `querySchema` and validated (422). */
import { TrainprintError } from '../../library.js';
import { coerceQuery } from '../validate.js';
import type { RouteMatch } from './match.js';

/**
 * Step: the query as the route takes it; a route without a query schema takes no parameter at all.
 * @throws INVALID_INPUT naming the parameter (`details.location: 'query'`)
 * @example const query = parseQuery(found) // ?limit=5 → { limit: 5 }
 */
export function parseQuery(found: RouteMatch): Record<string, unknown> {
  const query = coerceQuery(found.url.searchParams, found.route.querySchema);
  if (found.compiled.checkQuery) found.compiled.checkQuery(query);
  else if (Object.keys(query).length > 0)
    throw new TrainprintError('INVALID_INPUT', `${Object.keys(query)[0]}: is not a known query parameter`, {
      cause: { location: 'query', field: Object.keys(query)[0], reason: 'is not a known query parameter' },
    });
  return query;
}
