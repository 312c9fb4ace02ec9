/**
 * A job body is counted while it is read (round 6's L7): a Free key's million-line JSON lines body, streamed without
 * a declared length, is refused 413 at its 101st line, the rest never pulled from the stream; a JSON body's `items`
 * the same; the body limit is the plan's `fileBytes` (a Free key's 35 MB declared body: 413 unread).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore, type Handler } from '../../src/http/index.js';

const LINE = new TextEncoder().encode('{"id":"x","text":"A line of a catalogue to scan."}\n');

/** A body of `lines` lines produced only as the reader pulls them, 1,000 at a time; `pulled()` says how many were. */
function lazyLines(lines: number, prefix = '', suffix = '', sep = '') {
  let made = 0;
  const enc = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      if (prefix) c.enqueue(enc.encode(prefix));
    },
    pull(c) {
      if (made >= lines) {
        if (suffix) c.enqueue(enc.encode(suffix));
        return c.close();
      }
      const n = Math.min(1000, lines - made);
      const parts: Uint8Array[] = [];
      for (let i = 0; i < n; i++) parts.push(sep && made + i > 0 ? enc.encode(sep) : new Uint8Array(0), LINE);
      made += n;
      c.enqueue(new Uint8Array(Buffer.concat(parts)));
    },
  });
  return { stream, pulled: () => made };
}

describe('a job body over the plan', () => {
  let engine: Engine;
  let handler: Handler;
  let free = '';
  beforeAll(async () => {
    engine = await createEngine();
    // an exact dataset for the scan items to run against (a scan job with none to scan is refused at submission)
    await engine.addDataset({ id: 'lines' }, [{ id: 'd', text: 'A line of a catalogue to scan, and nothing else.' }]);
    const keys = new KeyStore(engine.store);
    free = (await keys.createKey({ account: 'fran', plan: 'free' })).key;
    handler = createHandler(engine, { keys });
  });
  afterAll(() => engine.dispose());

  const post = (body: BodyInit, type: string, headers: Record<string, string> = {}) =>
    handler(
      new Request('http://api.test/api/v1/jobs?type=scan', {
        method: 'POST',
        headers: { authorization: `Bearer ${free}`, 'content-type': type, ...headers },
        body,
        duplex: 'half',
      } as RequestInit),
    );

  it("refuses a Free key's million-line JSON lines at its 101st line, the rest never read", async () => {
    const body = lazyLines(1_000_000);
    const res = await post(body.stream, 'application/x-ndjson');
    expect(res.status).toBe(413);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(json.error.message).toContain('holds at most 100 items (jobItems); this one has more');
    expect(body.pulled()).toBeLessThan(5000); // the chunk that held line 101, and what the stream had queued
  });

  it('refuses a JSON body at the 101st element of its items, as it is read', async () => {
    const body = lazyLines(1_000_000, '{"type":"scan","items":[', ']}', ',');
    const res = await post(body.stream, 'application/json');
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.pulled()).toBeLessThan(5000);
  });

  it("refuses a declared length over the plan's fileBytes before reading (Free: 8 MiB)", async () => {
    let pulled = false;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull() {
          pulled = true;
        },
      },
      { highWaterMark: 0 }, // pulled only when read
    );
    const res = await post(stream, 'application/x-ndjson', { 'content-length': String(35 * 1024 * 1024) });
    expect(res.status).toBe(413);
    const json = (await res.json()) as { error: { message: string } };
    expect(json.error.message).toContain('8388608');
    expect(json.error.message).toContain('plan "free"');
    expect(pulled).toBe(false);
  });

  it("takes a job of exactly the plan's items", async () => {
    const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify({ id: `d${i}`, text: 'A short text.' })).join(
      '\n',
    );
    const res = await post(lines, 'application/x-ndjson');
    expect(res.status).toBe(202);
  });

  it('names the item and its field of a JSON line that is refused, as a JSON body names them', async () => {
    const lines = `{"id":"a","text":"A short text."}\n\n{"id":"b","text":"\\ud800x"}\n`;
    const res = await post(lines, 'application/x-ndjson');
    expect(res.status).toBe(422);
    const { error } = await res.json();
    // line 3 (a blank line between) is the second item
    expect(error.message).toContain('line 3: text: contains a lone surrogate');
    expect(error.details).toMatchObject({ location: 'body', field: 'items[1].text' });
  });
});
