/**
 * Files over HTTP as `multipart/form-data` (src/http/multipart.ts) and the plans' file limits
 * (src/http/pipeline/files.ts), through the handler: analyze, register and score take the document in the field `file`
 * and the other members as form fields, and answer exactly as the JSON request with the file in base64; the content
 * type is told from the file's name or media type; a broken form is 400, a form that is wrong in a field 422 naming
 * it, never 500; a file over the caller's plan's `fileBytes` is 413 naming the plan — before the body is read when it
 * declares more, while it streams when it does not, once parsed when it fits the body but not the plan; an
 * `Idempotency-Key` covers the form's fields and file, not its boundary.
 */
import { createHash } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { buildOpenApi, createHandler, KeyStore, ROUTES, type Handler } from '../../src/http/index.js';
import { createClient } from '../../src/client/index.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';
import { buildPdf, layoutBook } from '../fixtures/pdf.js';

const CHAPTERS = persuasion(2);
const COPIED = CHAPTERS[0].text.split(/\s+/).slice(100, 420).join(' ');
const MODEL = 'meta/llama-7b';
const DOCX = buildDocx(CHAPTERS);
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** The `tiny` plan takes files one byte smaller than the DOCX. */
const TINY = DOCX.length - 1;
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const sha256 = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

let engine: Engine;
let handler: Handler;
const keys: Record<'pro' | 'tiny', string> = { pro: '', tiny: '' };

/** A form with the file in `file` and the fields given. */
function form(file: { bytes: Uint8Array; name: string; type?: string } | null, fields: Record<string, string> = {}) {
  const f = new FormData();
  if (file) f.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? '' }), file.name);
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

/** POST `body` (a form, JSON, or raw bytes with their headers) as the plan's key; the status and JSON answer. */
async function post(
  path: string,
  body: FormData | Record<string, unknown> | { raw: BodyInit; headers: Record<string, string> },
  plan: 'pro' | 'tiny' = 'pro',
  headers: Record<string, string> = {},
) {
  const init: RequestInit & { duplex?: 'half' } = {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[plan]}` },
  };
  if (body instanceof FormData) init.body = body;
  else if ('raw' in body) {
    init.body = body.raw as BodyInit;
    Object.assign(init.headers as Record<string, string>, body.headers);
    init.duplex = 'half';
  } else {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  Object.assign(init.headers as Record<string, string>, headers);
  const res = await handler(new Request(`http://api.test${path}`, init));
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, any> };
}

/** An analysis without what differs from one run to the next (its id and time). */
const analysis = ({ analysis_id: _, created_at: __, ...rest }: Record<string, unknown>) => rest;

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'copies', models: [MODEL] }, [{ id: 'ch1', text: COPIED }]);
  const store = new KeyStore(engine.store, { plans: { tiny: { daily: 1000, fileBytes: TINY } } });
  keys.pro = (await store.createKey({ account: 'press', plan: 'pro' })).key;
  keys.tiny = (await store.createKey({ account: 'small', plan: 'tiny' })).key;
  handler = createHandler(engine, { keys: store, plans: { tiny: { daily: 1000, fileBytes: TINY } } });
}, 60_000);
afterAll(() => engine?.dispose());

