/**
 * Reading a request body while counting its bytes: a missing or false `Content-Length` cannot get past the
 * limit, and a body with a declared length is read into one buffer of that size (no second copy). A large body is
 * read in turns of the event loop: after every {@link TURN_BYTES} the reader waits for its account's turn
 * (`ownerTurn`), so twenty uploads of one account arriving at once take one account's share of the thread, and
 * another account's requests are read and answered between their chunks.
 */
import { concatBytes } from '../../library.js';
import type { Route } from '../context.js';
import { declaredLength, tooLarge } from './limits.js';

/**
 * Bytes of a body read between two turns (256 KiB: four socket reads of 64 KiB, about a tenth of a millisecond to
 * copy); a body smaller than this is read without waiting.
 */
export const TURN_BYTES = 256 * 1024;

/**
 * Step: the body's bytes (empty for a route that reads none), 413 as soon as they pass `limit` (saying `reason`);
 * `turn` is awaited after every {@link TURN_BYTES} read (the caller's account's turn of the event loop).
 * @example const raw = await readBody(request, found.route.body, limit, undefined, turnOf('acct_1'))
 */
export async function readBody(
  request: Request,
  kind: Route['body'],
  limit: number,
  reason?: string,
  turn?: () => Promise<void>,
): Promise<Uint8Array> {
  if (!kind || !request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  // with a declared length the bytes go straight into one buffer: no list of chunks copied again
  // at the end, which halves the memory a large upload takes while it is read
  const declared = declaredLength(request);
  const into = declared !== null && declared > 0 && declared <= limit ? new Uint8Array(declared) : null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let filled = 0; // bytes in `into`; once a chunk does not fit, the rest goes to `chunks`
  let nextTurn = TURN_BYTES;
  for (;;) {
    if (turn !== undefined && total >= nextTurn) {
      nextTurn = total + TURN_BYTES;
      await turn();
    }
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit, reason);
    }
    if (into !== null && chunks.length === 0 && filled + value.byteLength <= into.length) {
      into.set(value, filled);
      filled += value.byteLength;
    } else chunks.push(value);
    total += value.byteLength;
  }
  if (into === null) return concatBytes(chunks, total);
  // a body shorter or longer than its Content-Length: keep what came, in order
  if (chunks.length === 0) return filled === into.length ? into : into.subarray(0, filled);
  return concatBytes([into.subarray(0, filled), ...chunks], total);
}
