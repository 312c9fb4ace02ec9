/**
 * Listing operations: create, read, search, update, publish, withdraw — each one transaction with
 * its audit entries (see ./op.ts). Only the owner changes a listing; an active listing's commercial
 * terms freeze while an offer on it is pending, so a buyer never has the terms changed under them.
 */
import { TrainprintError } from '../../errors.js';
import type { Work } from '../registry/works.js';
import { readThrough } from '../../util/schema-check.js';
import { newId } from '../../util/validate.js';
import { appendAudit } from './audit.js';
import { canonicalJson, idemLookup, idemRemember } from './idempotent-op.js';
import { K } from './keys.js';
import { runOp, type Op } from './op.js';
import {
  assertExclusivity,
  assertWorkHeld,
  declineAllPending,
  livePending,
  loadListing,
  type MarketContext,
} from './records.js';
import { PAGE_DEFAULT, scanPage } from './page.js';
import {
  checkCaller,
  checkId,
  checkIdempotency,
  COMMERCIAL_FIELDS,
  parseCreateListing,
  parseListingPatch,
  type ListingPatch,
} from './requests.js';
import { MARKET_REQUESTS } from './schema.js';
import { assertListingIn, assertListingTransition } from './states.js';
import { checkTerritoryCode, covers } from './territory.js';
import type {
  CreateListingRequest,
  IdempotencyOptions,
  Listing,
  ListingFilter,
  UpdateListingRequest,
} from './types.js';

/** Changing any of these changes what a buyer is offering on, so they freeze while offers are pending. */
const COMMERCIAL: ReadonlyArray<keyof ListingPatch> = COMMERCIAL_FIELDS;

function assertOwner(l: Listing, caller: string, action: string): void {
  if (l.owner !== caller)
    throw new TrainprintError('FORBIDDEN', `only the owner of listing ${l.listing_id} can ${action} it`);
}

/** Create a listing (see `Marketplace.createListing`). */
export async function createListing(
  ctx: MarketContext,
  caller: unknown,
  request: CreateListingRequest,
  options?: IdempotencyOptions,
): Promise<Listing> {
  const who = checkCaller(caller);
  const req = parseCreateListing(request);
  const idem = checkIdempotency(options);
  const fingerprint = canonicalJson(req);
  return runOp(ctx.store, ctx.now, async (op) => {
    if (idem !== undefined) {
      const hit = await idemLookup(op, 'listing.create', who, idem, fingerprint);
      if (hit) return hit.result as Listing;
    }
    const work = (await op.get(K.work(req.work_id))) as Work | undefined;
    if (work === undefined) throw new TrainprintError('NOT_FOUND', `no work "${req.work_id}"`);
    if (work.owner !== who)
      throw new TrainprintError(
        'FORBIDDEN',
        `work ${req.work_id} belongs to another owner; only its owner can list it`,
      );
    const listing: Listing = {
      listing_id: newId('lst_'),
      work_id: work.work_id,
      work_hash: work.work_hash,
      work_type: work.work_type,
      owner: who,
      title: req.title ?? work.title,
      description: req.description,
      status: req.status,
      licence_type: req.licence_type,
      territory: req.territory,
      term_months: req.term_months,
      price: req.price,
      rate: req.rate,
      exclusive: req.exclusive,
      max_licences: req.max_licences,
      output_cap: req.output_cap,
      licences_issued: 0,
      created_at: op.nowIso,
      updated_at: op.nowIso,
      published_at: req.status === 'active' ? op.nowIso : null,
      closed_at: null,
    };
    if (listing.status === 'active') await assertExclusivity(op, listing, listing.territory, true);
    op.put(K.listing(listing.listing_id), listing);
    op.put(K.listingsOfWork(listing.work_id) + listing.listing_id, listing.listing_id);
    op.put(K.listingsOfOwner(listing.owner) + listing.listing_id, listing.listing_id);
    await appendAudit(op, {
      actor: who,
      action: 'listing.created',
      entity: 'listing',
      entity_id: listing.listing_id,
      to: listing.status,
      related: [listing.work_id],
      details: { licence_type: listing.licence_type, exclusive: listing.exclusive },
    });
    if (idem !== undefined) idemRemember(op, 'listing.create', who, idem, fingerprint, listing);
    return listing;
  });
}

