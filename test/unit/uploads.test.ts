/**
 * Uploads in flight per account (src/http/uploads.ts): places per account in order, a bounded line, a bounded wait,
 * a client that goes away leaves the line; which requests are uploads (src/http/pipeline/limits.ts); and a plain form
 * whose file spans many of the reader's search windows, read in slices, gives the platform's parts.
 */
import { describe, expect, it } from 'vitest';
import { UploadGate } from '../../src/http/uploads.js';
import { isUpload } from '../../src/http/pipeline/limits.js';
import { plainFormSteps, readPlainForm, SCAN_BYTES } from '../../src/http/multipart-plain.js';
import { sliced } from '../../src/util/steps.js';
import { PLANS, planUploads } from '../../src/library.js';

const FREE = { plan: 'free', uploads: 2 };

describe('UploadGate', () => {
  it("gives each account its plan's places, in order; another account is not held by the first", async () => {
    const gate = new UploadGate({ waiting: 2 });
    const a = await gate.enter('a', FREE);
    const b = await gate.enter('a', FREE);
    const order: string[] = [];
    const c = gate.enter('a', FREE).then((r) => (order.push('c'), r));
    const d = gate.enter('a', FREE).then((r) => (order.push('d'), r));
    expect(gate.of('a')).toEqual({ active: 2, waiting: 2 });
    await expect(gate.enter('a', FREE)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      detail: expect.stringContaining('plan "free" allows 2 uploads at once per account'),
    });
    // another account has its own places
    const other = await gate.enter('b', FREE);
    expect(gate.of('b')).toEqual({ active: 1, waiting: 0 });
    a();
    a(); // twice: no second place freed
    const rc = await c;
    expect(order).toEqual(['c']);
    expect(gate.of('a')).toEqual({ active: 2, waiting: 1 });
    b();
    const rd = await d;
    expect(order).toEqual(['c', 'd']);
    rc();
    rd();
    other();
    expect(gate.of('a')).toEqual({ active: 0, waiting: 0 });
    expect(gate.of('b')).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses an upload that waited its time, and one whose client went away leaves the line', async () => {
    const gate = new UploadGate({ waiting: 4, waitMs: 20 });
    const one = { plan: 'solo', uploads: 1 };
    const held = await gate.enter('a', one);
    await expect(gate.enter('a', one)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      detail: expect.stringContaining('this one waited 0.02 s'),
    });
    expect(gate.of('a')).toEqual({ active: 1, waiting: 0 });
    const abort = new AbortController();
    const gone = gate.enter('a', one, abort.signal);
    expect(gate.of('a').waiting).toBe(1);
    abort.abort();
    await expect(gone).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(gate.of('a')).toEqual({ active: 1, waiting: 0 });
    held();
    expect(gate.of('a')).toEqual({ active: 0, waiting: 0 });
  });

  it('validates its limits; the plans set uploads at once', () => {
    expect(() => new UploadGate({ waiting: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => new UploadGate({ waitMs: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(new UploadGate()).toMatchObject({ waiting: 32, waitMs: 30_000 });
    expect([PLANS.free, PLANS.pro, PLANS.scale, PLANS.enterprise].map(planUploads)).toEqual([2, 4, 8, 8]);
    expect(planUploads({ daily: 5 })).toBe(4);
  });
});

describe('isUpload', () => {
  const post = (headers: Record<string, string>) =>
    new Request('http://x/api/v1/attribution/analyze', { method: 'POST', headers });
  const json = { body: 'json' as const };
  const files = { body: 'json' as const, files: true as const };
  it('a body of 1 MiB or more, one streamed without a length, or a form on a route of files', () => {
    expect(isUpload(post({ 'content-length': String(1 << 20) }), json)).toBe(true);
    expect(isUpload(post({ 'content-length': String((1 << 20) - 1) }), json)).toBe(false);
    expect(isUpload(post({ 'transfer-encoding': 'chunked' }), json)).toBe(true);
    expect(isUpload(post({ 'content-type': 'application/json' }), json)).toBe(false);
    const form = { 'content-type': 'multipart/form-data; boundary=x', 'content-length': '300' };
    expect(isUpload(post(form), files)).toBe(true);
    expect(isUpload(post(form), json)).toBe(false);
    expect(isUpload(post({ 'content-length': String(1 << 20) }), { body: undefined })).toBe(false);
  });
});

describe('a plain form larger than the search window', () => {
  it('is read in slices with the parts the platform gives, the delimiter across a window edge or not', async () => {
    for (const size of [SCAN_BYTES * 3 - 7, SCAN_BYTES * 3 - 90, SCAN_BYTES * 2 + 5]) {
      const file = new Uint8Array(size);
      for (let i = 0; i < size; i++) file[i] = i % 7 === 0 ? 0x2d : 0x61 + (i % 26); // dashes, the boundary's byte
      const form = new FormData();
      form.append('file', new Blob([file], { type: 'application/pdf' }), 'big.pdf');
      form.append('include_text', 'false');
      const res = new Response(form);
      const type = res.headers.get('content-type')!;
      const raw = new Uint8Array(await res.arrayBuffer());
      const boundary = /boundary=(.+)$/.exec(type)![1];
      let pauses = 0;
      const parts = await sliced(plainFormSteps(raw, boundary), 0, async () => void pauses++);
      expect(pauses).toBeGreaterThanOrEqual(2);
      // the same parts as the reader gives in one go
      const whole = readPlainForm(raw, boundary);
      expect(whole?.map((p) => [p.name, 'file' in p ? p.file.size : p.value])).toEqual(
        parts?.map((p) => [p.name, 'file' in p ? p.file.size : p.value]),
      );
      const platform = [...(await new Response(raw, { headers: { 'content-type': type } }).formData())];
      expect(parts?.map((p) => p.name)).toEqual(platform.map(([n]) => n));
      const got = parts![0] as { file: { bytes(): Promise<Uint8Array>; size: number } };
      expect(got.file.size).toBe(size);
      expect(await got.file.bytes()).toEqual(new Uint8Array(await (platform[0][1] as File).arrayBuffer()));
      expect(parts![1]).toEqual({ name: 'include_text', value: 'false' });
    }
  });
});
