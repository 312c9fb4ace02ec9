/**
 * Record helpers shared by the listing and offer operations: loading with NOT_FOUND, moving an
 * offer through its state machine (indexes and audit included), lazy expiry, the cascade that
 * declines a listing's pending offers, and the exclusivity rule: within one work and licence
 * type, an exclusive listing or licence may not overlap (in territory, and for licences in time)
 * any other live listing or licence — otherwise an owner could sell "exclusive" rights twice
 * through two listings.
 */
import { TrainprintError } from '../../errors.js';
import type { ReceiptKey } from '../registry/receipts.js';
import type { Work } from '../registry/works.js';
import type { Store } from '../../store/types.js';
import { appendAudit } from './audit.js';
import { K } from './keys.js';
import type { Op } from './op.js';
import { assertOfferTransition } from './states.js';
import { overlaps } from './territory.js';
import type { Licence, Listing, Offer, OfferStatus } from './types.js';

/** What every marketplace operation needs. */
export interface MarketContext {
  readonly store: Store;
  readonly key: () => Promise<ReceiptKey>;
  readonly now: () => number;
}

/** The listing, or NOT_FOUND. */
export async function loadListing(op: Op, id: string): Promise<Listing> {
  const l = (await op.get(K.listing(id))) as Listing | undefined;
  if (l === undefined) throw new TrainprintError('NOT_FOUND', `no listing "${id}"`);
  return l;
}

/** The work must still be registered to the listing's owner (it may have been deleted since). */
export async function assertWorkHeld(op: Op, l: Listing): Promise<void> {
  const w = (await op.get(K.work(l.work_id))) as Work | undefined;
  if (w === undefined || w.owner !== l.owner)
    throw new TrainprintError(
      'CONFLICT',
      `work ${l.work_id} of listing ${l.listing_id} is no longer registered to ${l.owner}`,
    );
}

/**
 * CONFLICT when `l` (with `territory`) would clash with a live licence — or, with `listings`, an
 * active listing — of the same work and licence type, where either side is exclusive and the
 * territories overlap. A licence is live until its term ends.
 */
export async function assertExclusivity(
  op: Op,
  l: Listing,
  territory: readonly string[],
  listings: boolean,
): Promise<void> {
  for (const [, id] of await op.scan(K.licencesOfWork(l.work_id))) {
    const lic = (await op.get(K.licence(id as string))) as Licence | undefined;
    if (!lic || lic.licence_type !== l.licence_type || lic.term.end <= op.nowIso) continue;
    if ((l.exclusive || lic.exclusive) && overlaps(territory, lic.territory)) {
      throw new TrainprintError(
        'CONFLICT',
        `${lic.exclusive ? 'exclusive ' : ''}${lic.licence_type} licence ${lic.licence_id} for work ${l.work_id} covers ${lic.territory.join(', ')} until ${lic.term.end}; ${l.exclusive ? 'an exclusive licence needs no other live licence there' : 'it excludes other licences there'}`,
      );
    }
  }
  if (!listings) return;
  for (const [, id] of await op.scan(K.listingsOfWork(l.work_id))) {
    if (id === l.listing_id) continue;
    const other = (await op.get(K.listing(id as string))) as Listing | undefined;
    if (other?.status !== 'active' || other.licence_type !== l.licence_type) continue;
    if ((l.exclusive || other.exclusive) && overlaps(territory, other.territory)) {
      throw new TrainprintError(
        'CONFLICT',
        `active listing ${other.listing_id} already offers ${other.exclusive ? 'exclusive ' : ''}${other.licence_type} rights to work ${l.work_id} in ${other.territory.join(', ')}; exclusive and other listings may not overlap`,
      );
    }
  }
}

/** The offer, or NOT_FOUND. */
export async function loadOffer(op: Op, id: string): Promise<Offer> {
  const o = (await op.get(K.offer(id))) as Offer | undefined;
  if (o === undefined) throw new TrainprintError('NOT_FOUND', `no offer "${id}"`);
  return o;
}

/**
 * Move an offer to `to` (CONFLICT when the table forbids it): writes it, drops its pending and
 * due index entries when it leaves `pending`, and appends `offer.<to>` to the audit log.
 */
export async function moveOffer(
  op: Op,
  o: Offer,
  to: OfferStatus,
  actor: string,
  action: string,
  extra: Partial<Pick<Offer, 'licence_id' | 'countered_by' | 'reason'>> = {},
): Promise<Offer> {
  assertOfferTransition(o.offer_id, o.status, to, action, o.reason);
  const next: Offer = { ...o, ...extra, status: to, updated_at: op.nowIso };
  op.put(K.offer(o.offer_id), next);
  op.delete(K.pendingOf(o.listing_id) + o.offer_id);
  op.delete(K.due(o.expires_at, o.offer_id));
  const related = [o.listing_id, next.licence_id, next.countered_by].filter((x): x is string => x !== null);
  await appendAudit(op, {
    actor,
    action: `offer.${to}`,
    entity: 'offer',
    entity_id: o.offer_id,
    from: o.status,
    to,
    related,
    details: next.reason === null ? null : { reason: next.reason },
  });
  return next;
}

/** The offer, expired first (by `system`) when it is pending and its `expires_at` has passed. */
export async function expireIfDue(op: Op, o: Offer): Promise<Offer> {
  if (o.status !== 'pending' || Date.parse(o.expires_at) > op.nowMs) return o;
  return moveOffer(op, o, 'expired', 'system', 'expire', { reason: 'expired' });
}

/** The listing's pending offers that have not expired (due ones are expired on the way). */
export async function livePending(op: Op, listingId: string): Promise<Offer[]> {
  const live: Offer[] = [];
  for (const [, id] of await op.scan(K.pendingOf(listingId))) {
    const o = await expireIfDue(op, await loadOffer(op, id as string));
    if (o.status === 'pending') live.push(o);
  }
  return live;
}

/** Decline every live pending offer of a listing (it was withdrawn or sold out), with `reason`. */
export async function declineAllPending(op: Op, listingId: string, actor: string, reason: string): Promise<void> {
  for (const o of await livePending(op, listingId)) await moveOffer(op, o, 'declined', actor, 'decline', { reason });
}
