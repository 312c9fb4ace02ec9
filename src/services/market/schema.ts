/**
 * The marketplace's requests, written once: a listing (`createListing`, `POST /api/v1/marketplace/listings`), a
 * listing's patch (`updateListing`, `PATCH …/listings/{listing_id}`), an offer (`makeOffer`, `POST
 * …/listings/{listing_id}/offers`) and a counter offer (`counterOffer`, `POST …/offers/{offer_id}/counter`). The
 * operations (dist/market-work.js) read each request through its contract and the HTTP routes serve the same
 * objects, so one bad request gets one 422 naming its field at both doors. Each contract's rules say what a schema
 * cannot: exactly one of price and rate, max_licences only on a non-exclusive listing, an output cap that caps
 * something, an expiry in ISO 8601. Two checks stay with the operations: the territory's codes, which they normalise
 * (./territory.ts), and an expiry's bounds, which need the operation's clock.
 */
import { object, partialObject, workId } from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField } from '../../util/schema-check.js';
import { isIsoDate } from '../../util/validate.js';
import {
  LICENCE_TYPES,
  RATE_UNITS,
  type CreateListingRequest,
  type MakeOfferRequest,
  type OutputCap,
  type UpdateListingRequest,
} from './types.js';

/** Longest term, in months (100 years). */
const MAX_TERM_MONTHS = 1200;

/** Most codes in one territory list (ISO 3166-1 has 249 countries). */
const MAX_CODES = 300;
/** Most of a non-exclusive listing's licences, and of an output cap's consecutive words. */
const MAX_COUNT = 1_000_000_000;

const minor = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const currency = { type: 'string', pattern: '^[A-Z]{3}$', 'x-pattern-hint': 'an ISO 4217 code such as "USD"' } as const;
const money = object({ amount_minor: minor, currency });
const termMonths = { type: 'integer', minimum: 1, maximum: MAX_TERM_MONTHS } as const;
const text = { type: 'string', minLength: 1, maxLength: 5000 } as const;
const territory = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_CODES,
  items: { type: 'string', minLength: 1, maxLength: 16 },
} as const;
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

/**
 * The marketplace's requests by operation ({@link REQUESTS}' form), each the one schema the library and the HTTP route
 * read it by.
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
} as const;
