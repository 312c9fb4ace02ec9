/**
 * A reader of plain `multipart/form-data` bodies — the form exactly as browsers, undici and Deno write a `FormData`:
 * each part a Content-Disposition `form-data; name="…"` (and `; filename="…"` for a file), perhaps a Content-Type,
 * then its bytes up to the next delimiter. Such a body is read in a few passes of `indexOf`, the file a view of the
 * body, where the platform's parser (`Response.formData()`) copies a 6 MB upload four or five times on the request
 * thread. Anything else — another header, a percent sign or a non-ASCII byte in a name, the boundary inside a part, a preamble
 * or an epilogue — is left to the platform's parser (`null`), so every body gets the platform's answer: this reader
 * only says it sooner where there is nothing to decide.
 */

import { finish, PAUSE, type Steps } from '../util/steps.js';

/**
 * One part of a form: a field's text, or a file's name, media type (as `File.type` has it: lower-cased) and bytes.
 * @example const part: FormPart = { name: 'include_text', value: 'false' }
 */
export type FormPart =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly file: FormFile };

/**
 * A file of a form: its name, media type (as `File.type` has it: lower-cased), size, and its bytes when asked.
 * @example const bytes = await part.file.bytes()
 */
export interface FormFile {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  bytes(): Promise<Uint8Array>;
}

/** Bytes searched for a delimiter between two pauses (well under a millisecond of `indexOf`). */
export const SCAN_BYTES = 256 * 1024;

const CR = 0x0d;
const LF = 0x0a;
/** A header line of a plain part: printable ASCII only. */
const PRINTABLE = /^[\x20-\x7e]*$/;
const DISPOSITION = /^form-data; name="([^"%]*)"(?:; filename="([^"%]*)")?$/;
const MEDIA_TYPE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const ascii = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8'); // as the platform decodes a field: a byte order mark dropped, bad bytes U+FFFD

/**
 * The parts of `raw` when it is a plain form for `boundary` (see the module's comment), else `null`: the platform's
 * parser then reads it, and gives the same parts where this one gives any.
 * @example readPlainForm(raw, 'X-BOUNDARY') // [{ name: 'file', file: { name: 'a.pdf', type: 'application/pdf', bytes } }]
 */
export function readPlainForm(raw: Uint8Array, boundary: string): FormPart[] | null {
  return finish(plainFormSteps(raw, boundary));
}

/**
 * {@link readPlainForm} as steps that pause after every {@link SCAN_BYTES} searched for a delimiter, so that a large
 * form is read in slices between turns of the event loop (`sliced(plainFormSteps(raw, b), 3, turn)`).
 * @example const parts = finish(plainFormSteps(raw, 'X-BOUNDARY'))
 */
export function* plainFormSteps(raw: Uint8Array, boundary: string): Steps<FormPart[] | null> {
  if (!/^[\x21-\x7e]{1,70}$/.test(boundary)) return null;
  const dashed = bytesOf(`--${boundary}`);
  const bare = dashed.subarray(2);
  if (!startsWith(raw, dashed, 0)) return null;
  const parts: FormPart[] = [];
  let at = dashed.length;
  for (let count = 0; count <= raw.length; count++) {
    // after a delimiter: `--` and the end (perhaps CRLFs), or CRLF and a part
    if (raw[at] === 0x2d && raw[at + 1] === 0x2d) return onlyLineBreaks(raw, at + 2) ? parts : null;
    if (raw[at] !== CR || raw[at + 1] !== LF) return null;
    at += 2;
    const head = readHeaders(raw, at);
    if (!head) return null;
    at = head.end;
    const next = yield* nextDelimiter(raw, at, bare);
    if (next < 0) return null;
    const body = raw.subarray(at, next - 4);
    if (head.filename === null) parts.push({ name: head.name, value: utf8.decode(body) });
    else {
      // a file part without a media type is text/plain to the platform's parser
      const type = (head.contentType ?? 'text/plain').toLowerCase();
      // a view of the body, not a copy: the body is read for this request alone, and whatever hands the file to
      // another thread copies it there (the document threads do)
      const file = { name: head.filename, type, size: body.length, bytes: async () => body };
      parts.push({ name: head.name, file });
    }
    at = next + bare.length;
  }
  return null;
}

/** The headers of a part from `at`: its name, file name and media type, and where its bytes begin; null unless plain. */
function readHeaders(
  raw: Uint8Array,
  at: number,
): { name: string; filename: string | null; contentType: string | null; end: number } | null {
  let disposition: RegExpExecArray | null = null;
  let contentType: string | null = null;
  for (let lines = 0; lines < 3; lines++) {
    const eol = raw.indexOf(CR, at);
    if (eol < 0 || raw[eol + 1] !== LF || eol - at > 2048) return null;
    if (eol === at)
      return disposition ? { name: disposition[1], filename: disposition[2] ?? null, contentType, end: at + 2 } : null;
    const line = ascii.decode(raw.subarray(at, eol));
    if (!PRINTABLE.test(line)) return null;
    const colon = line.indexOf(': ');
    const key = colon > 0 ? line.slice(0, colon).toLowerCase() : '';
    const value = line.slice(colon + 2);
    if (key === 'content-disposition' && !disposition) {
      disposition = DISPOSITION.exec(value);
      if (!disposition) return null;
    } else if (key === 'content-type' && contentType === null && MEDIA_TYPE.test(value)) contentType = value;
    else return null;
    at = eol + 2;
  }
  return null;
}

/**
 * Where the delimiter after a part's bytes from `at` begins its boundary (`--` and CRLF before it), or −1. The
 * platform's parser ends a part at the first occurrence of the boundary itself, so one that is not a delimiter there
 * is −1 here too (the platform decides).
 */
function* nextDelimiter(raw: Uint8Array, at: number, bare: Uint8Array): Steps<number> {
  const first = bare[0];
  for (let from = at; from < raw.length; ) {
    // a window of the body: its first byte's occurrences in it (the boundary may run past its end)
    const end = Math.min(raw.length, from + SCAN_BYTES);
    const window = raw.subarray(0, end);
    for (let i = window.indexOf(first, from); i >= 0; i = window.indexOf(first, i + 1)) {
      if (!startsWith(raw, bare, i)) continue;
      const delimited =
        i - 4 >= at && raw[i - 4] === CR && raw[i - 3] === LF && raw[i - 2] === 0x2d && raw[i - 1] === 0x2d;
      return delimited ? i : -1;
    }
    from = end;
    if (from < raw.length) yield PAUSE;
  }
  return -1;
}

function onlyLineBreaks(raw: Uint8Array, at: number): boolean {
  if ((raw.length - at) % 2 !== 0) return false;
  for (let i = at; i < raw.length; i += 2) if (raw[i] !== CR || raw[i + 1] !== LF) return false;
  return true;
}

function startsWith(raw: Uint8Array, prefix: Uint8Array, at: number): boolean {
  if (at + prefix.length > raw.length) return false;
  for (let i = 0; i < prefix.length; i++) if (raw[at + i] !== prefix[i]) return false;
  return true;
}

function bytesOf(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
