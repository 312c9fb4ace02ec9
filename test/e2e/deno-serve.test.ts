/**
 * The HTTP API served by Deno from the built package (test/fixtures/client/deno-serve.ts:
 * `Deno.serve` + dist/index.js, dist/http.js, dist/starter.js), called from Node with the TS
 * client. Deno comes from the `deno` npm package, launched as test/runtime/run-all.mjs does
 * (own DENO_DIR, --no-prompt --no-config); permissions are narrowed to 127.0.0.1 and dist/.
 * Bounded: 90 s to start, the process is killed afterwards (SIGKILL if SIGTERM is ignored).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopProcess as stop } from '../fixtures/serve-process.js';
import { createClient, TrainprintApiError } from '../../src/client/index.js';
import { MIT_GRANT } from '../fixtures/client/server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DENO = join(root, 'node_modules/.bin/deno');
const START_TIMEOUT_MS = 90_000;

let child: ChildProcess | null = null;
let denoDir = '';
let url = '';
let key = '';
let stderr = '';

/** Start the fixture; resolve with its `{ url, key }` line. */
function start(): Promise<{ url: string; key: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      DENO,
      [
        'run',
        '--no-prompt',
        '--no-config',
        '--allow-net=127.0.0.1',
        `--allow-read=${join(root, 'dist')}`,
        join(root, 'test/fixtures/client/deno-serve.ts'),
      ],
      {
        cwd: root,
        env: { ...process.env, DENO_DIR: denoDir, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = p;
    let out = '';
    const timer = setTimeout(
      () =>
        reject(new Error(`deno did not report a URL within ${START_TIMEOUT_MS} ms\nstdout: ${out}\nstderr: ${stderr}`)),
      START_TIMEOUT_MS,
    );
    p.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as { url: string; key: string });
      } catch (e) {
        reject(e);
      }
    });
    p.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    p.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    p.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`deno exited (${code ?? signal}) before listening\nstdout: ${out}\nstderr: ${stderr}`));
    });
  });
}

describe('Deno.serve with the built package', () => {
  beforeAll(async () => {
    if (!existsSync(DENO)) throw new Error(`${DENO} not found: npm install (the deno npm package is a devDependency)`);
    for (const f of ['index.js', 'http.js', 'starter.js']) {
      if (!existsSync(join(root, 'dist', f))) throw new Error(`dist/${f} is missing: run \`npm run build\` first`);
    }
    denoDir = mkdtempSync(join(tmpdir(), 'trainprint-deno-serve-'));
    ({ url, key } = await start());
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    if (child) await stop(child);
    if (denoDir) rmSync(denoDir, { recursive: true, force: true });
  });

  it('answers analyze over HTTP: the MIT grant is found in the starter dataset', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toMatch(/^tp_test_/);
    const tp = createClient({ api_key: key, base_url: url, timeoutMs: 30_000 });
    const content = `Intro. ${MIT_GRANT}`;
    const r = await tp.analyze({ content, content_type: 'text' });
    expect(r.success).toBe(true);
    const mit = r.matches.find((m) => m.document_id === 'MIT');
    expect(mit, JSON.stringify(r.matches.slice(0, 3))).toBeDefined();
    expect(content.slice(mit!.query_start, mit!.query_end)).toContain('to deal in the Software without restriction');
    expect(tp.rateLimit?.limit).toBe(10_000);
  });

  it('refuses a wrong key with the error envelope', async () => {
    const bad = createClient({ api_key: `tp_test_${'0'.repeat(32)}`, base_url: url, maxRetries: 0 });
    const e = await bad.kb.factors().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TrainprintApiError);
    expect(e).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const status = await createClient({ base_url: url }).status();
    expect(status.status).toMatch(/operational|degraded/);
  });
});
