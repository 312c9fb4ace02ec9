/**
 * The licensing marketplace: rights holders turn registered works into listings, buyers make
 * offers, an accepted offer becomes a signed licence. Everything lives on the engine's store and
 * every change is one transaction with its audit entry, so a restart (file store) keeps all of it
 * and concurrent calls cannot sell an exclusive licence twice. See ./types.ts for the records,
 * ./states.ts for the state tables, ./keys.ts for the store layout. The operations themselves (./operations.ts) load on
 * the first call, so a program that never trades carries none of them.
 */
import { isTrainprintError, TrainprintError } from '../../errors.js';
import type { ReceiptKey } from '../registry/receipts.js';
import type { Store } from '../../store/types.js';
import { loadOnce } from '../../util/load-once.js';
import { unrefTimer } from '../../util/timers.js';
import type { MarketContext } from './records.js';
import type {
  AuditEntry,
  AuditFilter,
  CounterOfferRequest,
  CreateListingRequest,
  IdempotencyOptions,
  Licence,
  LicenceFilter,
  Listing,
  ListingFilter,
  MakeOfferRequest,
  Offer,
  OfferFilter,
  UpdateListingRequest,
  VerifiedLicence,
} from './types.js';

/** The marketplace's operations, imported once, on the first call (a file of its own in the package). */
const operations = loadOnce(() => import('./operations.js'));

/**
 * Options of {@link createMarketplace}.
 * @example
 * createMarketplace({ store, key: () => loadReceiptKey(store) })
 */
export interface MarketplaceOptions {
  /** Where listings, offers, licences and the audit log live (and the works it reads). */
  readonly store: Store;
  /** The HMAC key licences are signed with: the engine's receipt key. */
  readonly key: () => Promise<ReceiptKey>;
  /** Clock in ms, for expiry and timestamps (tests). @default Date.now */
  readonly now?: () => number;
  /** Called with an error of an interval expiry run. @default ignore */
  readonly onError?: (error: unknown) => void;
}

/**
 * The marketplace. `caller` is the account id the request acts for (the HTTP layer maps API keys
 * to accounts). Every method is async and rejects with a {@link TrainprintError}: INVALID_INPUT
 * (naming the field), NOT_FOUND, FORBIDDEN (not the owner / not the party), CONFLICT (an illegal
 * state transition, a reused idempotency key, an exclusivity clash).
 *
 * @example
 * const market = createMarketplace({ store, key: () => loadReceiptKey(store) })
 * const l = await market.createListing('estate', { work_id, licence_type: 'training', territory: ['US'], term_months: 36,
 *   price: { amount_minor: 500_000, currency: 'USD' }, exclusive: true, status: 'active' })
 * const o = await market.makeOffer('acme-ai', l.listing_id, { amount: { amount_minor: 500_000, currency: 'USD' } })
 * const licence = await market.acceptOffer('estate', o.offer_id, { idempotencyKey: 'accept-1' })
 * await market.verifyLicence(licence) // true
 */
export class Marketplace {
  readonly #ctx: MarketContext;
  readonly #onError: (error: unknown) => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #run: Promise<unknown> | undefined;

  /** @internal use {@link createMarketplace} */
  constructor(options: MarketplaceOptions) {
    this.#ctx = { store: options.store, key: options.key, now: options.now ?? Date.now };
    this.#onError = options.onError ?? (() => {});
  }

