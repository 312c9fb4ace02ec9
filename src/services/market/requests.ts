/**
 * Input checks of the marketplace requests. Every failure is INVALID_INPUT naming the field
 * (`price.currency`, `territory[2]`, …); unknown fields are refused, not dropped. The parsed
 * forms use `null` for "not given" because the store refuses `undefined`.
 */
import { checkObject, checkString, checkWorkType, fail, onlyKeys, parseDate } from '../../util/validate.js';
import { checkTerritory, checkTerritoryCode } from './territory.js';
import {
  LICENCE_TYPES,
  LISTING_STATES,
  OFFER_STATES,
  RATE_UNITS,
  type LicenceType,
  type Listing,
  type ListingFilter,
  type ListingStatus,
  type Money,
  type OfferStatus,
  type OutputCap,
  type Rate,
  type RateUnit,
} from './types.js';

/**
 * Longest term, in months (100 years).
 * @example createListing('estate', { …, term_months: MAX_TERM_MONTHS + 1 }) // rejects INVALID_INPUT naming term_months
 */
export const MAX_TERM_MONTHS = 1200;
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
const MAX_TEXT = 5000;

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

/** `{ amount_minor, currency }`: a non-negative safe integer and an ISO 4217 code. */
export function checkMoney(v: unknown, where: string, extra: readonly string[] = []): Money {
  const o = checkObject(v, where);
  onlyKeys(o, ['amount_minor', 'currency', ...extra], where);
  if (!Number.isSafeInteger(o.amount_minor) || (o.amount_minor as number) < 0)
    fail(`${where}.amount_minor must be a non-negative integer (minor units, e.g. cents)`);
  if (typeof o.currency !== 'string' || !CURRENCY.test(o.currency))
    fail(`${where}.currency must be an ISO 4217 code such as "USD"`);
  return { amount_minor: o.amount_minor as number, currency: o.currency as string };
}

/** `{ per, amount_minor, currency }`. */
export function checkRate(v: unknown, where: string): Rate {
  const m = checkMoney(v, where, ['per']);
  const per = (v as Record<string, unknown>).per;
  if (!(RATE_UNITS as readonly unknown[]).includes(per))
    fail(`${where}.per must be one of ${RATE_UNITS.map((u) => `'${u}'`).join(', ')}`);
  return { per: per as RateUnit, ...m };
}

function checkInt(v: unknown, where: string, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max)
    fail(`${where} must be an integer in ${min}..${max}`);
  return v as number;
}

function checkOutputCap(v: unknown, where: string): OutputCap | null {
  if (v === null) return null;
  const o = checkObject(v, where);
  onlyKeys(o, ['max_consecutive_words', 'max_percent'], where);
  const words =
    o.max_consecutive_words == null
      ? null
      : checkInt(o.max_consecutive_words, `${where}.max_consecutive_words`, 1, 1_000_000_000);
  let percent: number | null = null;
  if (o.max_percent != null) {
    if (typeof o.max_percent !== 'number' || !(o.max_percent > 0 && o.max_percent <= 100))
      fail(`${where}.max_percent must be a number in (0, 100]`);
    percent = o.max_percent as number;
  }
  if (words === null && percent === null)
    fail(`${where} needs max_consecutive_words or max_percent (or pass null for no cap)`);
  return { max_consecutive_words: words, max_percent: percent };
}

function optionalText(v: unknown, where: string): string | null {
  return v == null ? null : checkString(v, where, MAX_TEXT);
}

function checkLicenceType(v: unknown, where: string): LicenceType {
  if (!(LICENCE_TYPES as readonly unknown[]).includes(v))
    fail(`${where} must be one of ${LICENCE_TYPES.map((t) => `'${t}'`).join(', ')}`);
  return v as LicenceType;
}

function checkMaxLicences(v: unknown, exclusive: boolean, where: string): number | null {
  if (v == null) return null;
  if (exclusive) fail(`${where} is for non-exclusive listings (an exclusive listing sells one licence)`);
  return checkInt(v, where, 1, 1_000_000_000);
}

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

