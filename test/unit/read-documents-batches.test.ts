/**
 * readDocumentBatches (src/node/read-documents.ts): the documents of a JSON Lines file about 64 KiB of lines at a
 * time, the same documents, ids and errors in the same order as readDocuments — across chunk boundaries, with a line
 * longer than a chunk, and with a line that is no document after others of its chunk (they come first, then the
 * error naming the line).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDocuments } from '../../src/node/index.js';
import { readDocumentBatches } from '../../src/node/read-documents.js';
import type { DatasetDocument } from '../../src/index.js';

let dir: string;
const at = (f: string) => join(dir, f);
/** Lines of about 900 bytes, one of 1.5 MiB (longer than a chunk read), some without an id: over 3 MiB in all. */
const lines = Array.from({ length: 2600 }, (_, i) => {
  const text = i === 1200 ? 'x '.repeat(786_432) : `line ${i} ${'word '.repeat(178)}`;
  return JSON.stringify(i % 9 === 4 ? { text } : { id: `doc-${i}`, text });
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-read-batches-'));
  writeFileSync(at('good.jsonl'), `${lines.join('\n')}\n`);
  // line 2,001 is not JSON: the 2,000 before it are documents
  writeFileSync(at('bad.jsonl'), [...lines.slice(0, 2000), '{"text": "cut', ...lines.slice(2000)].join('\n'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ids = { idField: 'id', missingId: 'position' } as const;

/** The documents an iteration gives before it ends, and its error (null: none). */
async function drain<T>(it: AsyncIterable<T>, take: (x: T) => DatasetDocument[]) {
  const docs: DatasetDocument[] = [];
  let calls = 0;
  try {
    for await (const x of it) {
      calls++;
      docs.push(...take(x));
    }
    return { docs, calls, error: null };
  } catch (e) {
    return { docs, calls, error: e as Error };
  }
}

describe('readDocumentBatches', () => {
  it('gives readDocuments’ documents and ids, in arrays of about 64 KiB of lines', async () => {
    const one = await drain(readDocuments([at('good.jsonl')], ids), (d) => [d]);
    const batched = await drain(readDocumentBatches([at('good.jsonl')], ids), (b) => b);
    expect(one.error).toBeNull();
    expect(batched.error).toBeNull();
    expect(batched.docs).toEqual(one.docs);
    expect(one.docs).toHaveLength(2600);
    expect(one.docs[4].id).toBe(`${at('good.jsonl')}:5`); // a line without an id: PATH:LINE
    expect(one.docs[5].id).toBe('doc-5');
    expect(one.docs[1200].text.length).toBe(1_572_864);
    // about 2.6 MiB of lines in arrays of about 64 KiB: a few dozen arrays, not one per line
    expect(batched.calls).toBeGreaterThan(20);
    expect(batched.calls).toBeLessThan(100);
  });

  it('gives each line as JSON.parse reads it, across the 1 MiB reads of one reused buffer', async () => {
    // lines of 1–3,000 characters of 1- to 4-byte UTF-8, so that reads end inside lines and inside characters
    const pieces = ['a', 'é', '漢', '👍', ' ', '"', '\\'];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const records = Array.from({ length: 1500 }, (_, i) => {
      let text = '';
      for (let n = 1 + (next() % 3000); n > 0; n--) text += pieces[next() % pieces.length];
      return { id: `r${i}`, text };
    });
    writeFileSync(at('mixed.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const batched = await drain(readDocumentBatches([at('mixed.jsonl')], ids), (b) => b);
    expect(batched.error).toBeNull();
    expect(batched.docs).toEqual(records);
  });

  it('hands over the documents before a malformed line, then fails naming the line', async () => {
    for (const [it, take] of [
      [readDocuments([at('bad.jsonl')], ids), (d: DatasetDocument) => [d]],
      [readDocumentBatches([at('bad.jsonl')], ids), (b: DatasetDocument[]) => b],
    ] as const) {
      const got = await drain(it as AsyncIterable<unknown>, take as (x: unknown) => DatasetDocument[]);
      expect(got.docs).toHaveLength(2000);
      expect(got.docs[1999].id).toBe('doc-1999');
      expect(got.error).toMatchObject({ code: 'INVALID_INPUT' });
      expect(String(got.error?.message)).toContain(`${at('bad.jsonl')}:2001: malformed JSON`);
    }
  });

  it('refuses a line over maxDocumentBytes after the documents before it', async () => {
    const got = await drain(readDocumentBatches([at('good.jsonl')], { ...ids, maxDocumentBytes: 1_000_000 }), (b) => b);
    expect(got.docs).toHaveLength(1200);
    expect(String(got.error?.message)).toContain(`${at('good.jsonl')}:1201: line longer than maxDocumentBytes`);
  });
});
