/**
 * Offer operations: make, read, accept, decline, counter, withdraw, and expiry. Who may do what:
 * the party that made an offer (`made_by`: the buyer, or the owner for a counter) may withdraw it;
 * the other party — the recipient — may accept, decline or counter it. A counter is a new pending
 * offer in the other direction, linked by `counter_of`; the countered offer becomes `countered`.
 *
 * Acceptance is one transaction: check, sign and store the licence, move the offer, count the
 * licence on the listing and — when that sells it out (exclusive, or `max_licences` reached) —
 * close the listing and decline its other pending offers. Transactions run one at a time, so of
 * any number of concurrent accepts on an exclusive listing exactly one finds it active.
 */
import { TrainprintError } from '../../errors.js';
import { invalidField, readThrough } from '../../util/schema-check.js';
import { newId } from '../../util/validate.js';
import { appendAudit } from './audit.js';
import { idemLookup, idemRemember } from './idempotent-op.js';
import { K } from './keys.js';
import { addMonths, signLicence } from './licence-signing.js';
import { runOp, type Op } from './op.js';
import { PAGE_DEFAULT, scanPage } from './page.js';
import {
  assertExclusivity,
  assertWorkHeld,
  declineAllPending,
  expireIfDue,
  loadListing,
  loadOffer,
  moveOffer,
  type MarketContext,
} from './records.js';
import { checkCaller, checkId, checkIdempotency, parseOffer, type OfferInput } from './requests.js';
import { MARKET_REQUESTS } from './schema.js';
import { assertListingIn, assertListingTransition, assertOfferTransition } from './states.js';
import { coversAll } from './territory.js';
import type {
  CounterOfferRequest,
  IdempotencyOptions,
  Licence,
  Listing,
  MakeOfferRequest,
  Offer,
  OfferFilter,
} from './types.js';

/** FORBIDDEN unless `caller` is the party that did not make the offer. */
function assertRecipient(o: Offer, caller: string, action: string): void {
  const recipient = o.made_by === o.buyer ? o.seller : o.buyer;
  if (caller !== recipient) {
    throw new TrainprintError(
      'FORBIDDEN',
      `only ${o.made_by === o.buyer ? 'the listing owner' : 'the buyer'} can ${action} offer ${o.offer_id}`,
    );
  }
}

/** FORBIDDEN unless `caller` made the offer. */
function assertMaker(o: Offer, caller: string): void {
  if (o.made_by !== caller)
    throw new TrainprintError('FORBIDDEN', `only the party that made offer ${o.offer_id} can withdraw it`);
}

/**
 * The offer, once `assertMayAct` lets the caller act on it (checked before expiry, so a refusal names the party),
 * expired first if due. The expiry is kept even when the operation then refuses (the checkpoint, ./op.ts).
 */
async function offerToActOn(op: Op, id: string, assertMayAct: (o: Offer) => void): Promise<Offer> {
  const loaded = await loadOffer(op, id);
  assertMayAct(loaded);
  const offer = await expireIfDue(op, loaded);
  op.checkpoint();
  return offer;
}

/** CONFLICT unless the offer may move `to` by `action` and its listing is still active; returns the listing. */
async function listingToAnswerOn(op: Op, offer: Offer, to: 'accepted' | 'countered', action: string): Promise<Listing> {
  assertOfferTransition(offer.offer_id, offer.status, to, action, offer.reason);
  const l = await loadListing(op, offer.listing_id);
  assertListingIn(l.listing_id, l.status, ['active'], `${action} an offer on`);
  return l;
}

/** The terms of an offer: what the buyer pays, where and for how long. */
type OfferTerms = Pick<Offer, 'amount' | 'per' | 'territory' | 'term_months'>;

/** The offer's terms: the request's, else `base`'s (the countered offer), else the listing's. */
function resolveTerms(l: Listing, input: OfferInput, base?: Offer): OfferTerms {
  const currency = (l.price ?? l.rate!).currency;
  const amount = input.amount ?? base!.amount;
  if (amount.currency !== currency)
    invalidField('amount.currency', `must be "${currency}", the currency of listing ${l.listing_id}`);
  const territory = input.territory ?? base?.territory ?? l.territory;
  if (!coversAll(l.territory, territory))
    invalidField('territory', `must lie within the listing's territory (${l.territory.join(', ')})`);
  return {
    amount,
    per: l.rate?.per ?? null,
    territory,
    term_months: input.term_months ?? base?.term_months ?? l.term_months,
  };
}

/** What a new offer is between and what it counters: the parts that are neither its terms nor its maker. */
type OfferParties = Pick<Offer, 'offer_id' | 'listing_id' | 'work_id' | 'buyer' | 'seller' | 'counter_of'>;

