/**
 * The marketplace's requests, written once: a listing (`createListing`, `POST /api/v1/marketplace/listings`), a
 * listing's patch (`updateListing`, `PATCH …/listings/{listing_id}`), an offer (`makeOffer`, `POST
 * …/listings/{listing_id}/offers`) and a counter offer (`counterOffer`, `POST …/offers/{offer_id}/counter`); and the
 * queries: listings (`listListings`, `GET …/listings`), offers (`listOffers`, `GET …/offers`), licences
 * (`listLicences`, `GET …/licences`), the audit log (`auditLog`, `GET …/audit`) and a licence to verify
 * (`verifyLicence`, `POST …/licences/verify`). The operations (dist/market-work.js) read each request through its
 * contract and the HTTP routes serve the same objects, so one bad request gets one 422 naming its field at both doors.
 * Where a route serves a query otherwise (the caller's `role` for the library's parties, no `visible_to`, an audit
 * of one entity) its `served` schema says so, and the route maps it. Each contract's rules say what a schema
 * cannot: exactly one of price and rate, max_licences only on a non-exclusive listing, an output cap that caps
 * something, an expiry in ISO 8601, a price range in one currency. Two checks stay with the operations: the
 * territory's codes, which they normalise (./territory.ts), and an expiry's bounds, which need the operation's clock.
 */
import { object, pageLimit, partialObject, prefixedId, workId, workType } from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField } from '../../util/schema-check.js';
import { isIsoDate } from '../../util/validate.js';
import {
  LICENCE_TYPES,
  LISTING_STATES,
  OFFER_STATES,
  RATE_UNITS,
  type AuditFilter,
  type CreateListingRequest,
  type LicenceFilter,
  type ListingFilter,
  type MakeOfferRequest,
  type OfferFilter,
  type OutputCap,
  type UpdateListingRequest,
} from './types.js';

/** Longest term, in months (100 years). */
const MAX_TERM_MONTHS = 1200;

/** Most codes in one territory list (ISO 3166-1 has 249 countries). */
const MAX_CODES = 300;
/** Most of a non-exclusive listing's licences, and of an output cap's consecutive words. */
const MAX_COUNT = 1_000_000_000;
/** Longest cursor (`after`): a record's id, or an audit entry's (`<at>-<seq>-<aud_…>`, about 80 characters). */
const MAX_CURSOR = 300;

const minor = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const currency = { type: 'string', pattern: '^[A-Z]{3}$', 'x-pattern-hint': 'an ISO 4217 code such as "USD"' } as const;
const money = object({ amount_minor: minor, currency });
const termMonths = { type: 'integer', minimum: 1, maximum: MAX_TERM_MONTHS } as const;
const text = { type: 'string', minLength: 1, maxLength: 5000 } as const;
const code = { type: 'string', minLength: 1, maxLength: 16 } as const;
const territory = { type: 'array', minItems: 1, maxItems: MAX_CODES, items: code } as const;
const maxLicences = { type: ['integer', 'null'], minimum: 1, maximum: MAX_COUNT } as const;
const outputCap = {
  oneOf: [
    { type: 'null' },
    partialObject({
      max_consecutive_words: { type: ['integer', 'null'], minimum: 1, maximum: MAX_COUNT },
      max_percent: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 100 },
    }),
  ],
} as const;

/** A listing's members, as created; a patch takes all but the work, the licence type and the status. */
const LISTING_TERMS = {
  territory,
  term_months: termMonths,
  price: money,
  rate: object({ per: { enum: RATE_UNITS }, amount_minor: minor, currency }),
  exclusive: { type: 'boolean' },
  max_licences: maxLicences,
  output_cap: outputCap,
} as const;

/** The rules a listing and a patch share: max_licences only without exclusivity, an output cap of something. */
function listingTermRules(request: UpdateListingRequest): void {
  if (request.exclusive === true && request.max_licences != null)
    invalidField('max_licences', 'is for non-exclusive listings (an exclusive listing sells one licence)');
  const cap = request.output_cap as Partial<OutputCap> | null | undefined;
  if (cap && cap.max_consecutive_words == null && cap.max_percent == null)
    invalidField('output_cap', 'needs max_consecutive_words or max_percent (or pass null for no cap)');
}

/** An offer's terms; a counter offer's are all optional (left out: the countered offer's). */
const OFFER_TERMS = {
  amount: money,
  territory,
  term_months: termMonths,
  expires_at: { type: 'string', minLength: 1, maxLength: 64 },
  message: text,
} as const;

/** The rule of an offer a schema cannot say: an expiry in ISO 8601 (its bounds are the operation's, by its clock). */
function offerRules(request: Partial<MakeOfferRequest>): void {
  if (request.expires_at !== undefined && !isIsoDate(request.expires_at))
    invalidField('expires_at', 'must be an ISO 8601 date such as "2024-05-01"');
}