describe('multipart uploads answer as JSON with the file in base64', () => {
  it('analyze: the same analysis, the content type told from the file name', async () => {
    const metadata = JSON.stringify({ title: 'Persuasion', jurisdiction: 'GB' });
    const up = await post(
      '/api/v1/attribution/analyze',
      form({ bytes: DOCX, name: 'persuasion.docx' }, { include_text: 'true', metadata }),
    );
    expect(up.status, JSON.stringify(up.json)).toBe(200);
    expect(up.json).toMatchObject({ content_type: 'docx', title: 'Persuasion', work_hash: sha256(DOCX) });
    expect(up.json.extraction).toMatchObject({ format: 'docx', bytes: DOCX.length, text: expect.any(String) });
    const json = await post('/api/v1/attribution/analyze', {
      content: base64(DOCX),
      content_encoding: 'base64',
      content_type: 'docx',
      include_text: true,
      metadata: JSON.parse(metadata),
    });
    expect(json.status).toBe(200);
    expect(analysis(up.json)).toEqual(analysis(json.json));
    expect(up.json.matches.some((m: { dataset_id: string }) => m.dataset_id === 'copies')).toBe(true);
  });

  it('a large file: the same analysis from a form as clients write it, from any other form, and from JSON', async () => {
    // 3 MB of a DOCX are noise the reader skips, with line breaks, dashes and the platform's boundary's start in it
    const noise = new Uint8Array(3_000_000);
    for (let i = 0, x = 56; i < noise.length; i++) noise[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    const marker = new TextEncoder().encode('\r\n------formdata-undici-0');
    for (let at = 1000; at + marker.length < noise.length; at += 65_537) noise.set(marker, at);
    const large = zipSync({ ...unzipSync(DOCX), 'word/media/noise.bin': [noise, { level: 0 }] });
    const plain = await post('/api/v1/attribution/analyze', form({ bytes: large, name: 'large.docx' }));
    expect(plain.status, JSON.stringify(plain.json.error)).toBe(200);
    expect(plain.json.extraction).toMatchObject({ format: 'docx', bytes: large.length });
    // a preamble and lower-case header names: a form the platform's parser reads
    const boundary = 'hand-written-56';
    const head = `\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="large.docx"\r\n\r\n`;
    const raw = new Uint8Array([
      ...new TextEncoder().encode(head),
      ...large,
      ...new TextEncoder().encode(`\r\n--${boundary}--\r\n`),
    ]);
    const other = await post('/api/v1/attribution/analyze', {
      raw,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const json = await post('/api/v1/attribution/analyze', {
      content: base64(large),
      content_encoding: 'base64',
      content_type: 'docx',
    });
    expect(other.status, JSON.stringify(other.json.error)).toBe(200);
    expect(json.status).toBe(200);
    expect(analysis(plain.json)).toEqual(analysis(json.json));
    expect(analysis(other.json)).toEqual(analysis(json.json));
  });

  it('tells the type from the media type when the name says nothing, and takes text files', async () => {
    const epub = buildEpub(CHAPTERS.slice(0, 1));
    const book = layoutBook('Persuasion', CHAPTERS.slice(0, 1));
    const pdf = buildPdf(book.pages, { outline: book.chapters });
    for (const [bytes, name, type, expected] of [
      [epub, 'book', 'application/epub+zip', 'epub'],
      [pdf, 'scan.bin', 'application/pdf', 'pdf'],
      [DOCX, 'upload', DOCX_TYPE, 'docx'],
    ] as const) {
      const r = await post('/api/v1/attribution/analyze', form({ bytes, name, type }));
      expect(r.status, `${name}: ${JSON.stringify(r.json.error)}`).toBe(200);
      expect(r.json.content_type).toBe(expected);
    }
    const markdown = `# Chapter 1\n\n${CHAPTERS[0].text}`;
    const md = await post(
      '/api/v1/attribution/analyze',
      form({ bytes: new TextEncoder().encode(markdown), name: 'chapter.md' }),
    );
    const asJson = await post('/api/v1/attribution/analyze', { content: markdown, content_type: 'markdown' });
    expect(md.status).toBe(200);
    expect(analysis(md.json)).toEqual(analysis(asJson.json));
  });

  it('register: the same work either way; score: the same score as by its work_hash', async () => {
    const up = await post('/api/v1/content/register', form({ bytes: DOCX, name: 'p.docx' }, { title: 'Persuasion' }));
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    expect(up.json).toMatchObject({ content_type: 'docx', work_hash: sha256(DOCX), title: 'Persuasion' });
    const again = await post('/api/v1/content/register', {
      content: base64(DOCX),
      content_encoding: 'base64',
      content_type: 'docx',
    });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ created: false, work_id: up.json.work_id });

    const place = { target_model: MODEL, jurisdiction: 'GB' };
    const byHash = await post('/api/v1/attribution/score', { work_hash: up.json.work_hash, ...place });
    const multipart = await post('/api/v1/attribution/score', form({ bytes: DOCX, name: 'p.docx' }, place));
    const json = await post('/api/v1/attribution/score', {
      content: base64(DOCX),
      content_encoding: 'base64',
      content_type: 'docx',
      ...place,
    });
    expect(byHash.status).toBe(200);
    expect(byHash.json.score).toBeGreaterThan(0);
    for (const r of [multipart, json]) {
      expect(r.status, JSON.stringify(r.json.error)).toBe(200);
      const { work_id, extraction, ...rest } = r.json;
      expect(work_id).toBeNull();
      expect(extraction).toMatchObject({ format: 'docx', bytes: DOCX.length });
      const { work_id: id, ...registered } = byHash.json;
      expect(id).toBe(up.json.work_id);
      expect(rest).toEqual(registered);
    }
    const both = await post('/api/v1/attribution/score', { work_hash: up.json.work_hash, content: 'x', ...place });
    expect(both).toMatchObject({ status: 422, json: { error: { details: { field: 'content' } } } });
  });
});

describe('a broken or wrong form', () => {
  const path = '/api/v1/attribution/analyze';
  const docx = { bytes: DOCX, name: 'p.docx' };

  it('is 422 naming the field when the form is sound but a field is wrong', async () => {
    const twoFiles = form(docx);
    twoFiles.append('file', new Blob([DOCX as Uint8Array<ArrayBuffer>]), 'q.docx');
    const fileElsewhere = form(docx);
    fileElsewhere.append('metadata', new Blob(['{}']), 'meta.json');
    const cases: Array<[FormData, string, RegExp]> = [
      [form(null, { content_type: 'docx' }), 'file', /required/],
      [twoFiles, 'file', /twice/],
      [fileElsewhere, 'metadata', /only the `file` field/],
      [form(null, { file: 'not a file part' }), 'file', /file part/],
      [
        form({ bytes: new Uint8Array([1, 2, 3]), name: 'notes.rtf', type: 'application/rtf' }),
        'content_type',
        /needed/,
      ],
      [form(docx, { content_type: 'rtf' }), 'content_type', /must be one of/],
      [form(docx, { metadata: '{"title":' }), 'metadata', /not valid JSON/],
      [form(docx, { include_text: 'yes' }), 'include_text', /true or false/],
      [form(docx, { content: 'text' }), 'content', /not a form field/],
      [form(docx, { colour: 'blue' }), 'colour', /not a known field/],
      [form({ bytes: new Uint8Array([0xff, 0xfe, 0x41]), name: 'a.txt' }), 'file', /UTF-8/],
      [form({ bytes: new Uint8Array(0), name: 'empty.pdf' }), 'file', /empty/],
    ];
    for (const [body, field, reason] of cases) {
      const r = await post(path, body);
      expect(r.status, `${field}: ${JSON.stringify(r.json)}`).toBe(422);
      expect(r.json.error).toMatchObject({
        code: 'INVALID_INPUT',
        details: { field, reason: expect.stringMatching(reason) },
      });
    }
    // a broken file in a sound form is the file's error, as in JSON
    const broken = await post(path, form({ bytes: DOCX.subarray(0, 500), name: 'p.docx' }));
    expect(broken).toMatchObject({ status: 422, json: { error: { code: 'INVALID_INPUT' } } });
  });

  it('is 400 MALFORMED_REQUEST when the body is not multipart, 415 on a route that takes no file', async () => {
    const sound = new Request('http://x/', { method: 'POST', body: form(docx) });
    const bytes = new Uint8Array(await sound.arrayBuffer());
    const type = sound.headers.get('content-type')!;
    for (const [raw, contentType] of [
      [bytes, 'multipart/form-data'],
      ['{"content":"x"}', type],
      [bytes.subarray(0, bytes.length / 2), type],
      [bytes, 'multipart/form-data; boundary=something-else'],
    ] as const) {
      const r = await post(path, { raw, headers: { 'content-type': contentType } });
      expect(r.status, `${contentType}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(r.json.error.code).toBe('MALFORMED_REQUEST');
    }
    const compare = await post('/api/v1/attribution/compare', form(docx));
    expect(compare).toMatchObject({ status: 415, json: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } } });
  });
});

describe("the plan's file limit", () => {
  const path = '/api/v1/attribution/analyze';
  const named = expect.stringContaining(`plan "tiny"`);

  it('refuses a file over it, multipart or base64, with 413 naming the plan; a smaller file passes', async () => {
    const up = await post(path, form({ bytes: DOCX, name: 'p.docx' }), 'tiny');
    expect(up).toMatchObject({ status: 413, json: { error: { code: 'PAYLOAD_TOO_LARGE', message: named } } });
    expect(up.json.error.message).toContain(String(TINY));
    const json = await post(path, { content: base64(DOCX), content_encoding: 'base64', content_type: 'docx' }, 'tiny');
    expect(json).toMatchObject({ status: 413, json: { error: { code: 'PAYLOAD_TOO_LARGE', message: named } } });
    const small = buildDocx([{ title: 'Chapter 1', text: CHAPTERS[0].text.slice(0, 4000) }]);
    expect(small.length).toBeLessThanOrEqual(TINY);
    expect((await post(path, form({ bytes: small, name: 's.docx' }), 'tiny')).status).toBe(200);
  });

  it('refuses a body declaring more than the plan allows before reading it, and one streaming past it', async () => {
    let pulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(64 * 1024));
        },
      });
    const headers = { 'content-type': 'multipart/form-data; boundary=b' };
    const declared = await post(
      path,
      { raw: endless(), headers: { ...headers, 'content-length': String(TINY + 2 * 1024 * 1024) } },
      'tiny',
    );
    expect(declared).toMatchObject({ status: 413, json: { error: { code: 'PAYLOAD_TOO_LARGE', message: named } } });
    expect(pulled).toBeLessThanOrEqual(1);
    const streamed = await post(path, { raw: endless(), headers }, 'tiny');
    expect(streamed).toMatchObject({ status: 413, json: { error: { code: 'PAYLOAD_TOO_LARGE', message: named } } });
    // the body limit was the plan's, not the route's: about the file and 1 MiB, not tens of MiB
    expect(pulled).toBeLessThan((TINY + 1024 * 1024) / (64 * 1024) + 4);
  });

  it('takes plans with their fileBytes, checked', async () => {
    for (const fileBytes of [0, 1.5, 257 * 1024 * 1024, '8']) {
      expect(() => createHandler(engine, { plans: { odd: { daily: 1, fileBytes: fileBytes as number } } })).toThrow(
        /fileBytes/,
      );
    }
  });
});

describe('an Idempotency-Key on a multipart upload', () => {
  it("covers the form's fields and file, not its boundary", async () => {
    const headers = { 'idempotency-key': 'upload-1' };
    const path = '/api/v1/content/register';
    const bytes = buildDocx(CHAPTERS.slice(1));
    const first = await post(path, form({ bytes, name: 'p.docx' }, { title: 'Again' }), 'pro', headers);
    const retry = await post(path, form({ bytes, name: 'p.docx' }, { title: 'Again' }), 'pro', headers);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    const other = await post(path, form({ bytes, name: 'p.docx' }, { title: 'Other' }), 'pro', headers);
    expect(other).toMatchObject({ status: 409, json: { error: { code: 'CONFLICT' } } });
  });
});

describe('the TypeScript client', () => {
  it("sends a request whose content is a file's bytes as a multipart upload", async () => {
    const seen: string[] = [];
    const tp = createClient({
      api_key: keys.pro,
      base_url: 'http://api.test',
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(request.headers.get('content-type') ?? '');
        return handler(request);
      },
    });
    const r = await tp.analyze({ content: DOCX, content_type: 'docx', metadata: { title: 'Persuasion' } });
    expect(r).toMatchObject({ content_type: 'docx', title: 'Persuasion', work_hash: sha256(DOCX) });
    const s = await tp.score({ content: DOCX, content_type: 'docx', target_model: MODEL, jurisdiction: 'US' });
    expect(s).toMatchObject({ work_id: null, work_hash: sha256(DOCX), extraction: { format: 'docx' } });
    expect(seen.every((t) => t.startsWith('multipart/form-data; boundary='))).toBe(true);
  });
});

describe('the OpenAPI document', () => {
  it('offers multipart/form-data on the routes that take files, with the file required', () => {
    const doc = buildOpenApi(ROUTES) as Record<string, any>;
    for (const [p, extra] of [
      ['/api/v1/attribution/analyze', []],
      ['/api/v1/content/register', []],
      ['/api/v1/attribution/score', ['target_model', 'jurisdiction']],
    ] as const) {
      const media = doc.paths[p].post.requestBody.content['multipart/form-data'];
      expect(media.schema.required).toEqual(['file', ...extra]);
      expect(media.schema.properties.file).toMatchObject({
        type: 'string',
        contentMediaType: 'application/octet-stream',
      });
      expect(media.schema.properties.content).toBeUndefined();
      expect(media.encoding.file.contentType).toContain('application/pdf');
      if (p !== '/api/v1/attribution/score')
        expect(media.encoding.metadata).toEqual({ contentType: 'application/json' });
    }
    expect(doc.paths['/api/v1/attribution/compare'].post.requestBody.content['multipart/form-data']).toBeUndefined();
  });
});
