/**
 * The pieces of an extract job that hold what must not be stored and keep what must survive: the held models (a
 * handle per model, released with their job and after their time) and the store-backed extraction journal (one
 * account's calls for one service, model and work; keys that are not request digests refused).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import type { TargetModel } from '../../src/models/types.js';
import { createHeldJobModels, modelNotHeld } from '../../src/services/jobs/held-models.js';
import type { RecordedCall } from '../../src/services/memorization/extraction-journal.js';
import { storeExtractionJournal, storeJournalPrefix } from '../../src/services/memorization/store-journal.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { WorkExtractionResult } from '../../src/services/memorization/extract-work.js';
import {
  STORED_EXTRACTIONS_PER_TEXT,
  storeWorkExtraction,
  workExtractions,
} from '../../src/services/memorization/stored-extractions.js';
import { beatModelHolder, HOLDER_BEAT_MS, HOLDER_TTL_MS, modelHolderAlive } from '../../src/services/jobs/hand-back.js';
import type { Store } from '../../src/store/types.js';

const model = (id: string) => ({ id }) as unknown as TargetModel;
const call: RecordedCall = {
  text: 'the answer',
  request: '{"a":1}',
  response: '{"b":2}',
  time: '2026-01-01T00:00:00Z',
  ms: 3,
};
const key = 'ab'.repeat(32);

describe('createHeldJobModels', () => {
  it('hands out distinct handles, takes the model back, and forgets it after its time', () => {
    let t = 1000;
    const held = createHeldJobModels({ ttlMs: 100, now: () => t });
    const a = held.hold(model('a'));
    const b = held.hold(model('b'));
    expect(a).toMatch(/^hm_[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect(held.take(a)).toEqual({ id: 'a' });
    expect(held.take(b)).toEqual({ id: 'b' });
    t += 100;
    expect(held.take(a)).toBeUndefined();
    expect(held.take(b)).toBeUndefined();
    held.hold(model('c')); // sweeps what expired
    expect(held.size).toBe(1);
  });

  it("releases a job's models together", () => {
    const held = createHeldJobModels();
    const handles = [held.hold(model('a')), held.hold(model('b'))];
    const other = held.hold(model('c'));
    held.bind('job_1', handles);
    held.releaseJob('job_1');
    held.releaseJob('job_unknown');
    expect(handles.map((h) => held.take(h))).toEqual([undefined, undefined]);
    expect(held.take(other)).toEqual({ id: 'c' });
  });

  it('the error of a model not held names model.api_key and says to resubmit', () => {
    const e = modelNotHeld();
    expect(e).toBeInstanceOf(TrainprintError);
    expect(e.code).toBe('INVALID_INPUT');
    expect((e.cause as { field: string }).field).toBe('model.api_key');
    expect(e.message).toContain('resubmit');
  });

  it('an item sent without a key is not told to send one: its error names model', () => {
    const e = modelNotHeld(false);
    expect((e.cause as { field: string }).field).toBe('model');
    expect(e.message).not.toContain('api_key');
    expect(e.message).toContain('resubmit');
  });
});

describe('storeExtractionJournal', () => {
  const scope = { account: 'acme/eu', baseUrl: 'https://m.example/v1', model: 'm-1', text: 'a work' };

  it('keeps a call under the scope and replays it to the same scope only', async () => {
    const store = new MemoryStore();
    await storeExtractionJournal(store, scope).put(key, call);
    // kept compact: the answer's text and digests of the request and answer bodies, which a replay compares
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const { request, response, ...kept } = call;
    expect(await storeExtractionJournal(store, scope).get(key)).toEqual({
      ...kept,
      request_sha256: sha(request),
      response_sha256: sha(response),
    });
    for (const other of [
      { ...scope, account: 'acme' },
      { ...scope, baseUrl: 'https://n.example/v1' },
      { ...scope, model: 'm-2' },
      { ...scope, text: 'another work' },
      { account: scope.account, baseUrl: scope.baseUrl, model: scope.model, workId: 'a work' },
    ])
      expect(await storeExtractionJournal(store, other).get(key)).toBeUndefined();
    // the account is encoded: one with a slash cannot reach into another's keys
    expect(storeJournalPrefix(scope)).toMatch(/^extraction-journal\/acme%2Feu\/[0-9a-f]{64}\/$/);
  });

  it('refuses a key that is not a request digest', async () => {
    const journal = storeExtractionJournal(new MemoryStore(), scope);
    await expect(journal.get('../x')).rejects.toThrow(TrainprintError);
    await expect(journal.put('AB'.repeat(32), call)).rejects.toThrow(TrainprintError);
  });
});

describe('stored extractions and the holders of extract models', () => {
  const result = (text: string, digest: string) =>
    ({ text_sha256: text, record: { transcript_sha256: digest, calls: [] } }) as unknown as WorkExtractionResult;
  const textA = 'a1'.repeat(32);

  it("keeps an account's extractions of a text by transcript digest, at most STORED_EXTRACTIONS_PER_TEXT, oldest going", async () => {
    const store = new MemoryStore();
    const digests = Array.from({ length: STORED_EXTRACTIONS_PER_TEXT + 3 }, (_, i) => i.toString(16).padStart(64, '0'));
    for (const d of digests) await storeWorkExtraction(store, 'acme/x', result(textA, d));
    // the same run kept again is one entry
    await storeWorkExtraction(store, 'acme/x', result(textA, digests[digests.length - 1]));
    const kept = await workExtractions(store, 'acme/x', textA);
    expect(kept.map((x) => x.record.transcript_sha256)).toEqual(digests.slice(3));
    expect(await workExtractions(store, 'acme', textA)).toEqual([]);
    expect(await workExtractions(store, 'acme/x', 'b2'.repeat(32))).toEqual([]);
    expect(await workExtractions(store, 'acme/x', 'not a digest')).toEqual([]);
    await expect(storeWorkExtraction(store, 'acme', result('x', digests[0]))).rejects.toBeInstanceOf(TrainprintError);
  });

  it('reads a holder as alive while it beats, and as gone once stopped', async () => {
    const store = new MemoryStore();
    const held = createHeldJobModels();
    expect(held.id).toMatch(/^hh_[0-9a-f]{32}$/);
    expect(await modelHolderAlive(store, held.id)).toBe(false);
    const beat = beatModelHolder(store, held.id);
    await new Promise((r) => setTimeout(r, 5));
    expect(await modelHolderAlive(store, held.id)).toBe(true);
    // past its time to live without a beat it reads as gone
    expect(await modelHolderAlive(store, held.id, Date.now() + HOLDER_TTL_MS + 1000)).toBe(false);
    await beat.stop();
    expect(await modelHolderAlive(store, held.id)).toBe(false);
  });

  describe('a holder killed without a clean stop (fake clock)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it(`reads as alive while it beats every ${HOLDER_BEAT_MS / 1000} s, and as gone ${HOLDER_TTL_MS / 1000} s after its last beat`, async () => {
      vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
      const memory = new MemoryStore();
      // the process is gone once `killed`: its timers may still fire here, but nothing it writes reaches the store
      let killed = false;
      const store = new Proxy(memory, {
        get(t, k) {
          if (k === 'put') return (key: string, v: unknown) => (killed ? Promise.resolve() : t.put(key, v));
          const v = (t as unknown as Record<PropertyKey, unknown>)[k];
          return typeof v === 'function' ? v.bind(t) : v;
        },
      }) as Store;
      const held = createHeldJobModels();
      const beat = beatModelHolder(store, held.id);
      const until = async () => ((await memory.get(`extract-model-holder/${held.id}`)) as { until: number }).until;
      await vi.advanceTimersByTimeAsync(0);
      expect((await until()) - Date.now()).toBe(HOLDER_TTL_MS);
      // a minute of beats: at every second the last beat is at most HOLDER_BEAT_MS old
      for (let s = 0; s < 60; s++) {
        await vi.advanceTimersByTimeAsync(1000);
        expect(await modelHolderAlive(store, held.id)).toBe(true);
        expect((await until()) - Date.now()).toBeGreaterThanOrEqual(HOLDER_TTL_MS - HOLDER_BEAT_MS);
      }
      killed = true;
      const killedAt = Date.now();
      const last = (await until()) - HOLDER_TTL_MS;
      expect(killedAt - last).toBeLessThanOrEqual(HOLDER_BEAT_MS);
      // alive up to its time to live after the last beat, then gone: at most HOLDER_TTL_MS after it was killed
      await vi.advanceTimersByTimeAsync(last + HOLDER_TTL_MS - 1 - Date.now());
      expect(await modelHolderAlive(store, held.id)).toBe(true);
      await vi.advanceTimersByTimeAsync(1);
      expect(await modelHolderAlive(store, held.id)).toBe(false);
      expect(Date.now() - killedAt).toBeLessThanOrEqual(HOLDER_TTL_MS);
      // well under the chunk lease (60 s): the other processes stop handing its items back within 15 s
      expect(HOLDER_TTL_MS).toBeLessThan(60_000 / 2);
      await beat.stop();
    });
  });
});
