/**
 * The licensing marketplace (src/services/market/): every legal and illegal transition of the listing and
 * offer state machines, owners-only rules, inputs, idempotency, lazy and interval expiry, the
 * exclusivity guarantees (100 concurrent accepts → one licence; no overlapping exclusive
 * listings), licence signatures, the audit log, and a restart of the file store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { TrainprintError, type ErrorCode } from '../../src/errors.js';
import { loadReceiptKey, signReceipt, type ReceiptKey } from '../../src/services/registry/receipts.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openFileStore } from '../../src/store/node.js';
import type { Store } from '../../src/store/types.js';
import {
  createMarketplace,
  LISTING_TRANSITIONS,
  OFFER_TRANSITIONS,
  type CreateListingRequest,
  type Licence,
  type Listing,
  type ListingStatus,
  type Marketplace,
  type Offer,
  type OfferStatus,
} from '../../src/services/market/index.js';

const T0 = Date.parse('2026-01-10T00:00:00.000Z');
const DAY = 86_400_000;
const USD = (amount_minor: number) => ({ amount_minor, currency: 'USD' });

/** The TrainprintError code a promise rejects with ('resolved' when it does not). */
async function codeOf(p: Promise<unknown>): Promise<ErrorCode | 'resolved' | 'other'> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return e instanceof TrainprintError ? e.code : 'other';
  }
}

/** The rejection itself, for checking its detail. */
async function errorOf(p: Promise<unknown>): Promise<TrainprintError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TrainprintError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

interface World {
  store: Store;
  engine: Engine;
  key: ReceiptKey;
  market: Marketplace;
  clock: { now: number };
  work(owner?: string): Promise<string>;
  listing(over?: Partial<CreateListingRequest>, owner?: string): Promise<Listing>;
}

let works = 0;

async function world(store: Store = new MemoryStore()): Promise<World> {
  const engine = await createEngine({ store });
  const key = await loadReceiptKey(store);
  const clock = { now: T0 };
  const market = createMarketplace({ store, key: async () => key, now: () => clock.now });
  const w: World = {
    store,
    engine,
    key,
    market,
    clock,
    async work(owner = 'estate') {
      const n = works++;
      const r = await engine.registerWork({
        content: `Work number ${n}: a short text that only this test registers, ${n} times over.`,
        owner,
        title: `Title ${n}`,
        work_type: n % 2 ? 'article' : 'book',
      });
      return r.work_id;
    },
    async listing(over = {}, owner = 'estate') {
      return market.createListing(owner, {
        work_id: over.work_id ?? (await w.work(owner)),
        licence_type: 'training',
        territory: ['US', 'EU'],
        term_months: 36,
        price: USD(500_000),
        status: 'active',
        ...over,
      });
    },
  };
  return w;
}

// ---------------------------------------------------------------------------------------------

