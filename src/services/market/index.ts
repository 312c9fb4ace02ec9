/**
 * The licensing marketplace (`engine.marketplace` once wired): listings, offers, signed licences,
 * audit log. Exports the public surface of src/services/market/ and only that: the library module (src/library.ts)
 * re-exports it whole.
 *
 * @example
 * import { createMarketplace } from 'trainprint/market'
 * const market = createMarketplace({ store, key: () => loadReceiptKey(store) })
 */
export { createMarketplace, Marketplace } from './marketplace.js';
export { LISTING_TRANSITIONS, OFFER_TRANSITIONS } from './states.js';
export { WORLDWIDE } from './territory.js';
// the records, requests and filters (./types.ts) whole, as types (the constants among them too, as trainprint/market
// exports them): each is part of the marketplace's API
export type * from './types.js';
