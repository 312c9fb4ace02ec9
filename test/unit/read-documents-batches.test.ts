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
import { jsonlLineError, parseJsonlLine, readDocumentBatches } from '../../src/node/read-documents.js';
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

  it('reads many short lines as each line alone would: marks, spaces, CRLF, blank lines, bad UTF-8', async () => {
    // what the reader must give line for line, however it reads them: parseJsonlLine of each line's bytes
    const kinds: Array<(i: number) => Uint8Array> = [
      (i) => utf8(JSON.stringify({ id: `k${i}`, text: `plain ${i} é 漢 👍` })),
      (i) => utf8(`\uFEFF${JSON.stringify({ id: `k${i}`, text: 'after a mark' })}`),
      (i) => utf8(` \t\uFEFF${JSON.stringify({ text: `spaces, then a mark ${i}` })}\r`),
      (i) => utf8(`${JSON.stringify({ id: i, text: 'crlf' })}\r`),
      () => utf8(''),
      () => utf8(' \t \r'),
      () => utf8('\uFEFF\uFEFF{"text":"two marks"}'), // the second is no white space to JSON: malformed
      () => utf8(' \uFEFF'), // a mark alone is no blank line
      () => utf8('{"text": "cut'),
      () => utf8('["not an object"]'),
      () => new Uint8Array([...utf8('{"text":"'), 0xc3, 0x28, ...utf8('"}')]), // not UTF-8
      // the first six kinds read (or are blank); each of the six after them fails its line
      () => utf8(JSON.stringify({ text: 'x'.repeat(900) })), // over the cap below
    ];
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const maxDocumentBytes = 800;
    for (let trial = 0; trial < 12; trial++) {
      const count = 500 + (next() % 2500);
      const bad = trial % 3 === 2 ? -1 : next() % count; // the line of a failing kind (none in every third file)
      const lines = Array.from({ length: count }, (_, i) => {
        if (i === bad) return kinds[6 + (next() % 6)](i);
        return kinds[next() % 6](i);
      });
      const bytes = concat(lines.flatMap((l) => [l, new Uint8Array([10])]));
      const file = at(`blocks-${trial}.jsonl`);
      writeFileSync(file, bytes);
      const got = await drain(readDocumentBatches([file], { ...ids, maxDocumentBytes }), (b) => b);
      // the reference: each line alone
      const want: DatasetDocument[] = [];
      let wantError: string | null = null;
      for (let i = 0; i < lines.length && wantError === null; i++) {
        if (lines[i].length > maxDocumentBytes) {
          wantError = `${file}:${i + 1}: line longer than maxDocumentBytes (${maxDocumentBytes} bytes)`;
          break;
        }
        try {
          const doc = parseJsonlLine(lines[i], {
            textField: 'text',
            idField: 'id',
            optionalId: true,
            maxBytes: maxDocumentBytes,
          });
          if (doc) want.push({ id: doc.id ?? `${file}:${i + 1}`, text: doc.text });
        } catch (e) {
          wantError = `${file}:${i + 1}: ${jsonlLineError(e)?.detail}`;
        }
      }
      expect(got.docs).toEqual(want);
      if (wantError === null) expect(got.error).toBeNull();
      else expect(got.error?.message).toBe(`The input is not valid: ${wantError}`);
      expect(bad === -1 ? 0 : 1).toBe(wantError === null ? 0 : 1);
    }
  });
});

const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