describe('listings', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  it('creates a draft with normalised fields, publishes and withdraws it, each change audited', async () => {
    const workId = await w.work();
    const l = await w.market.createListing('estate', {
      work_id: workId,
      licence_type: 'training',
      territory: ['de', 'uk', 'DE', 'us-ca'],
      term_months: 36,
      price: USD(500_000),
      output_cap: { max_consecutive_words: 200, max_percent: 5 },
    });
    expect(l).toMatchObject({
      status: 'draft',
      owner: 'estate',
      work_id: workId,
      territory: ['DE', 'GB', 'US-CA'],
      exclusive: false,
      max_licences: null,
      output_cap: { max_consecutive_words: 200, max_percent: 5 },
      rate: null,
      licences_issued: 0,
      published_at: null,
      work_type: expect.any(String),
    });
    expect(l.listing_id).toMatch(/^lst_[0-9a-f]{32}$/);
    expect(l.work_hash).toMatch(/^sha256:/);
    const p = await w.market.publishListing('estate', l.listing_id);
    expect(p).toMatchObject({ status: 'active', published_at: new Date(T0).toISOString() });
    const x = await w.market.withdrawListing('estate', l.listing_id);
    expect(x).toMatchObject({ status: 'withdrawn', closed_at: new Date(T0).toISOString() });
    expect(await w.market.getListing(l.listing_id)).toEqual(x);
    const { entries } = await w.market.auditLog({ entity_id: l.listing_id });
    expect(entries.map((e) => [e.action, e.from, e.to, e.actor])).toEqual([
      ['listing.created', null, 'draft', 'estate'],
      ['listing.published', 'draft', 'active', 'estate'],
      ['listing.withdrawn', 'active', 'withdrawn', 'estate'],
    ]);
  });

  it('can be created active, and a draft can be withdrawn unpublished', async () => {
    expect((await w.listing()).status).toBe('active');
    const d = await w.listing({ status: 'draft' });
    expect((await w.market.withdrawListing('estate', d.listing_id)).status).toBe('withdrawn');
  });

  it('updates: title always, commercial terms unless an offer is pending; a no-op patch changes nothing', async () => {
    const l = await w.listing();
    const o = await w.market.makeOffer('buyer', l.listing_id, { amount: USD(400_000) });
    expect((await w.market.updateListing('estate', l.listing_id, { title: 'New title' })).title).toBe('New title');
    const err = await errorOf(w.market.updateListing('estate', l.listing_id, { price: USD(450_000) }));
    expect(err.code).toBe('CONFLICT');
    expect(err.detail).toContain(o.offer_id);
    expect(
      await codeOf(
        w.market.updateListing('estate', l.listing_id, { rate: { per: 'word', amount_minor: 1, currency: 'USD' } }),
      ),
    ).toBe('CONFLICT');
    expect(await codeOf(w.market.updateListing('estate', l.listing_id, { territory: ['US'] }))).toBe('CONFLICT');
    expect(
      await codeOf(w.market.updateListing('estate', l.listing_id, { output_cap: { max_consecutive_words: 50 } })),
    ).toBe('CONFLICT');
    // same price as now: not a change, allowed
    expect((await w.market.updateListing('estate', l.listing_id, { price: USD(500_000) })).price).toEqual(USD(500_000));
    await w.market.withdrawOffer('buyer', o.offer_id);
    const u = await w.market.updateListing('estate', l.listing_id, { price: USD(450_000) });
    expect(u).toMatchObject({ price: USD(450_000), rate: null, updated_at: expect.any(String) });
    const sw = await w.market.updateListing('estate', l.listing_id, {
      rate: { per: 'month', amount_minor: 10_000, currency: 'USD' },
    });
    expect(sw).toMatchObject({ price: null, rate: { per: 'month', amount_minor: 10_000, currency: 'USD' } });
    const audit = (await w.market.auditLog({ entity_id: l.listing_id })).entries.filter(
      (e) => e.action === 'listing.updated',
    );
    expect(audit.map((e) => Object.keys((e.details as { changes: object }).changes))).toEqual([
      ['title'],
      ['price'],
      ['price', 'rate'],
    ]);
  });

  it('a pending offer that has expired no longer blocks a price change (lazy expiry)', async () => {
    const l = await w.listing();
    const o = await w.market.makeOffer('buyer', l.listing_id, {
      amount: USD(1),
      expires_at: new Date(w.clock.now + DAY).toISOString(),
    });
    w.clock.now += 2 * DAY;
    try {
      expect((await w.market.updateListing('estate', l.listing_id, { price: USD(9) })).price).toEqual(USD(9));
      expect((await w.store.get(`market/offer/${o.offer_id}`)) as Offer).toMatchObject({
        status: 'expired',
        reason: 'expired',
      });
    } finally {
      w.clock.now = T0;
    }
  });

  it('searches by licence type, territory, price range, work type, exclusivity, with a cursor', async () => {
    const s = await world();
    const book = await s.work('pub'); // even counter → book… not guaranteed: read it back
    const a = await s.listing({ work_id: book, territory: ['EU'], price: USD(100) }, 'pub');
    const b = await s.listing({ licence_type: 'retrieval', territory: ['US'], price: USD(300) }, 'pub');
    const c = await s.listing(
      {
        territory: ['WORLDWIDE'],
        rate: { per: 'word', amount_minor: 2, currency: 'EUR' },
        price: undefined,
        exclusive: true,
      },
      'pub',
    );
    const d = await s.listing({ territory: ['DE'], price: USD(200), status: 'draft' }, 'pub');
    const ids = async (f: Parameters<Marketplace['listListings']>[0]) =>
      (await s.market.listListings(f)).listings.map((l) => l.listing_id).sort();
    expect(await ids({})).toEqual([a, b, c].map((l) => l.listing_id).sort());
    expect(await ids({ status: 'any' })).toEqual([a, b, c, d].map((l) => l.listing_id).sort());
    expect(await ids({ status: 'draft' })).toEqual([d.listing_id]);
    expect(await ids({ licence_type: 'retrieval' })).toEqual([b.listing_id]);
    expect(await ids({ territory: 'fr' })).toEqual([a, c].map((l) => l.listing_id).sort());
    expect(await ids({ territory: 'US-NY' })).toEqual([b, c].map((l) => l.listing_id).sort());
    expect(await ids({ currency: 'USD', min_amount_minor: 150, max_amount_minor: 300 })).toEqual([b.listing_id]);
    expect(await ids({ currency: 'EUR' })).toEqual([c.listing_id]);
    expect(await ids({ pricing: 'rate' })).toEqual([c.listing_id]);
    expect(await ids({ exclusive: true })).toEqual([c.listing_id]);
    expect(await ids({ work_type: a.work_type! })).toContain(a.listing_id);
    expect(await ids({ owner: 'nobody' })).toEqual([]);
    const p1 = await s.market.listListings({ limit: 2 });
    expect(p1.listings).toHaveLength(2);
    const p2 = await s.market.listListings({ limit: 2, after: p1.next! });
    expect(p2).toMatchObject({ next: null });
    expect([...p1.listings, ...p2.listings].map((l) => l.listing_id).sort()).toEqual(
      [a, b, c].map((l) => l.listing_id).sort(),
    );
  });

  it("an owner's listings come from its index (paged); visible_to hides other accounts' drafts; party selects offers", async () => {
    const s = await world();
    const mine = [
      await s.listing({ territory: ['US'] }, 'ann'),
      await s.listing({ territory: ['DE'], status: 'draft' }, 'ann'),
      await s.listing({ territory: ['FR'] }, 'ann'),
    ];
    const theirs = await s.listing({ territory: ['JP'], status: 'draft' }, 'ben');
    const open = await s.listing({ territory: ['GB'] }, 'ben');
    const ids = (ls: Listing[]) => ls.map((l) => l.listing_id).sort();
    expect(ids((await s.market.listListings({ owner: 'ann', status: 'any' })).listings)).toEqual(ids(mine));
    const p1 = await s.market.listListings({ owner: 'ann', status: 'any', limit: 2 });
    const p2 = await s.market.listListings({ owner: 'ann', status: 'any', limit: 2, after: p1.next! });
    expect(p1.listings).toHaveLength(2);
    expect(p2.next).toBeNull();
    expect(ids([...p1.listings, ...p2.listings])).toEqual(ids(mine));
    // ann sees her own draft and nobody else's
    const seen = ids((await s.market.listListings({ status: 'any', visible_to: 'ann' })).listings);
    expect(seen).toEqual(ids([...mine, open]));
    expect(seen).not.toContain(theirs.listing_id);
    expect(ids((await s.market.listListings({ status: 'draft', visible_to: 'ann' })).listings)).toEqual([
      mine[1].listing_id,
    ]);
    // offers and licences by party: the buyer and the seller, nobody else
    const o = await s.market.makeOffer('carl', open.listing_id, { amount: USD(400_000) });
    for (const who of ['carl', 'ben'])
      expect((await s.market.listOffers({ party: who })).offers.map((x) => x.offer_id)).toEqual([o.offer_id]);
    expect((await s.market.listOffers({ party: 'ann' })).offers).toEqual([]);
    const lic = await s.market.acceptOffer('ben', o.offer_id);
    for (const who of ['carl', 'ben'])
      expect((await s.market.listLicences({ party: who })).licences.map((x) => x.licence_id)).toEqual([lic.licence_id]);
    expect((await s.market.listLicences({ party: 'ann' })).licences).toEqual([]);
    expect((await errorOf(s.market.listOffers({ party: 5 as never }))).detail).toContain('party');
    expect((await errorOf(s.market.listListings({ visible_to: '' }))).detail).toContain('visible_to');
  });
});

// ---------------------------------------------------------------------------------------------

