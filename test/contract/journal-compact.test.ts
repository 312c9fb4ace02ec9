/**
 * The journal an extraction job keeps in the store: each call compact (its text and the digests of its wire bodies,
 * not the bodies: a model padding its answers to the cap no longer grows the store by the padding), a replay from it
 * gives the same record with no call made, and the journal is deleted with its job.
 */
import { describe, expect, it } from 'vitest';
import { createOpenAICompatibleModel } from '../../src/models/openai.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import {
  journalBytes,
  storeExtractionJournal,
  storeJournalPrefix,
} from '../../src/services/memorization/store-journal.js';
import { createJobService } from '../../src/services/jobs/service.js';
import { attachToJob } from '../../src/services/jobs/attached.js';
import { MemoryStore } from '../../src/store/memory.js';
import { syntheticWork } from '../fixtures/memorised-chat-server.js';

const { text, words } = syntheticWork(2, 600, 3);

/** The work's next words after a prompt whose last 8 words it holds. */
function continuation(prompt: string, k = 60): string {
  const tail = prompt.split(/\s+/).filter(Boolean).slice(-8).join(' ');
  for (let i = 8; i < words.length; i++)
    if (words.slice(i - 8, i).join(' ') === tail) return words.slice(i, i + k).join(' ');
  return 'nothing of the kind';
}

/** A model that answers the continuation, padded with 60 KB of filler in a field of the answer body. */
function paddedModel() {
  let requests = 0;
  const fetch = (async (_url: string, init: RequestInit) => {
    requests++;
    const body = JSON.parse(String(init.body));
    const content = continuation(body.messages.at(-1).content);
    const answer = {
      id: 'x',
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 80, completion_tokens: 60, total_tokens: 140 },
      padding: 'q'.repeat(60_000),
    };
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const model = createOpenAICompatibleModel({
    baseUrl: 'https://models.example.org/v1',
    model: 'm',
    api: 'chat',
    fetch,
    retryBaseMs: 0,
    sleep: async () => {},
  });
  return { model, requests: () => requests };
}

describe('the store journal of an extraction', () => {
  const scope = { account: 'acme', baseUrl: 'https://models.example.org/v1', model: 'm', text };

  it('keeps each call in at most 2 KB beyond its text, and a replay gives the same record without a call', async () => {
    const store = new MemoryStore();
    const extract = (model: ReturnType<typeof paddedModel>['model']) =>
      runWorkExtraction(store, { text, model, journal: storeExtractionJournal(store, scope), budget_calls: 12 });
    const first = paddedModel();
    const a = await extract(first.model);
    expect(first.requests()).toBeGreaterThan(0);
    const rows = await store.scan(storeJournalPrefix(scope));
    expect(rows.length).toBe(first.requests());
    for (const [, call] of rows) {
      const c = call as Record<string, unknown>;
      expect(c).not.toHaveProperty('response');
      expect(c).not.toHaveProperty('request');
      expect(c.response_sha256).toMatch(/^[0-9a-f]{64}$/);
      const beyond =
        new TextEncoder().encode(JSON.stringify(c)).length - new TextEncoder().encode(c.text as string).length;
      expect(beyond).toBeLessThanOrEqual(2048);
    }
    // every call's record names the digests of the bodies as they went and came, replayed or not
    const again = paddedModel();
    const b = await extract(again.model);
    expect(again.requests()).toBe(0);
    expect(b.record.transcript_sha256).toBe(a.record.transcript_sha256);
    expect(b.record.calls.map((c) => [c.request_sha256, c.response_sha256])).toEqual(
      a.record.calls.map((c) => [c.request_sha256, c.response_sha256]),
    );
    expect(b.record.calls.every((c) => c.replayed === true)).toBe(true);
  });

  /** A store with acme's extract job and the scope's journal attached to it. */
  async function attachedJournal() {
    const store = new MemoryStore();
    const jobs = createJobService({ store });
    const job = await jobs.submit({ account: 'acme', type: 'extract', items: [{}] });
    const prefix = storeJournalPrefix(scope);
    await attachToJob(store, job.id, prefix);
    return { store, jobs, job, prefix };
  }

  it('is deleted with the job it is attached to, and nothing else is', async () => {
    const { store, jobs, job, prefix } = await attachedJournal();
    await attachToJob(store, job.id, prefix); // once per prefix
    const journal = storeExtractionJournal(store, scope);
    const call = { text: 'a b c', request: '{}', response: '{"x":1}', time: new Date(0).toISOString(), ms: 1 };
    for (let i = 0; i < 1500; i++) await journal.put(i.toString(16).padStart(64, '0'), call);
    const other = storeJournalPrefix({ ...scope, text: 'another work' });
    await storeExtractionJournal(store, { ...scope, text: 'another work' }).put('f'.repeat(64), call);
    expect((await store.scan(prefix)).length).toBe(1500);
    expect(await jobs.delete(job.id, { owner: 'acme' })).toBe(true);
    expect(await store.scan(prefix)).toEqual([]);
    expect(await store.scan(`job-attached/${job.id}/`)).toEqual([]);
    expect((await store.scan(other)).length).toBe(1);
  });

  it("counts each journal's bytes against its account, refuses a call past the cap, and gives them back on delete", async () => {
    const { store, jobs, job, prefix } = await attachedJournal();
    const journal = storeExtractionJournal(store, scope, { maxBytes: 40_000 });
    const enc = new TextEncoder();
    // an answer's text of 3,000 characters: the call counts its text and a few hundred bytes more
    const call = (i: number) => ({
      text: `${'w '.repeat(1500)}${i}`,
      request: `{"prompt":${i}}`,
      response: JSON.stringify({ padding: 'q'.repeat(60_000), i }),
      time: new Date(0).toISOString(),
      ms: 1,
    });
    const key = (i: number) => i.toString(16).padStart(64, '0');
    for (let i = 0; i < 10; i++) await journal.put(key(i), call(i));
    const rows = await store.scan(prefix);
    const stored = rows.reduce((t, [, v]) => t + enc.encode(JSON.stringify(v)).length, 0);
    expect(await journalBytes(store, 'acme')).toBe(stored);
    // the padding of the wire body is not kept: each call counts under 2 KB beyond its text
    expect(stored - 10 * 3001).toBeLessThanOrEqual(10 * 2048);
    // the same call kept again counts once
    await journal.put(key(3), call(3));
    expect(await journalBytes(store, 'acme')).toBe(stored);
    // another account's count is its own
    expect(await journalBytes(store, 'globex')).toBe(0);
    // past the cap (40,000 bytes): the call is refused, not kept, and the count stays
    let refused: unknown;
    for (let i = 10; i < 20 && refused === undefined; i++)
      await journal.put(key(i), call(i)).catch((e) => (refused = e));
    expect(refused).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const held = await journalBytes(store, 'acme');
    expect(held).toBeLessThanOrEqual(40_000);
    expect(held).toBe((await store.scan(prefix)).reduce((t, [, v]) => t + enc.encode(JSON.stringify(v)).length, 0));
    // the job deleted: its journal and its bytes are gone
    expect(await jobs.delete(job.id, { owner: 'acme' })).toBe(true);
    expect(await store.scan(prefix)).toEqual([]);
    expect(await journalBytes(store, 'acme')).toBe(0);
  });
});
