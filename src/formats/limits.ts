/**
 * The limits of document extraction and the errors every reader throws: one place for the defaults, the checks of
 * the caller's options, and the wording of a refusal (the format's name, then the cause).
 */

import { TrainprintError } from '../errors.js';
import { knownOptions } from '../util/known-options.js';
import type { DocumentFormat, ExtractDocumentOptions } from './types.js';

/** The largest file accepted by default: 64 MiB. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** The most a zip's entries may hold uncompressed by default: 256 MiB. */
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024;
/**
 * More entries than this and the zip is refused before any is read: an EPUB or a DOCX holds tens to a few thousand
 * (pages, images, fonts), and each entry costs a little to list even when it is never inflated.
 */
export const MAX_ZIP_ENTRIES = 20_000;
/**
 * The highest compression ratio accepted for an entry over {@link RATIO_FLOOR_BYTES}: markup compresses 5–20:1 and
 * even long runs of one character reach 1,032:1 only, so a larger entry declaring more is a bomb or a lie.
 */
export const MAX_COMPRESSION_RATIO = 200;
/** Entries declaring less than this uncompressed are not held to the ratio (a small entry cannot hurt). */
export const RATIO_FLOOR_BYTES = 1024 * 1024;
/**
 * The most text a file may yield by default: 10 Mi characters (UTF-16 units), as much as a text request may carry
 * (10 MiB of UTF-8), so that no file stands for more text than could be sent as text.
 */
export const DEFAULT_MAX_CHARACTERS = 10 * 1024 * 1024;
/** The longest a file may take to read by default: 2 minutes (a 1,000-page PDF takes seconds). */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** More pages than this and a PDF is refused before any is read: a long book has one or two thousand. */
export const MAX_PDF_PAGES = 10_000;
/** More text items than this on one page and a PDF is refused: a dense page in small type has a few thousand. */
export const MAX_PAGE_TEXT_ITEMS = 50_000;

/** The options with their defaults, checked: every size given, the signal still optional. */
export interface Limits extends Required<Omit<ExtractDocumentOptions, 'signal'>> {
  readonly signal: AbortSignal | undefined;
}

const OPTION_KEYS = ['maxBytes', 'maxUncompressedBytes', 'maxCharacters', 'timeoutMs', 'signal'];

const DEFAULT_LIMITS: Limits = Object.freeze({
  maxBytes: DEFAULT_MAX_BYTES,
  maxUncompressedBytes: DEFAULT_MAX_UNCOMPRESSED_BYTES,
  maxCharacters: DEFAULT_MAX_CHARACTERS,
  timeoutMs: DEFAULT_TIMEOUT_MS,
  signal: undefined,
});

/** The display name of a format in messages. */
export const FORMAT_NAME: Readonly<Record<DocumentFormat, string>> = Object.freeze({
  epub: 'EPUB',
  pdf: 'PDF',
  docx: 'DOCX',
});

/**
 * The caller's options, checked (INVALID_OPTIONS naming the option), with the defaults filled in.
 * @example resolveLimits(undefined).maxBytes // 67108864
 */
export function resolveLimits(options: ExtractDocumentOptions | undefined): Limits {
  if (options === undefined || options === null) return DEFAULT_LIMITS;
  if (typeof options !== 'object') throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  knownOptions(options, OPTION_KEYS);
  const size = (name: Exclude<keyof Limits, 'signal'>, unit: string): number => {
    const v = options[name];
    if (v === undefined) return DEFAULT_LIMITS[name];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
      throw new TrainprintError('INVALID_OPTIONS', `${name} must be a positive integer number of ${unit}`);
    }
    return v;
  };
  const { signal } = options;
  if (
    signal !== undefined &&
    (typeof signal !== 'object' ||
      signal === null ||
      typeof signal.aborted !== 'boolean' ||
      typeof signal.addEventListener !== 'function')
  ) {
    throw new TrainprintError('INVALID_OPTIONS', 'signal must be an AbortSignal');
  }
  return {
    maxBytes: size('maxBytes', 'bytes'),
    maxUncompressedBytes: size('maxUncompressedBytes', 'bytes'),
    maxCharacters: size('maxCharacters', 'characters'),
    timeoutMs: size('timeoutMs', 'milliseconds'),
    signal,
  };
}

/**
 * Rejects with the signal's reason once it has aborted (as `fetch` does), between the steps of a reader.
 * @example throwIfAborted(limits.signal)
 */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/**
 * INVALID_INPUT naming the format and the cause.
 * @example throw invalid('epub', 'it is not a zip file')
 */
export function invalid(format: DocumentFormat, cause: string, error?: unknown): TrainprintError {
  return new TrainprintError('INVALID_INPUT', `the ${FORMAT_NAME[format]} file cannot be read: ${cause}`, {
    cause: error,
  });
}

/**
 * PAYLOAD_TOO_LARGE naming the format and the limit passed.
 * @example throw tooLarge('docx', 'the file is 70000000 bytes, over the limit of 67108864')
 */
export function tooLarge(format: DocumentFormat, cause: string): TrainprintError {
  return new TrainprintError('PAYLOAD_TOO_LARGE', `the ${FORMAT_NAME[format]} file is too large: ${cause}`);
}
