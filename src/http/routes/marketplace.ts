/**
 * Routes of the licensing marketplace (`engine.marketplace`, src/services/market/) under
 * `/api/v1/marketplace/`, scope `marketplace`. The caller of every operation is the
 * authenticated account.
 *
 * Visibility — what another account cannot see answers 404, as if absent:
 * - listings: drafts only to their owner; active, withdrawn and sold-out listings to everyone
 *   with the scope (changing one still needs its owner: 403 `FORBIDDEN` from the engine);
 * - offers: only to their two parties, the buyer and the listing owner (the party that may not
 *   act on it — e.g. the maker trying to accept — gets 403);
 * - licences: only to licensor and licensee; `POST licences/verify` checks any licence document
 *   the caller holds;
 * - the audit trail: of a listing or work the caller owns, or an offer or licence it is party to.
 * Lists are filtered the same way, page by page, so a page holds `limit` visible items whenever
 * that many exist after the cursor.
 *
 * `Idempotency-Key` on `POST listings` and `POST offers/{offer_id}/accept` goes both to the HTTP
 * layer (the response is replayed) and to the engine (`idempotencyKey`, kept in the same
 * transaction as the listing or licence), so a retry after a lost response never lists twice or
 * sells twice. Engine errors map through the error table: INVALID_INPUT 422, NOT_FOUND 404,
 * FORBIDDEN 403, CONFLICT 409.
 */
import {
  TrainprintError,
  type CounterOfferRequest,
  type CreateListingRequest,
  type Licence,
  type LicenceFilter,
  type Listing,
  type ListingFilter,
  MARKET_REQUESTS,
  type MakeOfferRequest,
  type Offer,
  type OfferFilter,
  type UpdateListingRequest,
  type VerifiedLicence,
} from '../../library.js';
import { type GroupRow, inGroup, Reply, type Route, type RouteContext } from '../context.js';
import * as M from '../schemas/marketplace.js';
import { account } from './caller.js';
import { notFound } from './refusals.js';

const BASE = '/api/v1/marketplace';

