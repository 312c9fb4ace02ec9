/**
 * Marketplace routes over real HTTP (`/api/v1/marketplace/…`), every response validated against
 * the served OpenAPI document (test/fixtures/http/harness.ts), with several accounts: `acme` owns
 * the works and lists them, `globex` buys, `initech` is a bystander.
 *
 * - every marketplace route answers 2xx to a good request (a listing's life: draft, update,
 *   publish, offers, counter, accept → licence, decline, withdraw, verify, audit, withdraw);
 * - visibility: drafts only to their owner, offers only to their two parties, licences only to
 *   licensor and licensee, audit trails only of what the caller owns or is party to — others 404;
 *   acting on something visible without the right is 403 (engine FORBIDDEN); lists and their
 *   pagination show only what the caller may see;
 * - Idempotency-Key on createListing and acceptOffer (replayed, never listed or sold twice);
 * - an exclusive listing with 20 offers accepted concurrently over HTTP: exactly one licence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/index.js';
import { book, startApi, type Api, type Reply } from '../fixtures/http/harness.js';

const M = '/api/v1/marketplace';
const USD = (amount_minor: number) => ({ amount_minor, currency: 'USD' });

describe('marketplace routes over HTTP', () => {
  let api: Api;
  let acme: string, globex: string, initech: string;
  let work: string, work2: string;
  let listing: any;
  const ok = new Set<string>();

  const call = async (method: string, path: string, o: Parameters<Api['call']>[2] = {}): Promise<Reply> => {
    const r = await api.call(method, path, o);
    if (r.status >= 200 && r.status < 300 && r.operation) ok.add(r.operation);
    return r;
  };
  const expectStatus = async (p: Promise<Reply>, status: number, code?: string) => {
    const r = await p;
    expect(r.status, r.text.slice(0, 300)).toBe(status);
    if (code) expect(r.json.error.code).toBe(code);
    return r;
  };

  beforeAll(async () => {
    api = await startApi();
    acme = (await api.keys.createKey({ account: 'acme', plan: 'pro' })).key;
    globex = (await api.keys.createKey({ account: 'globex', plan: 'pro' })).key;
    initech = (await api.keys.createKey({ account: 'initech', plan: 'pro', scopes: ['marketplace'] })).key;
    const reg = async (content: string) =>
      (
        await call('POST', '/api/v1/content/register', {
          key: acme,
          json: { content, title: 'Persuasion', work_type: 'book' },
        })
      ).json.work_id;
    work = await reg(book('austen-persuasion').slice(0, 20_000));
    work2 = await reg(book('austen-persuasion').slice(20_000, 40_000));
  });
  afterAll(async () => {
    await api?.close();
  });

  it("a draft is its owner's alone; publishing shows it to everyone, changing it stays the owner's", async () => {
    const body = {
      work_id: work,
      licence_type: 'training',
      territory: ['US', 'eu'],
      term_months: 36,
      price: USD(500_000),
      output_cap: { max_consecutive_words: 200 },
    };
    const created = await expectStatus(
      call('POST', `${M}/listings`, { key: acme, json: body, headers: { 'idempotency-key': 'list-1' } }),
      201,
    );
    listing = created.json;
    expect(listing).toMatchObject({
      status: 'draft',
      owner: 'acme',
      territory: ['EU', 'US'],
      title: 'Persuasion',
      output_cap: { max_consecutive_words: 200, max_percent: null },
    });
    const replay = await call('POST', `${M}/listings`, {
      key: acme,
      json: body,
      headers: { 'idempotency-key': 'list-1' },
    });
    expect(replay.json.listing_id).toBe(listing.listing_id);
    await expectStatus(
      call('POST', `${M}/listings`, {
        key: acme,
        json: { ...body, term_months: 12 },
        headers: { 'idempotency-key': 'list-1' },
      }),
      409,
      'CONFLICT',
    );
    await expectStatus(call('POST', `${M}/listings`, { key: globex, json: body }), 403, 'FORBIDDEN'); // not globex's work
    await expectStatus(
      call('POST', `${M}/listings`, { key: acme, json: { ...body, rate: { per: 'word', ...USD(1) } } }),
      422,
    ); // price and rate
    const id = listing.listing_id;
    await expectStatus(call('GET', `${M}/listings/${id}`, { key: globex }), 404, 'NOT_FOUND');
    await expectStatus(call('PATCH', `${M}/listings/${id}`, { key: globex, json: { title: 'Mine now' } }), 404);
    await expectStatus(call('POST', `${M}/listings/${id}/publish`, { key: globex }), 404);
    await expectStatus(call('POST', `${M}/listings/${id}/offers`, { key: globex, json: { amount: USD(1) } }), 404);
    expect((await call('GET', `${M}/listings?status=any`, { key: globex })).json.listings).toEqual([]);
    expect((await call('GET', `${M}/listings?status=draft`, { key: globex })).json.listings).toEqual([]);
    expect((await call('GET', `${M}/listings?status=draft&owner=acme`, { key: globex })).json.listings).toEqual([]);
    expect(
      (await call('GET', `${M}/listings?status=draft`, { key: acme })).json.listings.map((l: any) => l.listing_id),
    ).toEqual([id]);
    const patched = await expectStatus(
      call('PATCH', `${M}/listings/${id}`, { key: acme, json: { price: USD(450_000), description: 'Novel, 1817' } }),
      200,
    );
    expect(patched.json).toMatchObject({ price: USD(450_000), description: 'Novel, 1817' });
    await expectStatus(call('PATCH', `${M}/listings/${id}`, { key: acme, json: {} }), 422);
    const pub = await expectStatus(call('POST', `${M}/listings/${id}/publish`, { key: acme }), 200);
    expect(pub.json.status).toBe('active');
    await expectStatus(call('POST', `${M}/listings/${id}/publish`, { key: acme }), 409, 'CONFLICT');
    expect((await call('GET', `${M}/listings/${id}`, { key: initech })).json.status).toBe('active');
    await expectStatus(
      call('PATCH', `${M}/listings/${id}`, { key: globex, json: { title: 'Mine now' } }),
      403,
      'FORBIDDEN',
    );
    await expectStatus(call('POST', `${M}/listings/${id}/withdraw`, { key: globex }), 403);
    const search = await call(
      'GET',
      `${M}/listings?licence_type=training&territory=DE&currency=USD&max_amount_minor=500000`,
      { key: globex },
    );
    expect(search.json.listings.map((l: any) => l.listing_id)).toEqual([id]); // EU covers DE
  });

  it('offers: only the two parties see them; the recipient answers, the maker withdraws', async () => {
    const id = listing.listing_id;
    await expectStatus(call('POST', `${M}/listings/${id}/offers`, { key: acme, json: { amount: USD(400_000) } }), 403); // own listing
    await expectStatus(
      call('POST', `${M}/listings/${id}/offers`, {
        key: globex,
        json: { amount: { amount_minor: 1, currency: 'EUR' } },
      }),
      422,
    );
    const o1 = (
      await expectStatus(
        call('POST', `${M}/listings/${id}/offers`, {
          key: globex,
          json: { amount: USD(400_000), territory: ['DE'], message: 'For a German model' },
        }),
        201,
      )
    ).json;
    expect(o1).toMatchObject({
      buyer: 'globex',
      seller: 'acme',
      made_by: 'globex',
      status: 'pending',
      territory: ['DE'],
      term_months: 36,
    });
    for (const path of [`${M}/offers/${o1.offer_id}`]) await expectStatus(call('GET', path, { key: initech }), 404);
    for (const action of ['accept', 'decline', 'withdraw'])
      await expectStatus(call('POST', `${M}/offers/${o1.offer_id}/${action}`, { key: initech }), 404);
    await expectStatus(call('POST', `${M}/offers/${o1.offer_id}/counter`, { key: initech, json: {} }), 404);
    expect((await call('GET', `${M}/offers/${o1.offer_id}`, { key: acme })).json.offer_id).toBe(o1.offer_id);
    await expectStatus(call('POST', `${M}/offers/${o1.offer_id}/accept`, { key: globex }), 403); // the maker cannot accept
    // commercial terms freeze while an offer is pending
    await expectStatus(call('PATCH', `${M}/listings/${id}`, { key: acme, json: { price: USD(1) } }), 409);
    const counter = (
      await expectStatus(
        call('POST', `${M}/offers/${o1.offer_id}/counter`, { key: acme, json: { amount: USD(420_000) } }),
        201,
      )
    ).json;
    expect(counter).toMatchObject({
      made_by: 'acme',
      buyer: 'globex',
      counter_of: o1.offer_id,
      territory: ['DE'],
      amount: USD(420_000),
    });
    expect((await call('GET', `${M}/offers/${o1.offer_id}`, { key: globex })).json).toMatchObject({
      status: 'countered',
      countered_by: counter.offer_id,
    });
    await expectStatus(call('POST', `${M}/offers/${counter.offer_id}/accept`, { key: acme }), 403); // acme made the counter
    const licence = (
      await expectStatus(
        call('POST', `${M}/offers/${counter.offer_id}/accept`, {
          key: globex,
          headers: { 'idempotency-key': 'accept-1' },
        }),
        201,
      )
    ).json;
    expect(licence).toMatchObject({
      licensor: 'acme',
      licensee: 'globex',
      territory: ['DE'],
      amount: USD(420_000),
      exclusive: false,
      alg: 'HMAC-SHA256',
    });
    const again = await call('POST', `${M}/offers/${counter.offer_id}/accept`, {
      key: globex,
      headers: { 'idempotency-key': 'accept-1' },
    });
    expect([again.status, again.json.licence_id]).toEqual([201, licence.licence_id]); // replayed, not sold twice
    await expectStatus(call('POST', `${M}/offers/${counter.offer_id}/accept`, { key: globex }), 409);

    const o3 = (await call('POST', `${M}/listings/${id}/offers`, { key: globex, json: { amount: USD(100) } })).json;
    expect(
      (await expectStatus(call('POST', `${M}/offers/${o3.offer_id}/decline`, { key: acme }), 200)).json.status,
    ).toBe('declined');
    const o4 = (await call('POST', `${M}/listings/${id}/offers`, { key: globex, json: { amount: USD(200) } })).json;
    await expectStatus(call('POST', `${M}/offers/${o4.offer_id}/withdraw`, { key: acme }), 403); // not the maker
    expect(
      (await expectStatus(call('POST', `${M}/offers/${o4.offer_id}/withdraw`, { key: globex }), 200)).json.status,
    ).toBe('withdrawn');

    const mine = (key: string, q = '') =>
      call('GET', `${M}/offers${q}`, { key }).then((r) => r.json.offers.map((o: any) => o.offer_id).sort());
    const all = [o1.offer_id, counter.offer_id, o3.offer_id, o4.offer_id].sort();
    expect(await mine(globex)).toEqual(all);
    expect(await mine(acme, '?role=seller')).toEqual(all);
    expect(await mine(acme, '?role=buyer')).toEqual([]);
    expect(await mine(initech)).toEqual([]);
    expect(await mine(globex, `?listing_id=${id}&status=withdrawn`)).toEqual([o4.offer_id]);
    // pagination over the visible ones only
    const p1 = await call('GET', `${M}/offers?limit=3`, { key: globex });
    const p2 = await call('GET', `${M}/offers?limit=3&after=${p1.json.next}`, { key: globex });
    expect([...p1.json.offers, ...p2.json.offers].map((o: any) => o.offer_id).sort()).toEqual(all);
    expect(p2.json.next).toBeNull();

    // licences: the two parties; verify with any copy
    const ids = (key: string, q = '') =>
      call('GET', `${M}/licences${q}`, { key }).then((r) => r.json.licences.map((l: any) => l.licence_id));
    expect(await ids(globex)).toEqual([licence.licence_id]);
    expect(await ids(acme, '?role=licensor')).toEqual([licence.licence_id]);
    expect(await ids(acme, '?role=licensee')).toEqual([]);
    expect(await ids(initech)).toEqual([]);
    expect((await call('GET', `${M}/licences/${licence.licence_id}`, { key: acme })).json.verified).toBe(true);
    await expectStatus(call('GET', `${M}/licences/${licence.licence_id}`, { key: initech }), 404);
    const { success: _s, ...doc } = licence;
    expect((await call('POST', `${M}/licences/verify`, { key: initech, json: { licence: doc } })).json.valid).toBe(
      true,
    );
    expect(
      (
        await call('POST', `${M}/licences/verify`, {
          key: initech,
          json: { licence: { ...doc, territory: ['WORLDWIDE'] } },
        })
      ).json.valid,
    ).toBe(false);

    // the audit trail: the owner's listing; a party's offer or licence; nobody else's
    const trail = await call('GET', `${M}/audit?entity_id=${id}`, { key: acme });
    expect(trail.json.entries.map((e: any) => e.action)).toEqual(
      expect.arrayContaining([
        'listing.created',
        'listing.updated',
        'listing.published',
        'offer.created',
        'licence.issued',
      ]),
    );
    await expectStatus(call('GET', `${M}/audit?entity_id=${id}`, { key: globex }), 404);
    expect(
      (await call('GET', `${M}/audit?entity_id=${o1.offer_id}&limit=1`, { key: globex })).json.entries,
    ).toHaveLength(1);
    expect(
      (await call('GET', `${M}/audit?entity_id=${licence.licence_id}`, { key: globex })).json.entries.map(
        (e: any) => e.action,
      ),
    ).toContain('licence.issued');
    await expectStatus(call('GET', `${M}/audit?entity_id=${licence.licence_id}`, { key: initech }), 404);
    expect((await call('GET', `${M}/audit?entity_id=${work}`, { key: acme })).json.entries.length).toBeGreaterThan(0);
    await expectStatus(call('GET', `${M}/audit?entity_id=${work}`, { key: globex }), 404);
    await expectStatus(call('GET', `${M}/audit`, { key: acme }), 422);

    expect((await expectStatus(call('POST', `${M}/listings/${id}/withdraw`, { key: acme }), 200)).json.status).toBe(
      'withdrawn',
    );
    expect((await call('GET', `${M}/licences/${licence.licence_id}`, { key: globex })).json.verified).toBe(true); // licences outlive the listing
  });

  it('an exclusive listing: 20 concurrent accepts over HTTP issue exactly one licence', async () => {
    const l = (
      await call('POST', `${M}/listings`, {
        key: acme,
        json: {
          work_id: work2,
          licence_type: 'training',
          territory: ['WORLDWIDE'],
          term_months: 12,
          price: USD(1_000_000),
          exclusive: true,
          status: 'active',
        },
      })
    ).json;
    const buyers = await Promise.all(
      ['b1', 'b2', 'b3', 'b4'].map(
        async (account) => (await api.keys.createKey({ account, plan: 'pro', scopes: ['marketplace'] })).key,
      ),
    );
    const offers: string[] = [];
    for (let i = 0; i < 20; i++)
      offers.push(
        (
          await expectStatus(
            call('POST', `${M}/listings/${l.listing_id}/offers`, {
              key: buyers[i % 4],
              json: { amount: USD(900_000 + i) },
            }),
            201,
          )
        ).json.offer_id,
      );
    const replies = await Promise.all(offers.map((o) => call('POST', `${M}/offers/${o}/accept`, { key: acme })));
    const won = replies.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(19);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('CONFLICT');
    expect((await call('GET', `${M}/listings/${l.listing_id}`, { key: initech })).json).toMatchObject({
      status: 'sold_out',
      licences_issued: 1,
    });
    const licences = (await call('GET', `${M}/licences?listing_id=${l.listing_id}`, { key: acme })).json.licences;
    expect(licences.map((x: any) => x.licence_id)).toEqual([won[0].json.licence_id]);
    const offersNow = (await call('GET', `${M}/offers?listing_id=${l.listing_id}&limit=100`, { key: acme })).json
      .offers;
    expect(offersNow.filter((o: any) => o.status === 'accepted')).toHaveLength(1);
    expect(offersNow.filter((o: any) => o.status === 'declined' && o.reason === 'sold_out')).toHaveLength(19);
  });

  it('every marketplace route answered 2xx', () => {
    const missing = ROUTES.filter((r) => r.tag === 'marketplace' && !ok.has(`${r.method} ${r.path}`)).map(
      (r) => r.operationId,
    );
    expect(missing, 'marketplace operations never answered 2xx').toEqual([]);
  });
});