/** Write a new pending offer made by `actor`, with its indexes and `offer.created` entry. */
async function createOffer(
  op: Op,
  parties: OfferParties,
  terms: OfferTerms,
  input: OfferInput,
  actor: string,
): Promise<Offer> {
  const offer: Offer = {
    offer_id: parties.offer_id,
    listing_id: parties.listing_id,
    work_id: parties.work_id,
    buyer: parties.buyer,
    seller: parties.seller,
    made_by: actor,
    status: 'pending',
    ...terms,
    expires_at: input.expires_at,
    message: input.message,
    counter_of: parties.counter_of,
    countered_by: null,
    licence_id: null,
    reason: null,
    created_at: op.nowIso,
    updated_at: op.nowIso,
  };
  op.put(K.offer(offer.offer_id), offer);
  op.put(K.pendingOf(offer.listing_id) + offer.offer_id, offer.offer_id);
  op.put(K.due(offer.expires_at, offer.offer_id), offer.offer_id);
  await appendAudit(op, {
    actor,
    action: 'offer.created',
    entity: 'offer',
    entity_id: offer.offer_id,
    to: 'pending',
    related: [offer.listing_id, ...(offer.counter_of === null ? [] : [offer.counter_of])],
    details: { amount: offer.amount, per: offer.per, expires_at: offer.expires_at, counter_of: offer.counter_of },
  });
  return offer;
}

/** Make an offer (see `Marketplace.makeOffer`). */
export async function makeOffer(
  ctx: MarketContext,
  caller: unknown,
  listingId: unknown,
  request: MakeOfferRequest,
): Promise<Offer> {
  const who = checkCaller(caller);
  const lid = checkId(listingId, 'lst_', 'listing_id');
  return runOp(ctx.store, ctx.now, async (op) => {
    const input = parseOffer(request, op.nowMs, false);
    const l = await loadListing(op, lid);
    if (l.owner === who)
      throw new TrainprintError('FORBIDDEN', `the owner of listing ${lid} cannot make an offer on it`);
    assertListingIn(lid, l.status, ['active'], 'make an offer on');
    const parties = {
      offer_id: newId('ofr_'),
      listing_id: lid,
      work_id: l.work_id,
      buyer: who,
      seller: l.owner,
      counter_of: null,
    };
    return createOffer(op, parties, resolveTerms(l, input), input, who);
  });
}

/** An offer by id, expired first if due (see `Marketplace.getOffer`). */
export async function getOffer(ctx: MarketContext, id: unknown): Promise<Offer> {
  const oid = checkId(id, 'ofr_', 'offer_id');
  return runOp(ctx.store, ctx.now, async (op) => expireIfDue(op, await loadOffer(op, oid)));
}

/** List offers, expiring due ones on the way (see `Marketplace.listOffers`). */
export async function listOffers(
  ctx: MarketContext,
  filter: OfferFilter = {},
): Promise<{ offers: Offer[]; next: string | null }> {
  const {
    listing_id: listing,
    buyer,
    seller,
    party,
    status,
    after,
    limit = PAGE_DEFAULT,
  } = readThrough(MARKET_REQUESTS.listOffers, filter, undefined);
  return runOp(ctx.store, ctx.now, async (op) => {
    // filter on the status the offer has once lazy expiry has run, so a due offer never shows as pending
    const effective = (x: Offer) =>
      x.status === 'pending' && Date.parse(x.expires_at) <= op.nowMs ? 'expired' : x.status;
    const keep = (x: Offer) =>
      (listing === undefined || x.listing_id === listing) &&
      (buyer === undefined || x.buyer === buyer) &&
      (seller === undefined || x.seller === seller) &&
      (party === undefined || x.buyer === party || x.seller === party) &&
      (status === undefined || effective(x) === status);
    const page = await scanPage<Offer>(op, K.OFFER, after, limit, keep);
    const offers: Offer[] = [];
    for (const x of page.items) offers.push(await expireIfDue(op, x));
    return { offers, next: page.next };
  });
}