describe('listing state machine: every (state, action) pair', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  /** A fresh non-exclusive listing in `state` (sold_out: max_licences 1, sold once). */
  async function listingIn(state: ListingStatus): Promise<Listing> {
    const l = await w.listing({
      status: state === 'draft' ? 'draft' : 'active',
      max_licences: state === 'sold_out' ? 1 : null,
    });
    if (state === 'withdrawn') await w.market.withdrawListing('estate', l.listing_id);
    if (state === 'sold_out') {
      const o = await w.market.makeOffer('buyer', l.listing_id, { amount: USD(1) });
      await w.market.acceptOffer('estate', o.offer_id);
    }
    const now = await w.market.getListing(l.listing_id);
    expect(now.status).toBe(state);
    return now;
  }

  const actions: Record<string, { allowedFrom: ListingStatus[]; run: (l: Listing) => Promise<unknown> }> = {
    publish: { allowedFrom: ['draft'], run: (l) => w.market.publishListing('estate', l.listing_id) },
    withdraw: { allowedFrom: ['draft', 'active'], run: (l) => w.market.withdrawListing('estate', l.listing_id) },
    update: {
      allowedFrom: ['draft', 'active'],
      run: (l) => w.market.updateListing('estate', l.listing_id, { description: 'changed' }),
    },
    'make an offer': {
      allowedFrom: ['active'],
      run: (l) => w.market.makeOffer('buyer', l.listing_id, { amount: USD(5) }),
    },
  };

  it('the table matches the documented machine', () => {
    expect(LISTING_TRANSITIONS).toEqual({
      draft: ['active', 'withdrawn'],
      active: ['withdrawn', 'sold_out'],
      withdrawn: [],
      sold_out: [],
    });
  });

  for (const state of ['draft', 'active', 'withdrawn', 'sold_out'] as ListingStatus[]) {
    for (const [name, action] of Object.entries(actions)) {
      const legal = action.allowedFrom.includes(state);
      it(`${name} a ${state} listing → ${legal ? 'ok' : 'CONFLICT'}`, async () => {
        const l = await listingIn(state);
        const before = await w.market.auditLog({ entity_id: l.listing_id });
        expect(await codeOf(action.run(l))).toBe(legal ? 'resolved' : 'CONFLICT');
        if (!legal) {
          // a refused change leaves the record and the audit log as they were
          expect(await w.market.getListing(l.listing_id)).toEqual(l);
          expect(await w.market.auditLog({ entity_id: l.listing_id })).toEqual(before);
        }
      });
    }
  }

  it('active → sold_out happens only by acceptance (exclusive listing)', async () => {
    const l = await w.listing({ exclusive: true });
    const o = await w.market.makeOffer('buyer', l.listing_id, { amount: USD(1) });
    await w.market.acceptOffer('estate', o.offer_id);
    expect((await w.market.getListing(l.listing_id)).status).toBe('sold_out');
  });
});

// ---------------------------------------------------------------------------------------------

describe('offer state machine: every (state, action) pair', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  /** A fresh offer by `buyer` on its own non-exclusive listing, moved to `state`. */
  async function offerIn(state: OfferStatus): Promise<Offer> {
    const l = await w.listing();
    const o = await w.market.makeOffer('buyer', l.listing_id, {
      amount: USD(10),
      expires_at: new Date(w.clock.now + DAY).toISOString(),
    });
    if (state === 'accepted') await w.market.acceptOffer('estate', o.offer_id);
    if (state === 'declined') await w.market.declineOffer('estate', o.offer_id);
    if (state === 'countered') await w.market.counterOffer('estate', o.offer_id, { amount: USD(20) });
    if (state === 'withdrawn') await w.market.withdrawOffer('buyer', o.offer_id);
    if (state === 'expired') {
      w.clock.now += 2 * DAY;
      expect(await w.market.expireDue()).toBeGreaterThanOrEqual(1);
    }
    const now = await w.market.getOffer(o.offer_id);
    expect(now.status).toBe(state);
    return now;
  }

  const actions: Record<string, { to: OfferStatus; run: (o: Offer) => Promise<unknown> }> = {
    accept: { to: 'accepted', run: (o) => w.market.acceptOffer('estate', o.offer_id) },
    decline: { to: 'declined', run: (o) => w.market.declineOffer('estate', o.offer_id) },
    counter: { to: 'countered', run: (o) => w.market.counterOffer('estate', o.offer_id, { amount: USD(15) }) },
    withdraw: { to: 'withdrawn', run: (o) => w.market.withdrawOffer('buyer', o.offer_id) },
  };

  it('the table matches the documented machine', () => {
    expect(OFFER_TRANSITIONS.pending).toEqual(['accepted', 'declined', 'countered', 'expired', 'withdrawn']);
    for (const s of ['accepted', 'declined', 'countered', 'expired', 'withdrawn'] as OfferStatus[])
      expect(OFFER_TRANSITIONS[s]).toEqual([]);
  });

  for (const state of ['pending', 'accepted', 'declined', 'countered', 'expired', 'withdrawn'] as OfferStatus[]) {
    for (const [name, action] of Object.entries(actions)) {
      const legal = state === 'pending';
      it(`${name} a ${state} offer → ${legal ? action.to : 'CONFLICT'}`, async () => {
        w.clock.now = T0;
        const o = await offerIn(state);
        const result = await codeOf(action.run(o));
        expect(result).toBe(legal ? 'resolved' : 'CONFLICT');
        const after = await w.market.getOffer(o.offer_id);
        expect(after.status).toBe(legal ? action.to : state);
        if (!legal) expect(after).toEqual(o);
      });
    }
  }

  it('pending → expired lazily: accepting a due offer refuses it AND records the expiry', async () => {
    w.clock.now = T0;
    const l = await w.listing();
    const o = await w.market.makeOffer('buyer', l.listing_id, {
      amount: USD(10),
      expires_at: new Date(T0 + DAY).toISOString(),
    });
    w.clock.now = T0 + DAY; // exactly at expires_at: expired
    const err = await errorOf(w.market.acceptOffer('estate', o.offer_id));
    expect(err.code).toBe('CONFLICT');
    expect(err.detail).toContain('expired');
    expect((await w.store.get(`market/offer/${o.offer_id}`)) as Offer).toMatchObject({ status: 'expired' });
    const log = (await w.market.auditLog({ entity_id: o.offer_id })).entries;
    expect(log.map((e) => [e.action, e.actor])).toEqual([
      ['offer.created', 'buyer'],
      ['offer.expired', 'system'],
    ]);
    expect(await w.market.listLicences({ listing_id: l.listing_id })).toEqual({ licences: [], next: null });
  });

  it('a counter goes to the buyer: only the buyer may accept it, the owner may withdraw it; counters can chain', async () => {
    w.clock.now = T0;
    const l = await w.listing({ term_months: 24 });
    const o = await w.market.makeOffer('buyer', l.listing_id, { amount: USD(100), territory: ['US'], message: 'hi' });
    const c = await w.market.counterOffer('estate', o.offer_id, { amount: USD(150) });
    expect(c).toMatchObject({
      status: 'pending',
      made_by: 'estate',
      buyer: 'buyer',
      seller: 'estate',
      counter_of: o.offer_id,
      amount: USD(150),
      territory: ['US'],
      term_months: 24,
      message: null,
    });
    expect(await w.market.getOffer(o.offer_id)).toMatchObject({ status: 'countered', countered_by: c.offer_id });
    expect(await codeOf(w.market.acceptOffer('estate', c.offer_id))).toBe('FORBIDDEN');
    expect(await codeOf(w.market.withdrawOffer('buyer', c.offer_id))).toBe('FORBIDDEN');
    const cc = await w.market.counterOffer('buyer', c.offer_id, { amount: USD(125) });
    expect(cc).toMatchObject({ made_by: 'buyer', counter_of: c.offer_id });
    expect(await codeOf(w.market.acceptOffer('buyer', cc.offer_id))).toBe('FORBIDDEN');
    const c3 = await w.market.counterOffer('estate', cc.offer_id, { amount: USD(140) });
    const licence = await w.market.acceptOffer('buyer', c3.offer_id);
    expect(licence).toMatchObject({
      licensor: 'estate',
      licensee: 'buyer',
      amount: USD(140),
      territory: ['US'],
      offer_id: c3.offer_id,
    });
    const c4 = await w.market.counterOffer(
      'estate',
      (await w.market.makeOffer('buyer', l.listing_id, { amount: USD(1) })).offer_id,
      {},
    );
    expect((await w.market.withdrawOffer('estate', c4.offer_id)).status).toBe('withdrawn');
  });
});

