/**
 * `multipart/form-data` bodies (RFC 7578) of the routes that take a file (analyze, register, score): the document in
 * the `file` field, the request's other fields as form fields. They are parsed from the bytes the handler has already
 * read under its limit, so nothing is parsed that was not counted first: a form as clients write one by a reader of
 * plain forms (src/http/multipart-plain.ts: the file a view of the body, not a copy), any other by the platform
 * (`Response.formData()`: undici in Node, Deno's, the browser's), with the same parts. The fields become the route's JSON request — `content` the file's bytes (a text
 * file's text), `content_type` as given or told from the file's name or type, booleans and numbers from their text,
 * objects (`metadata`) from JSON — and are checked against the route's schema as a JSON body is: the same request,
 * the same answer.
 */
import { contentTypeOfFile, TEXT_FILE_TYPES, TrainprintError, untypedFileReason } from '../library.js';
import type { JsonSchema } from './context.js';
import { parseJsonBody } from './json-body.js';
import { invalidField } from './routes/refusals.js';
import { type FormFile, type FormPart, plainFormSteps } from './multipart-plain.js';
import { DEFAULT_SLICE_MS, finish, nextMacrotask, sliced } from '../util/steps.js';

/** The media type of an upload. */
export const MULTIPART = 'multipart/form-data';

/**
 * What a route's files are held to: the largest file of the caller's plan.
 * @example const limit: FileLimit = { plan: 'free', bytes: 8 * 1024 * 1024 }
 */
export interface FileLimit {
  readonly plan: string;
  readonly bytes: number;
}

/**
 * 413 PAYLOAD_TOO_LARGE for a file of `size` bytes over the plan's limit.
 * @example throw fileOverPlan(9_000_000, { plan: 'free', bytes: 8 * 1024 * 1024 })
 */
export function fileOverPlan(size: number, limit: FileLimit): TrainprintError {
  return new TrainprintError(
    'PAYLOAD_TOO_LARGE',
    `the file is ${size} bytes, over the ${mib(limit.bytes)} (${limit.bytes} bytes) of plan "${limit.plan}"`,
  );
}

/**
 * A size in MiB as the plans' limits are written.
 * @example mib(8 * 1024 * 1024) // '8 MiB'
 */