/** Accept an offer and issue its licence (see `Marketplace.acceptOffer`). */
export async function acceptOffer(
  ctx: MarketContext,
  caller: unknown,
  offerId: unknown,
  options?: IdempotencyOptions,
): Promise<Licence> {
  const who = checkCaller(caller);
  const oid = checkId(offerId, 'ofr_', 'offer_id');
  const idem = checkIdempotency(options);
  const key = await ctx.key(); // outside the transaction: loading it may write to the store
  return runOp(ctx.store, ctx.now, async (op) => {
    if (idem !== undefined) {
      const hit = await idemLookup(op, 'offer.accept', who, idem, oid);
      if (hit) return hit.result as Licence;
    }
    const offer = await offerToActOn(op, oid, (o) => assertRecipient(o, who, 'accept'));
    const l = await listingToAnswerOn(op, offer, 'accepted', 'accept');
    await assertWorkHeld(op, l);
    await assertExclusivity(op, l, offer.territory, false);

    const licence = await signLicence(key, {
      licence_id: newId('lic_'),
      listing_id: l.listing_id,
      offer_id: oid,
      work_id: l.work_id,
      work_hash: l.work_hash,
      licensor: l.owner,
      licensee: offer.buyer,
      licence_type: l.licence_type,
      territory: offer.territory,
      term: { start: op.nowIso, end: addMonths(op.nowIso, offer.term_months) },
      amount: offer.amount,
      per: offer.per,
      exclusive: l.exclusive,
      output_cap: l.output_cap,
      issued_at: op.nowIso,
    });
    op.put(K.licence(licence.licence_id), licence);
    op.put(K.licencesOfWork(l.work_id) + licence.licence_id, licence.licence_id);
    await moveOffer(op, offer, 'accepted', who, 'accept', { licence_id: licence.licence_id });
    await appendAudit(op, {
      actor: who,
      action: 'licence.issued',
      entity: 'licence',
      entity_id: licence.licence_id,
      related: [l.listing_id, oid, l.work_id],
      details: { licensor: licence.licensor, licensee: licence.licensee, exclusive: licence.exclusive },
    });

    const issued = l.licences_issued + 1;
    const soldOut = l.exclusive || (l.max_licences !== null && issued >= l.max_licences);
    if (soldOut) assertListingTransition(l.listing_id, l.status, 'sold_out', 'sell out');
    op.put(K.listing(l.listing_id), {
      ...l,
      licences_issued: issued,
      updated_at: op.nowIso,
      ...(soldOut ? { status: 'sold_out', closed_at: op.nowIso } : {}),
    } satisfies Listing);
    if (soldOut) {
      await appendAudit(op, {
        actor: who,
        action: 'listing.sold_out',
        entity: 'listing',
        entity_id: l.listing_id,
        from: 'active',
        to: 'sold_out',
        related: [licence.licence_id],
      });
      await declineAllPending(op, l.listing_id, who, 'sold_out');
    }
    if (idem !== undefined) idemRemember(op, 'offer.accept', who, idem, oid, licence);
    return licence;
  });
}

/** Decline an offer (see `Marketplace.declineOffer`). */
export async function declineOffer(ctx: MarketContext, caller: unknown, offerId: unknown): Promise<Offer> {
  const who = checkCaller(caller);
  const oid = checkId(offerId, 'ofr_', 'offer_id');
  return runOp(ctx.store, ctx.now, async (op) => {
    const offer = await offerToActOn(op, oid, (o) => assertRecipient(o, who, 'decline'));
    return moveOffer(op, offer, 'declined', who, 'decline');
  });
}

/** Counter an offer: a new pending offer the other way (see `Marketplace.counterOffer`). */
export async function counterOffer(
  ctx: MarketContext,
  caller: unknown,
  offerId: unknown,
  request: CounterOfferRequest,
): Promise<Offer> {
  const who = checkCaller(caller);
  const oid = checkId(offerId, 'ofr_', 'offer_id');
  return runOp(ctx.store, ctx.now, async (op) => {
    const input = parseOffer(request, op.nowMs, true);
    const offer = await offerToActOn(op, oid, (o) => assertRecipient(o, who, 'counter'));
    const l = await listingToAnswerOn(op, offer, 'countered', 'counter');
    const terms = resolveTerms(l, input, offer);
    const counterId = newId('ofr_');
    await moveOffer(op, offer, 'countered', who, 'counter', { countered_by: counterId });
    const parties = {
      offer_id: counterId,
      listing_id: l.listing_id,
      work_id: l.work_id,
      buyer: offer.buyer,
      seller: offer.seller,
      counter_of: oid,
    };
    return createOffer(op, parties, terms, input, who);
  });
}

/** Withdraw an offer (its maker only; see `Marketplace.withdrawOffer`). */
export async function withdrawOffer(ctx: MarketContext, caller: unknown, offerId: unknown): Promise<Offer> {
  const who = checkCaller(caller);
  const oid = checkId(offerId, 'ofr_', 'offer_id');
  return runOp(ctx.store, ctx.now, async (op) => {
    const offer = await offerToActOn(op, oid, (o) => assertMaker(o, who));
    return moveOffer(op, offer, 'withdrawn', who, 'withdraw');
  });
}

/** Batch size of one expiry transaction, so a backlog does not hold the store for long. */
const EXPIRE_BATCH = 200;

/** Expire every pending offer whose `expires_at` has passed; returns how many (see `Marketplace.expireDue`). */
export async function expireDue(ctx: MarketContext): Promise<number> {
  let total = 0;
  for (;;) {
    const { n, more } = await runOp(ctx.store, ctx.now, async (op) => {
      let expired = 0;
      const due = await op.scan(K.DUE, { limit: EXPIRE_BATCH });
      for (const [key, id] of due) {
        const at = key.slice(K.DUE.length, key.lastIndexOf('/'));
        if (Date.parse(at) > op.nowMs) return { n: expired, more: false };
        const o = (await op.get(K.offer(id as string))) as Offer | undefined;
        if (o === undefined || o.status !== 'pending') {
          op.delete(key); // a stale index entry must not come back on every run
          continue;
        }
        await expireIfDue(op, o);
        expired++;
      }
      return { n: expired, more: due.length === EXPIRE_BATCH };
    });
    total += n;
    if (!more) return total;
  }
}