  /**
   * List a registered work the caller owns. Created as a `draft` unless `status: 'active'`
   * (an active listing is checked for exclusivity clashes at once). With an idempotency key, a
   * repeat of the same request returns the listing as first created.
   * @throws INVALID_INPUT, NOT_FOUND (work), FORBIDDEN (not the work's owner), CONFLICT (key reused for another request; exclusivity clash)
   * @example
   * await market.createListing('estate', { work_id, licence_type: 'training', territory: ['EU'], term_months: 36, rate: { per: 'word', amount_minor: 1, currency: 'EUR' } })
   */
  async createListing(caller: string, request: CreateListingRequest, options?: IdempotencyOptions): Promise<Listing> {
    return (await operations()).createListing(this.#ctx, caller, request, options);
  }

  /**
   * Search listings (active ones unless `status` says otherwise), in id order with a cursor.
   * @throws INVALID_INPUT
   * @example
   * const { listings, next } = await market.listListings({ licence_type: 'training', territory: 'DE', work_type: 'book' })
   */
  async listListings(filter?: ListingFilter): Promise<{ listings: Listing[]; next: string | null }> {
    return (await operations()).listListings(this.#ctx, filter);
  }

  /**
   * A listing by id (any status: the HTTP layer decides who sees drafts).
   * @throws INVALID_INPUT, NOT_FOUND
   * @example (await market.getListing('lst_…')).status
   */
  async getListing(id: string): Promise<Listing> {
    return (await operations()).getListing(this.#ctx, id);
  }

  /**
   * Change a draft or active listing (owner only). On an active listing, commercial terms
   * (price/rate, territory, term, exclusivity, max_licences, output cap) cannot change while an
   * offer on it is pending; title and description always can. An unchanged patch is a no-op.
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (withdrawn/sold_out; pending offers; exclusivity clash)
   * @example await market.updateListing('estate', id, { price: { amount_minor: 450_000, currency: 'USD' } })
   */
  async updateListing(caller: string, id: string, patch: UpdateListingRequest): Promise<Listing> {
    return (await operations()).updateListing(this.#ctx, caller, id, patch);
  }

  /**
   * Publish a draft: `draft → active` (owner only; the work must still be theirs).
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (not a draft; exclusivity clash; work gone)
   * @example await market.publishListing('estate', id)
   */
  async publishListing(caller: string, id: string): Promise<Listing> {
    return (await operations()).publishListing(this.#ctx, caller, id);
  }

  /**
   * Withdraw a draft or active listing (owner only); its pending offers become `declined`
   * (reason `listing_withdrawn`). Licences already issued stay valid.
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (already withdrawn or sold out)
   * @example await market.withdrawListing('estate', id)
   */
  async withdrawListing(caller: string, id: string): Promise<Listing> {
    return (await operations()).withdrawListing(this.#ctx, caller, id);
  }

  /**
   * Offer on an active listing (anyone but its owner). `amount` is in the listing's currency —
   * a flat fee, or the amount per unit of its rate; territory and term default to the listing's.
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN (own listing), CONFLICT (listing not active)
   * @example await market.makeOffer('acme-ai', id, { amount: { amount_minor: 450_000, currency: 'USD' }, territory: ['US'] })
   */
  async makeOffer(caller: string, listingId: string, request: MakeOfferRequest): Promise<Offer> {
    return (await operations()).makeOffer(this.#ctx, caller, listingId, request);
  }

  /**
   * An offer by id (a pending offer past `expires_at` is expired first).
   * @throws INVALID_INPUT, NOT_FOUND
   * @example (await market.getOffer('ofr_…')).status
   */
  async getOffer(id: string): Promise<Offer> {
    return (await operations()).getOffer(this.#ctx, id);
  }

  /**
   * Offers by listing, buyer, seller and status (due ones are expired on the way).
   * @throws INVALID_INPUT
   * @example await market.listOffers({ listing_id: id, status: 'pending' })
   */
  async listOffers(filter?: OfferFilter): Promise<{ offers: Offer[]; next: string | null }> {
    return (await operations()).listOffers(this.#ctx, filter);
  }

  /**
   * Accept a pending offer — the recipient only: the listing owner for a buyer's offer, the buyer
   * for a counter — and issue the signed licence (term from now for the offer's `term_months`).
   * An exclusive listing (or one reaching `max_licences`) becomes `sold_out` and its other pending
   * offers `declined` (reason `sold_out`). With an idempotency key a repeat returns the same licence.
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (offer not pending; listing not active; exclusivity clash; key reused)
   * @example const licence = await market.acceptOffer('estate', offerId, { idempotencyKey: 'a-1' })
   */
  async acceptOffer(caller: string, offerId: string, options?: IdempotencyOptions): Promise<Licence> {
    return (await operations()).acceptOffer(this.#ctx, caller, offerId, options);
  }

  /**
   * Decline a pending offer (the recipient only).
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (not pending)
   * @example await market.declineOffer('estate', offerId)
   */
  async declineOffer(caller: string, offerId: string): Promise<Offer> {
    return (await operations()).declineOffer(this.#ctx, caller, offerId);
  }

  /**
   * Counter a pending offer (the recipient only): returns the new pending offer to the other party
   * (`counter_of` → the original, which becomes `countered`). Unset terms are copied from the original.
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (not pending; listing not active)
   * @example const counter = await market.counterOffer('estate', offerId, { amount: { amount_minor: 480_000, currency: 'USD' } })
   */
  async counterOffer(caller: string, offerId: string, request: CounterOfferRequest): Promise<Offer> {
    return (await operations()).counterOffer(this.#ctx, caller, offerId, request);
  }

  /**
   * Withdraw a pending offer (its maker only: the buyer, or the owner for a counter).
   * @throws INVALID_INPUT, NOT_FOUND, FORBIDDEN, CONFLICT (not pending)
   * @example await market.withdrawOffer('acme-ai', offerId)
   */
  async withdrawOffer(caller: string, offerId: string): Promise<Offer> {
    return (await operations()).withdrawOffer(this.#ctx, caller, offerId);
  }

  /**
   * Licences as licensor or licensee (or by listing / work), each with `verified`.
   * @throws INVALID_INPUT
   * @example const { licences } = await market.listLicences({ licensee: 'acme-ai' })
   */
  async listLicences(filter?: LicenceFilter): Promise<{ licences: VerifiedLicence[]; next: string | null }> {
    return (await operations()).listLicences(this.#ctx, filter);
  }

  /**
   * A licence by id, with `verified` (its signature checked now).
   * @throws INVALID_INPUT, NOT_FOUND
   * @example (await market.getLicence('lic_…')).verified // true
   */
  async getLicence(id: string): Promise<VerifiedLicence> {
    return (await operations()).getLicence(this.#ctx, id);
  }

  /**
   * True when `licence` carries a valid signature of this marketplace's key over its fields;
   * false when any signed field was changed, a member that was not signed was added (a term such as
   * `sublicensable`), or the value is not a licence.
   * @example await market.verifyLicence({ ...licence, territory: ['WORLDWIDE'] }) // false
   */
  async verifyLicence(licence: unknown): Promise<boolean> {
    return (await operations()).checkLicence(await this.#ctx.key(), licence);
  }

  /**
   * Expire every pending offer whose `expires_at` has passed (the interval calls this; reads and
   * accepts also expire lazily). Returns how many were expired.
   * @example const n = await market.expireDue()
   */
  async expireDue(): Promise<number> {
    return (await operations()).expireDue(this.#ctx);
  }

  /**
   * Run {@link expireDue} every `intervalMs` (replacing an earlier interval). A tick is skipped
   * while a run is going; the timer is unref'd, so it never keeps a Node or Deno process alive.
   * A closed store stops it.
   * @throws INVALID_OPTIONS for an interval that is not a positive number
   * @example market.start(60_000)
   */
  start(intervalMs: number): void {
    if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs <= 0)
      throw new TrainprintError('INVALID_OPTIONS', 'intervalMs must be a positive number');
    this.#clearTimer();
    const tick = () => {
      if (this.#run !== undefined) return;
      this.#run = this.expireDue()
        .catch((error) => {
          if (isTrainprintError(error, 'STORE_CLOSED')) this.#clearTimer();
          this.#onError(error);
        })
        .finally(() => (this.#run = undefined));
    };
    this.#timer = unrefTimer(setInterval(tick, intervalMs));
  }

  /**
   * Stop the interval and wait for a run in flight. Safe when not started.
   * @example await market.stop()
   */
  async stop(): Promise<void> {
    this.#clearTimer();
    await this.#run;
  }

  /**
   * The audit log in commit order, optionally only entries about one listing, offer or licence
   * (as the entity or a related id); `next` is the cursor for `after`.
   * @throws INVALID_INPUT
   * @example const { entries } = await market.auditLog({ entity_id: listingId })
   */
  async auditLog(filter?: AuditFilter): Promise<{ entries: AuditEntry[]; next: string | null }> {
    return (await operations()).readAudit(this.#ctx.store, filter);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Create a marketplace on a store.
 * @throws INVALID_OPTIONS when `store`, `key` or `now` is missing or of the wrong kind
 * @example
 * import { createMarketplace } from '../../market/market/index.js'
 * const market = createMarketplace({ store: engine.store, key: () => loadReceiptKey(engine.store) })
 */
export function createMarketplace(options: MarketplaceOptions): Marketplace {
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const s = options.store as unknown as Record<string, unknown> | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    ['get', 'put', 'delete', 'scan', 'batch', 'transaction'].some((m) => typeof s[m] !== 'function')
  ) {
    throw new TrainprintError('INVALID_OPTIONS', 'store must implement the Store interface');
  }
  if (typeof options.key !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'key must be a function returning the receipt key');
  if (options.now !== undefined && typeof options.now !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'now must be a function returning ms');
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new TrainprintError('INVALID_OPTIONS', 'onError must be a function');
  return new Marketplace(options);
}
