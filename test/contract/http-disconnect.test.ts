/**
 * A client that goes away stops the work it asked for, over a real socket on 127.0.0.1: `serve` aborts the request's
 * signal when the connection closes, and analyze and score both pass it on — the searches of their evidence sources
 * (as of their remote corpora and a file's extraction) see it abort. The slowness is by construction: a source whose
 * search for a text with a marker waits for its signal; nothing depends on timing.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createHandler, KeyStore } from '../../src/http/index.js';
import { serve, type Server } from '../../src/node/index.js';
import { waitingModelSource } from '../fixtures/waiting-source.js';

const HANG = 'this search waits until its caller goes away';
/** The source whose search of HANG waits for its signal; `seen` counts what began waiting and what was aborted. */
const { source: waiting, seen } = waitingModelSource(HANG, 'waiting-source');

const TEXT =
  `${HANG}. Permission is hereby granted, free of charge, to any person obtaining a copy of this software and ` +
  'associated documentation files (the "Software"), to deal in the Software without restriction.';

let engine: Engine;
let server: Server;
let key = '';

beforeAll(async () => {
  engine = await createEngine();
  engine.addEvidenceSource(waiting);
  const keys = new KeyStore(engine.store);
  key = (await keys.createKey({ account: 'ada', plan: 'scale', scopes: ['analyze'] })).key;
  server = await serve(createHandler(engine, { keys }), { port: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  engine?.dispose();
});

/** Polls `cond` every 20 ms, at most `tries` times; fails the test if it never holds. */
async function until(what: string, cond: () => boolean, tries = 1500): Promise<void> {
  for (let i = 0; i < tries && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!cond()) throw new Error(`never happened: ${what}`);
}

/**
 * Sends `body` to `path` on a connection of its own, waits until the source is searched, then closes the socket
 * without waiting for an answer; resolves once the source's search has seen its signal abort.
 */
async function goAway(path: string, body: unknown): Promise<void> {
  const before = { ...seen };
  const bytes = Buffer.from(JSON.stringify(body));
  const req = request(`${server.url}${path}`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': bytes.length },
  });
  let answered = false;
  req.on('response', () => (answered = true));
  req.on('error', () => undefined); // the socket we destroy
  req.end(bytes);
  await until('the source is searched', () => seen.waiting > before.waiting);
  req.destroy();
  await until("the search's signal aborts", () => seen.aborted > before.aborted);
  expect(answered).toBe(false);
  expect(seen.aborted - before.aborted).toBe(seen.waiting - before.waiting); // every search that waited was aborted
}

describe('a client that goes away', () => {
  it('aborts its analysis', async () => {
    await goAway('/api/v1/attribution/analyze', { content: TEXT, content_type: 'text', search_remote: false });
  });

  it('aborts its score, as it aborts an analysis', async () => {
    await goAway('/api/v1/attribution/score', { content: TEXT, target_model: 'meta/llama-7b', jurisdiction: 'US' });
  });

  it('the server goes on answering', async () => {
    const res = await fetch(`${server.url}/api/v1/status`);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});
