/**
 * Reading licences back: by id or filtered by party, listing or work, each with its signature
 * checked at read time (`verified`), so a record altered in the store shows up as unverified.
 */
import { TrainprintError } from '../../errors.js';
import { K } from './keys.js';
import { checkLicence } from './licence-signing.js';
import { readThrough } from '../../util/schema-check.js';
import { PAGE_DEFAULT, scanPage } from './page.js';
import type { MarketContext } from './records.js';
import { checkId } from './requests.js';
import { MARKET_REQUESTS } from './schema.js';
import type { Licence, LicenceFilter, VerifiedLicence } from './types.js';

/** A licence by id, with `verified` (see `Marketplace.getLicence`). */
export async function getLicence(ctx: MarketContext, id: unknown): Promise<VerifiedLicence> {
  const lid = checkId(id, 'lic_', 'licence_id');
  const l = (await ctx.store.get(K.licence(lid))) as Licence | undefined;
  if (l === undefined) throw new TrainprintError('NOT_FOUND', `no licence "${lid}"`);
  return { ...l, verified: await checkLicence(await ctx.key(), l) };
}

/** Licences matching the filter, with `verified` (see `Marketplace.listLicences`). */
export async function listLicences(
  ctx: MarketContext,
  filter: LicenceFilter = {},
): Promise<{ licences: VerifiedLicence[]; next: string | null }> {
  const {
    licensor,
    licensee,
    party,
    listing_id: listing,
    work_id: work,
    after,
    limit = PAGE_DEFAULT,
  } = readThrough(MARKET_REQUESTS.listLicences, filter, undefined);
  const keep = (l: Licence) =>
    (licensor === undefined || l.licensor === licensor) &&
    (licensee === undefined || l.licensee === licensee) &&
    (party === undefined || l.licensor === party || l.licensee === party) &&
    (listing === undefined || l.listing_id === listing) &&
    (work === undefined || l.work_id === work);
  const { items, next } = await scanPage<Licence>(ctx.store, K.LICENCE, after, limit, keep);
  const key = await ctx.key();
  const licences = await Promise.all(items.map(async (l) => ({ ...l, verified: await checkLicence(key, l) })));
  return { licences, next };
}
