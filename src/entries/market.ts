/**
 * `trainprint/market` — the licensing marketplace of `engine.marketplace`: listings, offers, counter-offers,
 * licences and their audit log, with the states each moves through, the requests they take and the records they
 * keep (`createMarketplace` makes one on a store of your own).
 *
 * @example
 * import { createEngine } from 'trainprint'
 * import { OFFER_TRANSITIONS, type CreateListingRequest } from 'trainprint/market'
 * const engine = await createEngine()
 * const listing: CreateListingRequest = { work_id, licence_type: 'training', territory: ['US'], term_months: 36,
 *   price: { amount_minor: 500_000, currency: 'USD' }, exclusive: false, status: 'active' }
 * const l = await engine.marketplace.createListing('estate', listing)
 * OFFER_TRANSITIONS.pending // the states a pending offer may move to
 */
export {
  Marketplace,
  createMarketplace,
  LISTING_TRANSITIONS,
  OFFER_TRANSITIONS,
  WORLDWIDE,
} from '../library.js';
// the records, requests and filters; the constants among them (LICENCE_TYPES, LISTING_STATES, OFFER_STATES,
// RATE_UNITS) stay type-only exports, as the main entry exported them before
export type {
  AuditEntry,
  AuditFilter,
  CounterOfferRequest,
  CreateListingRequest,
  IdempotencyOptions,
  LICENCE_TYPES,
  LISTING_STATES,
  Licence,
  LicenceFields,
  LicenceFilter,
  LicenceType,
  Listing,
  ListingFilter,
  ListingStatus,
  MakeOfferRequest,
  Money,
  OFFER_STATES,
  Offer,
  OfferFilter,
  OfferStatus,
  OutputCap,
  RATE_UNITS,
  Rate,
  RateUnit,
  UpdateListingRequest,
  VerifiedLicence,
} from '../library.js';