export function mib(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MiB`;
}

/** A multipart request as the route takes it, and what an `Idempotency-Key` covers of it. */
export interface MultipartRequest {
  /** The JSON request: the form's fields, `content` the file (bytes, or a text file's text). */
  readonly body: Record<string, unknown>;
  /** The fields as sent and the file's bytes, without the boundary (a new one each time the form is sent). */
  readonly canonical: () => Uint8Array;
}

/** The content types whose `content` is text: a text file is read as UTF-8. */
const TEXT_TYPES = TEXT_FILE_TYPES;

/**
 * The multipart body `raw` (its `Content-Type` with the boundary) as the route's request, checked by `check` (the
 * route's schema) and held to `limit`.
 * @throws MALFORMED_REQUEST (400: no boundary, not multipart), INVALID_INPUT (422 naming the field: no file, two
 * files, a file in another field, a type that cannot be told, a field given twice or not JSON where JSON is due),
 * PAYLOAD_TOO_LARGE (413: the file is over the plan's limit)
 * `turn`, when given, is what a large form's reading waits for between its slices (its account's turn).
 * @example const { body } = await parseMultipartBody(raw, request.headers.get('content-type')!, schema, check, limit)
 */
export async function parseMultipartBody(
  raw: Uint8Array,
  contentType: string,
  schema: JsonSchema | undefined,
  check: ((value: unknown) => unknown) | undefined,
  limit: FileLimit,
  turn?: () => Promise<void>,
): Promise<MultipartRequest> {
  const form = await formOf(raw, contentType, turn);
  const fields: Record<string, string> = {};
  let file: FormFile | null = null;
  for (const part of form) {
    const { name } = part;
    if (name === 'file' && 'file' in part) {
      if (file) invalidField('file', 'is given twice: send one file per request');
      file = part.file;
    } else if ('file' in part) invalidField(name, 'is a file: only the `file` field carries one');
    else if (name === 'file') invalidField('file', 'must be a file part (a filename in its Content-Disposition)');
    else if (Object.hasOwn(fields, name)) invalidField(name, 'is given more than once');
    else own(fields, name, part.value);
  }
  if (!file) invalidField('file', 'is required: the document, as a file part');
  for (const name of ['content', 'content_encoding'])
    if (Object.hasOwn(fields, name)) invalidField(name, 'is not a form field: the document is the `file` field');
  if (file.size > limit.bytes) throw fileOverPlan(file.size, limit);
  if (file.size === 0) invalidField('file', 'is empty');
  const request = typedFields(fields, schema);
  const type = Object.hasOwn(fields, 'content_type') ? fields.content_type : typeOfFile(file);
  const bytes = await file.bytes();
  own(request, 'content_type', type);
  if (TEXT_TYPES.has(type)) {
    own(request, 'content', utf8Text(bytes, type));
    check?.(request);
  } else {
    // the schema sees a file as JSON carries it; the route receives its bytes (the library's form of the same)
    check?.({ ...request, content: '-', content_encoding: 'base64' });
    own(request, 'content', bytes);
  }
  return { body: request, canonical: () => canonicalBytes(fields, bytes) };
}

/** Plain forms from this size on are read in slices between turns of the event loop. */
const SLICED_FORM_BYTES = 1 << 20;

/** The Content-Type of a plain form (one parameter, its boundary unquoted), as clients write it. */
const PLAIN_FORM_TYPE = /^multipart\/form-data; ?boundary=([0-9A-Za-z'()+_,\-./:=?]{1,70})$/i;

/**
 * The parts of a multipart body; 400 MALFORMED_REQUEST when it is not one. A plain form of 1 MiB or more is read in
 * slices of {@link DEFAULT_SLICE_MS}, awaiting `turn` (the caller's account's turn of the event loop) between them.
 */
async function formOf(raw: Uint8Array, contentType: string, turn?: () => Promise<void>): Promise<FormPart[]> {
  const plain = PLAIN_FORM_TYPE.exec(contentType);
  const steps = plain ? plainFormSteps(raw, plain[1]) : null;
  const parts =
    steps === null
      ? null
      : raw.length >= SLICED_FORM_BYTES
        ? await sliced(steps, DEFAULT_SLICE_MS, turn ?? nextMacrotask)
        : finish(steps);
  if (parts) return parts;
  // RFC 2046 §5.1.1: a boundary of 1–70 characters, quoted or not
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i.exec(contentType);
  if (!boundary)
    throw new TrainprintError(
      'MALFORMED_REQUEST',
      'a multipart/form-data body needs a boundary parameter (1–70 characters)',
    );
  let form: FormData;
  try {
    form = await new Response(raw as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new TrainprintError('MALFORMED_REQUEST', 'the body is not valid multipart/form-data for its boundary');
  }
  return [...form].map(
    ([name, value]): FormPart => (typeof value === 'string' ? { name, value } : { name, file: fileOf(value) }),
  );
}

/** A platform `File` as a form's file. */
function fileOf(file: File): FormFile {
  return {
    name: file.name,
    type: file.type,
    size: file.size,
    bytes: async () => new Uint8Array(await file.arrayBuffer()),
  };
}

/** The fields typed after the schema's properties: booleans and numbers from their text, objects and arrays as JSON. */
function typedFields(
  fields: Readonly<Record<string, string>>,
  schema: JsonSchema | undefined,
): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(fields)) {
    const type = Object.hasOwn(props, name) ? props[name].type : undefined;
    if (type === 'boolean' && (text === 'true' || text === 'false')) own(out, name, text === 'true');
    else if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) own(out, name, Number(text));
    else if (type === 'object' || type === 'array') own(out, name, jsonField(name, text));
    else own(out, name, text); // the schema names what does not fit
  }
  return out;
}

/** A field that holds JSON (`metadata`), with the checks of a JSON body (depth, lone surrogates); 422 naming it. */
function jsonField(name: string, text: string): unknown {
  try {
    return parseJsonBody(new TextEncoder().encode(text));
  } catch (e) {
    const why = e instanceof TrainprintError && e.code === 'MALFORMED_JSON' ? 'is not valid JSON' : undefined;
    if (why) invalidField(name, `${why}${e instanceof TrainprintError && e.detail ? ` (${e.detail})` : ''}`);
    throw e;
  }
}

/** The content type of a file from its name's extension, else its media type; 422 naming `content_type` when neither. */
function typeOfFile(file: FormFile): string {
  return (
    contentTypeOfFile(file.name, file.type) ?? invalidField('content_type', untypedFileReason(file.name, file.type))
  );
}

/** A text file's text: UTF-8 (a byte order mark dropped), else 422 naming `file`. */
function utf8Text(bytes: Uint8Array, type: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return invalidField('file', `is not UTF-8 text (content_type "${type}")`);
  }
}

/** What an `Idempotency-Key` covers of a multipart request: its fields in name order, then the file's bytes. */
function canonicalBytes(fields: Readonly<Record<string, string>>, file: Uint8Array): Uint8Array {
  const sorted = Object.keys(fields)
    .sort()
    .map((k) => [k, fields[k]]);
  const head = new TextEncoder().encode(`${JSON.stringify(sorted)}\n`);
  const out = new Uint8Array(head.length + file.length);
  out.set(head, 0);
  out.set(file, head.length);
  return out;
}

/** An own member whatever the name: a field `__proto__` must reach the schema as an unknown field. */
function own(o: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(o, name, { value, enumerable: true, writable: true, configurable: true });
}
