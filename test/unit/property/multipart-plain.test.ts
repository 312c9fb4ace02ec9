/**
 * The reader of plain multipart forms (src/http/multipart-plain.ts) against the platform's parser
 * (`Response.formData()`): on seeded random forms as the platform writes them (fields and files whose bytes hold line
 * breaks, dashes and near-copies of the boundary) it reads every one, with the same parts; on the same bodies altered
 * (a preamble, an epilogue, another header, header names in other cases, no media type, the boundary inside a file, a
 * name with a percent sign or non-ASCII, a cut) it gives the same parts or leaves the body to the platform (null) —
 * never other parts, and never parts where the platform refuses the body.
 */
import { describe, expect, it } from 'vitest';
import { type FormPart, readPlainForm } from '../../../src/http/multipart-plain.js';
import { prng } from '../../reference/core.js';

type Rnd = () => number;
const pick = <T>(rnd: Rnd, xs: readonly T[]): T => xs[(rnd() * xs.length) | 0];
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const NAMES = ['include_text', 'metadata', 'title', 'a', 'file', 'content_type', 'x-y.z', 'naïve', 'per%cent', 'q"t'];

/** The start of every boundary the platform (undici) writes. */
const PLATFORM_BOUNDARY = '----formdata-undici-0';

/** Random bytes, with runs of line breaks, dashes and pieces of `boundary` mixed in. */
function bytes(rnd: Rnd, boundary: string): Uint8Array {
  const out: number[] = [];
  for (let n = (rnd() * 400) | 0; n > 0; n--) {
    const r = rnd();
    if (r < 0.1) out.push(...latin1('\r\n--'));
    else if (r < 0.15) out.push(...latin1(`\r\n--${boundary.slice(0, 1 + ((rnd() * (boundary.length - 1)) | 0))}`));
    else if (r < 0.2) out.push(...latin1('\r\n'));
    else if (r < 0.25) out.push(0xef, 0xbb, 0xbf);
    else out.push((rnd() * 256) | 0);
  }
  return Uint8Array.from(out);
}

/** A random form, serialised by the platform: its body and Content-Type. */
async function randomForm(rnd: Rnd): Promise<{ raw: Uint8Array; type: string }> {
  const form = new FormData();
  for (let n = (rnd() * 4) | 0; n >= 0; n--) {
    const name = pick(rnd, NAMES);
    if (rnd() < 0.4) {
      const type = pick(rnd, ['', 'application/pdf', 'Text/Plain', 'application/epub+zip', 'image/x-ÿ']);
      const filename = pick(rnd, ['book.pdf', 'a b.epub', '', 'notes.TXT', 'naïve.docx', 'q"t.pdf', 'per%cent.txt']);
      form.append(name, new Blob([bytes(rnd, PLATFORM_BOUNDARY) as Uint8Array<ArrayBuffer>], { type }), filename);
    } else {
      form.append(name, new TextDecoder().decode(bytes(rnd, PLATFORM_BOUNDARY)));
    }
  }
  const request = new Request('http://form.test/', { method: 'POST', body: form });
  return { raw: new Uint8Array(await request.arrayBuffer()), type: request.headers.get('content-type') ?? '' };
}

