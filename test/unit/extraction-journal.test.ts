/**
 * The extraction journal: recorded calls checked as they are read, the file journal's lines (fsync'd appends, a
 * torn last line dropped, any other bad line refused, never a non-journal file appended to), and extractWork's
 * replay: a second run with the same journal calls the model for nothing and gives the same result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import { openExtractionJournal } from '../../src/node/extraction-journal.js';
import {
  checkRecordedCall,
  memoryExtractionJournal,
  type RecordedCall,
} from '../../src/services/memorization/extraction-journal.js';
import { runWorkExtraction } from '../../src/services/memorization/extract-work.js';
import { MemoryStore } from '../../src/store/memory.js';
import { syntheticWork } from '../fixtures/memorised-chat-server.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trainprint-journal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const call = (text: string): RecordedCall => ({
  text,
  request: JSON.stringify({ prompt: text }),
  response: JSON.stringify({ choices: [{ text }] }),
  usage: { prompt_tokens: 3, completion_tokens: 4 },
  model: 'm-1',
  time: '2026-11-26T09:00:00.000Z',
  ms: 12,
});
const key = (k: number) => k.toString(16).padStart(64, '0');

describe('checkRecordedCall', () => {
  it('accepts a recorded call and refuses what is not one, naming the field', () => {
    expect(checkRecordedCall(call('a'), 'x')).toEqual(call('a'));
    for (const [bad, field] of [
      [null, 'not an object'],
      [{ ...call('a'), text: 1 }, 'text'],
      [{ ...call('a'), response: undefined }, 'response'],
      [{ ...call('a'), ms: -1 }, 'ms'],
      [{ ...call('a'), usage: { prompt_tokens: 1.5, completion_tokens: 0 } }, 'usage'],
      [{ ...call('a'), refusal: 7 }, 'refusal'],
    ] as const) {
      expect(() => checkRecordedCall(bad, 'entry')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(() => checkRecordedCall(bad, 'entry')).toThrow(`(${field})`);
    }
    expect(() => checkRecordedCall({ ...call('a'), time: 5 }, 'entry 9')).toThrow(
      /entry 9: not a recorded call \(time\)/,
    );
  });
});

describe('openExtractionJournal', () => {
  it('appends one line per call after its header, and reads them back in a new journal', async () => {
    const path = join(dir, 'a.journal');
    const j = await openExtractionJournal(path);
    // concurrent puts: every line whole, every call kept
    await Promise.all(Array.from({ length: 20 }, (_, k) => j.put(key(k), call(`t${k}`))));
    expect(j.size).toBe(20);
    expect(await j.get(key(3))).toEqual(call('t3'));
    await j.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(JSON.parse(lines[0])).toEqual({ journal: 'trainprint-extraction', version: 1 });
    expect(lines).toHaveLength(21);
    const again = await openExtractionJournal(path);
    expect(again.size).toBe(20);
    expect(await again.get(key(19))).toEqual(call('t19'));
    expect(await again.get(key(20))).toBeUndefined();
    await again.close();
    await expect(again.put(key(21), call('late'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('drops a last line cut short by a kill, and appends after the last whole line', async () => {
    const path = join(dir, 'torn.journal');
    const j = await openExtractionJournal(path);
    await j.put(key(1), call('one'));
    await j.close();
    await appendFile(path, JSON.stringify({ key: key(2), call: call('two') }).slice(0, 40));
    const reopened = await openExtractionJournal(path);
    expect(reopened.size).toBe(1);
    await reopened.put(key(3), call('three'));
    await reopened.close();
    const third = await openExtractionJournal(path);
    expect(third.size).toBe(2);
    expect(await third.get(key(3))).toEqual(call('three'));
    await third.close();
  });

  it('starts empty when the kill came while its header was written', async () => {
    const path = join(dir, 'header.journal');
    await writeFile(path, '{"journal":"trainp');
    const j = await openExtractionJournal(path);
    expect(j.size).toBe(0);
    await j.put(key(1), call('one'));
    await j.close();
    expect((await readFile(path, 'utf8')).split('\n')[0]).toBe('{"journal":"trainprint-extraction","version":1}');
  });

  it('refuses a file that is not a journal, or whose complete lines do not read, and leaves it as it was', async () => {
    const other = join(dir, 'result.json');
    await writeFile(other, '{\n  "nv_recall": 0.5\n}\n');
    await expect(openExtractionJournal(other)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await readFile(other, 'utf8')).toBe('{\n  "nv_recall": 0.5\n}\n');
    const broken = join(dir, 'broken.journal');
    await writeFile(
      broken,
      `${JSON.stringify({ journal: 'trainprint-extraction', version: 1 })}\nnot json\n${JSON.stringify({ key: key(1), call: call('x') })}\n`,
    );
    await expect(openExtractionJournal(broken)).rejects.toThrow(/line 2 is not JSON/);
    const future = join(dir, 'future.journal');
    await writeFile(future, `${JSON.stringify({ journal: 'trainprint-extraction', version: 9 })}\n`);
    await expect(openExtractionJournal(future)).rejects.toThrow(/version 9/);
    const badCall = join(dir, 'bad-call.journal');
    const size = `${JSON.stringify({ journal: 'trainprint-extraction', version: 1 })}\n${JSON.stringify({ key: key(1), call: { text: 'x' } })}\n`;
    await writeFile(badCall, size);
    await expect(openExtractionJournal(badCall)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await stat(badCall)).size).toBe(Buffer.byteLength(size));
  });

  it('refuses a key that is not a SHA-256 in hex', async () => {
    const j = await openExtractionJournal(join(dir, 'keys.journal'));
    await expect(j.put('abc', call('x'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await j.close();
  });
});

describe('extractWork replaying its journal', () => {
  const { text, words } = syntheticWork(1, 600, 11);
  /** A model in memory that continues the work from the prompt's last five words, and counts its calls. */
  function reciter(): TargetModel & { calls: number } {
    const index = new Map<string, number>();
    for (let i = 5; i <= words.length; i++) index.set(words.slice(i - 5, i).join(' '), i);
    const m = {
      id: 'reciter',
      access: 'generations_only' as const,
      chat: true,
      calls: 0,
      async generate(prompt: string, o: GenerateOptions) {
        m.calls++;
        const last = (o.messages?.at(-1)?.content ?? prompt).split(/\s+/).slice(-5).join(' ');
        const at = index.get(last);
        return at === undefined ? 'nothing of the kind' : words.slice(at, at + 40).join(' ');
      },
    };
    return m;
  }

  it('a second run with the same journal calls the model for nothing and gives the same result', async () => {
    const store = new MemoryStore();
    const journal = memoryExtractionJournal();
    const first = reciter();
    const a = await runWorkExtraction(store, { text, model: first, journal, concurrency: 1, budget_calls: 200 });
    expect(a.nv_recall).toBeGreaterThan(0.3);
    // a request asked twice in one run (a probe's prompt again as a loop's) is made once
    expect(first.calls).toBe(a.calls - a.replayed_calls);
    expect(journal.size).toBe(new Set(a.record.calls.map((c) => c.key)).size);
    const second = reciter();
    const b = await runWorkExtraction(store, { text, model: second, journal, concurrency: 1, budget_calls: 200 });
    expect(second.calls).toBe(0);
    expect(b.replayed_calls).toBe(b.calls);
    expect(b.record.transcript_sha256).toBe(a.record.transcript_sha256);
    const strip = (r: typeof a) => ({ ...r, replayed_calls: 0, record: null });
    expect(strip(b)).toEqual(strip(a));
    const made = (r: typeof a) => r.record.calls.map(({ replayed, ...c }) => c);
    expect(made(b)).toEqual(made(a));
  });

  it('refuses a journal that is not one, and a recorded call that does not read', async () => {
    const store = new MemoryStore();
    await expect(
      runWorkExtraction(store, { text, model: reciter(), journal: {} as never, budget_calls: 10 }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    const liar = { get: async () => ({ text: 5 }) as never, put: async () => {} };
    await expect(
      runWorkExtraction(store, { text, model: reciter(), journal: liar, budget_calls: 10 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
