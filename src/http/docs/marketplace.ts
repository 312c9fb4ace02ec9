/**
 * Documentation of the licensing-marketplace operations (src/http/routes/marketplace.ts):
 * descriptions, errors and worked examples (src/http/docs/index.ts says how they are used). In the
 * examples `acme` lists its chapter of *Persuasion* for AI training and `globex` buys a licence.
 */
import type { ErrorCase, RouteDocs, RouteExample } from '../context.js';
import { ACME, GLOBEX, ID, WORK_HASH, WORK_TITLE } from './example-kit.js';

const noListing: ErrorCase = { code: 'NOT_FOUND', when: "no listing has this id, or it is another account's draft" };
const notOwner: ErrorCase = { code: 'FORBIDDEN', when: "the listing is another account's" };
const noOffer: ErrorCase = { code: 'NOT_FOUND', when: 'no offer with this id has the account as a party' };
const notPending: ErrorCase = {
  code: 'CONFLICT',
  when: 'the offer is no longer pending (accepted, declined, countered, expired or withdrawn)',
};
const recipientOnly: ErrorCase = {
  code: 'FORBIDDEN',
  when: 'the account made the offer: the other party answers it (the listing owner, or the buyer for a counter)',
};

/** acme's listing of the examples, as created: a draft of AI-training licences for the UK and the EU. */
const LISTING = {
  listing_id: ID.listing,
  work_id: ID.work,
  work_hash: WORK_HASH,
  work_type: 'book',
  owner: ACME,
  title: WORK_TITLE,
  description: 'Opening chapter of Persuasion, clean text, for model training.',
  status: 'draft',
  licence_type: 'training',
  territory: ['EU', 'GB'],
  term_months: 24,
  price: { amount_minor: 120000, currency: 'EUR' },
  rate: null,
  exclusive: false,
  max_licences: 10,
  output_cap: { max_consecutive_words: 50, max_percent: null },
  licences_issued: 0,
  created_at: '2025-06-02T09:30:00.001Z',
  updated_at: '2025-06-02T09:30:00.001Z',
  published_at: null,
  closed_at: null,
} as const;

/** globex's offer on the listing: 900.00 EUR for a German licence, pending. */
const OFFER = {
  offer_id: ID.offer,
  listing_id: ID.listing,
  work_id: ID.work,
  buyer: GLOBEX,
  seller: ACME,
  made_by: GLOBEX,
  status: 'pending',
  amount: { amount_minor: 90000, currency: 'EUR' },
  per: null,
  territory: ['DE'],
  term_months: 24,
  expires_at: '2025-06-16T09:30:00.002Z',
  message: 'For a German-language tutoring model.',
  counter_of: null,
  countered_by: null,
  licence_id: null,
  reason: null,
  created_at: '2025-06-02T09:30:00.002Z',
  updated_at: '2025-06-02T09:30:00.002Z',
} as const;

/** What a step of the examples on one listing or offer says besides its path and its answer. */
type Step = Omit<RouteExample, 'params' | 'status' | 'response'>;

/** A step on acme's listing, answered (200) with the listing as `changes` leave it. */
const onListing = (step: Step, changes: object = {}): RouteExample => ({
  ...step,
  params: { listing_id: ID.listing },
  status: 200,
  response: { success: true, ...LISTING, ...changes },
});

/** A step on globex's offer and its answer. */
const atOffer = (step: Step, status: number, response: unknown): RouteExample => ({
  ...step,
  params: { offer_id: ID.offer },
  status,
  response,
});

/** A step on globex's offer, answered (200) with the offer as `changes` leave it. */
const onOffer = (step: Step, changes: object = {}) => atOffer(step, 200, { success: true, ...OFFER, ...changes });

/** The licence that accepting globex's offer issued in the examples (verified and read back by later ones). */
const LICENCE = {
  version: 1,
  alg: 'HMAC-SHA256',
  key_id: '90625e2fb21652b2',
  licence_id: ID.licence,
  listing_id: ID.listing,
  offer_id: ID.offer,
  work_id: ID.work,
  work_hash: WORK_HASH,
  licensor: ACME,
  licensee: GLOBEX,
  licence_type: 'training',
  territory: ['DE'],
  term: { start: '2025-06-02T09:30:00.005Z', end: '2027-06-03T09:30:00.005Z' },
  amount: { amount_minor: 90000, currency: 'EUR' },
  per: null,
  exclusive: false,
  output_cap: { max_consecutive_words: 50, max_percent: null },
  issued_at: '2025-06-02T09:30:00.005Z',
  signature: 'TRcxFhXjROf6MdzoT2HPX46a4nobvm9ZACLEbprpoZ4',
} as const;

