/**
 * Public types of the licensing marketplace (src/services/market/): listings, offers, licences, audit
 * entries, the request shapes and the constants they draw from. Records are plain objects so the
 * store can keep them as they are; every field that travels as JSON is snake_case.
 */
import type { WorkType } from '../analyze/types.js';

/**
 * What a licence allows: `training` (use the work to train models), `retrieval` (index it for
 * retrieval / grounding at inference time), `display` (show excerpts in outputs).
 * @example LICENCE_TYPES.includes('training') // true
 */
export type LicenceType = 'training' | 'retrieval' | 'display';
/** @example LICENCE_TYPES // ['training', 'retrieval', 'display'] */
export const LICENCE_TYPES: readonly LicenceType[] = ['training', 'retrieval', 'display'];

/**
 * Listing states: `draft → active → withdrawn | sold_out` (a draft may also be withdrawn).
 * @example LISTING_STATES.length // 4
 */
export type ListingStatus = 'draft' | 'active' | 'withdrawn' | 'sold_out';
/** @example LISTING_STATES // ['draft', 'active', 'withdrawn', 'sold_out'] */
export const LISTING_STATES: readonly ListingStatus[] = ['draft', 'active', 'withdrawn', 'sold_out'];

/**
 * Offer states: `pending → accepted | declined | countered | expired | withdrawn`; all but
 * `pending` are final.
 * @example OFFER_STATES[0] // 'pending'
 */
export type OfferStatus = 'pending' | 'accepted' | 'declined' | 'countered' | 'expired' | 'withdrawn';
/** @example OFFER_STATES.includes('countered') // true */
export const OFFER_STATES: readonly OfferStatus[] = [
  'pending',
  'accepted',
  'declined',
  'countered',
  'expired',
  'withdrawn',
];

/**
 * Unit of a rate: per `word` of the work, per `title` (per work, per licensee), per `month` of
 * the term.
 * @example RATE_UNITS // ['word', 'title', 'month']
 */
export type RateUnit = 'word' | 'title' | 'month';
/** @example RATE_UNITS.includes('word') // true */
export const RATE_UNITS: readonly RateUnit[] = ['word', 'title', 'month'];

/**
 * An amount of money: integer minor units (cents for USD, yen for JPY) and an ISO 4217 code.
 * Integers only, so no amount is ever rounded by floating point.
 * @example const fee: Money = { amount_minor: 500_000, currency: 'USD' } // $5,000.00
 */
export interface Money {
  readonly amount_minor: number;
  readonly currency: string;
}

/**
 * A rate: `amount_minor` of `currency` per `per`.
 * @example const r: Rate = { per: 'word', amount_minor: 1, currency: 'USD' } // 1 cent a word
 */
export interface Rate extends Money {
  readonly per: RateUnit;
}

/**
 * Limits on what the licensee's outputs may reproduce (the HarperCollins deal: at most 200
 * consecutive words and 5 % of a book). `null` members are not limited.
 * @example const cap: OutputCap = { max_consecutive_words: 200, max_percent: 5 }
 */
export interface OutputCap {
  readonly max_consecutive_words: number | null;
  readonly max_percent: number | null;
}

/**
 * A listing: one registered work offered under one licence type.
 * @example (await market.getListing(id)).status // 'active'
 */
export interface Listing {
  readonly listing_id: string;
  readonly work_id: string;
  /** Copied from the work at creation, so licences name the exact content. */
  readonly work_hash: string;
  readonly work_type: WorkType | null;
  /** The licensor: the work's owner. */
  readonly owner: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly status: ListingStatus;
  readonly licence_type: LicenceType;
  /** Normalised ISO 3166 codes (`EU` and `WORLDWIDE` allowed), sorted, no repeats. */
  readonly territory: string[];
  /** Length of a licence, counted from its acceptance. */
  readonly term_months: number;
  /** Exactly one of `price` (flat fee per licence) and `rate` is set. */
  readonly price: Money | null;
  readonly rate: Rate | null;
  readonly exclusive: boolean;
  /** Non-exclusive listings: how many licences may be sold (`null` = unlimited). Exclusive: 1. */
  readonly max_licences: number | null;
  readonly output_cap: OutputCap | null;
  readonly licences_issued: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly published_at: string | null;
  /** When it became withdrawn or sold_out. */
  readonly closed_at: string | null;
}

