/**
 * The Go client (clients/go/) against a real server: `gofmt -l`, `go vet` and `go test -v ./...`
 * in clients/go, the last with TRAINPRINT_BASE_URL / TRAINPRINT_API_KEY set, so that next to its
 * stub-server tests it runs the conformance scenario (clients/conformance.json) step by step.
 *
 * Servers: the API on 127.0.0.1 (engine + starter dataset) with a key for the scenario, and a
 * second server on a 1-call-per-day plan whose clock, from its first request on, reads 4 s before
 * the end of a UTC day: the scenario's rate-limit steps get a real 429 with a Retry-After of about
 * 4 s, returned at once by a client whose longest wait is 1 s, waited out and retried by a default one.
 *
 * Go runs offline and leaves nothing behind: GOTOOLCHAIN=local (never download a toolchain),
 * GOPROXY=off (the module has no dependencies), GOCACHE/GOPATH in a temporary folder, CGO off (no
 * C compiler needed). Skipped, with a message, when `go` is not installed (CI installs golang-go).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startLimitedServer, startServer, type TestServer } from '../fixtures/client/server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const goDir = join(root, 'clients/go');
const GO = process.env.GO ?? 'go';
const goVersion = (() => {
  try {
    return execFileSync(GO, ['version'], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { ...process.env, GOTOOLCHAIN: 'local' },
    }).trim();
  } catch {
    return null;
  }
})();
if (!goVersion)
  console.warn(
    `client-go.test.ts: SKIPPED — ${GO} not found (install Go 1.19+, e.g. apt-get install golang-go, to test clients/go)`,
  );

const SCENARIO = JSON.parse(readFileSync(join(root, 'clients/conformance.json'), 'utf8')) as {
  steps: Array<{ id: string }>;
};

describe.skipIf(!goVersion)('Go client against a real server', () => {
  let srv: TestServer;
  let limited: TestServer;
  let tmp: string;
  let goEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'trainprint-go-'));
    srv = await startServer();
    const { key } = await srv.keys.createKey({
      account: 'go',
      plan: 'pro',
      scopes: ['analyze', 'registry:read', 'registry:write', 'usage'],
      name: 'go test',
    });
    limited = await startLimitedServer(srv.engine);
    const one = await limited.keys.createKey({ account: 'go-limited', plan: 'tiny', scopes: ['registry:read'] });
    goEnv = {
      ...process.env,
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
      GOSUMDB: 'off',
      GOFLAGS: '',
      GO111MODULE: 'on',
      CGO_ENABLED: '0',
      GOCACHE: join(tmp, 'gocache'),
      GOPATH: join(tmp, 'gopath'),
      GOWORK: 'off',
      TRAINPRINT_BASE_URL: srv.url,
      TRAINPRINT_API_KEY: key,
      TRAINPRINT_LIMITED_BASE_URL: limited.url,
      TRAINPRINT_LIMITED_API_KEY: one.key,
    };
  });
  afterAll(async () => {
    await limited?.close();
    await srv?.close();
    srv?.engine.dispose();
    if (tmp) {
      // the module cache is read-only; make it removable first
      try {
        execFileSync('chmod', ['-R', 'u+w', tmp], { stdio: 'ignore' });
      } catch {
        /* nothing to fix */
      }
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('gofmt and go vet are clean', async () => {
    const goroot = execFileSync(GO, ['env', 'GOROOT'], { encoding: 'utf8', env: goEnv }).trim();
    const fmt = await run(join(goroot, 'bin', 'gofmt'), ['-l', '.'], { cwd: goDir, env: goEnv, timeout: 60_000 });
    expect(fmt.code, fmt.out).toBe(0);
    expect(fmt.out.trim(), 'files gofmt would change').toBe('');
    const vet = await run(GO, ['vet', './...'], { cwd: goDir, env: goEnv, timeout: 240_000 });
    expect(vet.code, vet.out).toBe(0);
  }, 300_000);

  it('go test ./... passes: stub tests and every conformance step, nothing skipped', async () => {
    const t0 = Date.now();
    const { code, out } = await run(GO, ['test', '-count=1', '-v', './...'], {
      cwd: goDir,
      env: goEnv,
      timeout: 240_000,
    });
    expect(code, out).toBe(0);
    expect(out).toMatch(/^ok\s+github\.com\/trainprint\/trainprint\/clients\/go\b/m);
    expect(out, 'nothing skipped').not.toMatch(/--- SKIP/);
    expect(out).toMatch(/--- PASS: TestConformance \(/);
    for (const s of SCENARIO.steps)
      expect(out, `conformance step ${s.id}`).toMatch(new RegExp(`--- PASS: TestConformance/${s.id} \\(`));
    const passed = out.match(/^\s*--- PASS: /gm)?.length ?? 0;
    console.info(
      `client-go (${goVersion}): ${passed} tests and subtests passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  }, 300_000);
});
