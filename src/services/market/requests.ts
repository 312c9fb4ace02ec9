/**
 * The marketplace's requests as its operations take them: the requests with a contract (./schema.ts) read through it
 * and brought to the records' form (a territory normalised, defaults filled in), the positional arguments and the
 * options checked here. Every failure is INVALID_INPUT naming the field (`price.currency`,
 * `territory[2]`, …); unknown fields are refused, not dropped. The parsed forms use `null` for "not given" because
 * the store refuses `undefined`.
 */
import { invalidField, readThrough } from '../../util/schema-check.js';
import { checkObject, checkString, fail, onlyKeys } from '../../util/validate.js';
import { MARKET_REQUESTS } from './schema.js';
import { checkTerritory } from './territory.js';
import type { Listing, Money, OutputCap, Rate } from './types.js';

/**
 * Life of an offer made without `expires_at` (14 days).
 * @example new Date(Date.now() + OFFER_TTL_DEFAULT_MS).toISOString() // the default expires_at
 */
export const OFFER_TTL_DEFAULT_MS = 14 * 86_400_000;
/**
 * Longest life of an offer (90 days): a pending offer freezes the listing's price, so it must not
 * freeze it for ever.
 * @example makeOffer('acme', id, { amount, expires_at: new Date(Date.now() + OFFER_TTL_MAX_MS + 1).toISOString() }) // INVALID_INPUT
 */
export const OFFER_TTL_MAX_MS = 90 * 86_400_000;

/** A caller (account id): 1..200 characters. */
export function checkCaller(v: unknown): string {
  return checkString(v, 'caller', 200);
}

/** An id of the given prefix (`lst_`, `ofr_`, `lic_`, `wk_`). */
export function checkId(v: unknown, prefix: string, where: string): string {
  if (typeof v !== 'string' || !new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`).test(v))
    fail(`${where} must be a "${prefix}…" id`);
  return v as string;
}

// a request's money, rate and cap as the records hold them: their members in one order, whatever the caller's
const moneyOf = (m: Money): Money => ({ amount_minor: m.amount_minor, currency: m.currency });
const rateOf = (r: Rate): Rate => ({ per: r.per, ...moneyOf(r) });
const capOf = (c: Partial<OutputCap> | null | undefined): OutputCap | null =>
  c ? { max_consecutive_words: c.max_consecutive_words ?? null, max_percent: c.max_percent ?? null } : null;

/**
 * The listing terms a buyer's offer rests on: a patch that changes one of them waits until no offer is
 * pending (see listings.ts). The other fields of a request are the work, the licence type, the texts and the status.
 */
export const COMMERCIAL_FIELDS = [
  'territory',
  'term_months',
  'price',
  'rate',
  'exclusive',
  'max_licences',
  'output_cap',
] as const satisfies ReadonlyArray<keyof Listing>;

/** A parsed `createListing` request: the listing's own fields, in the status it starts in. */
export interface ListingInput
  extends Pick<Listing, 'work_id' | 'licence_type' | (typeof COMMERCIAL_FIELDS)[number] | 'title' | 'description'> {
  readonly status: 'draft' | 'active';
}

/** A `createListing` request read through its contract, its territory normalised and its defaults filled in. */
export function parseCreateListing(v: unknown): ListingInput {
  const r = readThrough(MARKET_REQUESTS.createListing, v, undefined);
  return {
    work_id: r.work_id,
    licence_type: r.licence_type,
    territory: checkTerritory(r.territory, 'territory'),
    term_months: r.term_months,
    price: r.price ? moneyOf(r.price) : null,
    rate: r.rate ? rateOf(r.rate) : null,
    exclusive: r.exclusive === true,
    max_licences: r.max_licences ?? null,
    output_cap: capOf(r.output_cap),
    title: r.title ?? null,
    description: r.description ?? null,
    status: r.status ?? 'draft',
  };
}

/** A parsed `updateListing` patch: only the fields given. */
export type ListingPatch = Partial<Pick<ListingInput, 'title' | 'description' | (typeof COMMERCIAL_FIELDS)[number]>>;

/**
 * An `updateListing` patch read through its contract. Giving `price` clears `rate` and the other way round; setting
 * `exclusive: true` clears `max_licences`. Whether `max_licences` fits the resulting exclusivity
 * is checked against the listing (see listings.ts).
 */
export function parseListingPatch(v: unknown): ListingPatch {
  const r = readThrough(MARKET_REQUESTS.updateListing, v, undefined);
  const p: { -readonly [K in keyof ListingPatch]: ListingPatch[K] } = {};
  if ('title' in r) p.title = r.title ?? null;
  if ('description' in r) p.description = r.description ?? null;
  if (r.territory !== undefined) p.territory = checkTerritory(r.territory, 'territory');
  if (r.term_months !== undefined) p.term_months = r.term_months;
  if (r.price !== undefined) [p.price, p.rate] = [moneyOf(r.price), null];
  if (r.rate !== undefined) [p.rate, p.price] = [rateOf(r.rate), null];
  if (r.exclusive !== undefined) p.exclusive = r.exclusive;
  if ('max_licences' in r) p.max_licences = r.max_licences ?? null;
  if ('output_cap' in r) p.output_cap = capOf(r.output_cap);
  if (p.exclusive === true) p.max_licences = null;
  return p;
}

/** A parsed offer (or counter) request; `undefined` members are taken from the listing / countered offer. */
export interface OfferInput {
  readonly amount?: Money;
  readonly territory?: string[];
  readonly term_months?: number;
  readonly expires_at: string;
  readonly message: string | null;
}

/** A `makeOffer` or `counterOffer` request read through its contract, its expiry checked against the clock. */
export function parseOffer(v: unknown, nowMs: number, counter: boolean): OfferInput {
  const r = readThrough(counter ? MARKET_REQUESTS.counterOffer : MARKET_REQUESTS.makeOffer, v, undefined);
  let expires = nowMs + OFFER_TTL_DEFAULT_MS;
  if (r.expires_at !== undefined) {
    expires = Date.parse(r.expires_at);
    if (expires <= nowMs) invalidField('expires_at', 'must be in the future');
    if (expires > nowMs + OFFER_TTL_MAX_MS)
      invalidField('expires_at', `must be at most ${OFFER_TTL_MAX_MS / 86_400_000} days ahead`);
  }
  return {
    ...(r.amount === undefined ? {} : { amount: moneyOf(r.amount) }),
    ...(r.territory === undefined ? {} : { territory: checkTerritory(r.territory, 'territory') }),
    ...(r.term_months === undefined ? {} : { term_months: r.term_months }),
    expires_at: new Date(expires).toISOString(),
    message: r.message ?? null,
  };
}

/** Checks the idempotency options; returns the key or undefined. */
export function checkIdempotency(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const o = checkObject(v, 'options');
  onlyKeys(o, ['idempotencyKey'], 'options');
  return o.idempotencyKey === undefined ? undefined : checkString(o.idempotencyKey, 'idempotencyKey', 255);
}