/**
 * An offer on a listing, from the buyer or (a counter) from the owner. The party that did not
 * make it (`made_by`) is the one who may accept, decline or counter it; the maker may withdraw it.
 * @example (await market.getOffer(id)).status // 'pending'
 */
export interface Offer {
  readonly offer_id: string;
  readonly listing_id: string;
  readonly work_id: string;
  /** The would-be licensee. */
  readonly buyer: string;
  /** The listing owner (licensor). */
  readonly seller: string;
  /** `buyer` or `seller`: who proposed these terms. */
  readonly made_by: string;
  readonly status: OfferStatus;
  /** Flat fee, or the amount per `per` when the listing has a rate. */
  readonly amount: Money;
  readonly per: RateUnit | null;
  readonly territory: string[];
  readonly term_months: number;
  readonly expires_at: string;
  readonly message: string | null;
  /** The offer this one counters. */
  readonly counter_of: string | null;
  /** When `countered`: the counter offer. */
  readonly countered_by: string | null;
  /** When `accepted`: the licence issued. */
  readonly licence_id: string | null;
  /** Why it left `pending` when not by the recipient's plain choice (`sold_out`, `listing_withdrawn`, …). */
  readonly reason: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/**
 * The signed fields of a licence (everything but the signature envelope).
 * @example const f: LicenceFields = { licence_id: 'lic_…', …other fields }
 */
export interface LicenceFields {
  readonly licence_id: string;
  readonly listing_id: string;
  readonly offer_id: string;
  readonly work_id: string;
  readonly work_hash: string;
  readonly licensor: string;
  readonly licensee: string;
  readonly licence_type: LicenceType;
  readonly territory: string[];
  readonly term: { readonly start: string; readonly end: string };
  readonly amount: Money;
  readonly per: RateUnit | null;
  readonly exclusive: boolean;
  readonly output_cap: OutputCap | null;
  readonly issued_at: string;
}

/**
 * A licence, signed like a registration receipt (HMAC-SHA256 with the engine's receipt key).
 * @example await market.verifyLicence(licence) // true
 */
export interface Licence extends LicenceFields {
  readonly version: 1;
  readonly alg: 'HMAC-SHA256';
  /** First 16 hex digits of SHA-256(key): which key signed it. */
  readonly key_id: string;
  /** base64url HMAC over `licenceMessage(fields)`. */
  readonly signature: string;
}

/**
 * A licence as read back, with the result of checking its signature at read time.
 * @example (await market.getLicence(id)).verified // true
 */
export interface VerifiedLicence extends Licence {
  readonly verified: boolean;
}

/**
 * One entry of the audit log; written in the same transaction as the change it records.
 * @example (await market.auditLog({ entity_id: listingId })).entries.map((e) => e.action)
 */
export interface AuditEntry {
  /** `<at>-<seq>-<aud_…>`: the key suffix, ordered; use it as the `after` cursor. */
  readonly id: string;
  /** Position in the log (1, 2, …), increasing across restarts. */
  readonly seq: number;
  readonly at: string;
  /** The caller, or `system` (expiry). */
  readonly actor: string;
  /** e.g. `listing.created`, `offer.accepted`, `licence.issued`. */
  readonly action: string;
  readonly entity: 'listing' | 'offer' | 'licence';
  readonly entity_id: string;
  readonly from: string | null;
  readonly to: string | null;
  /** Other ids the entry concerns (the listing of an offer, the offer of a licence…). */
  readonly related: string[];
  readonly details: Record<string, unknown> | null;
}

/**
 * `createListing` request.
 * @example
 * const req: CreateListingRequest = { work_id, licence_type: 'training', territory: ['US', 'EU'], term_months: 36,
 *   price: { amount_minor: 500_000, currency: 'USD' }, output_cap: { max_consecutive_words: 200, max_percent: 5 } }
 */
export interface CreateListingRequest {
  readonly work_id: string;
  readonly licence_type: LicenceType;
  readonly territory: readonly string[];
  /** 1..1200. */
  readonly term_months: number;
  readonly price?: Money;
  readonly rate?: Rate;
  /** @default false */
  readonly exclusive?: boolean;
  /** Non-exclusive only. @default null (unlimited) */
  readonly max_licences?: number | null;
  readonly output_cap?: Partial<OutputCap> | null;
  /** @default the work's title */
  readonly title?: string;
  readonly description?: string;
  /** Create as a draft (publish later) or active at once. @default 'draft' */
  readonly status?: 'draft' | 'active';
}

/**
 * `updateListing` patch: any of these; `price` or `rate` replaces the current pricing.
 * @example const p: UpdateListingRequest = { price: { amount_minor: 400_000, currency: 'USD' } }
 */
export interface UpdateListingRequest {
  readonly title?: string | null;
  readonly description?: string | null;
  readonly territory?: readonly string[];
  readonly term_months?: number;
  readonly price?: Money;
  readonly rate?: Rate;
  readonly exclusive?: boolean;
  readonly max_licences?: number | null;
  readonly output_cap?: Partial<OutputCap> | null;
}

/**
 * `makeOffer` request. `amount` is in the listing's currency: a flat fee, or the amount per unit
 * of the listing's rate.
 * @example const o: MakeOfferRequest = { amount: { amount_minor: 450_000, currency: 'USD' }, territory: ['US'] }
 */
export interface MakeOfferRequest {
  readonly amount: Money;
  /** Within the listing's territory. @default the listing's territory */
  readonly territory?: readonly string[];
  /** @default the listing's term */
  readonly term_months?: number;
  /** ISO 8601, in the future, at most 90 days ahead. @default now + 14 days */
  readonly expires_at?: string;
  readonly message?: string;
}

/**
 * `counterOffer` request: the counter's terms; what is left out is copied from the countered offer
 * (except `expires_at`, which defaults to now + 14 days, and `message`).
 * @example const c: CounterOfferRequest = { amount: { amount_minor: 480_000, currency: 'USD' } }
 */
export type CounterOfferRequest = Partial<MakeOfferRequest>;

/**
 * `listListings` filter. Listings are returned in id order; `next` is the cursor for `after`.
 * @example await market.listListings({ licence_type: 'training', territory: 'DE', currency: 'USD', max_amount_minor: 600_000 })
 */
export interface ListingFilter {
  /** @default 'active' */
  readonly status?: ListingStatus | 'any';
  readonly licence_type?: LicenceType;
  /** Only listings whose territory covers this code (`DE` matches `DE`, `EU`, `WORLDWIDE`). */
  readonly territory?: string;
  readonly work_type?: WorkType;
  /** This owner's listings only (read through the owner's index, not a scan of every listing). */
  readonly owner?: string;
  /**
   * Whose eyes the page is for: drafts appear only when this account owns them (another account's drafts are
   * skipped, as if absent). Without it every listing the other fields select is returned.
   */
  readonly visible_to?: string;
  readonly exclusive?: boolean;
  /** `price` (flat fee) or `rate` listings only. */
  readonly pricing?: 'price' | 'rate';
  /** Required with a price range: amounts in different currencies do not compare. */
  readonly currency?: string;
  readonly min_amount_minor?: number;
  readonly max_amount_minor?: number;
  readonly after?: string;
  /** 1..1000. @default 100 */
  readonly limit?: number;
}

/**
 * `listOffers` filter.
 * @example await market.listOffers({ listing_id, status: 'pending' })
 */
export interface OfferFilter {
  readonly listing_id?: string;
  readonly buyer?: string;
  readonly seller?: string;
  /** Offers this account is a party to (as buyer or seller). */
  readonly party?: string;
  readonly status?: OfferStatus;
  readonly after?: string;
  /** 1..1000. @default 100 */
  readonly limit?: number;
}

/**
 * `listLicences` filter.
 * @example await market.listLicences({ licensee: 'acme-ai' })
 */
export interface LicenceFilter {
  readonly licensor?: string;
  readonly licensee?: string;
  /** Licences this account is a party to (as licensor or licensee). */
  readonly party?: string;
  readonly listing_id?: string;
  readonly work_id?: string;
  readonly after?: string;
  /** 1..1000. @default 100 */
  readonly limit?: number;
}

/**
 * `auditLog` filter.
 * @example await market.auditLog({ entity_id: offerId, limit: 20 })
 */
export interface AuditFilter {
  /** Entries about this listing, offer or licence (also as a related id). */
  readonly entity_id?: string;
  /** An entry `id`: only entries after it. */
  readonly after?: string;
  /** 1..1000. @default 100 */
  readonly limit?: number;
}

/**
 * Options of the calls that take an idempotency key (`createListing`, `acceptOffer`).
 * @example await market.acceptOffer('estate', offerId, { idempotencyKey: 'accept-7f3a' })
 */
export interface IdempotencyOptions {
  /** 1..255 characters; kept per caller and operation. */
  readonly idempotencyKey?: string;
}
