/**
 * `score` of content sent with the request (src/services/score/content.ts) instead of a registered work's
 * `work_hash`: a text, Markdown or a file (DOCX, EPUB; bytes or base64) scores exactly as the same bytes registered and
 * scored by their hash (`work_id` null, `extraction` for a file, its spans in the extracted text; Markdown's spans in
 * the Markdown sent); what does not go together, and files over `maxFileBytes`, are typed errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine, type ScoreResult } from '../../src/index.js';
import { extractDocument } from '../../src/library.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';

const CHAPTERS = persuasion(3);
/** 600 words of chapter 2, copied into a dataset the model is declared to have trained on. */
const COPIED = CHAPTERS[1].text.split(/\s+/).slice(100, 700).join(' ');
const MODEL = 'meta/llama-7b';
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
/** Words separated by single spaces: formats and chunks break lines where the copy did not. */
const norm = (s: string) => s.split(/\s+/).join(' ');
const err = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );
/** A result without what differs between a registered work and the same bytes sent. */
const scored = ({ work_id: _, extraction: __, ...rest }: ScoreResult) => rest;

describe('score of content sent with the request', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine();
    await engine.addDataset({ id: 'copies', models: [MODEL] }, [{ id: 'ch2', text: COPIED }]);
  });

  it('scores a text as the registered text is scored: the same result, no work_id', async () => {
    const content = CHAPTERS.map((c) => c.text).join('\n\n');
    const w = await engine.registerWork({ content, owner: 'press' });
    const byHash = await engine.score({ work_hash: w.work_hash, target_model: MODEL, jurisdiction: 'US' });
    const sent = await engine.score({ content, target_model: MODEL, jurisdiction: 'US' });
    expect(byHash.score).toBeGreaterThan(50);
    expect(sent.work_id).toBeNull();
    expect(sent.extraction).toBeUndefined();
    expect(sent.work_hash).toBe(w.work_hash);
    expect(scored(sent)).toEqual(scored(byHash));
    const m = sent.evidence.matches[0];
    expect(norm(COPIED)).toContain(norm(content.slice(m.query_start, m.query_end)));
  });

  it('scores a file by its extracted text, as the registered file: bytes and base64 alike', async () => {
    const docx = buildDocx(CHAPTERS);
    const w = await engine.registerWork({ content: docx, content_type: 'docx', owner: 'press' });
    const byHash = await engine.score({ work_hash: w.work_hash, target_model: MODEL, jurisdiction: 'DE' });
    const bytes = await engine.score({
      content: docx,
      content_type: 'docx',
      include_text: true,
      target_model: MODEL,
      jurisdiction: 'DE',
    });
    const b64 = await engine.score({
      content: base64(docx),
      content_encoding: 'base64',
      content_type: 'docx',
      target_model: MODEL,
      jurisdiction: 'DE',
    });
    expect(scored(bytes)).toEqual(scored(byHash));
    expect(scored(b64)).toEqual(scored(byHash));
    expect(bytes.extraction).toMatchObject({ format: 'docx', bytes: docx.length });
    expect(b64.extraction?.text).toBeUndefined();
    const { text } = bytes.extraction!;
    expect(text).toBe(await extractDocument(docx, 'docx').then((x) => x.text));
    // every span points into the extracted text
    for (const m of bytes.evidence.matches)
      expect(norm(COPIED)).toContain(norm(text!.slice(m.query_start, m.query_end)));
    for (const c of bytes.evidence.chunks) expect(c.end).toBeLessThanOrEqual(text!.length);
  });

  it("maps Markdown's spans back into the Markdown sent", async () => {
    const markdown = `# Persuasion\n\n${CHAPTERS[1].text.replace(/\n\s*\n/g, '\n\n> ')}`;
    const r = await engine.score({
      content: markdown,
      content_type: 'markdown',
      target_model: MODEL,
      jurisdiction: 'US',
    });
    expect(r.evidence.matches.length).toBeGreaterThan(0);
    const words = (s: string) =>
      s
        .replace(/[>#*_]/g, ' ')
        .split(/\s+/)
        .filter(Boolean)
        .join(' ');
    for (const m of r.evidence.matches)
      expect(words(COPIED)).toContain(words(markdown.slice(m.query_start, m.query_end)));
    const last = r.evidence.chunks.at(-1)!;
    expect(last.end).toBeLessThanOrEqual(markdown.length);
    expect(last.end).toBeGreaterThan(markdown.length - 10);
  });

  it('refuses what does not go together, and files over maxFileBytes, with typed errors', async () => {
    const epub = buildEpub(CHAPTERS.slice(0, 1));
    const base = { target_model: MODEL, jurisdiction: 'US' };
    const hash = `sha256:${'0'.repeat(64)}`;
    const cases: Array<[unknown, object | undefined, string, RegExp]> = [
      [
        { ...base, work_hash: hash, content: 'text' },
        undefined,
        'INVALID_INPUT',
        /give only one of work_hash, content/,
      ],
      [{ ...base }, undefined, 'INVALID_INPUT', /work_hash/],
      [
        { ...base, work_hash: hash, content_type: 'epub' },
        undefined,
        'INVALID_INPUT',
        /content_type: goes with content/,
      ],
      [{ ...base, content: 'a text', include_text: true }, undefined, 'INVALID_INPUT', /include_text/],
      [{ ...base, content: '   ' }, undefined, 'INVALID_INPUT', /content: is blank/],
      [{ ...base, content: 'a text', content_type: 'rtf' }, undefined, 'INVALID_INPUT', /content_type: must be one of/],
      [{ ...base, content: epub, content_type: 'text' }, undefined, 'INVALID_INPUT', /takes text/],
      [
        { ...base, content: epub, content_type: 'epub' },
        { maxFileBytes: epub.length - 1 },
        'PAYLOAD_TOO_LARGE',
        /larger/,
      ],
      [
        { ...base, content: base64(epub), content_encoding: 'base64', content_type: 'epub' },
        { maxFileBytes: epub.length - 1 },
        'PAYLOAD_TOO_LARGE',
        /larger/,
      ],
      [{ ...base, content: epub, content_type: 'epub' }, { maxFileBytes: 0 }, 'INVALID_OPTIONS', /maxFileBytes/],
      [{ ...base, content: epub.subarray(0, 300), content_type: 'epub' }, undefined, 'INVALID_INPUT', /EPUB|zip/i],
    ];
    for (const [i, [request, options, code, message]] of cases.entries()) {
      const e = await err(engine.score(request as never, options));
      expect(e, `case ${i}`).toMatchObject({ code, message: expect.stringMatching(message) });
    }
    // at the limit it is taken
    const ok = await engine.score({ ...base, content: epub, content_type: 'epub' }, { maxFileBytes: epub.length });
    expect(ok.extraction?.bytes).toBe(epub.length);
  });

  it('holds analyze and registerWork to maxFileBytes too', async () => {
    const docx = buildDocx(CHAPTERS.slice(0, 1));
    const small = { maxFileBytes: docx.length - 1 };
    const tooLarge = expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await err(engine.analyze({ content: docx, content_type: 'docx' }, small))).toEqual(tooLarge);
    expect(await err(engine.registerWork({ content: docx, content_type: 'docx', owner: 'o' }, small))).toEqual(
      tooLarge,
    );
    const bad = expect.objectContaining({ code: 'INVALID_OPTIONS' });
    expect(await err(engine.analyze({ content: docx, content_type: 'docx' }, { maxFileBytes: 1.5 }))).toEqual(bad);
    const r = await engine.analyze({ content: docx, content_type: 'docx' }, { maxFileBytes: docx.length });
    expect(r.extraction?.bytes).toBe(docx.length);
  });
});