/** A query's page: from a cursor (the `next` of the page before), of `limit` items. */
const PAGE = { after: { type: 'string', minLength: 1, maxLength: MAX_CURSOR }, limit: pageLimit } as const;
const account = { type: 'string', minLength: 1, maxLength: 200 } as const;
const listingId = prefixedId('lst', 32);

/** A listing query's members as served; the library's also takes `visible_to`, the account whose drafts it shows. */
const LISTING_QUERY = {
  status: { enum: [...LISTING_STATES, 'any'] },
  licence_type: { enum: LICENCE_TYPES },
  territory: code,
  work_type: workType,
  owner: account,
  exclusive: { type: 'boolean' },
  pricing: { enum: ['price', 'rate'] },
  currency,
  min_amount_minor: minor,
  max_amount_minor: minor,
  ...PAGE,
} as const;

/** The rule of a listing query a schema cannot say: a price range in one currency, low to high. */
function listingQueryRules(query: ListingFilter): void {
  const { min_amount_minor: min = 0, max_amount_minor: max = Number.MAX_SAFE_INTEGER } = query;
  if ((query.min_amount_minor ?? query.max_amount_minor) !== undefined && query.currency === undefined)
    invalidField('currency', 'is required with a price range: amounts in different currencies do not compare');
  if (min > max) invalidField('max_amount_minor', 'must be ≥ min_amount_minor');
}

/**
 * The query of an account's records as one of their parties (offers: buyer or seller; licences: licensor or
 * licensee): the library names each party, or `party` for either; a route serves the caller's `role` instead.
 */
const partyQuery = <P extends string>(parties: readonly [P, P], members: object) => ({
  schema: partialObject({ ...Object.fromEntries(parties.map((p) => [p, account])), party: account, ...members }),
  served: partialObject({ role: { enum: parties }, ...members }),
});
const offerQuery = partyQuery(['buyer', 'seller'], { listing_id: listingId, status: { enum: OFFER_STATES }, ...PAGE });
const licenceQuery = partyQuery(['licensor', 'licensee'], { listing_id: listingId, work_id: workId, ...PAGE });
const AUDIT_QUERY = { entity_id: { type: 'string', pattern: '^(lst|ofr|lic|wk)_[0-9a-f]{32}$' }, ...PAGE } as const;

/**
 * The marketplace's requests by operation ({@link REQUESTS}' form), each the one schema the library and the HTTP route
 * read it by. The audit log is served for one entity the caller may see (the route checks it; the library reads the
 * whole log too); `verifyLicence` takes the licence itself in the library, and answers false for anything that is
 * not one this marketplace signed.
 * @example readThrough(MARKET_REQUESTS.makeOffer, { amount: { amount_minor: 100, currency: 'USD' } }, undefined)
 */
export const MARKET_REQUESTS = {
  createListing: contract<CreateListingRequest>(
    'createListing',
    object(
      {
        work_id: workId,
        licence_type: { enum: LICENCE_TYPES },
        ...LISTING_TERMS,
        title: text,
        description: text,
        status: { enum: ['draft', 'active'] },
      },
      ['price', 'rate', 'exclusive', 'max_licences', 'output_cap', 'title', 'description', 'status'],
    ),
    (request) => {
      exactlyOne(request, ['price', 'rate']);
      listingTermRules(request);
    },
  ),
  updateListing: contract<UpdateListingRequest>(
    'updateListing',
    {
      ...partialObject({
        title: { ...text, type: ['string', 'null'] },
        description: { ...text, type: ['string', 'null'] },
        ...LISTING_TERMS,
      }),
      minProperties: 1,
    },
    (request) => {
      if (request.price !== undefined && request.rate !== undefined)
        invalidField('rate', 'give only one of price, rate');
      listingTermRules(request);
    },
  ),
  makeOffer: contract<MakeOfferRequest>(
    'makeOffer',
    object(OFFER_TERMS, ['territory', 'term_months', 'expires_at', 'message']),
    offerRules,
  ),
  counterOffer: contract<Partial<MakeOfferRequest>>('counterOffer', partialObject(OFFER_TERMS), offerRules),
  listListings: contract<ListingFilter>(
    'listListings',
    partialObject({ ...LISTING_QUERY, visible_to: account }),
    listingQueryRules,
    partialObject(LISTING_QUERY),
  ),
  listOffers: contract<OfferFilter>('listOffers', offerQuery.schema, undefined, offerQuery.served),
  listLicences: contract<LicenceFilter>('listLicences', licenceQuery.schema, undefined, licenceQuery.served),
  auditLog: contract<AuditFilter>(
    'auditLog',
    partialObject(AUDIT_QUERY),
    undefined,
    object(AUDIT_QUERY, ['after', 'limit']),
  ),
  verifyLicence: contract<{ readonly licence: object }>('verifyLicence', object({ licence: { type: 'object' } })),
} as const;
