/**
 * `trainprint serve` (the built CLI, dist/cli.js) for a newcomer and for two accounts, on 127.0.0.1:
 *
 * - the development key: test mode, 30 days, no `keys` scope; it adds, grows and drops a dataset of
 *   its own but not the operator's; a restart on the same `--store` replaces it (the earlier key is
 *   refused) and the day's call count goes on where it was;
 * - `--admin-key`: keys for two accounts through `POST /api/v1/admin/keys` (other keys get 403),
 *   then one lists a work on the marketplace and the other makes an offer, as docs/http.md shows;
 * - `keys create` refuses an unknown plan or scope, naming the ones that exist.
 *
 * Bounded: a server must print its URL within 30 s; each is stopped with SIGTERM (SIGKILL after 5 s).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, requireBuiltCli, startServe, stopProcess as stop, type ServeProcess } from '../fixtures/serve-process.js';

const running: ChildProcess[] = [];
let dir = '';

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-serve-accounts-'));
});
afterAll(async () => {
  await Promise.all(running.map(stop));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Start `trainprint serve` with `args`; resolves once it printed its URL and keys. */
const start = (args: string[]): Promise<ServeProcess> =>
  startServe(['--port', '0', '--packs', 'none', ...args], { running });

async function call(url: string, key: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, json: (await res.json()) as any };
}

describe('trainprint serve: the development key', () => {
  it("grows and drops its own dataset, makes no keys; a restart replaces it, keeps the day's count", async () => {
    const store = join(dir, 'store');
    const first = await start(['--store', store]);
    const until = /development key \([^)]*until (\d{4}-\d{2}-\d{2})/.exec(first.out())?.[1];
    expect(Date.parse(`${until}T00:00:00Z`) - Date.now()).toBeGreaterThan(28 * 86_400_000);
    const { url, dev } = first;
    expect((await call(url, dev, 'POST', '/api/v1/keys', {})).status).toBe(403);
    const text = 'A note the newcomer keeps in a dataset of their own, long enough to be fingerprinted.';
    const made = await call(url, dev, 'POST', '/api/v1/datasets', { id: 'my-notes', documents: [{ id: 'n1', text }] });
    expect(made.status).toBe(201);
    const grown = await call(url, dev, 'POST', '/api/v1/datasets/my-notes/documents', {
      documents: [{ id: 'n2', text: `${text} Again.` }],
    });
    expect(grown.json.documents).toBe(2);
    expect((await call(url, dev, 'DELETE', '/api/v1/datasets/my-notes')).status).toBe(200);
    expect((await call(url, dev, 'DELETE', '/api/v1/datasets/spdx-licenses')).status).toBe(403); // the operator's
    const before = await call(url, dev, 'GET', '/api/v1/usage');
    // charged: the four dataset calls (the 403 for a missing scope is not, nor is reading the usage)
    expect(before.json).toMatchObject({ account: 'dev', plan: 'pro', used: 4 });
    await stop(first.child);

    const second = await start(['--store', store]);
    expect(second.dev).not.toBe(dev);
    expect(second.out()).toContain('printed before is revoked');
    expect((await call(second.url, dev, 'GET', '/api/v1/usage')).status).toBe(401);
    expect((await call(second.url, second.dev, 'GET', '/api/v1/kb/providers')).status).toBe(200);
    const after = await call(second.url, second.dev, 'GET', '/api/v1/usage');
    expect(after.json.used).toBe(before.json.used + 1); // the count of the day went on across the restart
    await stop(second.child);
  }, 90_000);
});

describe('trainprint serve --admin-key: two accounts try the marketplace', () => {
  it('keys for alice and bob over HTTP; alice lists a work, bob offers for it', async () => {
    const { url, dev, admin } = await start(['--admin-key']);
    expect(admin).toMatch(/^tp_live_/);
    const keyFor = async (account: string, scopes: string[]) => {
      const r = await call(url, admin!, 'POST', '/api/v1/admin/keys', { account, plan: 'pro', scopes });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json.key as string;
    };
    const alice = await keyFor('alice', ['marketplace', 'registry:read', 'registry:write']);
    const bob = await keyFor('bob', ['marketplace', 'registry:read']);
    expect((await call(url, dev, 'POST', '/api/v1/admin/keys', { account: 'mallory' })).status).toBe(403);
    const platinum = await call(url, admin!, 'POST', '/api/v1/admin/keys', { account: 'carol', plan: 'platinum' });
    expect(platinum.status).toBe(422);
    expect(platinum.json.error.message).toContain('the plans are free, pro, scale, enterprise');

    const work = await call(url, alice, 'POST', '/api/v1/content/register', {
      content: 'A short story that alice wrote and wants to license for training.',
      title: 'A story',
    });
    expect(work.status).toBe(201);
    const listing = await call(url, alice, 'POST', '/api/v1/marketplace/listings', {
      work_id: work.json.work_id,
      licence_type: 'training',
      territory: ['WORLDWIDE'],
      term_months: 12,
      price: { amount_minor: 50000, currency: 'USD' },
      status: 'active',
    });
    expect(listing.status, JSON.stringify(listing.json)).toBe(201);
    const offer = await call(url, bob, 'POST', `/api/v1/marketplace/listings/${listing.json.listing_id}/offers`, {
      amount: { amount_minor: 45000, currency: 'USD' },
      message: 'For a research model',
    });
    expect(offer.status, JSON.stringify(offer.json)).toBe(201);
    const seen = await call(url, alice, 'GET', '/api/v1/marketplace/offers');
    expect(seen.json.offers.map((o: any) => o.offer_id)).toContain(offer.json.offer_id);
  }, 60_000);
});

describe('trainprint keys create', () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [cli, 'keys', 'create', ...args], { timeout: 30_000 }, (err, _stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stderr });
      });
    });

  it('refuses a plan or a scope that does not exist, naming those that do', async () => {
    const store = join(dir, 'keys-store');
    // worded as POST /api/v1/admin/keys words them: the field, then the reason
    const plan = await run(['--store', store, '--account', 'acme', '--plan', 'platinum']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('plan: "platinum" is not a known plan; the plans are free, pro, scale, enterprise');
    const scope = await run(['--store', store, '--account', 'acme', '--scopes', 'analyze,root']);
    expect(scope.code).toBe(1);
    expect(scope.stderr).toMatch(/scopes\[1\]: must be one of "analyze", /);
    expect((await run(['--store', store, '--account', 'acme', '--plan', 'pro', '--expires-days', '7'])).code).toBe(0);
  }, 60_000);
});
