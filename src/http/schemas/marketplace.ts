/**
 * JSON Schemas of the marketplace routes (`/api/v1/marketplace/…`): the bodies and queries of requests are the
 * marketplace's contracts (`MARKET_REQUESTS`, src/services/market/schema.ts), whose words src/http/docs/fields.ts
 * gives; responses are the engine's records (src/services/market/types.ts) field for field.
 */
import { MARKET_REQUESTS } from '../../library.js';
import type { JsonSchema } from '../context.js';
import {
  bool,
  dateTime,
  dateTimeOrNull,
  int0,
  licenceId,
  listingId,
  nullable,
  object,
  offerId,
  ok,
  page,
  resourceSchemas,
  str,
  strings,
  strOrNull,
  workHash,
  workId,
  workType,
} from './kit.js';
// a record's members that a request has too are the request contract's own schemas, so that a record says no other
// value than a request may (a record's money adds the words its readers see)
const LISTING_REQUEST = MARKET_REQUESTS.createListing.served.properties as Record<string, JsonSchema>;
const REQUEST_RATE = LISTING_REQUEST.rate.properties as Record<string, JsonSchema>;
const { licence_type: licenceType, term_months: termMonths } = LISTING_REQUEST;
const { per: rateUnit } = REQUEST_RATE;
const currency = { ...REQUEST_RATE.currency, description: 'ISO 4217 code' } as const;
const minor = { ...REQUEST_RATE.amount_minor, description: 'Integer minor units (cents for USD)' } as const;
// an offer's states as the offers' query takes them; a listing's query takes `any` besides its states
const { status: offerStatus } = MARKET_REQUESTS.listOffers.served.properties as Record<string, JsonSchema>;
const listingStatus = { enum: ['draft', 'active', 'withdrawn', 'sold_out'] } as const;

const MONEY_PROPS = { amount_minor: minor, currency } as const;
/** Money: integer minor units and a currency. */
export const MONEY_SCHEMA = object(MONEY_PROPS);
/** A rate: money per word, title or month. */
export const RATE_SCHEMA = object({ per: rateUnit, ...MONEY_PROPS });
/** What the licensee's outputs may reproduce at most (`null`: not limited). */
export const OUTPUT_CAP_SCHEMA = object({
  max_consecutive_words: { type: ['integer', 'null'], minimum: 1 },
  max_percent: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 100 },
});
// ------------------------------------------------------------------ records

const LISTING_PROPS = {
  listing_id: listingId,
  work_id: workId,
  work_hash: workHash,
  work_type: nullable(workType),
  owner: { type: 'string', description: 'The licensor: the account that owns the work' },
  title: strOrNull,
  description: strOrNull,
  status: listingStatus,
  licence_type: licenceType,
  territory: strings,
  term_months: termMonths,
  price: nullable(MONEY_SCHEMA),
  rate: nullable(RATE_SCHEMA),
  exclusive: bool,
  max_licences: { type: ['integer', 'null'], minimum: 1 },
  output_cap: nullable(OUTPUT_CAP_SCHEMA),
  licences_issued: int0,
  created_at: dateTime,
  updated_at: dateTime,
  published_at: dateTimeOrNull,
  closed_at: dateTimeOrNull,
} as const;

/** A listing: one work offered under one licence type. */
export const [LISTING_SCHEMA, LISTING_RESPONSE_SCHEMA, LISTING_LIST_SCHEMA] = resourceSchemas(
  LISTING_PROPS,
  'listings',
  page,
);

const OFFER_PROPS = {
  offer_id: offerId,
  listing_id: listingId,
  work_id: workId,
  buyer: str,
  seller: str,
  made_by: {
    type: 'string',
    description: 'Who proposed these terms (buyer, or seller for a counter); the other party answers',
  },
  status: offerStatus,
  amount: MONEY_SCHEMA,
  per: nullable(rateUnit),
  territory: strings,
  term_months: termMonths,
  expires_at: dateTime,
  message: strOrNull,
  counter_of: nullable(offerId),
  countered_by: nullable(offerId),
  licence_id: nullable(licenceId),
  reason: strOrNull,
  created_at: dateTime,
  updated_at: dateTime,
} as const;

/** An offer on a listing (or a counter offer). */
export const [OFFER_SCHEMA, OFFER_RESPONSE_SCHEMA, OFFER_LIST_SCHEMA] = resourceSchemas(OFFER_PROPS, 'offers', page);

