/**
 * The Python client (clients/python/) against a real server: starts the API on 127.0.0.1 (engine
 * + starter dataset), creates a key with every scope, and runs `python3 clients/python/test_client.py`
 * with TRAINPRINT_BASE_URL / TRAINPRINT_API_KEY. A second server with a one-call plan and a clock
 * at noon gives the script a real 429 whose Retry-After (≈ 12 h) must be raised at once; a second
 * account's key drives the marketplace test, and an n-gram LM served on 127.0.0.1 the memorization one.
 * Skipped, with a message, only when python3 is missing (it is present on the dev machine and in CI).
 */
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../fixtures/client/server.js';
import { serveModel, type ServedModel } from '../fixtures/http/model.js';
import { book } from '../fixtures/texts/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PYTHON = process.env.PYTHON ?? 'python3';
const hasPython = (() => {
  try {
    execFileSync(PYTHON, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPython) console.warn(`client-python.test.ts: SKIPPED — ${PYTHON} not found (install Python 3.8+ to test clients/python)`);

const ALL_SCOPES = ['analyze', 'registry:read', 'registry:write', 'monitors', 'datasets:read', 'datasets:write', 'kb', 'usage', 'keys', 'marketplace', 'memorization'];

describe.skipIf(!hasPython)('Python client against a real server', () => {
  let srv: TestServer;
  let limited: TestServer;
  let model: ServedModel;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    // the model service runs on 127.0.0.1: allowed explicitly (the default SSRF policy refuses it)
    srv = await startServer({ allowPrivateModelHosts: true });
    const { key } = await srv.keys.createKey({ account: 'py', plan: 'pro', scopes: ALL_SCOPES, name: 'python test' });
    const buyer = await srv.keys.createKey({ account: 'py-buyer', plan: 'pro', scopes: ['marketplace'] });
    const text = (name: string, from: number, n: number) =>
      book(name).split(/\s+/).slice(from, from + n).join(' ');
    const work = text('austen-persuasion', 30_000, 1200);
    model = await serveModel([work, work, work, text('milton-paradise', 0, 8_000)], { name: 'ngram-py', order: 6 });
    const noon = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000;
    const offset = noon - Date.now();
    limited = await startServer({ plans: { one: { daily: 1 } }, now: () => Date.now() + offset }, srv.engine);
    const one = await limited.keys.createKey({ account: 'py-limited', plan: 'one', scopes: ['kb'] });
    Object.assign(env, {
      TRAINPRINT_BASE_URL: srv.url, TRAINPRINT_API_KEY: key,
      TRAINPRINT_LIMITED_BASE_URL: limited.url, TRAINPRINT_LIMITED_API_KEY: one.key,
      TRAINPRINT_BUYER_API_KEY: buyer.key,
      TRAINPRINT_MODEL_BASE_URL: model.baseUrl, TRAINPRINT_MODEL_NAME: model.name, TRAINPRINT_MODEL_WORK: work,
    });
  });
  afterAll(async () => {
    await model?.close();
    await limited?.close();
    await srv?.close();
    srv?.engine.dispose();
  });

  it('python3 clients/python/test_client.py passes, nothing skipped', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(PYTHON, ['clients/python/test_client.py'], { cwd: root, timeout: 120_000, env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1' } },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
    const out = `${stdout}\n${stderr}`;
    expect(code, out).toBe(0);
    expect(out).toMatch(/\nOK\b/);
    expect(out, 'the live tests ran').not.toMatch(/skipped/);
    expect(out).toMatch(/Ran 1[0-9] tests/);
  });
});
