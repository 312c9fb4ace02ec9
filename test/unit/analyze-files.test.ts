/**
 * `analyze` of a file (EPUB, PDF, DOCX): the chapters of a book built into each format here, one of them copied into
 * an exact dataset — the match's spans point into the extracted text, `extraction` says how it was extracted, the
 * work hash is the file's; bytes and base64 give the same answer; what does not belong to a file, or to a text, is
 * refused with a typed error.
 */
import { createHash } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import type { Engine } from '../../src/engine.js';
import { ANALYSIS_RESULT_SCHEMA } from '../../src/services/analyze/schema.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';
import { buildPdf, layoutBook } from '../fixtures/pdf.js';

const CHAPTERS = persuasion(3);
const COPIED = CHAPTERS[1].text.split(/\s+/).slice(200, 330).join(' ');
const valid = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(ANALYSIS_RESULT_SCHEMA);
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

describe('analyze of a file', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset({ id: 'copies', models: ['meta/llama-7b'] }, [{ id: 'ch2-excerpt', text: COPIED }]);
  });

  const files = {
    epub: () => buildEpub(CHAPTERS),
    docx: () => buildDocx(CHAPTERS),
    pdf: () => {
      const book = layoutBook('Persuasion', CHAPTERS);
      return buildPdf(book.pages, { outline: book.chapters, title: 'Persuasion' });
    },
  };

  for (const [format, build] of Object.entries(files) as Array<[keyof typeof files, () => Uint8Array]>) {
    it(`${format}: spans in the extracted text, the extraction described, the file's hash`, async () => {
      const bytes = build();
      const r = await engine.analyze({ content: bytes, content_type: format, include_text: true });
      expect(valid(r), JSON.stringify(valid.errors)).toBe(true);
      const x = r.extraction!;
      expect(x).toMatchObject({ format, bytes: bytes.length });
      expect(x.characters).toBe(x.text!.length);
      expect(x.sections.length).toBeGreaterThanOrEqual(CHAPTERS.length);
      expect(r.work_hash).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      const m = r.matches.find((y) => y.dataset_id === 'copies')!;
      expect(m).toBeDefined();
      // the match spans the copied words in the extracted text, whatever line breaks the format put between them
      const norm = (s: string) => s.split(/\s+/).join(' ');
      expect(norm(COPIED)).toContain(norm(x.text!.slice(m.query_start, m.query_end)));
      expect(m.tokens).toBeGreaterThanOrEqual(100);
      expect(r.confidence).toBeGreaterThanOrEqual(50);
      // base64 over JSON gives the same answer; without include_text the text stays out
      const again = await engine.analyze({ content: base64(bytes), content_encoding: 'base64', content_type: format });
      expect(again.extraction?.text).toBeUndefined();
      expect(again.matches).toEqual(r.matches);
      expect(again.work_hash).toBe(r.work_hash);
    });
  }

  it('refuses what does not go with a file or a text, and a broken file, with typed errors', async () => {
    const err = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const epub = buildEpub(CHAPTERS);
    const cases: Array<[unknown, string, RegExp]> = [
      [{ content: base64(epub), content_type: 'epub' }, 'INVALID_INPUT', /content_encoding "base64"/],
      [
        { content: 'not base64!', content_encoding: 'base64', content_type: 'epub' },
        'INVALID_INPUT',
        /not valid base64/,
      ],
      // padding past a whole group: atob throws on it, so the check must refuse it first
      [{ content: 'QUJD==', content_encoding: 'base64', content_type: 'pdf' }, 'INVALID_INPUT', /not valid base64/],
      [{ content: 'plain text', content_encoding: 'base64', content_type: 'text' }, 'INVALID_INPUT', /takes text/],
      [{ content: epub, content_type: 'text' }, 'INVALID_INPUT', /takes text/],
      [{ content: 'plain text', content_type: 'text', include_text: true }, 'INVALID_INPUT', /include_text/],
      [{ content: new Uint8Array(0), content_type: 'pdf' }, 'INVALID_INPUT', /empty/],
      [{ content: epub.subarray(0, 500), content_type: 'epub' }, 'INVALID_INPUT', /EPUB|zip/i],
      [{ content: new Uint8Array(64 * 1024 * 1024 + 1), content_type: 'pdf' }, 'PAYLOAD_TOO_LARGE', /64 MiB/],
    ];
    for (const [i, [request, code, message]] of cases.entries()) {
      const e = await err(engine.analyze(request as never));
      expect(e, `case ${i}`).toMatchObject({ code, message: expect.stringMatching(message) });
    }
  });
});