/** A listing by id (see `Marketplace.getListing`). */
export async function getListing(ctx: MarketContext, id: unknown): Promise<Listing> {
  const lid = checkId(id, 'lst_', 'listing_id');
  const l = (await ctx.store.get(K.listing(lid))) as Listing | undefined;
  if (l === undefined) throw new TrainprintError('NOT_FOUND', `no listing "${lid}"`);
  return l;
}

/** Search listings (see `Marketplace.listListings`). */
export async function listListings(
  ctx: MarketContext,
  filter: ListingFilter = {},
): Promise<{ listings: Listing[]; next: string | null }> {
  const q = readThrough(MARKET_REQUESTS.listListings, filter, undefined);
  const { status = 'active', min_amount_minor: min = 0, max_amount_minor: max = Number.MAX_SAFE_INTEGER } = q;
  const territory = q.territory === undefined ? undefined : checkTerritoryCode(q.territory, 'territory');
  const keep = (l: Listing): boolean => {
    const money = l.price ?? l.rate!;
    return (
      (status === 'any' || l.status === status) &&
      (q.licence_type === undefined || l.licence_type === q.licence_type) &&
      (territory === undefined || l.territory.some((t) => covers(t, territory))) &&
      (q.work_type === undefined || l.work_type === q.work_type) &&
      (q.owner === undefined || l.owner === q.owner) &&
      (q.exclusive === undefined || l.exclusive === q.exclusive) &&
      (q.pricing === undefined || (q.pricing === 'price') === (l.price !== null)) &&
      (q.currency === undefined || money.currency === q.currency) &&
      money.amount_minor >= min &&
      money.amount_minor <= max
    );
  };
  const visible = (l: Listing): boolean =>
    q.visible_to === undefined || l.status !== 'draft' || l.owner === q.visible_to;
  const page = [q.after, q.limit ?? PAGE_DEFAULT, (l: Listing) => keep(l) && visible(l)] as const;
  // an owner's listings come from the owner's index; a search of the market reads every listing
  const { items, next } =
    q.owner === undefined
      ? await scanPage<Listing>(ctx.store, K.LISTING, ...page)
      : await scanPage<Listing>(ctx.store, K.listingsOfOwner(q.owner), ...page, {
          load: async (id) => (await ctx.store.get(K.listing(id as string))) as Listing | undefined,
        });
  return { listings: items, next };
}

/** Update a listing (see `Marketplace.updateListing`). */
export async function updateListing(
  ctx: MarketContext,
  caller: unknown,
  id: unknown,
  request: UpdateListingRequest,
): Promise<Listing> {
  const who = checkCaller(caller);
  const lid = checkId(id, 'lst_', 'listing_id');
  const patch = parseListingPatch(request);
  return runOp(ctx.store, ctx.now, async (op) => {
    const l = await loadListing(op, lid);
    assertOwner(l, who, 'update');
    assertListingIn(lid, l.status, ['draft', 'active'], 'update');
    const next: Listing = { ...l, ...patch };
    if (next.exclusive && next.max_licences !== null)
      throw new TrainprintError(
        'INVALID_INPUT',
        'max_licences is for non-exclusive listings (an exclusive listing sells one licence)',
      );
    const changed = (Object.keys(patch) as Array<keyof ListingPatch>)
      .filter((k) => canonicalJson(l[k]) !== canonicalJson(next[k]))
      .sort();
    if (changed.length === 0) return l;
    const commercial = changed.filter((k) => COMMERCIAL.includes(k));
    if (l.status === 'active' && commercial.length > 0) {
      const pending = await livePending(op, l.listing_id);
      op.checkpoint();
      if (pending.length > 0) {
        throw new TrainprintError(
          'CONFLICT',
          `listing ${lid} has ${pending.length} pending offer(s) (${pending
            .slice(0, 3)
            .map((o) => o.offer_id)
            .join(
              ', ',
            )}${pending.length > 3 ? ', …' : ''}); ${commercial.join(', ')} cannot change until they are accepted, declined, withdrawn or expire`,
        );
      }
      if (next.exclusive && !l.exclusive && l.licences_issued > 0)
        throw new TrainprintError(
          'CONFLICT',
          `listing ${lid} has already sold ${l.licences_issued} non-exclusive licence(s); it cannot become exclusive`,
        );
      if (next.max_licences !== null && next.max_licences <= l.licences_issued)
        throw new TrainprintError(
          'CONFLICT',
          `listing ${lid} has already sold ${l.licences_issued} licence(s); max_licences must be above that (withdraw the listing to stop selling)`,
        );
      if (changed.includes('territory') || changed.includes('exclusive'))
        await assertExclusivity(op, next, next.territory, true);
    }
    const updated: Listing = { ...next, updated_at: op.nowIso };
    op.put(K.listing(lid), updated);
    const changes: Record<string, unknown> = {};
    for (const k of changed) changes[k] = { from: l[k], to: next[k] };
    await appendAudit(op, {
      actor: who,
      action: 'listing.updated',
      entity: 'listing',
      entity_id: lid,
      details: { changes },
    });
    return updated;
  });
}