/**
 * The marketplace rows of the route table (src/http/routes/index.ts spreads them into `ROUTES`).
 * @example MARKETPLACE_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const MARKETPLACE_ROUTES: readonly Route[] = inGroup('marketplace', 'marketplace', [
  // ---------------------------------------------------------------- listings
  {
    method: 'POST',
    path: `${BASE}/listings`,
    operationId: 'createListing',
    creates: true,
    summary: 'List a registered work of the account (draft unless `status: "active"`)',
    body: 'json',
    requestSchema: MARKET_REQUESTS.createListing.served,
    responseSchema: M.LISTING_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      const l = await market(ctx).createListing(account(ctx), ctx.body as CreateListingRequest, idempotency(ctx));
      return new Reply({ ...l }, 201);
    },
  },
  {
    method: 'GET',
    path: `${BASE}/listings`,
    operationId: 'listListings',
    summary: "Search listings (active ones unless `status` says otherwise; drafts only the account's own)",
    querySchema: MARKET_REQUESTS.listListings.served,
    responseSchema: M.LISTING_LIST_SCHEMA,
    handler: async (ctx) => {
      const q = ctx.query as ListingFilter;
      const who = account(ctx);
      if (q.status === 'draft' && q.owner !== undefined && q.owner !== who) return { listings: [], next: null };
      // drafts only the caller's own: the marketplace skips the others' (their owner's index for a draft query)
      return market(ctx).listListings({ ...q, ...(q.status === 'draft' ? { owner: who } : {}), visible_to: who });
    },
  },
  {
    method: 'GET',
    path: `${BASE}/listings/{listing_id}`,
    operationId: 'getListing',
    summary: 'A listing (a draft only to its owner)',
    responseSchema: M.LISTING_RESPONSE_SCHEMA,
    handler: async (ctx) => visibleListing(ctx),
  },
  {
    method: 'PATCH',
    path: `${BASE}/listings/{listing_id}`,
    operationId: 'updateListing',
    summary: 'Change a draft or active listing of the account',
    body: 'json',
    requestSchema: MARKET_REQUESTS.updateListing.served,
    responseSchema: M.LISTING_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      await visibleListing(ctx);
      return market(ctx).updateListing(account(ctx), ctx.params.listing_id, ctx.body as UpdateListingRequest);
    },
  },
  listingMove('publish', 'Publish a draft of the account: draft → active (no body)'),
  listingMove('withdraw', 'Withdraw a listing of the account; its pending offers are declined (no body)'),
  {
    method: 'POST',
    path: `${BASE}/listings/{listing_id}/offers`,
    operationId: 'makeOffer',
    creates: true,
    summary: 'Offer on an active listing of another account',
    body: 'json',
    requestSchema: MARKET_REQUESTS.makeOffer.served,
    responseSchema: M.OFFER_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      await visibleListing(ctx);
      const offer = await market(ctx).makeOffer(account(ctx), ctx.params.listing_id, ctx.body as MakeOfferRequest);
      return new Reply({ ...offer }, 201);
    },
  },

  // ---------------------------------------------------------------- offers
  {
    method: 'GET',
    path: `${BASE}/offers`,
    operationId: 'listOffers',
    summary: "The account's offers, as buyer or as seller (due ones expire on the way)",
    querySchema: MARKET_REQUESTS.listOffers.served,
    responseSchema: M.OFFER_LIST_SCHEMA,
    handler: async (ctx) =>
      market(ctx).listOffers(asParty(ctx, ctx.query as OfferFilter & { role?: 'buyer' | 'seller' })),
  },
  {
    method: 'GET',
    path: `${BASE}/offers/{offer_id}`,
    operationId: 'getOffer',
    summary: 'An offer the account is party to',
    responseSchema: M.OFFER_RESPONSE_SCHEMA,
    handler: async (ctx) => partyOffer(ctx),
  },
  {
    method: 'POST',
    path: `${BASE}/offers/{offer_id}/accept`,
    operationId: 'acceptOffer',
    creates: true,
    summary: 'Accept a pending offer made to the account: the signed licence (no body)',
    responseSchema: M.LICENCE_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      await partyOffer(ctx);
      const licence = await market(ctx).acceptOffer(account(ctx), ctx.params.offer_id, idempotency(ctx));
      return new Reply({ ...licence }, 201);
    },
  },
  offerMove('decline', 'Decline a pending offer made to the account (no body)'),
  {
    method: 'POST',
    path: `${BASE}/offers/{offer_id}/counter`,
    operationId: 'counterOffer',
    creates: true,
    summary: 'Counter a pending offer made to the account: a new pending offer the other way',
    body: 'json',
    requestSchema: MARKET_REQUESTS.counterOffer.served,
    responseSchema: M.OFFER_RESPONSE_SCHEMA,
    status: [201],
    handler: async (ctx) => {
      await partyOffer(ctx);
      const offer = await market(ctx).counterOffer(account(ctx), ctx.params.offer_id, ctx.body as CounterOfferRequest);
      return new Reply({ ...offer }, 201);
    },
  },
  offerMove('withdraw', 'Withdraw a pending offer the account made (no body)'),

  // ---------------------------------------------------------------- licences
  {
    method: 'GET',
    path: `${BASE}/licences`,
    operationId: 'listLicences',
    summary: "The account's licences, as licensor or licensee, each with its signature checked",
    querySchema: MARKET_REQUESTS.listLicences.served,
    responseSchema: M.LICENCE_LIST_SCHEMA,
    handler: async (ctx) =>
      market(ctx).listLicences(asParty(ctx, ctx.query as LicenceFilter & { role?: 'licensor' | 'licensee' })),
  },
  {
    method: 'GET',
    path: `${BASE}/licences/{licence_id}`,
    operationId: 'getLicence',
    summary: 'A licence the account is party to, with its signature checked',
    responseSchema: M.VERIFIED_LICENCE_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      const l = await market(ctx).getLicence(ctx.params.licence_id);
      if (!licenceParty(l, account(ctx))) notFound(`no licence "${ctx.params.licence_id}"`);
      return l;
    },
  },
  {
    method: 'POST',
    path: `${BASE}/licences/verify`,
    operationId: 'verifyLicence',
    summary: 'Check that a licence was signed by this service and no signed field changed',
    body: 'json',
    requestSchema: MARKET_REQUESTS.verifyLicence.served,
    responseSchema: M.VERIFY_LICENCE_RESULT_SCHEMA,
    handler: async (ctx) => ({ valid: await market(ctx).verifyLicence((ctx.body as { licence: unknown }).licence) }),
  },

  // ---------------------------------------------------------------- audit
  {
    method: 'GET',
    path: `${BASE}/audit`,
    operationId: 'marketplaceAudit',
    summary: 'The audit trail of a listing or work the account owns, or of an offer or licence it is party to',
    querySchema: MARKET_REQUESTS.auditLog.served,
    responseSchema: M.AUDIT_LIST_SCHEMA,
    handler: async (ctx) => {
      const q = ctx.query as { entity_id: string; after?: string; limit?: number };
      await checkAuditAccess(ctx, q.entity_id);
      return market(ctx).auditLog(q);
    },
  },
]);

// ------------------------------------------------------------------ helpers

function market(ctx: RouteContext) {
  return ctx.engine.marketplace;
}

/** The request's `Idempotency-Key` for the marketplace, which keeps it with what the call creates. */
function idempotency(ctx: RouteContext) {
  const key = ctx.request.headers.get('idempotency-key');
  return key === null ? undefined : { idempotencyKey: key };
}

