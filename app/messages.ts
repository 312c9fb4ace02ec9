/**
 * Failures → sentences for the page. Engine errors keep their code (a TrainprintError code, or
 * the page's own EMPTY_INPUT / FILE_TOO_LARGE / UNSUPPORTED / UNSUPPORTED_FILE / WORKER_FAILED) and their detail.
 */
import { BackendError } from './backend.js';
import { bytes } from './format.js';

/** What the user should read first, per code; the engine's own message follows as detail. */
const LEADS: Readonly<Record<string, string>> = {
  SNAPSHOT_INCOMPATIBLE:
    'This file is not a usable trainprint index: it is truncated, corrupted, or was written by an incompatible version.',
  ALREADY_EXISTS: 'A dataset with this id is already loaded.',
  PAYLOAD_TOO_LARGE: 'The input is too large.',
  WASM_UNSUPPORTED: 'This browser cannot run the WebAssembly engine.',
  OUT_OF_MEMORY: 'The engine ran out of memory.',
  NOT_FOUND: 'Not found.',
};

export interface Message {
  readonly code: string;
  readonly text: string;
  readonly detail?: string;
}

export function describeError(e: unknown): Message {
  const code =
    e && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string'
      ? (e as { code: string }).code
      : 'INTERNAL';
  const message = e instanceof Error ? e.message : String(e);
  const detail =
    e && typeof e === 'object' && typeof (e as { detail?: unknown }).detail === 'string'
      ? (e as { detail: string }).detail
      : undefined;
  const lead = LEADS[code];
  // The lead replaces the engine's generic sentence; its specific detail follows.
  return lead ? { code, text: lead, detail: detail ?? message } : { code, text: message };
}

/**
 * A field left empty: `what` names it, and `fix` says what to do (by default, for a text box: paste or drop text).
 * @example emptyInput('The list of non-member texts', 'paste texts the model cannot have seen, separated by lines of ---')
 */
export function emptyInput(what: string, fix = 'paste or drop some text first'): BackendError {
  return new BackendError('EMPTY_INPUT', `${what} is empty: ${fix}.`);
}

export function tooLarge(what: string, size: number, limit: number): BackendError {
  return new BackendError(
    'PAYLOAD_TOO_LARGE',
    `${what} is ${bytes(size)} (${size.toLocaleString('en')} bytes of UTF-8); the limit is ${bytes(limit)} (${limit.toLocaleString('en')} bytes).`,
  );
}

/**
 * A file over the limit, refused before it is read: `of` says what the limit is of (text, or a document file).
 * @example throw fileTooLarge(file.name, file.size, 10 * 1024 * 1024) // "… analysis takes at most 10 MiB of text."
 */
export function fileTooLarge(name: string, size: number, limit: number, of = 'of text'): BackendError {
  return new BackendError(
    'FILE_TOO_LARGE',
    `The file ${JSON.stringify(name)} is ${bytes(size)}; analysis takes at most ${bytes(limit)} ${of}.`,
  );
}

/**
 * A file of a kind the page does not read; `message` says which it reads (files.ts `fileKind`).
 * @example throw unsupportedFile('"old.doc" is not a file this page reads: save it as .docx …')
 */
export function unsupportedFile(message: string): BackendError {
  return new BackendError('UNSUPPORTED_FILE', message);
}