const LICENCE_PROPS = {
  version: { const: 1 },
  alg: { const: 'HMAC-SHA256' },
  key_id: str,
  licence_id: licenceId,
  listing_id: listingId,
  offer_id: offerId,
  work_id: workId,
  work_hash: workHash,
  licensor: str,
  licensee: str,
  licence_type: licenceType,
  territory: strings,
  term: object({ start: dateTime, end: dateTime }),
  amount: MONEY_SCHEMA,
  per: nullable(rateUnit),
  exclusive: bool,
  output_cap: nullable(OUTPUT_CAP_SCHEMA),
  issued_at: dateTime,
  signature: { type: 'string', description: 'base64url HMAC-SHA256 over the signed fields' },
} as const;
const VERIFIED = { verified: { type: 'boolean', description: 'The signature checked when read' } } as const;

/** A signed licence, as issued. */
export const LICENCE_SCHEMA = object(LICENCE_PROPS);
/** A licence as read back, with its signature checked. */
export const VERIFIED_LICENCE_SCHEMA = object({ ...LICENCE_PROPS, ...VERIFIED });
export const LICENCE_RESPONSE_SCHEMA = ok(LICENCE_PROPS);
export const VERIFIED_LICENCE_RESPONSE_SCHEMA = ok({ ...LICENCE_PROPS, ...VERIFIED });
export const LICENCE_LIST_SCHEMA = page('licences', VERIFIED_LICENCE_SCHEMA);

/** An audit entry, written in the same transaction as the change it records. */
export const AUDIT_ENTRY_SCHEMA = object({
  id: { type: 'string', description: '`<at>-<seq>-<aud_…>`: ordered; pass as `after`' },
  seq: { type: 'integer', minimum: 1 },
  at: dateTime,
  actor: { type: 'string', description: 'The account, or `system` (expiry)' },
  action: { type: 'string', description: '`listing.created`, `offer.accepted`, `licence.issued`, …' },
  entity: { enum: ['listing', 'offer', 'licence'] },
  entity_id: str,
  from: strOrNull,
  to: strOrNull,
  related: strings,
  details: { type: ['object', 'null'] },
});
export const AUDIT_LIST_SCHEMA = page('entries', AUDIT_ENTRY_SCHEMA);

// ------------------------------------------------------------------ results

/** What `POST /api/v1/marketplace/licences/verify` answers. */
export const VERIFY_LICENCE_RESULT_SCHEMA = ok({
  valid: { type: 'boolean', description: 'Signed by this service and unaltered' },
});

/**
 * Component names of the marketplace schemas (merged into `NAMED_SCHEMAS`).
 * @example MARKETPLACE_SCHEMA_NAMES.Listing === LISTING_SCHEMA // true
 */
export const MARKETPLACE_SCHEMA_NAMES: Readonly<Record<string, JsonSchema>> = {
  Money: MONEY_SCHEMA,
  Rate: RATE_SCHEMA,
  OutputCap: OUTPUT_CAP_SCHEMA,
  Listing: LISTING_SCHEMA,
  ListingResponse: LISTING_RESPONSE_SCHEMA,
  ListingList: LISTING_LIST_SCHEMA,
  Offer: OFFER_SCHEMA,
  OfferResponse: OFFER_RESPONSE_SCHEMA,
  OfferList: OFFER_LIST_SCHEMA,
  Licence: LICENCE_SCHEMA,
  VerifiedLicence: VERIFIED_LICENCE_SCHEMA,
  LicenceResponse: LICENCE_RESPONSE_SCHEMA,
  VerifiedLicenceResponse: VERIFIED_LICENCE_RESPONSE_SCHEMA,
  LicenceList: LICENCE_LIST_SCHEMA,
  AuditEntry: AUDIT_ENTRY_SCHEMA,
  AuditList: AUDIT_LIST_SCHEMA,
  CreateListingRequest: MARKET_REQUESTS.createListing.served,
  UpdateListingRequest: MARKET_REQUESTS.updateListing.served,
  MakeOfferRequest: MARKET_REQUESTS.makeOffer.served,
  CounterOfferRequest: MARKET_REQUESTS.counterOffer.served,
  VerifyLicenceRequest: MARKET_REQUESTS.verifyLicence.served,
  VerifyLicenceResult: VERIFY_LICENCE_RESULT_SCHEMA,
};
