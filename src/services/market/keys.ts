/**
 * The marketplace's store layout, in one place:
 *   `market/listing/<lst_id>`                       the listing
 *   `market/offer/<ofr_id>`                         the offer
 *   `market/licence/<lic_id>`                       the signed licence
 *   `market/listing-by-work/<wk_id>/<lst_id>`       → lst_id (exclusivity checks at publish)
 *   `market/listing-by-owner/<owner>/<lst_id>`      → lst_id (an owner's listings, read by prefix)
 *   `market/licence-by-work/<wk_id>/<lic_id>`       → lic_id (exclusivity checks at accept)
 *   `market/pending/<lst_id>/<ofr_id>`              → ofr_id while the offer is pending
 *   `market/offer-due/<expires_at>/<ofr_id>`        → ofr_id while pending, ordered by expiry
 *   `idem/<scope>/<caller>/<key>`                   idempotency records
 *   `audit/<at>-<seq>-<aud_id>`, `audit-by/<id>/…`, `audit-head`   the audit log (./audit.ts)
 * Account names and idempotency keys are free strings, so they are percent-encoded in keys: an
 * account `a/b` must not fall under the prefix of account `a`.
 */

/** @example K.listing('lst_1') // 'market/listing/lst_1' */
export const K = {
  LISTING: 'market/listing/',
  OFFER: 'market/offer/',
  LICENCE: 'market/licence/',
  DUE: 'market/offer-due/',
  listing: (id: string) => `market/listing/${id}`,
  offer: (id: string) => `market/offer/${id}`,
  licence: (id: string) => `market/licence/${id}`,
  listingsOfWork: (workId: string) => `market/listing-by-work/${workId}/`,
  listingsOfOwner: (owner: string) => `market/listing-by-owner/${encodeURIComponent(owner)}/`,
  licencesOfWork: (workId: string) => `market/licence-by-work/${workId}/`,
  pendingOf: (listingId: string) => `market/pending/${listingId}/`,
  due: (expiresAt: string, offerId: string) => `market/offer-due/${expiresAt}/${offerId}`,
  idem: (scope: string, caller: string, key: string) =>
    `idem/${scope}/${encodeURIComponent(caller)}/${encodeURIComponent(key)}`,
  work: (workId: string) => `work/${workId}`,
} as const;