/** Checks a `createListing` request. */
export function parseCreateListing(v: unknown): ListingInput {
  const r = checkObject(v, 'the listing');
  onlyKeys(r, ['work_id', 'licence_type', ...COMMERCIAL_FIELDS, 'title', 'description', 'status'], 'createListing');
  const work_id = checkId(r.work_id, 'wk_', 'work_id');
  const licence_type = checkLicenceType(r.licence_type, 'licence_type');
  const territory = checkTerritory(r.territory, 'territory');
  const term_months = checkInt(r.term_months, 'term_months', 1, MAX_TERM_MONTHS);
  if ((r.price === undefined) === (r.rate === undefined)) fail('give exactly one of price or rate');
  const price = r.price === undefined ? null : checkMoney(r.price, 'price');
  const rate = r.rate === undefined ? null : checkRate(r.rate, 'rate');
  if (r.exclusive !== undefined && typeof r.exclusive !== 'boolean') fail('exclusive must be a boolean');
  const exclusive = r.exclusive === true;
  const max_licences = checkMaxLicences(r.max_licences, exclusive, 'max_licences');
  const output_cap = r.output_cap === undefined ? null : checkOutputCap(r.output_cap, 'output_cap');
  const status = r.status ?? 'draft';
  if (status !== 'draft' && status !== 'active') fail(`status must be 'draft' or 'active'`);
  return {
    work_id,
    licence_type,
    territory,
    term_months,
    price,
    rate,
    exclusive,
    max_licences,
    output_cap,
    title: optionalText(r.title, 'title'),
    description: optionalText(r.description, 'description'),
    status: status as 'draft' | 'active',
  };
}

/** A parsed `updateListing` patch: only the fields given. */
export type ListingPatch = Partial<Pick<ListingInput, 'title' | 'description' | (typeof COMMERCIAL_FIELDS)[number]>>;

/**
 * Checks an `updateListing` patch. Giving `price` clears `rate` and the other way round; setting
 * `exclusive: true` clears `max_licences`. Whether `max_licences` fits the resulting exclusivity
 * is checked against the listing (see listings.ts).
 */
export function parseListingPatch(v: unknown): ListingPatch {
  const r = checkObject(v, 'the patch');
  onlyKeys(r, ['title', 'description', ...COMMERCIAL_FIELDS], 'updateListing');
  if (Object.keys(r).length === 0) fail('the patch is empty');
  if (r.price !== undefined && r.rate !== undefined) fail('give price or rate, not both');
  const p: { -readonly [K in keyof ListingPatch]: ListingPatch[K] } = {};
  if ('title' in r) p.title = optionalText(r.title, 'title');
  if ('description' in r) p.description = optionalText(r.description, 'description');
  if (r.territory !== undefined) p.territory = checkTerritory(r.territory, 'territory');
  if (r.term_months !== undefined) p.term_months = checkInt(r.term_months, 'term_months', 1, MAX_TERM_MONTHS);
  if (r.price !== undefined) [p.price, p.rate] = [checkMoney(r.price, 'price'), null];
  if (r.rate !== undefined) [p.rate, p.price] = [checkRate(r.rate, 'rate'), null];
  if (r.exclusive !== undefined) {
    if (typeof r.exclusive !== 'boolean') fail('exclusive must be a boolean');
    p.exclusive = r.exclusive as boolean;
  }
  if ('max_licences' in r)
    p.max_licences = r.max_licences == null ? null : checkInt(r.max_licences, 'max_licences', 1, 1_000_000_000);
  if ('output_cap' in r) p.output_cap = r.output_cap === undefined ? null : checkOutputCap(r.output_cap, 'output_cap');
  if (p.exclusive === true && p.max_licences != null)
    fail('max_licences is for non-exclusive listings (an exclusive listing sells one licence)');
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

/** Checks a `makeOffer` (`amount` required) or `counterOffer` request against the clock. */
export function parseOffer(v: unknown, nowMs: number, counter: boolean): OfferInput {
  const r = checkObject(v, counter ? 'the counter offer' : 'the offer');
  onlyKeys(r, ['amount', 'territory', 'term_months', 'expires_at', 'message'], counter ? 'counterOffer' : 'makeOffer');
  if (!counter && r.amount === undefined) fail('amount is required');
  let expires = nowMs + OFFER_TTL_DEFAULT_MS;
  if (r.expires_at !== undefined) {
    expires = parseDate(r.expires_at, 'expires_at').getTime();
    if (expires <= nowMs) fail('expires_at must be in the future');
    if (expires > nowMs + OFFER_TTL_MAX_MS) fail('expires_at must be at most 90 days ahead');
  }
  return {
    ...(r.amount === undefined ? {} : { amount: checkMoney(r.amount, 'amount') }),
    ...(r.territory === undefined ? {} : { territory: checkTerritory(r.territory, 'territory') }),
    ...(r.term_months === undefined ? {} : { term_months: checkInt(r.term_months, 'term_months', 1, MAX_TERM_MONTHS) }),
    expires_at: new Date(expires).toISOString(),
    message: optionalText(r.message, 'message'),
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
