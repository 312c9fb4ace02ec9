/**
 * engine.scan's graceful stop (`stop`) and reading a source ahead (`readAhead`): a scan that reads a generator's items
 * in batches and is stopped from `onProgress` at any item of a batch reports every hit of the items up to it, none of
 * an item after it, and returns the summary of the items done; a source that fails hands over the items before its
 * failure first. And scanFiles, which reads its files so, stopped at items on either side of a batch's edge: the
 * checkpoint holds the items done, and a resume gives the uninterrupted output.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, TrainprintError, type Engine, type ScanHit } from '../../src/index.js';
import { scanFiles } from '../../src/node/index.js';
import { checkpointPath, readCheckpoint } from '../../src/node/scan/checkpoint.js';
import type { ScanItem, ScanProgress, ScanSummary } from '../../src/services/scan/index.js';
import { archive, cleanOutputs, plantedOutputs } from '../fixtures/scan-plant.js';

let engine: Engine;
let dir: string;
const docs = archive().slice(0, 150);
/** 100 items, every fifth with a planted passage: more than one batch of 64, so a stop falls before, in and after. */
const items: ScanItem[] = (() => {
  const planted = plantedOutputs(docs, 20, 5);
  const clean = cleanOutputs(80, 6);
  return Array.from({ length: 100 }, (_, i) => ({
    id: `item-${i}`,
    text: i % 5 === 2 ? planted[(i - 2) / 5].text : clean[i - Math.ceil((i - 2) / 5)],
  }));
})();
const indexOf = (h: ScanHit) => Number(h.id.slice('item-'.length));
/** Items in the first batch a read-ahead scan reads (64, or fewer when their texts reach 64 Ki units first). */
let firstBatch = 0;

