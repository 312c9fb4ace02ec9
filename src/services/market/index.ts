/**
 * The licensing marketplace (`engine.marketplace` once wired): listings, offers, signed licences,
 * audit log. Re-exports the public surface of src/services/market/.
 *
 * @example
 * import { createMarketplace } from '../../market/market/index.js'
 * const market = createMarketplace({ store, key: () => loadReceiptKey(store) })
 */
export { createMarketplace, Marketplace } from './marketplace.js';
export type { MarketplaceOptions } from './marketplace.js';
export { signLicence, checkLicence, licenceMessage, addMonths } from './licence-signing.js';
export { LISTING_TRANSITIONS, OFFER_TRANSITIONS } from './states.js';
export { WORLDWIDE } from './territory.js';
export { MAX_TERM_MONTHS, OFFER_TTL_DEFAULT_MS, OFFER_TTL_MAX_MS } from './requests.js';
export { LICENCE_TYPES, LISTING_STATES, OFFER_STATES, RATE_UNITS } from './types.js';
// the records, requests and filters (./types.ts) whole: each is part of the marketplace's API
export type * from './types.js';