/** The body altered in one of the ways a hand-written or hostile client may write it. */
function altered(rnd: Rnd, raw: Uint8Array, boundary: string): Uint8Array {
  const text = new TextDecoder('latin1').decode(raw);
  const at = (rnd() * text.length) | 0;
  // within the last part's bytes, mostly
  const tail = Math.max(0, text.length - boundary.length - 8 - ((rnd() * 200) | 0));
  const changes: Array<() => string> = [
    () => `\r\n${text}`,
    () => `preamble\r\n${text}`,
    () => `${text}epilogue`,
    () => `${text}\r\n\r\n`,
    () => text.replace(/--\r\n$/, '\r\n'),
    () => text.slice(0, at),
    () => text.replace('Content-Disposition', 'content-disposition'),
    () => text.replace('Content-Disposition: ', 'Content-Disposition:'),
    () => text.replace('Content-Disposition: ', 'Content-Disposition:  '),
    () => text.replace(/\r\nContent-Type: [^\r]*/, ''),
    () => text.replace(/\r\nContent-Type: [^\r]*/, '\r\nContent-Type: Application/PDF '),
    () => text.replaceAll(/\r\nContent-Type: [^\r]*/g, '\r\nContent-Type: Application/PDF'),
    () => text.replace(/\r\n\r\n/, '\r\nContent-Transfer-Encoding: base64\r\n\r\n'),
    () => text.replace(/\r\n\r\n/, '\r\nX-Other: 1\r\n\r\n'),
    () => text.replace('; filename="', '; filename*="'),
    () => text.replace('name="', 'name="%22'),
    () => text.replace('name="', 'name="é'),
    () => `${text.slice(0, at)}${boundary}${text.slice(at)}`,
    () => `${text.slice(0, tail)}${boundary}${text.slice(tail)}`,
    () => `${text.slice(0, tail)}--${boundary}${text.slice(tail)}`,
    () => `${text.slice(0, at)}\r\n--${boundary}${text.slice(at)}`,
  ];
  return latin1(pick(rnd, changes)());
}

/** The parts the platform reads, or null where it refuses the body. */
async function platformParts(raw: Uint8Array, type: string): Promise<FormPart[] | null> {
  let form: FormData;
  try {
    form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch {
    return null;
  }
  return [...form].map(([name, v]) =>
    typeof v === 'string'
      ? { name, value: v }
      : {
          name,
          file: { name: v.name, type: v.type, size: v.size, bytes: async () => new Uint8Array(await v.arrayBuffer()) },
        },
  );
}

/** Parts as plain data, bytes read: what two readers must agree on. */
async function settled(parts: FormPart[]) {
  return Promise.all(
    parts.map(async (p) =>
      'file' in p
        ? { name: p.name, file: p.file.name, type: p.file.type, size: p.file.size, bytes: [...(await p.file.bytes())] }
        : { name: p.name, value: p.value },
    ),
  );
}

const boundaryOf = (type: string) => /boundary=(.+)$/.exec(type)![1];

describe('readPlainForm = the platform where it reads a form', () => {
  it('reads every form the platform writes, with the same parts', async () => {
    const rnd = prng(56);
    let read = 0;
    for (let i = 0; i < 150; i++) {
      const { raw, type } = await randomForm(rnd);
      const plain = readPlainForm(raw, boundaryOf(type));
      // a name or file name the platform escapes (%22) or writes in UTF-8 is left to it
      const escaped = /name="[^"]*(%|[^\x20-\x7e])/.test(new TextDecoder('latin1').decode(raw));
      if (escaped) continue;
      expect(plain, `form ${i}`).not.toBeNull();
      expect(await settled(plain!)).toEqual(await settled((await platformParts(raw, type))!));
      read++;
    }
    expect(read).toBeGreaterThan(30);
  });

  it('gives the same parts or none on altered forms, never parts the platform refuses', async () => {
    const rnd = prng(57);
    let read = 0;
    let left = 0;
    for (let i = 0; i < 400; i++) {
      const { raw, type } = await randomForm(rnd);
      const boundary = boundaryOf(type);
      const body = altered(rnd, raw, boundary);
      const plain = readPlainForm(body, boundary);
      if (plain === null) {
        left++;
        continue;
      }
      read++;
      const platform = await platformParts(body, type);
      expect(platform, `altered form ${i}`).not.toBeNull();
      expect(await settled(plain), `altered form ${i}`).toEqual(await settled(platform!));
    }
    // both kinds met: the comparison above ran, and the reader declined some bodies
    expect(read).toBeGreaterThan(20);
    expect(left).toBeGreaterThan(20);
  });

  it('leaves a boundary it does not take to the platform', () => {
    const raw = latin1('--a b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--a b--');
    expect(readPlainForm(raw, 'a b')).toBeNull();
    expect(readPlainForm(latin1('--ab--'), 'ab')).toEqual([]);
  });
});
