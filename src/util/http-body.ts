/**
 * Reading an upstream answer's body with a size cap: a model server, a remote corpus engine or a broken proxy can
 * answer 200 with a body of any size, or stream one without end, and `Response.text()` would buffer all of it. The
 * cap is checked against a declared `Content-Length` before anything is read, then while the body streams; past it
 * the read stops, the stream is cancelled and {@link BodyTooLarge} is thrown.
 */

import { concatBytes } from './bytes.js';

/** Thrown by {@link readTextCapped} when an answer's body is larger than the cap. */
export class BodyTooLarge extends Error {
  constructor(
    readonly bytes: number,
    readonly cap: number,
    readonly declared: boolean,
  ) {
    super(declared ? `a body of ${bytes} bytes declared (the cap is ${cap})` : `a body over ${cap} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * The body of `res` as UTF-8 text, refusing more than `maxBytes`.
 * @throws BodyTooLarge when the declared or streamed body passes the cap (the stream is cancelled)
 * @example const text = await readTextCapped(await fetch(url), 16 * 1024 * 1024)
 */
export async function readTextCapped(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(declared, maxBytes, true);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(size, maxBytes, false);
    }
    parts.push(value);
  }
  return new TextDecoder().decode(concatBytes(parts, size));
}
