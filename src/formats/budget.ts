/**
 * One budget per document: the bytes inflated across every read (zip entries and PDF streams alike, each read counted
 * again however often a file names it), the characters of text extracted, and the wall time — spent by the readers
 * inside their loops, so that a small file built to make a reader work without end is refused as soon as it passes
 * a limit, with the limit named, rather than when the memory or the patience of the host runs out.
 */

import type { TrainprintError } from '../errors.js';
import { type Limits, throwIfAborted, tooLarge } from './limits.js';
import type { DocumentFormat } from './types.js';

/**
 * What a reader may still spend on one document.
 *
 * @example
 * const budget = new ExtractionBudget('epub', resolveLimits(undefined))
 * budget.inflate(entry.size) // PAYLOAD_TOO_LARGE once the reads pass maxUncompressedBytes
 * budget.text(chapter.length) // PAYLOAD_TOO_LARGE once the text passes maxCharacters
 * budget.check() // the signal's reason once aborted, PAYLOAD_TOO_LARGE once past the time limit
 */
export class ExtractionBudget {
  readonly format: DocumentFormat;
  readonly limits: Limits;
  readonly #deadline: number;
  #inflated = 0;
  #characters = 0;

  constructor(format: DocumentFormat, limits: Limits) {
    this.format = format;
    this.limits = limits;
    this.#deadline = Date.now() + limits.timeoutMs;
  }

  /** Bytes inflated so far. */
  get inflated(): number {
    return this.#inflated;
  }

  /** Characters of text extracted so far. */
  get characters(): number {
    return this.#characters;
  }

  /** Counts `bytes` more inflated (or about to be): PAYLOAD_TOO_LARGE past `maxUncompressedBytes`. */
  inflate(bytes: number): void {
    this.#inflated += bytes;
    if (this.#inflated > this.limits.maxUncompressedBytes) {
      throw tooLarge(
        this.format,
        `it inflates to more than ${this.limits.maxUncompressedBytes} bytes, the limit (maxUncompressedBytes; a ` +
          'decompression bomb?)',
      );
    }
  }

  /** Counts `characters` more of extracted text: PAYLOAD_TOO_LARGE past `maxCharacters`. */
  text(characters: number): void {
    this.#characters += characters;
    if (this.#characters > this.limits.maxCharacters) {
      throw tooLarge(
        this.format,
        `its text runs past ${this.limits.maxCharacters} characters, the limit (maxCharacters)`,
      );
    }
  }

  /**
   * `promise`, or PAYLOAD_TOO_LARGE once the time limit passes before it settles (or the signal's reason once it
   * aborts): for a wait on work the reader does not drive itself (pdf.js), which the caller then stops.
   * @example const page = await budget.within(doc.getPage(1))
   */
  within<T>(promise: Promise<T>): Promise<T> {
    this.check();
    return new Promise<T>((resolve, reject) => {
      const { signal } = this.limits;
      const expire = () => reject(signal?.aborted ? (signal.reason ?? new Error('aborted')) : this.#overTime());
      const timer = setTimeout(expire, Math.max(0, this.#deadline - Date.now()) + 1);
      signal?.addEventListener('abort', expire, { once: true });
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', expire);
      };
      promise.then(
        (v) => (settle(), resolve(v)),
        (e: unknown) => (settle(), reject(e)),
      );
    });
  }

  /** The signal's reason once it has aborted; PAYLOAD_TOO_LARGE once the time limit has passed. */
  check(): void {
    throwIfAborted(this.limits.signal);
    if (Date.now() > this.#deadline) throw this.#overTime();
  }

  #overTime(): TrainprintError {
    return tooLarge(this.format, `reading it takes longer than ${this.limits.timeoutMs} ms, the limit (timeoutMs)`);
  }
}

/**
 * A pause that lets the host's other work run (timers, I/O, other requests) before the reader goes on: a macrotask,
 * not a microtask, which would run before anything else could.
 * @example await pause()
 */
export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** How long a reader works before it pauses (ms): short enough that a server's other requests are not held up. */
export const SLICE_MS = 10;