beforeAll(async () => {
  engine = await createEngine();
  await engine.addDataset({ id: 'archive' }, docs);
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-stop-'));
  writeFileSync(join(dir, 'archive.tpds'), engine.exportDataset('archive'));
  writeFileSync(join(dir, 'in.jsonl'), `${items.map((x) => JSON.stringify(x)).join('\n')}\n`);
  const s = source(items);
  await run(s.items, { readAhead: true, onProgress: (p) => p.items === 1 && (firstBatch = s.state.read) });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A generator over `list` that counts the items read and whether it was closed. */
function source(list: readonly ScanItem[], failAt = -1) {
  const state = { read: 0, closed: false };
  async function* gen() {
    try {
      for (const [i, x] of list.entries()) {
        if (i === failAt) throw new Error(`unreadable item ${i}`);
        state.read++;
        yield x;
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, items: gen() };
}

/** Every hit of a scan, its summary, and its progress calls. */
async function run(
  list: AsyncIterable<ScanItem> | readonly ScanItem[],
  options: Parameters<Engine['scan']>[1],
): Promise<{ hits: ScanHit[]; summary: ScanSummary }> {
  const hits: ScanHit[] = [];
  const it = engine.scan(list as AsyncIterable<ScanItem>, options);
  for (;;) {
    const r = await it.next();
    if (r.done) return { hits, summary: r.value };
    hits.push(r.value);
  }
}

describe('engine.scan: stop and readAhead', () => {
  it('reads a source ahead and gives the hits of the items one at a time', async () => {
    const whole = await run(items, {});
    expect(whole.hits.length).toBeGreaterThanOrEqual(20);
    const one = await run(source(items).items, {});
    const s = source(items);
    const ahead = await run(s.items, { readAhead: true });
    expect(one).toMatchObject({ hits: whole.hits, summary: { ...whole.summary, ms: expect.any(Number) } });
    expect(ahead.hits).toEqual(whole.hits);
    expect(ahead.summary).toMatchObject({ items: 100, hits: whole.hits.length, bytes: whole.summary.bytes });
    // the first item was reported after a batch of them was read (what lets them be looked up together), and the
    // items are more than a batch
    expect(firstBatch).toBeGreaterThan(1);
    expect(firstBatch).toBeLessThan(items.length);
    console.log('FIRSTBATCH', firstBatch);
    expect(s.state.closed).toBe(true);
  }, 60_000);

  it('stopped from onProgress at every item, ends right after it: its hits and those before, none after', async () => {
    const whole = await run(items, {});
    for (let at = 1; at <= items.length; at++) {
      const stop = new AbortController();
      const s = source(items);
      const progress: ScanProgress[] = [];
      const r = await run(s.items, {
        readAhead: true,
        stop: stop.signal,
        onProgress: (p) => {
          progress.push(p);
          if (p.items === at) stop.abort();
        },
      });
      const before = whole.hits.filter((h) => indexOf(h) < at);
      expect(r.hits, `stopped at item ${at}`).toEqual(before);
      expect(r.summary).toMatchObject({ items: at, hits: before.length });
      expect(progress).toHaveLength(at);
      expect(progress.at(-1)).toEqual({ items: at, bytes: r.summary.bytes, hits: before.length, skipped: 0 });
      expect(s.state.closed).toBe(true);
    }
  }, 120_000);

  it('stops so without reading ahead, and over an array, reading no item past the stop', async () => {
    const whole = await run(items, {});
    for (const at of [1, 7, firstBatch, firstBatch + 1]) {
      const stop = new AbortController();
      const s = source(items);
      const r = await run(s.items, { stop: stop.signal, onProgress: (p) => p.items === at && stop.abort() });
      expect(r.hits).toEqual(whole.hits.filter((h) => indexOf(h) < at));
      expect(r.summary.items).toBe(at);
      expect(s.state.read).toBe(at); // one item at a time: the next is not asked for
      const stopArray = new AbortController();
      const a = await run(items, { stop: stopArray.signal, onProgress: (p) => p.items === at && stopArray.abort() });
      expect(a).toEqual({ hits: r.hits, summary: { ...r.summary, ms: a.summary.ms } });
    }
  }, 60_000);

  it('a stop before the scan reads nothing; a signal still rejects; bad options are refused', async () => {
    const stop = new AbortController();
    stop.abort();
    const s = source(items);
    const r = await run(s.items, { readAhead: true, stop: stop.signal });
    expect(r).toMatchObject({ hits: [], summary: { items: 0, hits: 0, bytes: 0 } });
    expect(s.state.read).toBe(0);
    const signal = new AbortController();
    let seen = 0;
    const rejected = run(source(items).items, {
      readAhead: true,
      signal: signal.signal,
      onProgress: (p) => {
        seen = p.items;
        if (p.items === 3) signal.abort(new Error('aborted at 3'));
      },
    });
    await expect(rejected).rejects.toThrow('aborted at 3');
    expect(seen).toBe(3);
    await expect(run(items, { stop: {} as never })).rejects.toBeInstanceOf(TrainprintError);
    await expect(run(items, { stop: {} as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(run(items, { readAhead: 'yes' as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('a source that fails while read ahead: the items before it reported first, then its error', async () => {
    const whole = await run(items, {});
    for (const failAt of [0, 5, firstBatch, firstBatch + 3]) {
      const hits: ScanHit[] = [];
      let done = 0;
      const it = engine.scan(source(items, failAt).items, { readAhead: true, onProgress: (p) => (done = p.items) });
      const error = await (async () => {
        try {
          for (let r = await it.next(); !r.done; r = await it.next()) hits.push(r.value);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toMatchObject({ message: `unreadable item ${failAt}` });
      expect(done).toBe(failAt);
      expect(hits).toEqual(whole.hits.filter((h) => indexOf(h) < failAt));
    }
  }, 60_000);
});

describe('scanFiles stopped around a batch of items read ahead', () => {
  const base = () => ({ datasets: [join(dir, 'archive.tpds')], inputs: [join(dir, 'in.jsonl')] });

  it('stops right after the item, checkpoints it, and resumes to the uninterrupted output', async () => {
    const whole = join(dir, 'whole.jsonl');
    expect(await scanFiles({ ...base(), out: whole })).toMatchObject({ items: 100, interrupted: false });
    const expected = readFileSync(whole, 'utf8');
    const lines = expected.split('\n').filter(Boolean);
    // the first item, either side of the first batch's last item, and the last but one
    for (const at of [1, 2, firstBatch - 1, firstBatch, firstBatch + 1, firstBatch + 2, 99]) {
      const out = join(dir, `part-${at}.jsonl`);
      const stop = new AbortController();
      const r = await scanFiles({
        ...base(),
        out,
        signal: stop.signal,
        onProgress: (p) => {
          if (p.items === at) stop.abort();
        },
      });
      expect(r).toMatchObject({ interrupted: true, items: at });
      const cp = readCheckpoint(checkpointPath(out))!;
      expect(cp.items).toBe(at);
      const written = readFileSync(out, 'utf8');
      expect(written.length).toBe(cp.bytes);
      // the hit lines of the items done, and none of an item after
      const kept = lines.filter((l) => Number(JSON.parse(l).id.slice('item-'.length)) < at);
      expect(written).toBe(kept.map((l) => `${l}\n`).join(''));
      const rest = await scanFiles({ ...base(), out, resume: true });
      expect(rest).toMatchObject({ resumed: at, items: 100, interrupted: false });
      expect(readFileSync(out, 'utf8')).toBe(expected);
    }
  }, 120_000);
});