/** A change of a listing's status by its owner: the verb, the status it leads to and what else it does. */
interface ListingMove {
  readonly action: 'publish' | 'withdraw';
  readonly to: 'active' | 'withdrawn';
  /** The audit action (`listing.published`, …). */
  readonly event: string;
  /** The timestamp the move sets besides `updated_at`. */
  readonly stamp: 'published_at' | 'closed_at';
  /** Checks after the transition's, before the write. */
  readonly check?: (op: Op, l: Listing) => Promise<void>;
  /** Writes after the listing's and its audit entry. */
  readonly after?: (op: Op, l: Listing, who: string) => Promise<void>;
}

const PUBLISH: ListingMove = {
  action: 'publish',
  to: 'active',
  event: 'listing.published',
  stamp: 'published_at',
  check: async (op, l) => {
    await assertWorkHeld(op, l);
    await assertExclusivity(op, l, l.territory, true);
  },
};

const WITHDRAW: ListingMove = {
  action: 'withdraw',
  to: 'withdrawn',
  event: 'listing.withdrawn',
  stamp: 'closed_at',
  after: (op, l, who) => declineAllPending(op, l.listing_id, who, 'listing_withdrawn'),
};

/** Move the caller's listing `id` as `move` says, as one operation with its audit entry. */
async function moveListing(ctx: MarketContext, caller: unknown, id: unknown, move: ListingMove): Promise<Listing> {
  const who = checkCaller(caller);
  const lid = checkId(id, 'lst_', 'listing_id');
  return runOp(ctx.store, ctx.now, async (op) => {
    const l = await loadListing(op, lid);
    assertOwner(l, who, move.action);
    assertListingTransition(lid, l.status, move.to, move.action);
    await move.check?.(op, l);
    // l holds every field already, so the spread keeps the stored record's field order
    const next: Listing = { ...l, status: move.to, [move.stamp]: op.nowIso, updated_at: op.nowIso };
    op.put(K.listing(lid), next);
    await appendAudit(op, {
      actor: who,
      action: move.event,
      entity: 'listing',
      entity_id: lid,
      from: l.status,
      to: move.to,
    });
    await move.after?.(op, l, who);
    return next;
  });
}

/** Publish a draft (see `Marketplace.publishListing`). */
export async function publishListing(ctx: MarketContext, caller: unknown, id: unknown): Promise<Listing> {
  return moveListing(ctx, caller, id, PUBLISH);
}

/** Withdraw a listing; its pending offers are declined (see `Marketplace.withdrawListing`). */
export async function withdrawListing(ctx: MarketContext, caller: unknown, id: unknown): Promise<Listing> {
  return moveListing(ctx, caller, id, WITHDRAW);
}