/**
 * Documentation of the marketplace operations, by operation id.
 * @example MARKETPLACE_DOCS.createListing.examples[0].body
 */
export const MARKETPLACE_DOCS: Readonly<Record<string, RouteDocs>> = {
  // ---------------------------------------------------------------- listings
  createListing: {
    description:
      'Lists a registered work of the account under one licence type (`training`, `retrieval`, `display`), ' +
      'territory and term, priced by a flat fee (`price`) or a `rate` per word, title or month: exactly one of ' +
      'them. The listing is a draft (visible to the account only) until published, unless `status: "active"`. An ' +
      '`Idempotency-Key` makes a retry after a lost response safe: the same listing is answered, never a second one.',
    errorCases: [
      { code: 'NOT_FOUND', when: 'no work has this id' },
      { code: 'FORBIDDEN', when: "the work is another account's" },
      {
        code: 'CONFLICT',
        when: 'an active exclusive listing would overlap another listing or a live licence of the same work and type',
      },
      {
        code: 'INVALID_INPUT',
        when: 'both or neither of `price` and `rate`, an unknown territory, or `max_licences` on an exclusive listing',
      },
    ],
    examples: [
      {
        name: 'trainingDraft',
        summary: 'A draft: non-exclusive AI-training licences for the UK and the EU, two years, 1,200.00 EUR each',
        after: ['registerWork'],
        headers: { 'Idempotency-Key': 'list-persuasion-ch1-training' },
        body: {
          work_id: ID.work,
          licence_type: 'training',
          territory: ['GB', 'EU'],
          term_months: 24,
          price: { amount_minor: 120000, currency: 'EUR' },
          max_licences: 10,
          output_cap: { max_consecutive_words: 50, max_percent: null },
          description: 'Opening chapter of Persuasion, clean text, for model training.',
        },
        status: 201,
        response: {
          success: true,
          ...LISTING,
          created_at: '2025-06-02T09:30:00.003Z',
          updated_at: '2025-06-02T09:30:00.003Z',
        },
      },
    ],
  },
  listListings: {
    description:
      "Searches listings: active ones unless `status` says otherwise; drafts only ever the account's own. " +
      'Filters by licence type, territory covered, work type, owner, exclusivity, pricing and amount range; pages ' +
      'with `after`/`next`.',
    examples: [
      {
        name: 'trainingInGermany',
        summary: 'Active training listings covering Germany',
        caller: 'buyer',
        after: ['publishListing'],
        query: { licence_type: 'training', territory: 'DE', limit: 20 },
        status: 200,
        response: {
          success: true,
          listings: [{ ...LISTING, status: 'active', published_at: '2025-06-02T09:30:00.001Z' }],
          next: null,
        },
      },
    ],
  },
  getListing: {
    description: "A listing: any active, withdrawn or sold-out listing, and the account's own drafts.",
    errorCases: [noListing],
    examples: [onListing({ name: 'draft', summary: "The account's draft", after: ['createListing'] })],
  },
  updateListing: {
    description:
      'Changes a draft or active listing of the account: title and description always; the commercial ' +
      'terms of an active listing only while no offer on it is pending. `price` or `rate` replaces the current ' +
      'pricing.',
    errorCases: [
      noListing,
      notOwner,
      { code: 'CONFLICT', when: 'the listing is withdrawn or sold out, or terms change while an offer is pending' },
    ],
    examples: [
      onListing(
        {
          name: 'newPrice',
          summary: 'Lower the price of the draft',
          after: ['createListing'],
          body: { price: { amount_minor: 95000, currency: 'EUR' } },
        },
        { price: { amount_minor: 95000, currency: 'EUR' } },
      ),
    ],
  },
  publishListing: {
    description: 'Publishes a draft of the account: draft → active, visible to every account with the scope. No body.',
    errorCases: [noListing, notOwner, { code: 'CONFLICT', when: 'the listing is not a draft' }],
    examples: [
      onListing(
        { name: 'publish', summary: 'Publish the draft', after: ['createListing'] },
        { status: 'active', created_at: '2025-06-02T09:30:00.000Z', published_at: '2025-06-02T09:30:00.001Z' },
      ),
    ],
  },
  withdrawListing: {
    description:
      'Withdraws a listing of the account: no new offers; its pending offers are declined. Licences ' +
      'already issued stay valid. No body.',
    errorCases: [noListing, notOwner, { code: 'CONFLICT', when: 'the listing is already withdrawn or sold out' }],
    examples: [
      onListing(
        { name: 'withdraw', summary: 'Withdraw the active listing', after: ['publishListing'] },
        {
          status: 'withdrawn',
          created_at: '2025-06-02T09:30:00.002Z',
          updated_at: '2025-06-02T09:30:00.004Z',
          published_at: '2025-06-02T09:30:00.003Z',
          closed_at: '2025-06-02T09:30:00.004Z',
        },
      ),
    ],
  },
  makeOffer: {
    description:
      "Offers on an active listing of another account. `amount` is in the listing's currency: the flat " +
      "fee, or the amount per unit of its rate. Territory (within the listing's) and term default to the " +
      "listing's; the offer expires after 14 days unless `expires_at` says otherwise (at most 90).",
    errorCases: [
      noListing,
      { code: 'FORBIDDEN', when: "the listing is the account's own" },
      { code: 'CONFLICT', when: 'the listing is not active' },
      { code: 'INVALID_INPUT', when: "the currency is not the listing's, or the territory is outside the listing's" },
    ],
    examples: [
      {
        name: 'offerForGermany',
        summary: 'Globex offers 900.00 EUR for a German licence',
        caller: 'buyer',
        after: ['publishListing'],
        params: { listing_id: ID.listing },
        body: {
          amount: { amount_minor: 90000, currency: 'EUR' },
          territory: ['DE'],
          message: 'For a German-language tutoring model.',
        },
        status: 201,
        response: {
          success: true,
          ...OFFER,
          expires_at: '2025-06-16T09:30:00.004Z',
          created_at: '2025-06-02T09:30:00.004Z',
          updated_at: '2025-06-02T09:30:00.004Z',
        },
      },
    ],
  },

  // ---------------------------------------------------------------- offers
  listOffers: {
    description:
      'The offers the account is party to, as buyer or as seller; offers past their expiry are expired on ' +
      'the way.',
    examples: [
      {
        name: 'received',
        summary: "Pending offers on the account's listings",
        after: ['makeOffer'],
        query: { role: 'seller', status: 'pending' },
        status: 200,
        response: {
          success: true,
          offers: [OFFER],
          next: null,
        },
      },
    ],
  },
  getOffer: {
    description: 'An offer the account is party to.',
    errorCases: [noOffer],
    examples: [
      onOffer(
        { name: 'received', summary: 'The offer from globex', after: ['makeOffer'] },
        {
          expires_at: '2025-06-16T09:30:00.006Z',
          created_at: '2025-06-02T09:30:00.006Z',
          updated_at: '2025-06-02T09:30:00.006Z',
        },
      ),
    ],
  },
  acceptOffer: {
    description:
      'Accepts a pending offer made to the account and issues the licence, signed by the service. Only the ' +
      "recipient accepts: the listing owner for a buyer's offer, the buyer for a counter. An exclusive listing, or " +
      'one reaching `max_licences`, becomes `sold_out` and its other pending offers `declined`; concurrent accepts ' +
      'on an exclusive listing issue exactly one licence. An `Idempotency-Key` makes a retry safe: never two ' +
      'licences. No body.',
    errorCases: [noOffer, recipientOnly, notPending],
    examples: [
      atOffer(
        {
          name: 'accept',
          summary: 'Acme accepts: the licence',
          after: ['makeOffer'],
          headers: { 'Idempotency-Key': 'accept-globex-de-offer' },
        },
        201,
        { success: true, ...LICENCE },
      ),
    ],
  },
  declineOffer: {
    description: 'Declines a pending offer made to the account. No body.',
    errorCases: [noOffer, recipientOnly, notPending],
    examples: [
      onOffer(
        { name: 'decline', summary: 'Acme declines', after: ['makeOffer'] },
        { status: 'declined', updated_at: '2025-06-02T09:30:00.003Z' },
      ),
    ],
  },
  counterOffer: {
    description:
      'Counters a pending offer made to the account: a new pending offer the other way, which the other ' +
      'party accepts, declines or counters in turn. Terms left out are copied from the countered offer (not ' +
      '`expires_at`: 14 days by default); the countered offer becomes `countered`.',
    errorCases: [noOffer, recipientOnly, notPending],
    examples: [
      atOffer(
        {
          name: 'counter',
          summary: 'Acme asks 1,050.00 EUR',
          after: ['makeOffer'],
          body: { amount: { amount_minor: 105000, currency: 'EUR' }, message: 'We can meet you at 1,050.' },
        },
        201,
        {
          success: true,
          ...OFFER,
          offer_id: ID.counterOffer,
          made_by: ACME,
          amount: { amount_minor: 105000, currency: 'EUR' },
          expires_at: '2025-06-16T09:30:00.003Z',
          message: 'We can meet you at 1,050.',
          counter_of: ID.offer,
          created_at: '2025-06-02T09:30:00.003Z',
          updated_at: '2025-06-02T09:30:00.003Z',
        },
      ),
    ],
  },
  withdrawOffer: {
    description: 'Withdraws a pending offer the account made. No body.',
    errorCases: [noOffer, { code: 'FORBIDDEN', when: 'the other party made the offer' }, notPending],
    examples: [
      onOffer(
        { name: 'withdraw', summary: 'Globex withdraws its offer', caller: 'buyer', after: ['makeOffer'] },
        {
          status: 'withdrawn',
          expires_at: '2025-06-16T09:30:00.003Z',
          created_at: '2025-06-02T09:30:00.003Z',
          updated_at: '2025-06-02T09:30:00.003Z',
        },
      ),
    ],
  },

  // ---------------------------------------------------------------- licences
  listLicences: {
    description: 'The licences the account is party to, as licensor or licensee, each with its signature checked.',
    examples: [
      {
        name: 'held',
        summary: 'Licences globex holds',
        caller: 'buyer',
        after: ['acceptOffer'],
        query: { role: 'licensee' },
        status: 200,
        response: {
          success: true,
          licences: [
            {
              ...LICENCE,
              key_id: '085dcd255de729b1',
              term: { start: '2025-06-02T09:30:00.002Z', end: '2027-06-03T09:30:00.002Z' },
              issued_at: '2025-06-02T09:30:00.002Z',
              signature: 'daCMiJJ0azFm-QZOFqB0htbWnK2C9axHgCbi_M5OFhg',
              verified: true,
            },
          ],
          next: null,
        },
      },
    ],
  },
  getLicence: {
    description: 'A licence the account is party to, with its signature checked.',
    errorCases: [{ code: 'NOT_FOUND', when: 'no licence with this id has the account as a party' }],
    examples: [
      {
        name: 'issued',
        summary: 'The licence acme issued',
        after: ['acceptOffer'],
        params: { licence_id: ID.licence },
        status: 200,
        response: { success: true, ...LICENCE, verified: true },
      },
    ],
  },
  verifyLicence: {
    description:
      'Checks that a licence document was signed by this service and that no signed field was changed. Any ' +
      'account holding a licence may check it; nothing is stored.',
    examples: [
      {
        name: 'valid',
        summary: 'The licence as issued',
        caller: 'buyer',
        after: ['acceptOffer'],
        body: { licence: LICENCE },
        status: 200,
        response: { success: true, valid: true },
      },
    ],
  },

  // ---------------------------------------------------------------- audit
  marketplaceAudit: {
    description:
      'The audit trail of a listing or work the account owns, or of an offer or licence it is party to: ' +
      'entries in commit order, each written in the same transaction as the change it records.',
    errorCases: [{ code: 'NOT_FOUND', when: 'the id names nothing the account owns or is party to' }],
    examples: [
      {
        name: 'listing',
        summary: 'Everything that happened to the listing',
        after: ['acceptOffer'],
        query: { entity_id: ID.listing, limit: 50 },
        status: 200,
        response: {
          success: true,
          entries: [
            {
              id: '2026-11-22T21:29:54.052Z-000000000001-aud_94eebef99db98974fe57cbae24fb3864',
              seq: 1,
              at: '2025-06-02T09:30:00.001Z',
              actor: 'acme',
              action: 'listing.created',
              entity: 'listing',
              entity_id: ID.listing,
              from: null,
              to: 'draft',
              related: [ID.work],
              details: { licence_type: 'training', exclusive: false },
            },
            {
              id: '2026-11-22T21:29:54.052Z-000000000002-aud_3f98be4cea022114d0f0d03a483c291f',
              seq: 2,
              at: '2025-06-02T09:30:00.001Z',
              actor: 'acme',
              action: 'listing.published',
              entity: 'listing',
              entity_id: ID.listing,
              from: 'draft',
              to: 'active',
              related: [],
              details: null,
            },
          ],
          next: null,
        },
      },
    ],
  },
};
