/**
 * The file routes' refusals say what they refuse by: a body declaring more than any plan's file takes (200 MB, refused
 * before authentication and before a byte is read) names the limit and the plans' file limits, not a bare byte count;
 * a file whose name says no format is refused in the words the command line uses too (one function,
 * src/services/analyze/file-types.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untypedFileReason } from '../../src/library.js';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type Handler } from '../../src/http/index.js';

let engine: Engine;
let handler: Handler;
let key: string;

beforeAll(async () => {
  engine = await createEngine();
  const store = new KeyStore(engine.store);
  key = (await store.createKey({ account: 'reader', plan: 'free' })).key;
  handler = createHandler(engine, { keys: store });
}, 60_000);
afterAll(() => engine?.dispose());

describe('the file routes', () => {
  it('refuse a 200 MB declared body before reading it, naming the limit and the plans', async () => {
    let pulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(64 * 1024));
        },
      });
    for (const authorization of [undefined, `Bearer ${key}`]) {
      const res = await handler(
        new Request('http://api.test/api/v1/attribution/analyze', {
          method: 'POST',
          body: endless(),
          duplex: 'half',
          headers: {
            'content-type': 'multipart/form-data; boundary=b',
            'content-length': '200000000',
            ...(authorization ? { authorization } : {}),
          },
        } as RequestInit),
      );
      expect(res.status).toBe(413);
      const { message } = ((await res.json()) as { error: { message: string } }).error;
      expect(message).toMatch(/^.*the body is larger than \d+ bytes \(no plan takes a file this large/);
      expect(message).toContain(`plan "scale"'s, is 64 MiB (67108864 bytes)`);
      expect(message).toContain('"free" 8 MiB, "pro" 32 MiB, "scale" 64 MiB, "enterprise" 64 MiB');
    }
    expect(pulled).toBeLessThanOrEqual(2);
  });

  it('refuse a file whose name says no format, in the command line’s words', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])]), 'novel.mobi');
    const res = await handler(
      new Request('http://api.test/api/v1/attribution/analyze', {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    expect(res.status).toBe(422);
    const { message } = ((await res.json()) as { error: { message: string } }).error;
    expect(message).toContain(`content_type: ${untypedFileReason('novel.mobi', 'application/octet-stream')}`);
  });
});