/**
 * A bodyless POST that moves a listing the caller can see (`publish`, `withdraw`): 404 for one it cannot, then the
 * marketplace checks that the caller owns it and that the move is allowed.
 */
function listingMove(verb: 'publish' | 'withdraw', summary: string): GroupRow {
  return {
    method: 'POST',
    path: `${BASE}/listings/{listing_id}/${verb}`,
    operationId: `${verb}Listing`,
    summary,
    responseSchema: M.LISTING_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      await visibleListing(ctx);
      return market(ctx)[`${verb}Listing`](account(ctx), ctx.params.listing_id);
    },
  };
}

/**
 * A bodyless POST that moves an offer the caller is party to (`decline`, `withdraw`): 404 for another's, then the
 * marketplace checks that the caller is the party who may.
 */
function offerMove(verb: 'decline' | 'withdraw', summary: string): GroupRow {
  return {
    method: 'POST',
    path: `${BASE}/offers/{offer_id}/${verb}`,
    operationId: `${verb}Offer`,
    summary,
    responseSchema: M.OFFER_RESPONSE_SCHEMA,
    handler: async (ctx) => {
      await partyOffer(ctx);
      return market(ctx)[`${verb}Offer`](account(ctx), ctx.params.offer_id);
    },
  };
}

/** A list query of offers or licences as the caller's: on its `role` side when given, and always its party's. */
function asParty<R extends string, Q extends { readonly role?: R }>(ctx: RouteContext, query: Q) {
  const { role, ...q } = query;
  const who = account(ctx);
  return { ...q, ...(role === undefined ? {} : { [role]: who }), party: who };
}

const party = (o: Offer, who: string) => o.buyer === who || o.seller === who;
const licenceParty = (l: Licence | VerifiedLicence, who: string) => l.licensor === who || l.licensee === who;

/** The path's listing when the caller may see it (a draft only by its owner), else 404. */
async function visibleListing(ctx: RouteContext): Promise<Listing> {
  const l = await market(ctx).getListing(ctx.params.listing_id);
  if (l.status === 'draft' && l.owner !== account(ctx)) notFound(`no listing "${ctx.params.listing_id}"`);
  return l;
}

/** The path's offer when the caller is one of its parties, else 404. */
async function partyOffer(ctx: RouteContext): Promise<Offer> {
  const o = await market(ctx).getOffer(ctx.params.offer_id);
  if (!party(o, account(ctx))) notFound(`no offer "${ctx.params.offer_id}"`);
  return o;
}

/** 404 unless the caller owns the listing or work, or is party to the offer or licence. */
async function checkAuditAccess(ctx: RouteContext, id: string): Promise<void> {
  const who = account(ctx);
  const hidden = () => notFound(`nothing of the account with id "${id}"`);
  try {
    if (id.startsWith('lst_')) {
      if ((await market(ctx).getListing(id)).owner !== who) hidden();
    } else if (id.startsWith('ofr_')) {
      if (!party(await market(ctx).getOffer(id), who)) hidden();
    } else if (id.startsWith('lic_')) {
      if (!licenceParty(await market(ctx).getLicence(id), who)) hidden();
    } else if ((await ctx.engine.getWork(id)).owner !== who) hidden();
  } catch (e) {
    if (e instanceof TrainprintError && e.code === 'NOT_FOUND') hidden();
    throw e;
  }
}
