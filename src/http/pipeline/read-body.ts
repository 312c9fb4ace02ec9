/**
 * Reading a request body while counting its bytes: a missing or false `Content-Length` cannot get past the
 * limit, and a body with a declared length is read into one buffer of that size (no second copy). A large body is
 * read in turns of the event loop: after every {@link TURN_BYTES} the reader waits for its account's turn
 * (`ownerTurn`), so twenty uploads of one account arriving at once take one account's share of the thread, and
 * another account's requests are read and answered between their chunks.
 *
 * A body must also keep coming ({@link BodyDeadlines}): a stretch of `idleMs` without a byte, or, after its first
 * `graceMs`, an average below `minBytesPerSecond`, ends it with 408 `REQUEST_TIMEOUT` — so a client that declares a
 * large body and sends it a byte a second holds its account's upload place for seconds, not for the socket's five
 * minutes (Apache's `mod_reqtimeout` does the same with `body=20,MinRate=500`; nginx's `client_body_timeout` bounds
 * the stretch between two reads). A body may be arriving slowly for one of two reasons: a slow network, which these
 * bounds leave far behind (4 KiB/s is a 33 kbit/s modem), or a client that means to hold the server.
 */
import { concatBytes, TrainprintError } from '../../library.js';
import type { Route } from '../context.js';
import { declaredLength, tooLarge } from './limits.js';

/**
 * Bytes of a body read between two turns (256 KiB: four socket reads of 64 KiB, about a tenth of a millisecond to
 * copy); a body smaller than this is read without waiting.
 */
export const TURN_BYTES = 256 * 1024;

/**
 * How slowly a body may arrive (`createHandler(engine, { bodyDeadlines })`); past either bound the request is
 * answered 408 `REQUEST_TIMEOUT` and the rest of its body is not read.
 * @example createHandler(engine, { bodyDeadlines: { idleMs: 5_000, minBytesPerSecond: 16_384 } })
 */
export interface BodyDeadlines {
  /** The longest stretch without a byte of the body, in ms. @default 10000 */
  readonly idleMs?: number;
  /** The least average rate of a body once its first `graceMs` are over, in bytes per second (0: none). @default 4096 */
  readonly minBytesPerSecond?: number;
  /** How long a body may take before its average rate is held to `minBytesPerSecond`, in ms. @default 10000 */
  readonly graceMs?: number;
}

/** The defaults of {@link BodyDeadlines}. */
export const BODY_DEADLINES: Required<BodyDeadlines> = Object.freeze({
  idleMs: 10_000,
  minBytesPerSecond: 4096,
  graceMs: 10_000,
});

/**
 * {@link BodyDeadlines} checked (INVALID_OPTIONS naming the option), the defaults filled in.
 * @example bodyDeadlinesOf({ idleMs: 5000 }) // { idleMs: 5000, minBytesPerSecond: 4096, graceMs: 10000 }
 */
export function bodyDeadlinesOf(given: BodyDeadlines | undefined): Required<BodyDeadlines> {
  const out = { ...BODY_DEADLINES };
  for (const name of ['idleMs', 'minBytesPerSecond', 'graceMs'] as const) {
    const v = given?.[name];
    if (v === undefined) continue;
    const min = name === 'minBytesPerSecond' ? 0 : 1;
    if (!Number.isInteger(v) || v < min || v > 3_600_000)
      throw new TrainprintError('INVALID_OPTIONS', `bodyDeadlines.${name} must be an integer from ${min} to 3600000`);
    out[name] = v;
  }
  return out;
}

/** What {@link readBody} does beside reading: the account's turns, the body's deadlines, a watch on each chunk. */
export interface ReadPace {
  /** Awaited after every {@link TURN_BYTES} read (the caller's account's turn of the event loop). */
  readonly turn?: () => Promise<void>;
  /** How slowly the body may come (408 past them). @default BODY_DEADLINES */
  readonly deadlines?: Required<BodyDeadlines>;
  /** Sees every chunk as it is read, and may refuse the body by throwing (an item count: src/http/body-items.ts). */
  readonly watch?: (chunk: Uint8Array) => void;
}

/**
 * Step: the body's bytes (empty for a route that reads none), 413 as soon as they pass `limit` (saying `reason`),
 * 408 when they come too slowly ({@link BodyDeadlines}); `pace.turn` is awaited after every {@link TURN_BYTES} read.
 * @example const raw = await readBody(request, found.route.body, limit, undefined, { turn: turnOf('acct_1') })
 */