// ---------------------------------------------------------------------------------------------

describe('owners only, unknown ids, bad input', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  it('another account cannot list, update, publish, withdraw, accept, decline or counter', async () => {
    const workId = await w.work('estate');
    expect(
      await codeOf(
        w.market.createListing('mallory', {
          work_id: workId,
          licence_type: 'training',
          territory: ['US'],
          term_months: 12,
          price: USD(1),
        }),
      ),
    ).toBe('FORBIDDEN');
    const d = await w.listing({ status: 'draft' });
    const l = await w.listing();
    expect(await codeOf(w.market.publishListing('mallory', d.listing_id))).toBe('FORBIDDEN');
    expect(await codeOf(w.market.updateListing('mallory', l.listing_id, { title: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(w.market.withdrawListing('mallory', l.listing_id))).toBe('FORBIDDEN');
    const o = await w.market.makeOffer('buyer', l.listing_id, { amount: USD(1) });
    for (const who of ['mallory', 'buyer']) {
      expect(await codeOf(w.market.acceptOffer(who, o.offer_id))).toBe('FORBIDDEN');
      expect(await codeOf(w.market.declineOffer(who, o.offer_id))).toBe('FORBIDDEN');
      expect(await codeOf(w.market.counterOffer(who, o.offer_id, {}))).toBe('FORBIDDEN');
    }
    expect(await codeOf(w.market.withdrawOffer('mallory', o.offer_id))).toBe('FORBIDDEN');
    expect(await codeOf(w.market.withdrawOffer('estate', o.offer_id))).toBe('FORBIDDEN');
    expect(await codeOf(w.market.makeOffer('estate', l.listing_id, { amount: USD(1) }))).toBe('FORBIDDEN');
    // nothing changed
    expect((await w.market.getListing(l.listing_id)).status).toBe('active');
    expect((await w.market.getListing(d.listing_id)).status).toBe('draft');
    expect((await w.market.getOffer(o.offer_id)).status).toBe('pending');
    expect(await w.market.listLicences({ listing_id: l.listing_id })).toEqual({ licences: [], next: null });
    // an account whose name extends another's does not see its licences
    expect((await w.market.listLicences({ licensor: 'estat' })).licences).toEqual([]);
  });

  it('unknown ids are NOT_FOUND', async () => {
    const Z = '0'.repeat(32);
    expect(await codeOf(w.market.getListing(`lst_${Z}`))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.getOffer(`ofr_${Z}`))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.getLicence(`lic_${Z}`))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.makeOffer('buyer', `lst_${Z}`, { amount: USD(1) }))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.acceptOffer('estate', `ofr_${Z}`))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.declineOffer('estate', `ofr_${Z}`))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.withdrawOffer('buyer', `ofr_${Z}`))).toBe('NOT_FOUND');
    expect(await codeOf(w.market.publishListing('estate', `lst_${Z}`))).toBe('NOT_FOUND');
    expect(
      await codeOf(
        w.market.createListing('estate', {
          work_id: `wk_${Z}`,
          licence_type: 'training',
          territory: ['US'],
          term_months: 1,
          price: USD(1),
        }),
      ),
    ).toBe('NOT_FOUND');
  });

  it('bad input is INVALID_INPUT naming the field', async () => {
    const workId = await w.work();
    const base: CreateListingRequest = {
      work_id: workId,
      licence_type: 'training',
      territory: ['US'],
      term_months: 12,
      price: USD(100),
    };
    const cases: Array<[string, Record<string, unknown>]> = [
      ['price.currency', { price: { amount_minor: 1, currency: 'usd' } }],
      ['price.amount_minor', { price: { amount_minor: 1.5, currency: 'USD' } }],
      ['price.amount_minor', { price: { amount_minor: -1, currency: 'USD' } }],
      ['rate.per', { price: undefined, rate: { per: 'page', amount_minor: 1, currency: 'USD' } }],
      ['rate', { rate: { per: 'word', amount_minor: 1, currency: 'USD' } }],
      ['territory[1]', { territory: ['US', 'U$'] }],
      ['territory', { territory: [] }],
      ['licence_type', { licence_type: 'streaming' }],
      ['term_months', { term_months: 0 }],
      ['term_months', { term_months: 1201 }],
      ['output_cap', { output_cap: {} }],
      ['output_cap.max_percent', { output_cap: { max_percent: 150 } }],
      ['max_licences', { exclusive: true, max_licences: 3 }],
      ['exclusive', { exclusive: 'yes' }],
      ['colour', { colour: 'red' }],
      ['work_id', { work_id: 'nope' }],
      ['status', { status: 'sold_out' }],
    ];
    for (const [field, over] of cases) {
      const req = { ...base, ...over } as Record<string, unknown>;
      for (const k of Object.keys(req)) if (req[k] === undefined) delete req[k];
      const err = await errorOf(w.market.createListing('estate', req as unknown as CreateListingRequest));
      expect([field, err.code]).toEqual([field, 'INVALID_INPUT']);
      expect(err.detail).toContain(field);
    }
    const l = await w.listing({ territory: ['EU'] });
    const offerCases: Array<[string, Record<string, unknown>]> = [
      ['amount', {}],
      ['amount.currency', { amount: { amount_minor: 1, currency: 'EUR' } }],
      ['territory', { amount: USD(1), territory: ['US'] }],
      ['expires_at', { amount: USD(1), expires_at: new Date(w.clock.now - 1000).toISOString() }],
      ['expires_at', { amount: USD(1), expires_at: new Date(w.clock.now + 91 * DAY).toISOString() }],
      ['expires_at', { amount: USD(1), expires_at: 'tomorrow' }],
      ['term_months', { amount: USD(1), term_months: 2000 }],
    ];
    for (const [field, req] of offerCases) {
      const err = await errorOf(w.market.makeOffer('buyer', l.listing_id, req as never));
      expect([field, err.code]).toEqual([field, 'INVALID_INPUT']);
      expect(err.detail).toContain(field);
      // the field named in the error's cause too (the HTTP adapter's details)
      if (field === 'amount.currency' || field === 'territory')
        expect((err.cause as { field?: string } | undefined)?.field).toBe(field);
    }
    expect((await errorOf(w.market.updateListing('estate', l.listing_id, {}))).detail).toBe(
      'the request: must have at least this many members: 1',
    );
    expect((await errorOf(w.market.getListing('abc'))).detail).toContain('listing_id');
    expect((await errorOf(w.market.listListings({ min_amount_minor: 5 }))).detail).toContain('currency');
    expect((await errorOf(w.market.listListings({ territory: 'XYZW' }))).detail).toContain('territory');
    expect((await errorOf(w.market.listListings({ limit: 0 }))).detail).toContain('limit');
    expect((await errorOf(w.market.acceptOffer('', 'ofr_1'))).detail).toContain('caller');
    expect((await errorOf(w.market.acceptOffer('estate', 'ofr_1', { idempotencyKey: '' }))).detail).toContain(
      'idempotencyKey',
    );
    expect(await codeOf(w.market.auditLog({ entity: 'x' } as never))).toBe('INVALID_INPUT');
    expect(() => createMarketplace({ store: w.store, key: 'k' as never })).toThrow(TrainprintError);
    expect(() => w.market.start(0)).toThrow(/intervalMs/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('exclusivity', () => {
  it('100 concurrent accepts of 100 offers on one exclusive listing → exactly one licence', async () => {
    const w = await world();
    const l = await w.listing({ exclusive: true });
    const offers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => w.market.makeOffer(`buyer-${i}`, l.listing_id, { amount: USD(1000 + i) })),
    );
    const results = await Promise.allSettled(offers.map((o) => w.market.acceptOffer('estate', o.offer_id)));
    const won = results.filter((r): r is PromiseFulfilledResult<Licence> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(99);
    expect(lost.every((r) => r.reason instanceof TrainprintError && r.reason.code === 'CONFLICT')).toBe(true);
    expect(await w.market.getListing(l.listing_id)).toMatchObject({ status: 'sold_out', licences_issued: 1 });
    const { licences } = await w.market.listLicences({ licensor: 'estate' });
    expect(licences.map((x) => x.licence_id)).toEqual([won[0].value.licence_id]);
    expect(licences[0]).toMatchObject({ exclusive: true, verified: true });
    const { offers: after } = await w.market.listOffers({ listing_id: l.listing_id, limit: 1000 });
    const byStatus: Record<string, number> = {};
    for (const o of after) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    expect(byStatus).toEqual({ accepted: 1, declined: 99 });
    expect(after.filter((o) => o.status === 'declined').every((o) => o.reason === 'sold_out')).toBe(true);
    expect(await w.store.scan(`market/pending/${l.listing_id}/`)).toEqual([]);
    expect(await w.store.scan('market/offer-due/')).toEqual([]);
  });

  it('non-exclusive: every accepted offer gets its own licence; max_licences sells out', async () => {
    const w = await world();
    const l = await w.listing({ max_licences: 2 });
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((who) => w.market.makeOffer(who, l.listing_id, { amount: USD(10) })),
    );
    await w.market.acceptOffer('estate', a.offer_id);
    expect(await w.market.getListing(l.listing_id)).toMatchObject({ status: 'active', licences_issued: 1 });
    await w.market.acceptOffer('estate', b.offer_id);
    expect(await w.market.getListing(l.listing_id)).toMatchObject({ status: 'sold_out', licences_issued: 2 });
    expect(await w.market.getOffer(c.offer_id)).toMatchObject({ status: 'declined', reason: 'sold_out' });
    expect((await w.market.listLicences({ listing_id: l.listing_id })).licences).toHaveLength(2);
    const u = await w.listing();
    for (const who of ['x', 'y', 'z'])
      await w.market.acceptOffer('estate', (await w.market.makeOffer(who, u.listing_id, { amount: USD(1) })).offer_id);
    expect(await w.market.getListing(u.listing_id)).toMatchObject({ status: 'active', licences_issued: 3 });
  });

  it('an exclusive listing or licence cannot overlap another live one for the same work and licence type', async () => {
    const w = await world();
    const workId = await w.work();
    const ex = await w.listing({ work_id: workId, territory: ['US'], exclusive: true });
    // overlapping active listing (either side exclusive): refused at creation and at publish
    expect(await codeOf(w.listing({ work_id: workId, territory: ['US-CA'] }))).toBe('CONFLICT');
    const draft = await w.listing({ work_id: workId, territory: ['WORLDWIDE'], status: 'draft' });
    expect(await codeOf(w.market.publishListing('estate', draft.listing_id))).toBe('CONFLICT');
    // elsewhere, or another licence type: fine
    const jp = await w.listing({ work_id: workId, territory: ['JP'] });
    await w.listing({ work_id: workId, territory: ['US'], licence_type: 'display', exclusive: true });
    // widening the JP listing onto the US is refused too
    expect(await codeOf(w.market.updateListing('estate', jp.listing_id, { territory: ['JP', 'US'] }))).toBe('CONFLICT');
    // once the exclusive licence is sold, it blocks new overlapping listings until its term ends
    const o = await w.market.makeOffer('buyer', ex.listing_id, { amount: USD(1), term_months: 12 });
    await w.market.acceptOffer('estate', o.offer_id);
    expect(await codeOf(w.market.publishListing('estate', draft.listing_id))).toBe('CONFLICT');
    w.clock.now = T0 + 400 * DAY;
    await w.market.withdrawListing('estate', jp.listing_id);
    expect((await w.market.publishListing('estate', draft.listing_id)).status).toBe('active');
  });

  it('an exclusive acceptance is refused while a non-exclusive licence is live there', async () => {
    const w = await world();
    const workId = await w.work();
    const ne = await w.listing({ work_id: workId, territory: ['FR'] });
    await w.market.acceptOffer('estate', (await w.market.makeOffer('b1', ne.listing_id, { amount: USD(1) })).offer_id);
    await w.market.withdrawListing('estate', ne.listing_id);
    // the listing no longer overlaps an active one, but its licence is live in FR
    expect(await codeOf(w.listing({ work_id: workId, territory: ['EU'], exclusive: true }))).toBe('CONFLICT');
  });
});

// ---------------------------------------------------------------------------------------------

describe('idempotency', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  it('createListing: same key and request → the same listing once; another request → CONFLICT; keys are per caller', async () => {
    const workId = await w.work();
    const req: CreateListingRequest = {
      work_id: workId,
      licence_type: 'retrieval',
      territory: ['GB'],
      term_months: 12,
      price: USD(7),
    };
    const a = await w.market.createListing('estate', req, { idempotencyKey: 'k-1' });
    const b = await w.market.createListing(
      'estate',
      { price: USD(7), term_months: 12, territory: ['GB'], licence_type: 'retrieval', work_id: workId },
      { idempotencyKey: 'k-1' },
    );
    expect(b).toEqual(a);
    const [c, d] = await Promise.all([
      w.market.createListing('estate', req, { idempotencyKey: 'k-2' }),
      w.market.createListing('estate', req, { idempotencyKey: 'k-2' }),
    ]);
    expect(c).toEqual(d);
    expect(
      (await w.market.listListings({ owner: 'estate', status: 'any', limit: 1000 })).listings.filter(
        (l) => l.work_id === workId,
      ),
    ).toHaveLength(2);
    expect(await codeOf(w.market.createListing('estate', { ...req, term_months: 13 }, { idempotencyKey: 'k-1' }))).toBe(
      'CONFLICT',
    );
    const other = await w.work('other-estate');
    const e = await w.market.createListing('other-estate', { ...req, work_id: other }, { idempotencyKey: 'k-1' });
    expect(e.owner).toBe('other-estate');
    expect((await w.market.auditLog({ entity_id: a.listing_id })).entries).toHaveLength(1);
  });

  it('acceptOffer: a retry with the key returns the same licence; the key on another offer → CONFLICT', async () => {
    const l = await w.listing();
    const [o1, o2] = await Promise.all([
      w.market.makeOffer('b1', l.listing_id, { amount: USD(1) }),
      w.market.makeOffer('b2', l.listing_id, { amount: USD(2) }),
    ]);
    const [x, y] = await Promise.all([
      w.market.acceptOffer('estate', o1.offer_id, { idempotencyKey: 'acc' }),
      w.market.acceptOffer('estate', o1.offer_id, { idempotencyKey: 'acc' }),
    ]);
    expect(y).toEqual(x);
    expect(await w.market.acceptOffer('estate', o1.offer_id, { idempotencyKey: 'acc' })).toEqual(x);
    expect(await codeOf(w.market.acceptOffer('estate', o1.offer_id))).toBe('CONFLICT'); // without the key: already accepted
    expect(await codeOf(w.market.acceptOffer('estate', o2.offer_id, { idempotencyKey: 'acc' }))).toBe('CONFLICT');
    expect((await w.market.listLicences({ listing_id: l.listing_id })).licences).toHaveLength(1);
    // a failed attempt stores nothing: the key is still free for another request
    const l2 = await w.listing();
    const o3 = await w.market.makeOffer('b3', l2.listing_id, {
      amount: USD(3),
      expires_at: new Date(T0 + DAY).toISOString(),
    });
    w.clock.now = T0 + 2 * DAY;
    try {
      expect(await codeOf(w.market.acceptOffer('estate', o3.offer_id, { idempotencyKey: 'try' }))).toBe('CONFLICT');
      const o4 = await w.market.makeOffer('b4', l2.listing_id, { amount: USD(4) });
      expect((await w.market.acceptOffer('estate', o4.offer_id, { idempotencyKey: 'try' })).offer_id).toBe(o4.offer_id);
    } finally {
      w.clock.now = T0;
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('expiry', () => {
  it('expireDue expires what is due, only that; listOffers never shows a due offer as pending', async () => {
    const w = await world();
    const l = await w.listing();
    const soon = await w.market.makeOffer('b1', l.listing_id, {
      amount: USD(1),
      expires_at: new Date(T0 + DAY).toISOString(),
    });
    const later = await w.market.makeOffer('b2', l.listing_id, {
      amount: USD(1),
      expires_at: new Date(T0 + 10 * DAY).toISOString(),
    });
    const dflt = await w.market.makeOffer('b3', l.listing_id, { amount: USD(1) });
    expect(dflt.expires_at).toBe(new Date(T0 + 14 * DAY).toISOString());
    expect(await w.market.expireDue()).toBe(0);
    w.clock.now = T0 + 2 * DAY;
    expect(
      (await w.market.listOffers({ listing_id: l.listing_id, status: 'pending' })).offers.map((o) => o.offer_id).sort(),
    ).toEqual([later.offer_id, dflt.offer_id].sort());
    expect((await w.market.listOffers({ status: 'expired' })).offers.map((o) => o.offer_id)).toEqual([soon.offer_id]);
    expect(await w.market.expireDue()).toBe(0); // listOffers already expired it
    w.clock.now = T0 + 20 * DAY;
    expect(await w.market.expireDue()).toBe(2);
    expect(await w.market.expireDue()).toBe(0);
    expect(await w.store.scan('market/offer-due/')).toEqual([]);
  });

  it('the interval expires offers in the background; stop() ends it', async () => {
    const w = await world();
    const l = await w.listing();
    const o = await w.market.makeOffer('b1', l.listing_id, {
      amount: USD(1),
      expires_at: new Date(T0 + DAY).toISOString(),
    });
    w.clock.now = T0 + 2 * DAY;
    w.market.start(5);
    try {
      await vi.waitFor(
        async () => expect(((await w.store.get(`market/offer/${o.offer_id}`)) as Offer).status).toBe('expired'),
        { timeout: 60_000 }, // a bound on a hang only: the sweep runs every 5 ms
      );
    } finally {
      await w.market.stop();
    }
    await w.market.stop(); // twice is fine
  });
});

// ---------------------------------------------------------------------------------------------

describe('licences', () => {
  let w: World;
  let licence: Licence;
  beforeAll(async () => {
    w = await world();
    const l = await w.listing({
      exclusive: true,
      territory: ['EU', 'GB'],
      term_months: 36,
      output_cap: { max_consecutive_words: 200, max_percent: 5 },
    });
    const o = await w.market.makeOffer('acme-ai', l.listing_id, { amount: USD(500_000), territory: ['DE', 'GB'] });
    w.clock.now = T0 + 3600_000;
    licence = await w.market.acceptOffer('estate', o.offer_id);
    w.clock.now = T0;
  });

  it('carries the terms and signs them with the receipt key', async () => {
    expect(licence).toMatchObject({
      version: 1,
      alg: 'HMAC-SHA256',
      key_id: w.key.id,
      licensor: 'estate',
      licensee: 'acme-ai',
      licence_type: 'training',
      territory: ['DE', 'GB'],
      amount: USD(500_000),
      per: null,
      exclusive: true,
      output_cap: { max_consecutive_words: 200, max_percent: 5 },
      issued_at: '2026-01-10T01:00:00.000Z',
      term: { start: '2026-01-10T01:00:00.000Z', end: '2029-01-10T01:00:00.000Z' },
    });
    expect(licence.licence_id).toMatch(/^lic_/);
    expect(await w.market.verifyLicence(licence)).toBe(true);
    expect(await w.market.getLicence(licence.licence_id)).toEqual({ ...licence, verified: true });
    expect((await w.market.listLicences({ licensee: 'acme-ai' })).licences).toEqual([{ ...licence, verified: true }]);
    expect((await w.market.listLicences({ licensee: 'someone-else' })).licences).toEqual([]);
  });

  it('fails verification when any signed field changes, or under another key', async () => {
    const changed: Array<[string, Partial<Record<keyof Licence, unknown>>]> = [
      ['licence_id', { licence_id: 'lic_other' }],
      ['listing_id', { listing_id: 'lst_other' }],
      ['offer_id', { offer_id: 'ofr_other' }],
      ['work_id', { work_id: 'wk_other' }],
      ['work_hash', { work_hash: `sha256:${'0'.repeat(64)}` }],
      ['licensor', { licensor: 'mallory' }],
      ['licensee', { licensee: 'mallory' }],
      ['licence_type', { licence_type: 'display' }],
      ['territory', { territory: ['WORLDWIDE'] }],
      ['territory order', { territory: ['GB', 'DE'] }],
      ['term.start', { term: { ...licence.term, start: '2020-01-01T00:00:00.000Z' } }],
      ['term.end', { term: { ...licence.term, end: '2099-01-01T00:00:00.000Z' } }],
      ['amount', { amount: USD(1) }],
      ['currency', { amount: { amount_minor: 500_000, currency: 'EUR' } }],
      ['per', { per: 'word' }],
      ['exclusive', { exclusive: false }],
      ['output_cap', { output_cap: null }],
      ['output cap words', { output_cap: { max_consecutive_words: 2000, max_percent: 5 } }],
      ['issued_at', { issued_at: '2026-01-11T00:00:00.000Z' }],
      ['signature', { signature: licence.signature.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A')) }],
      ['key_id', { key_id: '0000000000000000' }],
      ['version', { version: 2 }],
      ['missing field', { licensee: undefined }],
      // a term no one signed, added to a signed licence, must not read as the marketplace's
      ['a member not signed', { sublicensable: true } as never],
      ['a term member not signed', { term: { ...licence.term, renewable: true } }],
      ['an amount member not signed', { amount: { ...licence.amount, tax_included: true } }],
      ['an output cap member not signed', { output_cap: { ...licence.output_cap!, per_request: 10 } }],
    ];
    for (const [name, patch] of changed)
      expect([name, await w.market.verifyLicence({ ...licence, ...patch })]).toEqual([name, false]);
    expect(await w.market.verifyLicence(null)).toBe(false);
    expect(await w.market.verifyLicence('licence')).toBe(false);
    // a licence as read back (with its own check's `verified`) still verifies
    expect(await w.market.verifyLicence({ ...licence, verified: true })).toBe(true);
    // a registration receipt signed by the same key is not a licence
    expect(
      await w.market.verifyLicence(
        await signReceipt(w.key, { work_hash: licence.work_hash, owner: 'estate', registered_at: licence.issued_at }),
      ),
    ).toBe(false);
    const otherKey = await loadReceiptKey(new MemoryStore());
    const other = createMarketplace({ store: w.store, key: async () => otherKey });
    expect(await other.verifyLicence(licence)).toBe(false);
    // a record altered in the store reads back unverified
    await w.store.put(`market/licence/${licence.licence_id}`, { ...licence, licensee: 'mallory' });
    expect((await w.market.getLicence(licence.licence_id)).verified).toBe(false);
    await w.store.put(`market/licence/${licence.licence_id}`, licence);
  });

  it('rate listings sign the rate unit', async () => {
    const l = await w.listing({
      price: undefined,
      rate: { per: 'word', amount_minor: 1, currency: 'USD' },
      territory: ['JP'],
    });
    const lic = await w.market.acceptOffer(
      'estate',
      (await w.market.makeOffer('acme-ai', l.listing_id, { amount: USD(2) })).offer_id,
    );
    expect(lic).toMatchObject({ amount: USD(2), per: 'word' });
    expect(await w.market.verifyLicence(lic)).toBe(true);
    expect(await w.market.verifyLicence({ ...lic, per: 'title' })).toBe(false);
  });

  it('withdrawing a listing declines its pending offers and keeps issued licences', async () => {
    const l = await w.listing({ territory: ['AU'] });
    const sold = await w.market.acceptOffer(
      'estate',
      (await w.market.makeOffer('b1', l.listing_id, { amount: USD(1) })).offer_id,
    );
    const pending = await w.market.makeOffer('b2', l.listing_id, { amount: USD(1) });
    await w.market.withdrawListing('estate', l.listing_id);
    expect(await w.market.getOffer(pending.offer_id)).toMatchObject({
      status: 'declined',
      reason: 'listing_withdrawn',
    });
    expect((await w.market.getLicence(sold.licence_id)).verified).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------

describe('audit log', () => {
  it('records every change in commit order with increasing seq, by entity and related id, paged', async () => {
    const w = await world();
    const l = await w.listing({ exclusive: true });
    const o1 = await w.market.makeOffer('b1', l.listing_id, { amount: USD(1) });
    const o2 = await w.market.makeOffer('b2', l.listing_id, { amount: USD(2) });
    const c = await w.market.counterOffer('estate', o2.offer_id, { amount: USD(3) });
    const lic = await w.market.acceptOffer('b2', c.offer_id);
    const all = (await w.market.auditLog({ limit: 1000 })).entries;
    expect(all.map((e) => e.action)).toEqual([
      'listing.created',
      'offer.created',
      'offer.created',
      'offer.countered',
      'offer.created',
      'offer.accepted',
      'licence.issued',
      'listing.sold_out',
      'offer.declined',
    ]);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.find((e) => e.action === 'offer.declined')).toMatchObject({
      entity_id: o1.offer_id,
      actor: 'b2',
      from: 'pending',
      to: 'declined',
      details: { reason: 'sold_out' },
    });
    expect(all.find((e) => e.action === 'licence.issued')).toMatchObject({
      entity: 'licence',
      entity_id: lic.licence_id,
      related: [l.listing_id, c.offer_id, l.work_id],
    });
    expect((await w.market.auditLog({ entity_id: l.listing_id, limit: 1000 })).entries).toHaveLength(all.length);
    expect((await w.market.auditLog({ entity_id: c.offer_id })).entries.map((e) => e.action)).toEqual([
      'offer.countered',
      'offer.created',
      'offer.accepted',
      'licence.issued',
    ]);
    const p1 = await w.market.auditLog({ limit: 4 });
    const p2 = await w.market.auditLog({ limit: 4, after: p1.next! });
    const p3 = await w.market.auditLog({ limit: 4, after: p2.next! });
    expect([...p1.entries, ...p2.entries, ...p3.entries]).toEqual(all);
    expect(p3.next).toBeNull();
    // a clock that steps back does not reorder the log
    w.clock.now = T0 - DAY;
    await w.market.updateListing('estate', (await w.listing({ status: 'draft' })).listing_id, { title: 'x' });
    const last = (await w.market.auditLog({ limit: 1000 })).entries;
    expect(last.slice(-2).map((e) => e.at)).toEqual([all[all.length - 1].at, all[all.length - 1].at]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('restart of the file store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trainprint-market-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('100 concurrent accepts on the file store → one licence, still one after reopening', async () => {
    const sub = join(dir, 'race');
    const store = await openFileStore(sub);
    const w = await world(store);
    const l = await w.listing({ exclusive: true });
    const offers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => w.market.makeOffer(`buyer-${i}`, l.listing_id, { amount: USD(i) })),
    );
    const results = await Promise.allSettled(offers.map((o) => w.market.acceptOffer('estate', o.offer_id)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await store.close();
    const reopened = await openFileStore(sub);
    try {
      const key = await loadReceiptKey(reopened);
      const market = createMarketplace({ store: reopened, key: async () => key, now: () => T0 });
      expect((await market.listLicences({ listing_id: l.listing_id })).licences).toHaveLength(1);
      expect((await market.getListing(l.listing_id)).status).toBe('sold_out');
      expect(
        (await market.listOffers({ listing_id: l.listing_id, status: 'declined', limit: 1000 })).offers,
      ).toHaveLength(99);
    } finally {
      await reopened.close();
    }
  });

  it('keeps every listing, offer, licence and audit entry, and licences still verify', async () => {
    const store = await openFileStore(join(dir, 'flows'));
    const w = await world(store);
    const draft = await w.listing({ status: 'draft' });
    const ex = await w.listing({ exclusive: true });
    const open = await w.listing({ territory: ['JP'] });
    const gone = await w.listing({ territory: ['CA'] });
    const offers = [
      await w.market.makeOffer('b1', ex.listing_id, { amount: USD(1) }),
      await w.market.makeOffer('b2', ex.listing_id, { amount: USD(2) }),
      await w.market.makeOffer('b3', open.listing_id, { amount: USD(3) }),
      await w.market.makeOffer('b4', open.listing_id, { amount: USD(4), expires_at: new Date(T0 + DAY).toISOString() }),
      await w.market.makeOffer('b5', gone.listing_id, { amount: USD(5) }),
    ];
    const counter = await w.market.counterOffer('estate', offers[2].offer_id, { amount: USD(30) });
    const lic1 = await w.market.acceptOffer('estate', offers[0].offer_id, { idempotencyKey: 'restart-accept' });
    await w.market.withdrawListing('estate', gone.listing_id);
    w.clock.now = T0 + 2 * DAY;
    expect(await w.market.expireDue()).toBe(1);
    const lic2 = await w.market.acceptOffer('b3', counter.offer_id);

    const listingIds = [draft, ex, open, gone].map((l) => l.listing_id);
    const offerIds = [...offers, counter].map((o) => o.offer_id);
    const snapshot = async (m: Marketplace) => ({
      listings: await Promise.all(listingIds.map((id) => m.getListing(id))),
      offers: await Promise.all(offerIds.map((id) => m.getOffer(id))),
      licences: (await m.listLicences({ licensor: 'estate' })).licences,
      audit: (await m.auditLog({ limit: 1000 })).entries,
    });
    const before = await snapshot(w.market);
    expect(before.listings.map((l) => l.status)).toEqual(['draft', 'sold_out', 'active', 'withdrawn']);
    expect(before.offers.map((o) => o.status)).toEqual([
      'accepted',
      'declined',
      'countered',
      'expired',
      'declined',
      'accepted',
    ]);
    expect(before.licences.map((l) => l.licence_id).sort()).toEqual([lic1.licence_id, lic2.licence_id].sort());
    expect(before.audit.length).toBeGreaterThan(15);
    await store.close();

    const reopened = await openFileStore(join(dir, 'flows'));
    try {
      const key = await loadReceiptKey(reopened);
      expect(key.id).toBe(w.key.id);
      const market = createMarketplace({ store: reopened, key: async () => key, now: () => T0 + 2 * DAY });
      expect(await snapshot(market)).toEqual(before);
      expect(before.licences.every((l) => l.verified)).toBe(true);
      // state survives: the exclusive listing stays sold, the idempotent accept replays, the log continues
      expect(await codeOf(market.acceptOffer('estate', offers[1].offer_id))).toBe('CONFLICT');
      expect(await market.acceptOffer('estate', offers[0].offer_id, { idempotencyKey: 'restart-accept' })).toEqual(
        lic1,
      );
      const next = await market.publishListing('estate', draft.listing_id);
      const tail = (await market.auditLog({ limit: 1000 })).entries;
      expect(tail.slice(0, before.audit.length)).toEqual(before.audit);
      expect(tail[tail.length - 1]).toMatchObject({
        action: 'listing.published',
        entity_id: next.listing_id,
        seq: before.audit.length + 1,
      });
    } finally {
      await reopened.close();
    }
  });
});
