// serveStatic: content types, index.html for directories, HEAD, ETag, and no way out of the root.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStatic, type StaticHandler } from '../../src/node/static.js';

let dir: string;
let serve: StaticHandler;
const get = (path: string, init?: RequestInit): Promise<Response | null> =>
  serve(new Request(`http://127.0.0.1${path}`, init));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-static-'));
  const site = join(dir, 'site');
  mkdirSync(join(site, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'secret.txt'), 'SECRET outside the root');
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>root</title>');
  writeFileSync(join(site, 'sub', 'index.html'), '<!doctype html><title>sub</title>');
  writeFileSync(join(site, '.env'), 'SECRET dot-file');
  for (const f of ['app.js', 'styles.css', 'core.wasm', 'data.json', 'shot.png', 'logo.svg', 'blob.bin', 'a b.txt'])
    writeFileSync(join(site, f), `file ${f}`);
  symlinkSync(join(dir, 'secret.txt'), join(site, 'link.txt'));
  serve = serveStatic(site);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serveStatic', () => {
  it('serves index.html for / and files with their content types', async () => {
    const root = await get('/');
    expect(root?.status).toBe(200);
    expect(root?.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await root?.text()).toContain('<title>root</title>');
    const types: Record<string, string> = {
      '/app.js': 'text/javascript; charset=utf-8',
      '/styles.css': 'text/css; charset=utf-8',
      '/core.wasm': 'application/wasm',
      '/data.json': 'application/json; charset=utf-8',
      '/shot.png': 'image/png',
      '/logo.svg': 'image/svg+xml',
      '/blob.bin': 'application/octet-stream',
    };
    for (const [path, type] of Object.entries(types)) {
      const r = await get(path);
      expect(r?.status, path).toBe(200);
      expect(r?.headers.get('content-type'), path).toBe(type);
      expect(r?.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(await (await get('/a%20b.txt'))?.text()).toBe('file a b.txt');
  });

  it('answers HEAD without a body, revalidates with the ETag, and leaves other methods and missing files to the next handler', async () => {
    const head = await get('/app.js', { method: 'HEAD' });
    expect(head?.status).toBe(200);
    expect(head?.headers.get('content-length')).toBe(String('file app.js'.length));
    expect(head?.body).toBeNull();
    const etag = head?.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    expect((await get('/app.js', { headers: { 'if-none-match': etag! } }))?.status).toBe(304);
    expect(await get('/app.js', { method: 'POST', body: 'x' })).toBeNull();
    expect(await get('/missing.js')).toBeNull();
    expect(await get('/api/v1/attribution/analyze')).toBeNull();
  });

  it('redirects a directory without its slash and serves its index.html', async () => {
    const r = await get('/sub?x=1');
    expect(r?.status).toBe(301);
    expect(r?.headers.get('location')).toBe('/sub/?x=1');
    expect(await (await get('/sub/'))?.text()).toContain('<title>sub</title>');
  });

  it('never serves anything outside the root', async () => {
    const attempts = [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/sub/..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/%5c..%5csecret.txt',
      '/sub/%2e%2e/%2e%2e/secret.txt',
      '/.env',
      '/%2eenv',
      '/link.txt',
      '/index.html%00.js',
      '/%E0%A4%A',
      '//secret.txt',
      `/${'../'.repeat(8)}etc/passwd`,
    ];
    for (const path of attempts) {
      const r = await get(path);
      const body = r ? await r.text() : '';
      expect(body, path).not.toContain('SECRET');
      if (r) expect([200, 301, 304], path).toContain(r.status); // only ever a file inside the root
    }
    // The URL parser already resolves '..' and '%2e%2e' segments; encoded separators, dot-files and
    // the symbolic link are refused by serveStatic itself:
    for (const path of [
      '/..%2fsecret.txt',
      '/..%5csecret.txt',
      '/.env',
      '/link.txt',
      '/%E0%A4%A',
      '/index.html%00.js',
    ]) {
      expect(await get(path), path).toBeNull();
    }
  });
});