export async function readBody(
  request: Request,
  kind: Route['body'],
  limit: number,
  reason?: string,
  pace: ReadPace = {},
): Promise<Uint8Array> {
  if (!kind || !request.body) return new Uint8Array(0);
  const { turn, watch } = pace;
  const reader = request.body.getReader();
  const clock = new BodyClock(pace.deadlines ?? BODY_DEADLINES);
  // with a declared length the bytes go into one buffer of that length: no list of chunks copied again at the end,
  // which halves the memory a large upload takes while it is read. The buffer is made once half of the body has
  // come, not at its first byte: a client that declares 86 MiB and sends a trickle holds what it sent, not 86 MiB
  // (many such bodies at once, each within its account's upload places, would otherwise hold the declared sizes)
  const declared = declaredLength(request);
  const wanted = declared !== null && declared > 0 && declared <= limit ? declared : null;
  let into: Uint8Array | null = null;
  const chunks = new Gathered();
  let total = 0;
  let filled = 0; // bytes in `into`; once a chunk does not fit, the rest goes to `chunks`
  let nextTurn = TURN_BYTES;
  for (;;) {
    if (turn !== undefined && total >= nextTurn) {
      nextTurn = total + TURN_BYTES;
      await turn();
    }
    const { done, value } = await clock.read(reader, total);
    if (done) break;
    if (total + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit, reason);
    }
    if (watch !== undefined) {
      try {
        watch(value);
      } catch (e) {
        await reader.cancel().catch(() => undefined);
        throw e;
      }
    }
    if (into === null && wanted !== null && total <= wanted && (total + value.byteLength) * 2 >= wanted) {
      into = new Uint8Array(wanted);
      for (const c of chunks.take()) {
        into.set(c, filled);
        filled += c.byteLength;
      }
    }
    if (into !== null && chunks.empty && filled + value.byteLength <= into.length) {
      into.set(value, filled);
      filled += value.byteLength;
    } else chunks.push(value);
    total += value.byteLength;
  }
  if (into === null) return concatBytes(chunks.take(), total);
  // a body shorter or longer than its Content-Length: keep what came, in order
  if (chunks.empty) return filled === into.length ? into : into.subarray(0, filled);
  return concatBytes([into.subarray(0, filled), ...chunks.take()], total);
}

/** Chunks under this size are copied into pages by {@link Gathered}; larger ones are kept as they came. */
export const GATHER_BELOW = 4096;
/** Bytes of one page of {@link Gathered}. */
export const GATHER_PAGE = 64 * 1024;

/**
 * The chunks of a body read so far, small ones copied into pages of {@link GATHER_PAGE}: a body sent in tiny chunks
 * (a byte a chunk) holds about its own size, not an object per chunk.
 */
export class Gathered {
  readonly #parts: Uint8Array[] = [];
  #page: Uint8Array | null = null;
  #filled = 0;

  /** Nothing gathered. */
  get empty(): boolean {
    return this.#parts.length === 0;
  }

  /** How many parts hold what was gathered (pages and large chunks). */
  get parts(): number {
    return this.#parts.length;
  }

  push(chunk: Uint8Array): void {
    if (chunk.byteLength >= GATHER_BELOW) {
      this.#seal();
      this.#parts.push(chunk);
      return;
    }
    if (this.#page === null || this.#filled + chunk.byteLength > GATHER_PAGE) {
      this.#seal();
      this.#page = new Uint8Array(GATHER_PAGE);
      this.#parts.push(this.#page);
    }
    this.#page.set(chunk, this.#filled);
    this.#filled += chunk.byteLength;
    this.#parts[this.#parts.length - 1] = this.#page.subarray(0, this.#filled);
  }

  /** The parts in order, and nothing kept. */
  take(): Uint8Array[] {
    this.#seal();
    return this.#parts.splice(0);
  }

  #seal(): void {
    this.#page = null;
    this.#filled = 0;
  }
}

/**
 * The deadlines of one body as it is read: each read waits at most until the earlier of the idle deadline (the
 * last byte's time + `idleMs`) and the rate's (the time by which the bytes read so far fall below
 * `minBytesPerSecond` over the body's time less `graceMs`); past it the read is cancelled, 408.
 */
class BodyClock {
  readonly #started = Date.now();
  #lastByte = this.#started;

  constructor(readonly deadlines: Required<BodyDeadlines>) {}

  /** The reader's next chunk, or 408 `REQUEST_TIMEOUT` (the reader cancelled) when it does not come in time. */
  async read(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    total: number,
  ): Promise<ReadableStreamReadResult<Uint8Array>> {
    const { idleMs, minBytesPerSecond, graceMs } = this.deadlines;
    const idle = this.#lastByte + idleMs;
    const slow =
      minBytesPerSecond > 0 ? this.#started + graceMs + (total / minBytesPerSecond) * 1000 : Number.POSITIVE_INFINITY;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          const why =
            idle <= slow
              ? `no byte of the body came for ${idleMs / 1000} s`
              : `the body came at less than ${minBytesPerSecond} bytes a second (${total} bytes in ${((Date.now() - this.#started) / 1000).toFixed(1)} s)`;
          reject(new TrainprintError('REQUEST_TIMEOUT', `${why}: send it again, faster`));
        },
        Math.max(0, Math.min(idle, slow) - Date.now()),
      );
    });
    try {
      const r = await Promise.race([reader.read(), late]);
      if (!r.done) this.#lastByte = Date.now();
      return r;
    } catch (e) {
      await reader.cancel().catch(() => undefined);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
}
