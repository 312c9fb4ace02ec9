/**
 * The web app's served mode with a file (app/http-backend.ts) against the HTTP handler and its job runner: the file
 * goes as a multipart upload asking for a background analysis (`Prefer: respond-async`), its one-item job is polled
 * until it is done and its result line — the analysis, with the extracted text its spans point into — is read; a file the
 * server cannot read, or one over the plan's size, is the server's error; text is analysed as before, at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type AnalyzeOptions, type AnalyzeRequest, type Engine } from '../../src/index.js';
import { KeyStore, type Handler } from '../../src/http/index.js';
import { createClient } from '../../src/client/index.js';
import { createHttpBackend } from '../../app/http-backend.js';
import type { AnalysisProgress } from '../../app/files.js';
import { buildDocx } from '../fixtures/documents.js';
import { handlerWithJobs, stopJobs } from '../fixtures/http/jobs-handler.js';

const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
  'documentation files (the "Software"), to deal in the Software without restriction, including without ' +
  'limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the ' +
  'Software';
const BASE = 'http://api.test';

let engine: Engine;
let key: string;
/** Requests the backend sent: method, path and Prefer header. */
const sent: string[] = [];
const handlers: Handler[] = [];

/** The page's backend over a handler of `server` (the engine, or a stand-in for it). */
function backendOver(server: Engine) {
  const handler = handlerWithJobs(server, {
    keys: new KeyStore(engine.store),
    plans: { pro: { daily: 10_000, fileBytes: 64 * 1024 } },
    jobs: { pollMs: 20 },
  });
  handlers.push(handler);
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const request = new Request(url, init);
    const type = (request.headers.get('content-type') ?? '').split(';')[0];
    sent.push(
      `${request.method} ${new URL(request.url).pathname} ${type} ${request.headers.get('prefer') ?? ''}`.trim(),
    );
    return handler(request);
  };
  const client = createClient({ api_key: key, base_url: BASE, fetch });
  return createHttpBackend({ baseUrl: BASE, apiKey: key }, { client });
}

beforeAll(async () => {
  // the page's origin: the backend names the API by it in its messages
  Object.defineProperty(globalThis, 'location', { value: new URL(`${BASE}/`), configurable: true });
  engine = await createEngine();
  await engine.addDataset({ id: 'licences' }, [{ id: 'MIT', text: `Copyright (c) <year> <holder>\n\n${MIT}` }]);
  key = (await new KeyStore(engine.store).createKey({ account: 'press', plan: 'pro' })).key;
}, 60_000);
afterAll(async () => {
  for (const h of handlers) await stopJobs(h);
  engine?.dispose();
});

describe('served mode with a file', () => {
  it('analyses it in the background, polls its job and returns the analysis with the text', async () => {
    // the server's analysis takes a moment
    const reporting = new Proxy(engine, {
      get(target, k) {
        if (k === 'analyze')
          return async (request: AnalyzeRequest, options: AnalyzeOptions & { onProgress?: (p: unknown) => void }) => {
            const { onProgress, ...rest } = options;
            onProgress?.({ phase: 'remote', calls: 7, budget: 20, corpora: 1 });
            await new Promise((r) => setTimeout(r, 700));
            return target.analyze(request, rest);
          };
        const v = Reflect.get(target, k, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const backend = backendOver(reporting);
    expect(await backend.fileRefusal('pdf')).toBeNull();
    expect((await backend.ready()).fileBytes).toBe(256 * 1024 * 1024); // any plan's most: the API checks the key's
    const bytes = buildDocx([{ title: 'Licence', text: `Our terms.\n\n${MIT}` }]);
    const seen: Array<AnalysisProgress | null> = [];
    sent.length = 0;
    const result = await backend.analyze(
      { content: bytes, content_type: 'docx', include_text: true },
      { onProgress: (p) => seen.push(p) },
    );
    expect(sent[0]).toBe('POST /api/v1/attribution/analyze multipart/form-data respond-async');
    const polls = sent.filter((s) => /^GET \/api\/v1\/jobs\/job_[0-9a-f]{32}$/.test(s));
    expect(polls.length).toBeGreaterThan(0);
    expect(sent.at(-1)).toBe(`${polls[0]}/results`);
    // a job reports no phase: the page's bar runs without a measure
    expect(seen).toEqual([null]);

    const x = result.extraction!;
    expect(x).toMatchObject({ format: 'docx', bytes: bytes.length });
    expect(x.sections.map((s) => s.title)).toContain('Licence');
    const m = result.matches.find((y) => y.document_id === 'MIT')!;
    expect(x.text!.slice(m.query_start, m.query_end)).toContain('to deal in the Software without restriction');
  });

  it("reports the server's refusal of a broken file, and analyses text at once", async () => {
    const backend = backendOver(engine);
    const broken = buildDocx([{ title: 'Licence', text: MIT }]).subarray(0, 200);
    const e = await backend.analyze({ content: broken, content_type: 'docx' }).then(
      () => null,
      (err: unknown) => err as { code: string; message: string },
    );
    expect(e).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/DOCX/) });
    sent.length = 0;
    const r = await backend.analyze({ content: MIT, content_type: 'text' });
    expect(r.matches[0]).toMatchObject({ document_id: 'MIT' });
    expect(sent).toEqual(['POST /api/v1/attribution/analyze application/json']);
    // over the plan's size: the API's 413 names the plan, before the file is read
    const big = new Uint8Array(65 * 1024).fill(0x41);
    const over = await backend.analyze({ content: big, content_type: 'pdf' }).then(
      () => null,
      (err: unknown) => err as { code: string; message: string },
    );
    expect(over).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('"pro"') });
  });
});
