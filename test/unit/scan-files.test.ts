/**
 * scanFiles of trainprint/node on one thread (src/node/scan/): the checkpoint file, the output cut back on a resume,
 * an interrupted scan resumed to the output of an uninterrupted one, a checkpoint of another scan refused, and the
 * ids of items without one (readDocuments' missingId: 'position').
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { readDocuments, scanFiles } from '../../src/node/index.js';
import { checkpointPath, readCheckpoint, sameScan, writeCheckpoint } from '../../src/node/scan/checkpoint.js';
import { HitOutput } from '../../src/node/scan/output.js';
import { archive, cleanOutputs, plantedOutputs } from '../fixtures/scan-plant.js';

let dir: string;
const at = (f: string) => join(dir, f);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-files-'));
  const docs = archive().slice(0, 150);
  const engine = await createEngine();
  await engine.addDataset({ id: 'archive' }, docs);
  writeFileSync(at('archive.tpds'), engine.exportDataset('archive'));
  const planted = plantedOutputs(docs, 40, 3);
  const clean = cleanOutputs(120, 4);
  const lines: string[] = [];
  for (let i = 0; i < 160; i++) {
    const text = i % 4 === 0 ? planted[i / 4].text : clean[i - Math.ceil(i / 4)];
    lines.push(JSON.stringify(i % 7 === 3 ? { text } : { id: `item-${i}`, text }));
  }
  writeFileSync(at('in.jsonl'), `${lines.join('\n')}\n`);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scanFiles', () => {
  const base = () => ({ datasets: [at('archive.tpds')], inputs: [at('in.jsonl')] });

  it('writes the hits, names items without an id PATH:LINE, and leaves a final checkpoint', async () => {
    const r = await scanFiles({ ...base(), out: at('whole.jsonl') });
    expect(r).toMatchObject({ items: 160, hits: 40, interrupted: false, resumed: 0 });
    const hits = readFileSync(at('whole.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(hits).toHaveLength(40);
    // item 24 (line 25) holds a passage and has no id
    expect(hits.map((h) => h.id)).toContain(`${at('in.jsonl')}:25`);
    const cp = readCheckpoint(checkpointPath(at('whole.jsonl')))!;
    expect(cp).toMatchObject({ items: 160, hits: 40, bytes: readFileSync(at('whole.jsonl')).length });
  }, 120_000);

  it('stops at the signal with a checkpoint; a resume gives the uninterrupted output', async () => {
    const expected = readFileSync(at('whole.jsonl'), 'utf8');
    const stop = new AbortController();
    const r = await scanFiles({
      ...base(),
      out: at('part.jsonl'),
      signal: stop.signal,
      onProgress: (p) => {
        if (p.items === 61) stop.abort();
      },
    });
    expect(r).toMatchObject({ interrupted: true, items: 61 });
    const cp = readCheckpoint(checkpointPath(at('part.jsonl')))!;
    expect(cp.items).toBe(61);
    expect(readFileSync(at('part.jsonl')).length).toBe(cp.bytes);
    // lines written after the checkpoint (a crash before the next one) are cut away by the resume
    writeFileSync(at('part.jsonl'), `${readFileSync(at('part.jsonl'), 'utf8')}{"id":"half a line`);
    const rest = await scanFiles({ ...base(), out: at('part.jsonl'), resume: true });
    expect(rest).toMatchObject({ resumed: 61, items: 160, hits: 40, interrupted: false });
    expect(readFileSync(at('part.jsonl'), 'utf8')).toBe(expected);
    // a checkpoint of another scan is refused
    await expect(scanFiles({ ...base(), out: at('part.jsonl'), resume: true, minWords: 60 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  }, 120_000);

  it('counts the items under minWords with those before a resume, as the items and hits are', async () => {
    const lines = readFileSync(at('in.jsonl'), 'utf8').trim().split('\n');
    // every third item a few words: never searched
    const mixed = lines.slice(0, 60).map((l, i) => (i % 3 === 1 ? JSON.stringify({ text: 'a few words only' }) : l));
    writeFileSync(at('short.jsonl'), `${mixed.join('\n')}\n`);
    const inputs = [at('short.jsonl')];
    const whole = await scanFiles({ ...base(), inputs, out: at('short-whole.jsonl') });
    expect(whole.skipped).toBe(20);
    const stop = new AbortController();
    await scanFiles({
      ...base(),
      inputs,
      out: at('short-part.jsonl'),
      signal: stop.signal,
      onProgress: (p) => {
        if (p.items === 31) stop.abort();
      },
    });
    expect(readCheckpoint(checkpointPath(at('short-part.jsonl')))).toMatchObject({ items: 31, skipped: 10 });
    const rest = await scanFiles({ ...base(), inputs, out: at('short-part.jsonl'), resume: true });
    expect(rest).toMatchObject({ resumed: 31, items: 60, hits: whole.hits, skipped: 20 });
  }, 120_000);

  it('counts what is done in the progress of a resumed scan: the items before the resume too', async () => {
    const stop = new AbortController();
    await scanFiles({
      ...base(),
      out: at('progress.jsonl'),
      signal: stop.signal,
      onProgress: (p) => {
        if (p.items === 100) stop.abort();
      },
    });
    const texts = readFileSync(at('in.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).text as string);
    const bytesOf = (ts: string[]) => ts.reduce((n, t) => n + Buffer.byteLength(t), 0);
    const seen: Array<{ items: number; bytes: number; done_bytes: number }> = [];
    const r = await scanFiles({ ...base(), out: at('progress.jsonl'), resume: true, onProgress: (p) => seen.push(p) });
    expect(r).toMatchObject({ resumed: 100, items: 160 });
    // the first item after the resume: 101 items done, their bytes behind; this run scanned one
    expect(seen[0]).toMatchObject({ items: 101, bytes: bytesOf(texts.slice(100, 101)) });
    expect(seen[0].done_bytes).toBe(bytesOf(texts.slice(0, 101)));
    expect(r.done_bytes).toBe(bytesOf(texts));
    expect(r.bytes).toBe(bytesOf(texts.slice(100)));
  }, 120_000);

  it('refuses bad options', async () => {
    await expect(scanFiles({ ...base(), out: '-', resume: true })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(scanFiles({ ...base(), out: at('x'), threads: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(scanFiles({ ...base(), inputs: [at('none.jsonl')], out: at('x') })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('checkpoints and the output', () => {
  const scan = {
    inputs: [{ path: 'a', size: 1 }],
    datasets: ['d'],
    minWords: 50,
    paraphrase: false,
    textField: 'text',
    idField: 'id',
  };

  it('round-trips a checkpoint, replaced atomically; refuses one of another version', () => {
    const p = at('c.checkpoint');
    expect(readCheckpoint(p)).toBeNull();
    writeCheckpoint(p, { items: 3, hits: 1, bytes: 120, scan });
    writeCheckpoint(p, { items: 5, hits: 2, bytes: 240, scan });
    expect(readCheckpoint(p)).toEqual({ version: 1, items: 5, hits: 2, bytes: 240, scan });
    expect(sameScan(scan, { ...scan })).toBe(true);
    expect(sameScan(scan, { ...scan, minWords: 60 })).toBe(false);
    writeFileSync(p, '{"version":9}');
    expect(() => readCheckpoint(p)).toThrow(/not a scan checkpoint/);
  });

  it('cuts the output back to the checkpoint on a resume, and refuses an output shorter than it', () => {
    const f = at('o.jsonl');
    const out = HitOutput.open(f, null);
    out.write('one\n');
    expect(out.sync()).toBe(4);
    out.write('two\n');
    out.close();
    const again = HitOutput.open(f, 4);
    again.write('three\n');
    again.close();
    expect(readFileSync(f, 'utf8')).toBe('one\nthree\n');
    expect(() => HitOutput.open(f, 100)).toThrow(/shorter/);
  });
});

describe('readDocuments missingId', () => {
  it("gives a record without the id field its position's id with 'position', refuses it otherwise", async () => {
    writeFileSync(at('ids.jsonl'), '{"id":"a","text":"x"}\n{"text":"y"}\n{"id":7,"text":"z"}\n');
    const all = async (o: object) => {
      const out = [];
      for await (const d of readDocuments([at('ids.jsonl')], { idField: 'id', ...o })) out.push(d.id);
      return out;
    };
    expect(await all({ missingId: 'position' })).toEqual(['a', `${at('ids.jsonl')}:2`, '7']);
    await expect(all({})).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('the progress line of trainprint scan', () => {
  it('says items, MB/s and hits, with a bar, the share and the ETA when the input size is known', async () => {
    const { scanProgressText } = await import('../../src/cli/scan.js');
    const p = { items: 1200, bytes: 3e6, done_bytes: 3e6, hits: 4, ms: 2000 };
    expect(scanProgressText({ ...p, input_bytes: null }, 120, true)).toBe('scanned 1,200 items · 1.5 MB/s · 4 hits');
    const known = scanProgressText({ ...p, input_bytes: 6e6 }, 120, true);
    expect(known).toMatch(/^█{12}░{12} 50 % · scanned 1,200 items · 1\.5 MB\/s · 4 hits · ETA 2 s$/);
    expect(scanProgressText({ ...p, input_bytes: 6e6 }, 120, false)).toBe(
      '50 % · scanned 1,200 items · 1.5 MB/s · 4 hits · ETA 2 s',
    );
    expect(scanProgressText({ ...p, input_bytes: 6e6 }, 30, true).length).toBeLessThanOrEqual(29);
    // a resumed scan: the items done before count in the share and the ETA, not in the rate
    const resumed = { ...p, done_bytes: 4.5e6, input_bytes: 6e6 };
    expect(scanProgressText(resumed, 120, false)).toBe('75 % · scanned 1,200 items · 1.5 MB/s · 4 hits · ETA 1 s');
  });
});
