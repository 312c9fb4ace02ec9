/**
 * The marketplace's operations, loaded on the first call of a {@link Marketplace} method (./marketplace.ts): listings,
 * offers, licences and the audit log. A file of its own in the package (dist/market-work.js, built on the library),
 * so a program that never trades carries none of it.
 *
 * @example
 * const { listListings } = await import('./operations.js')
 */
export { readAudit } from './audit.js';
export { checkLicence } from './licence-signing.js';
export { getLicence, listLicences } from './licence-queries.js';
export { createListing, getListing, listListings, publishListing, updateListing, withdrawListing } from './listings.js';
export {
  acceptOffer,
  counterOffer,
  declineOffer,
  expireDue,
  getOffer,
  listOffers,
  makeOffer,
  withdrawOffer,
} from './offers.js';
