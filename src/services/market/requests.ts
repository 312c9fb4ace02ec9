/**
 * The marketplace's requests as its operations take them: the requests with a contract (./schema.ts) read through it
 * and brought to the records' form (a territory normalised, defaults filled in), the list calls' filters and the
 * positional arguments checked here. Every failure is INVALID_INPUT naming the field (`price.currency`,
 * `territory[2]`, …); unknown fields are refused, not dropped. The parsed forms use `null` for "not given" because
 * the store refuses `undefined`.
 */
import { invalidField, readThrough } from '../../util/schema-check.js';
import { checkObject, checkString, checkWorkType, fail, onlyKeys } from '../../util/validate.js';
import { MARKET_REQUESTS } from './schema.js';
import { checkTerritory, checkTerritoryCode } from './territory.js';
import {
  LICENCE_TYPES,
  LISTING_STATES,
  OFFER_STATES,
  type LicenceType,
  type Listing,
  type ListingFilter,
  type ListingStatus,
  type Money,
  type OfferStatus,
  type OutputCap,
  type Rate,
} from './types.js';

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

const CURRENCY = /^[A-Z]{3}$/;

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

function checkInt(v: unknown, where: string, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max)
    fail(`${where} must be an integer in ${min}..${max}`);
  return v as number;
}

function checkLicenceType(v: unknown, where: string): LicenceType {
  if (!(LICENCE_TYPES as readonly unknown[]).includes(v))
    fail(`${where} must be one of ${LICENCE_TYPES.map((t) => `'${t}'`).join(', ')}`);
  return v as LicenceType;
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

/** The check of one member of a list call's filter, run only when the member is given. */
export type MemberCheck<T> = (v: unknown, field: string) => T;

/** A filter member naming an account (`buyer`, `party`, …): 1..200 characters. */
export const accountMember: MemberCheck<string> = (v, field) => checkString(v, field, 200);

/** A filter member naming a record by id (`listing_id`, …): an id of the prefix. */
export const idMember =
  (prefix: string): MemberCheck<string> =>
  (v, field) =>
    checkId(v, prefix, field);

/**
 * Checks the filter of a list call (`where` names it in errors): no members but those of `checks` and
 * `after`/`limit`, each given member by its check in the order of `checks`, then the page. Absent members are
 * undefined.
 * @example parseFilter({ buyer: 'acme' }, 'listOffers filter', { buyer: accountMember }) // { buyer: 'acme', after: undefined, limit: 100 }
 */
export function parseFilter<C extends Record<string, MemberCheck<unknown>>>(
  filter: unknown,
  where: string,
  checks: C,
): { [K in keyof C]: ReturnType<C[K]> | undefined } & { after: string | undefined; limit: number } {
  const o = checkObject(filter, 'the filter');
  onlyKeys(o, [...Object.keys(checks), 'after', 'limit'], where);
  const members: Record<string, unknown> = {};
  for (const [field, check] of Object.entries(checks))
    members[field] = o[field] === undefined ? undefined : check(o[field], field);
  return { ...(members as { [K in keyof C]: ReturnType<C[K]> | undefined }), ...checkPage(o) };
}

/** Checks `after`/`limit` of a list call. */
export function checkPage(o: Record<string, unknown>): { after: string | undefined; limit: number } {
  const limit = o.limit === undefined ? 100 : o.limit;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 1000)
    fail('limit must be an integer in 1..1000');
  if (o.after !== undefined && (typeof o.after !== 'string' || o.after.length === 0))
    fail('after must be a cursor string');
  return { after: o.after as string | undefined, limit: limit as number };
}

/** A parsed `listListings` filter: the filter's own members, its defaults filled in and its price range as `min`/`max`. */
export interface ListingQuery
  extends Pick<
    ListingFilter,
    'licence_type' | 'territory' | 'work_type' | 'owner' | 'visible_to' | 'exclusive' | 'pricing' | 'currency'
  > {
  readonly status: ListingStatus | 'any';
  readonly min?: number;
  readonly max?: number;
  readonly after: string | undefined;
  readonly limit: number;
}

/** Checks a `listListings` filter. */
export function parseListingFilter(v: unknown): ListingQuery {
  const o = checkObject(v, 'the filter');
  onlyKeys(
    o,
    [
      'status',
      'licence_type',
      'territory',
      'work_type',
      'owner',
      'visible_to',
      'exclusive',
      'pricing',
      'currency',
      'min_amount_minor',
      'max_amount_minor',
      'after',
      'limit',
    ],
    'listListings filter',
  );
  const status = o.status ?? 'active';
  if (status !== 'any' && !(LISTING_STATES as readonly unknown[]).includes(status))
    fail(`status must be one of ${LISTING_STATES.map((s) => `'${s}'`).join(', ')} or 'any'`);
  if (o.exclusive !== undefined && typeof o.exclusive !== 'boolean') fail('exclusive must be a boolean');
  if (o.pricing !== undefined && o.pricing !== 'price' && o.pricing !== 'rate')
    fail(`pricing must be 'price' or 'rate'`);
  if (o.currency !== undefined && (typeof o.currency !== 'string' || !CURRENCY.test(o.currency)))
    fail('currency must be an ISO 4217 code such as "USD"');
  const min =
    o.min_amount_minor === undefined
      ? undefined
      : checkInt(o.min_amount_minor, 'min_amount_minor', 0, Number.MAX_SAFE_INTEGER);
  const max =
    o.max_amount_minor === undefined
      ? undefined
      : checkInt(o.max_amount_minor, 'max_amount_minor', 0, Number.MAX_SAFE_INTEGER);
  if ((min !== undefined || max !== undefined) && o.currency === undefined)
    fail(
      'a price range (min_amount_minor / max_amount_minor) needs currency: amounts in different currencies do not compare',
    );
  if (min !== undefined && max !== undefined && min > max) fail('min_amount_minor must not exceed max_amount_minor');
  return {
    status: status as ListingStatus | 'any',
    ...(o.licence_type === undefined ? {} : { licence_type: checkLicenceType(o.licence_type, 'licence_type') }),
    ...(o.territory === undefined ? {} : { territory: checkTerritoryCode(o.territory, 'territory') }),
    ...(o.work_type === undefined ? {} : { work_type: checkWorkType(o.work_type, 'work_type') }),
    ...(o.owner === undefined ? {} : { owner: checkString(o.owner, 'owner', 200) }),
    ...(o.visible_to === undefined ? {} : { visible_to: checkString(o.visible_to, 'visible_to', 200) }),
    ...(o.exclusive === undefined ? {} : { exclusive: o.exclusive as boolean }),
    ...(o.pricing === undefined ? {} : { pricing: o.pricing as 'price' | 'rate' }),
    ...(o.currency === undefined ? {} : { currency: o.currency as string }),
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
    ...checkPage(o),
  };
}

/** Checks an `OfferStatus` filter value. */
export function checkOfferStatus(v: unknown, where: string): OfferStatus {
  if (!(OFFER_STATES as readonly unknown[]).includes(v))
    fail(`${where} must be one of ${OFFER_STATES.map((s) => `'${s}'`).join(', ')}`);
  return v as OfferStatus;
}

/** Checks the idempotency options; returns the key or undefined. */
export function checkIdempotency(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const o = checkObject(v, 'options');
  onlyKeys(o, ['idempotencyKey'], 'options');
  return o.idempotencyKey === undefined ? undefined : checkString(o.idempotencyKey, 'idempotencyKey', 255);
}
