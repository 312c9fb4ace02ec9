/** The server refuses to POST monitor events to internal hosts unless allowed (SSRF). */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';

describe('webhook host policy', () => {
  it('refuses loopback/private webhook URLs by default, allows them when configured', async () => {
    const engine = await createEngine();
    const { key } = await new KeyStore(engine.store).createKey({ account: 'acme', plan: 'pro' });
    const call = (h: (r: Request) => Promise<Response>, path: string, body: unknown) =>
      h(
        new Request(`http://api.test${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const strict = createHandler(engine);
    const w = await (
      await call(strict, '/api/v1/content/register', {
        content: 'A work of a few words that the account registers for monitoring.',
      })
    ).json();
    expect(w.success).toBe(true);
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://10.0.0.8/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest',
    ]) {
      const r = await call(strict, '/api/v1/monitors/create', {
        work_id: w.work_id,
        webhook: { url, secret: 'whsec_0123456789abcdef' },
      });
      expect(r.status, url).toBe(422);
      expect((await r.json()).error.message).toContain('webhook.url');
    }
    const ok = await call(strict, '/api/v1/monitors/create', {
      work_id: w.work_id,
      webhook: { url: 'https://hooks.example.org/tp', secret: 'whsec_0123456789abcdef' },
    });
    expect(ok.status).toBe(201);
    const open = createHandler(engine, { allowPrivateWebhookHosts: true });
    expect(
      (
        await call(open, '/api/v1/monitors/create', {
          work_id: w.work_id,
          webhook: { url: 'http://127.0.0.1:9/hook', secret: 'whsec_0123456789abcdef' },
        })
      ).status,
    ).toBe(201);
  });
});
