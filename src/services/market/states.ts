/**
 * The two state machines of the marketplace, as tables, and the one check every change goes
 * through: a transition that is not in the table is a CONFLICT naming the current state and the
 * states the action needs, so the caller can see why (and the tests can walk the whole table).
 */
import { TrainprintError } from '../../errors.js';
import type { ListingStatus, OfferStatus } from './types.js';

/**
 * Allowed listing transitions. `draft → withdrawn` discards a draft; `active → sold_out` happens
 * only on acceptance (exclusive listing, or `max_licences` reached). Final: withdrawn, sold_out.
 * @example LISTING_TRANSITIONS.active // ['withdrawn', 'sold_out']
 */
export const LISTING_TRANSITIONS: Readonly<Record<ListingStatus, readonly ListingStatus[]>> = Object.freeze({
  draft: ['active', 'withdrawn'],
  active: ['withdrawn', 'sold_out'],
  withdrawn: [],
  sold_out: [],
});

/**
 * Allowed offer transitions: only a pending offer moves, and every move is final.
 * @example OFFER_TRANSITIONS.declined // []
 */
export const OFFER_TRANSITIONS: Readonly<Record<OfferStatus, readonly OfferStatus[]>> = Object.freeze({
  pending: ['accepted', 'declined', 'countered', 'expired', 'withdrawn'],
  accepted: [],
  declined: [],
  countered: [],
  expired: [],
  withdrawn: [],
});

function fromStates<S extends string>(table: Readonly<Record<S, readonly S[]>>, to: S): S[] {
  return (Object.keys(table) as S[]).filter((s) => table[s].includes(to));
}

/**
 * Throws CONFLICT unless the listing may go from `from` to `to`.
 * @example
 * assertListingTransition('lst_1', 'sold_out', 'withdrawn', 'withdraw') // throws CONFLICT
 */
export function assertListingTransition(id: string, from: ListingStatus, to: ListingStatus, action: string): void {
  if (LISTING_TRANSITIONS[from].includes(to)) return;
  throw new TrainprintError(
    'CONFLICT',
    `cannot ${action} listing ${id}: it is ${from}; ${action} needs ${fromStates(LISTING_TRANSITIONS, to).join(' or ') || 'no state'}`,
  );
}

/**
 * Throws CONFLICT unless the offer may go from `from` to `to`; `reason` (why it left pending)
 * is added to the message.
 * @example
 * assertOfferTransition('ofr_1', 'expired', 'accepted', 'accept') // throws CONFLICT
 */
export function assertOfferTransition(
  id: string,
  from: OfferStatus,
  to: OfferStatus,
  action: string,
  reason?: string | null,
): void {
  if (OFFER_TRANSITIONS[from].includes(to)) return;
  throw new TrainprintError(
    'CONFLICT',
    `cannot ${action} offer ${id}: it is ${from}${reason ? ` (${reason})` : ''}; only a pending offer can be ${to}`,
  );
}

/**
 * Throws CONFLICT when a listing cannot take changes or offers (anything but the given states).
 * @example
 * assertListingIn('lst_1', 'draft', ['active'], 'make an offer on') // throws CONFLICT
 */
export function assertListingIn(
  id: string,
  status: ListingStatus,
  allowed: readonly ListingStatus[],
  action: string,
): void {
  if (allowed.includes(status)) return;
  throw new TrainprintError(
    'CONFLICT',
    `cannot ${action} listing ${id}: it is ${status}; this needs ${allowed.join(' or ')}`,
  );
}
