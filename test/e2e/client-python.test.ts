/**
 * The Python client (clients/python/) against a real server.
 *
 * 1. Installs the package offline, as a user would: a copy of clients/python (so no build output
 *    lands in the checkout) into a fresh virtual environment with
 *    `pip install --no-build-isolation --no-index` — the package's own build backend needs nothing
 *    but the standard library.
 * 2. Runs its whole unittest suite with that environment's python, from a folder outside the
 *    checkout, so `import trainprint_client` is the installed copy: the retry/error tests against
 *    a local stub, the live API tests, and the conformance scenario (clients/conformance.json).
 *
 * Servers: the API on 127.0.0.1 (engine + starter dataset) with a key of every scope, a second
 * account's key (marketplace), an n-gram LM on 127.0.0.1 (memorization), and a second server on a
 * 1-call-per-day plan whose clock, from its first request on, reads 4 s before the end of a UTC day:
 * the scenario's rate-limit steps get a real 429 with a Retry-After of about 4 s, raised at once by
 * a client whose longest wait is 1 s, waited out and retried by a default one.
 *
 * Skipped, with a message, only when python3 is missing (it is present on the dev machine and in CI).
 * Without the venv module (Debian's python3 without python3-venv) the install test is skipped and
 * the suite runs from the source folder instead.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startLimitedServer, startServer, type TestServer } from '../fixtures/client/server.js';
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
if (!hasPython)
  console.warn(`client-python.test.ts: SKIPPED — ${PYTHON} not found (install Python 3.8+ to test clients/python)`);

const ALL_SCOPES = [
  'analyze',
  'registry:read',
  'registry:write',
  'monitors',
  'datasets:read',
  'datasets:write',
  'kb',
  'usage',
  'keys',
  'marketplace',
  'memorization',
];
const SCENARIO = JSON.parse(readFileSync(join(root, 'clients/conformance.json'), 'utf8')) as {
  steps: Array<{ id: string }>;
};

describe.skipIf(!hasPython)('Python client against a real server', () => {
  let srv: TestServer;
  let limited: TestServer;
  let model: ServedModel;
  let tmp: string;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'trainprint-py-'));
    // the model service runs on 127.0.0.1: allowed explicitly (the default SSRF policy refuses it)
    srv = await startServer({ allowPrivateModelHosts: true });
    const { key } = await srv.keys.createKey({ account: 'py', plan: 'pro', scopes: ALL_SCOPES, name: 'python test' });
    const buyer = await srv.keys.createKey({ account: 'py-buyer', plan: 'pro', scopes: ['marketplace'] });
    const text = (name: string, from: number, n: number) =>
      book(name)
        .split(/\s+/)
        .slice(from, from + n)
        .join(' ');
    const work = text('austen-persuasion', 30_000, 1200);
    model = await serveModel([work, work, work, text('milton-paradise', 0, 8_000)], { name: 'ngram-py', order: 6 });
    limited = await startLimitedServer(srv.engine);
    const one = await limited.keys.createKey({ account: 'py-limited', plan: 'tiny', scopes: ['registry:read'] });
    Object.assign(env, {
      TRAINPRINT_BASE_URL: srv.url,
      TRAINPRINT_API_KEY: key,
      TRAINPRINT_LIMITED_BASE_URL: limited.url,
      TRAINPRINT_LIMITED_API_KEY: one.key,
      TRAINPRINT_BUYER_API_KEY: buyer.key,
      TRAINPRINT_MODEL_BASE_URL: model.baseUrl,
      TRAINPRINT_MODEL_NAME: model.name,
      TRAINPRINT_MODEL_WORK: work,
    });
  });
  afterAll(async () => {
    await model?.close();
    await limited?.close();
    await srv?.close();
    srv?.engine.dispose();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  let venvPython: string | null = null;

  it('installs offline: pip install --no-build-isolation --no-index into a fresh venv', async (ctx) => {
    const venv = join(tmp, 'venv');
    const made = await run(PYTHON, ['-m', 'venv', '--system-site-packages', venv], { cwd: tmp, timeout: 120_000 });
    if (made.code !== 0) {
      console.warn(
        `client-python.test.ts: install test SKIPPED — ${PYTHON} -m venv failed (python3-venv missing?):\n${made.out}`,
      );
      ctx.skip();
      return;
    }
    const src = join(tmp, 'src');
    cpSync(join(root, 'clients/python'), src, {
      recursive: true,
      filter: (p) => !/__pycache__|\.egg-info|[/\\]build$/.test(p),
    });
    const py = join(venv, 'bin', 'python');
    const pipEnv = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONDONTWRITEBYTECODE: '1' };
    const installed = await run(py, ['-m', 'pip', 'install', '--no-build-isolation', '--no-index', src], {
      cwd: tmp,
      env: pipEnv,
      timeout: 180_000,
    });
    expect(installed.code, installed.out).toBe(0);
    expect(installed.out).toMatch(/Successfully installed trainprint-client-\d+\.\d+\.\d+/);
    const where = await run(py, ['-c', 'import trainprint_client as t; print(t.__file__, t.__version__)'], {
      cwd: tmp,
      timeout: 30_000,
    });
    expect(where.code, where.out).toBe(0);
    expect(where.out.startsWith(venv), where.out).toBe(true);
    venvPython = py;
  });

  it('the unit, live and conformance tests pass with the installed package, nothing skipped', async () => {
    const tests = join(root, 'clients/python/tests');
    // from the venv: cwd is outside the checkout, so the import is the installed package;
    // without one: the source folder on PYTHONPATH
    const python = venvPython ?? PYTHON;
    const extra = venvPython ? {} : { PYTHONPATH: join(root, 'clients/python') };
    const t0 = Date.now();
    const { code, out } = await run(python, ['-m', 'unittest', 'discover', '-s', tests, '-t', tests, '-v'], {
      cwd: tmp,
      timeout: 150_000,
      env: { ...process.env, ...env, ...extra, PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(code, out).toBe(0);
    expect(out).toMatch(/\nOK\s*$/m);
    expect(out, 'the live tests ran').not.toMatch(/skipped/i);
    const ran = Number(/Ran (\d+) tests/.exec(out)?.[1]);
    expect(ran, out).toBeGreaterThanOrEqual(44);
    if (venvPython)
      expect(out).toMatch(new RegExp(`trainprint_client from ${tmp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    SCENARIO.steps.forEach((s, i) => {
      expect(out, `conformance step ${s.id}`).toMatch(
        new RegExp(`test_${String(i).padStart(2, '0')}_${s.id} \\([^)]*\\)\\n[^\\n]*\\.\\.\\. ok`),
      );
    });
    console.info(`client-python: ${ran} tests in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }, 180_000);
});
