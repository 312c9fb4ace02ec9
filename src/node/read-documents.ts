/**
 * Stream reference documents out of corpus files on disk (Node only): plain text, JSON Lines,
 * JSON arrays and Parquet, optionally gzip- or Zstandard-compressed, and EPUB, PDF and DOCX files
 * (one document each: the text `analyze` reads from the file, under the same rule — the size checked
 * before a byte is read, the extraction's budget, its refusals). Everything else is streamed:
 * JSON Lines are split as bytes and decoded one line at a time, so memory stays at one document
 * (plus one read chunk) whatever the file size; Parquet is read one row group at a time (the unit
 * in which its pages are compressed), text column (and id column) only.
 *
 * Imports only the public `trainprint` entry (`../index.js`), which the `trainprint/node` build keeps
 * external, so `TrainprintError` here is the same class callers import from 'trainprint'.
 */
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { brotliDecompressSync, createGunzip, gunzipSync } from 'node:zlib';
// hyparquet is imported by readParquet when a Parquet file is read: loading it costs about 35 ms of CPU, which every
// process that imports this entry (`trainprint scan`, `serve`) paid for a reader most never use
import type { AsyncBuffer, Compressors } from 'hyparquet';
import {
  ANALYZE_MAX_FILE_BYTES,
  concatBytes,
  extractDocument,
  TrainprintError,
  type DatasetDocument,
} from '../library.js';

/** The document formats {@link readDocuments} reads (EPUB, PDF and DOCX: one document per file, its text). */
export type DocumentFormat = 'text' | 'jsonl' | 'json' | 'parquet' | 'epub' | 'pdf' | 'docx';
/** Whole-file compression, chosen by the file's last extension (`.gz`, `.zst`). */
export type Compression = 'none' | 'gzip' | 'zstd';

/** Options of {@link readDocuments}. */
export interface ReadDocumentsOptions {
  /** JSON Lines / JSON / Parquet: the field (column) holding the document text. @default 'text' */
  readonly textField?: string;
  /**
   * JSON Lines / JSON / Parquet: the field (column) holding the document id (a string or an
   * integer). Without it ids are `PATH:LINE` (JSON Lines, 1-based physical line), `PATH[INDEX]`
   * (JSON arrays, 0-based) or `PATH:ROW` (Parquet, 1-based row); a plain text, EPUB, PDF or DOCX file's id is
   * its path.
   */
  readonly idField?: string;
  /**
   * What a record without `idField` gets: `'error'` refuses it (INVALID_INPUT), `'position'` gives it the id it
   * would have without `idField` (`PATH:LINE`, `PATH[INDEX]`, `PATH:ROW`; a Parquet file without the column: every
   * row). A present id that is not a non-empty string or an integer is refused either way. @default 'error'
   */
  readonly missingId?: 'error' | 'position';
  /**
   * Force one format for every file instead of going by extension (the compression is still
   * taken from a trailing `.gz` / `.zst`). By extension: `.txt` `.text` `.md` → text (one document
   * per file); `.jsonl` `.ndjson` → jsonl; `.json` → json; `.parquet` → parquet; `.epub`, `.pdf`, `.docx`
   * (uncompressed, at most `ANALYZE_MAX_FILE_BYTES`) → their extracted text, one document per file.
   */
  readonly format?: DocumentFormat;
  /** Longest single document (JSON line, text file) in bytes; longer is INVALID_INPUT. @default 256 MiB */
  readonly maxDocumentBytes?: number;
  /** Called when a file is opened (index into `paths`), e.g. for a progress display. */
  readonly onFile?: (path: string, index: number) => void;
}

const EXTENSIONS: Readonly<Record<string, DocumentFormat>> = {
  '.txt': 'text',
  '.text': 'text',
  '.md': 'text',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'json',
  '.parquet': 'parquet',
  '.epub': 'epub',
  '.pdf': 'pdf',
  '.docx': 'docx',
};
const FORMATS = new Set<DocumentFormat>(['text', 'jsonl', 'json', 'parquet', 'epub', 'pdf', 'docx']);
/** The formats read whole and extracted (src/formats, through the library's `extractDocument`). */
const BOOK_FORMATS = new Set<DocumentFormat>(['epub', 'pdf', 'docx']);
const MIB = 1024 * 1024;

const fail = (detail: string, cause?: unknown): TrainprintError =>
  new TrainprintError('INVALID_INPUT', detail, cause === undefined ? undefined : { cause });

/**
 * Format and compression of a path by its extensions (`x.jsonl.zst` → jsonl + zstd).
 * @example detectFormat('shard-00.jsonl.zst') // { format: 'jsonl', compression: 'zstd' }
 */
export function detectFormat(
  path: string,
  format?: DocumentFormat,
): { format: DocumentFormat; compression: Compression } {
  const lower = path.toLowerCase();
  let compression: Compression = 'none';
  let rest = lower;
  if (lower.endsWith('.gz') || lower.endsWith('.gzip')) {
    compression = 'gzip';
    rest = lower.slice(0, lower.lastIndexOf('.'));
  } else if (lower.endsWith('.zst') || lower.endsWith('.zstd')) {
    compression = 'zstd';
    rest = lower.slice(0, lower.lastIndexOf('.'));
  }
  let f = format;
  if (f === undefined) {
    const dot = rest.lastIndexOf('.');
    const slash = Math.max(rest.lastIndexOf('/'), rest.lastIndexOf('\\'));
    f = dot > slash ? EXTENSIONS[rest.slice(dot)] : undefined;
    if (f === undefined) {
      throw fail(
        `${path}: unknown file type (expected .txt, .md, .jsonl, .ndjson, .json or .parquet, optionally + .gz or .zst, ` +
          'or .epub, .pdf or .docx; or name its format: the format option, --format of trainprint index build)',
      );
    }
  }
  if (f === 'parquet' && compression !== 'none')
    throw fail(`${path}: a compressed .parquet file is not supported (Parquet compresses its pages itself)`);
  if (BOOK_FORMATS.has(f) && compression !== 'none')
    throw fail(`${path}: a compressed ${f.toUpperCase()} file is not supported (its size is checked before reading)`);
  return { format: f, compression };
}

/**
 * The documents in `paths`, in order, as `{ id, text }` — ready for `engine.addDataset`.
 * Every file is checked (exists, is a regular file, known type) before the first document is
 * yielded, so a typo in the last path fails at once, not after hours of indexing.
 *
 * @throws (rejects) INVALID_INPUT naming the file and line (or row) for a missing or unreadable
 *   file, an unknown extension, malformed JSON, a record without a string text field, an id that
 *   is not a string or integer, invalid UTF-8, corrupt compressed data or an unreadable Parquet file
 * @example
 * import { createEngine } from 'trainprint'
 * import { readDocuments } from 'trainprint/node'
 * const engine = await createEngine()
 * await engine.addDataset({ id: 'c4-sample' }, readDocuments(['c4-00000.json.gz'], { textField: 'text', idField: 'url' }))
 */
export async function* readDocuments(
  paths: readonly string[],
  options: ReadDocumentsOptions = {},
): AsyncGenerator<DatasetDocument, void, undefined> {
  for await (const batch of readDocumentBatches(paths, options)) yield* batch;
}

/**
 * {@link readDocuments} an array at a time: the documents of a JSON Lines file in arrays of about 64 KiB of lines
 * (at most one chunk read, 1 MiB), a document of any other file as an array of one. For a consumer that takes short
 * documents faster than an async generator hands them over one by one (a scan, most of whose items are settled in
 * microseconds: a turn of the generators per item was a tenth of its time). The same documents, ids and errors, in
 * the same order: a line that is no document is thrown after the array of the documents before it.
 * @throws (rejects) as {@link readDocuments}
 * @example for await (const batch of readDocumentBatches(['outputs.jsonl'])) for (const d of batch) count++
 */
export async function* readDocumentBatches(
  paths: readonly string[],
  options: ReadDocumentsOptions = {},
): AsyncGenerator<DatasetDocument[], void, undefined> {
  const { kinds, ctx } = await checkInputs(paths, options);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    options.onFile?.(path, i);
    const { format, compression } = kinds[i];
    if (format === 'jsonl') yield* readJsonl(path, compression, ctx);
    else if (format === 'parquet') for await (const d of readParquet(path, ctx)) yield [d];
    else if (BOOK_FORMATS.has(format)) yield [await readBook(path, format as 'epub' | 'pdf' | 'docx')];
    else {
      const text = await readWhole(path, compression, ctx.maxBytes);
      if (format === 'text') yield [{ id: path, text }];
      else for (const d of readJsonArray(path, text, ctx)) yield [d];
    }
  }
}

/** How the records of a file become documents: the fields, and the longest document in bytes. */
export interface RecordFields {
  readonly textField: string;
  readonly idField: string | undefined;
  readonly maxBytes: number;
  /** A record without `idField` gets its position's id (ReadDocumentsOptions.missingId 'position'). */
  readonly optionalId?: boolean;
}

/** An input file as {@link checkInputs} found it. */
export interface InputFile {
  readonly format: DocumentFormat;
  readonly compression: Compression;
  /** Bytes on disk. */
  readonly size: number;
}

/**
 * The options and files of {@link readDocuments}, checked before anything is read (so a typo in the
 * last path fails at once): each file's format, compression and size, and the record fields.
 * @throws (rejects) INVALID_OPTIONS, INVALID_INPUT (a missing, unreadable or unknown file)
 * @example const { kinds, ctx } = await checkInputs(['a.jsonl'], { idField: 'id' })
 */
export async function checkInputs(
  paths: readonly string[],
  options: ReadDocumentsOptions,
): Promise<{ kinds: InputFile[]; ctx: RecordFields }> {
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string' || p.length === 0)) {
    throw new TrainprintError('INVALID_OPTIONS', 'paths must be an array of non-empty strings');
  }
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const textField = options.textField ?? 'text';
  const idField = options.idField;
  if (typeof textField !== 'string' || textField.length === 0)
    throw new TrainprintError('INVALID_OPTIONS', 'textField must be a non-empty string');
  if (idField !== undefined && (typeof idField !== 'string' || idField.length === 0))
    throw new TrainprintError('INVALID_OPTIONS', 'idField must be a non-empty string');
  if (options.missingId !== undefined && options.missingId !== 'error' && options.missingId !== 'position')
    throw new TrainprintError('INVALID_OPTIONS', "missingId must be 'error' or 'position'");
  if (options.format !== undefined && !FORMATS.has(options.format))
    throw new TrainprintError('INVALID_OPTIONS', `format must be one of ${[...FORMATS].join(', ')}`);
  const maxBytes = options.maxDocumentBytes ?? 256 * 1024 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes < 1)
    throw new TrainprintError('INVALID_OPTIONS', 'maxDocumentBytes must be a positive integer');

  const formats = paths.map((p) => detectFormat(p, options.format));
  const kinds: InputFile[] = [];
  for (const [i, p] of paths.entries()) {
    let s: Awaited<ReturnType<typeof stat>>;
    try {
      s = await stat(p);
    } catch (e) {
      throw fail(`${p}: ${ioReason(e)}`, e);
    }
    if (!s.isFile()) throw fail(`${p}: not a regular file`);
    if (BOOK_FORMATS.has(formats[i].format)) checkBookSize(p, s.size);
    kinds.push({ ...formats[i], size: s.size });
  }
  const optional = options.missingId === 'position' ? { optionalId: true } : {};
  return { kinds, ctx: { textField, idField, maxBytes, ...optional } };
}

/** An EPUB, PDF or DOCX file over the library's file limit is refused by its size on disk, before it is read. */
function checkBookSize(path: string, size: number): void {
  if (size > ANALYZE_MAX_FILE_BYTES)
    throw new TrainprintError(
      'PAYLOAD_TOO_LARGE',
      `${path} is ${size.toLocaleString('en-US')} bytes, over the ${ANALYZE_MAX_FILE_BYTES / MIB} MiB ` +
        `(${ANALYZE_MAX_FILE_BYTES.toLocaleString('en-US')} bytes) an EPUB, PDF or DOCX file may have (maxFileBytes)`,
    );
}

/**
 * An EPUB, PDF or DOCX file as one document: its text as `analyze` extracts it, within the extraction's budget
 * (inflated bytes, pages, characters, time); a refusal names the file and the limit.
 */
async function readBook(path: string, format: 'epub' | 'pdf' | 'docx'): Promise<DatasetDocument> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw fail(`${path}: ${ioReason(e)}`, e);
  }
  checkBookSize(path, bytes.length); // it may have grown since it was checked
  try {
    return { id: path, text: (await extractDocument(bytes, format, { maxBytes: ANALYZE_MAX_FILE_BYTES })).text };
  } catch (e) {
    if (e instanceof TrainprintError) throw new TrainprintError(e.code, `${path}: ${e.detail ?? e.message}`);
    throw e;
  }
}

function ioReason(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return e instanceof Error ? e.message : String(e);
}

async function openFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (e) {
    throw fail(`${path}: ${ioReason(e)}`, e);
  }
}

/** Bytes read at a time from a file (and the size of a JSON Lines reader's one buffer). */
const READ_BYTES = 1 << 20;

/**
 * The bytes of an uncompressed file, read into one buffer again and again: each chunk is valid only until the next is
 * asked for. A read stream hands out a fresh 1 MiB buffer a chunk, and a process pays for fresh pages on first touch
 * (a scan of 10 MB of JSON Lines: 2,400 page faults for buffers read once and dropped).
 */
async function* reusedChunks(path: string): AsyncGenerator<Uint8Array> {
  const fh = await openFile(path);
  try {
    const buf = new Uint8Array(READ_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/**
 * The file's bytes, decompressed, as chunks (streams; closes the file when done or abandoned). With `reuse`, an
 * uncompressed file's chunks share one buffer (see {@link reusedChunks}): a caller that keeps bytes of a chunk past
 * the next copies them.
 */
async function* byteChunks(path: string, compression: Compression, reuse = false): AsyncGenerator<Uint8Array> {
  if (reuse && compression === 'none') {
    yield* reusedChunks(path);
    return;
  }
  const fh = await openFile(path);
  const raw = fh.createReadStream({ highWaterMark: READ_BYTES }); // autoClose: closes fh
  try {
    if (compression === 'gzip') {
      const gz = createGunzip({ chunkSize: 1 << 16 });
      pipeline(raw, gz, () => {}); // errors reach the loop below through gz
      yield* gz as AsyncIterable<Uint8Array>;
    } else if (compression === 'zstd') {
      const { Decompress } = await import('fzstd'); // on demand: only a .zst input needs it
      const out: Uint8Array[] = [];
      const z = new Decompress((chunk) => {
        if (chunk.length) out.push(chunk);
      });
      for await (const chunk of raw as AsyncIterable<Uint8Array>) {
        z.push(chunk);
        while (out.length) yield out.shift()!; // each block is a fresh array (fzstd allocates per block)
      }
      z.push(new Uint8Array(0), true);
      while (out.length) yield out.shift()!;
    } else {
      yield* raw as AsyncIterable<Uint8Array>;
    }
  } finally {
    raw.destroy();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function decodeError(path: string, where: string, e: unknown): TrainprintError {
  if (e instanceof TrainprintError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  // zlib: "incorrect header check", "unexpected end of file"; fzstd: "invalid zstd data", "unexpected EOF"
  return fail(`${path}${where}: cannot read the file (${msg})`, e);
}

/** A whole file (one document or one JSON array) as a string. */
async function readWhole(path: string, compression: Compression, maxBytes: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let n = 0;
  try {
    for await (const c of byteChunks(path, compression)) {
      n += c.length;
      if (n > maxBytes) throw fail(`${path}: larger than maxDocumentBytes (${maxBytes} bytes)`);
      parts.push(c);
    }
  } catch (e) {
    throw decodeError(path, '', e);
  }
  try {
    return utf8.decode(concatBytes(parts, n));
  } catch (e) {
    throw fail(`${path}: not valid UTF-8`, e);
  }
}

/**
 * A record that is not a document, the reason without its place: the caller, which knows the file
 * and the line (or row or index), puts that in front.
 */
class RecordError extends Error {}

/** `{ id, text }` of a parsed record (id undefined when `ctx.idField` is not set). */
function recordDocument(record: unknown, ctx: RecordFields): { id: string | undefined; text: string } {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new RecordError('expected a JSON object');
  }
  const r = record as Record<string, unknown>;
  const text = r[ctx.textField];
  if (typeof text !== 'string') {
    const fields = text === undefined ? ` (fields: ${Object.keys(r).slice(0, 10).join(', ') || 'none'})` : '';
    throw new RecordError(`${text === undefined ? 'no' : 'non-string'} field "${ctx.textField}"${fields}`);
  }
  const missing = ctx.idField === undefined || (ctx.optionalId === true && r[ctx.idField] === undefined);
  return { id: missing ? undefined : idOf(r[ctx.idField!], ctx.idField!), text };
}

function docFrom(record: unknown, path: string, where: string, fallbackId: string, ctx: RecordFields): DatasetDocument {
  try {
    const { id, text } = recordDocument(record, ctx);
    return { id: id ?? fallbackId, text };
  } catch (e) {
    throw e instanceof RecordError ? fail(`${path}${where}: ${e.message}`) : e;
  }
}

function idOf(v: unknown, field: string): string {
  if (typeof v === 'string' && v.length > 0) return v;
  if ((typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'bigint') return String(v);
  const got = v === undefined ? 'nothing' : JSON.stringify(typeof v === 'string' ? v : typeof v);
  throw new RecordError(`id field "${field}" must be a non-empty string or an integer (got ${got})`);
}

/**
 * One line of a JSON Lines file (without its \n) as `{ id, text }` (id undefined when
 * `ctx.idField` is not set: the caller makes `PATH:LINE`), or null for a blank line. Leading spaces
 * and tabs and a trailing \r are ignored.
 * @throws the reason, without the file and line: `{ detail, cause }` (see {@link jsonlLineError})
 */
export function parseJsonlLine(bytes: Uint8Array, ctx: RecordFields): { id: string | undefined; text: string } | null {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 13) end--; // CRLF
  let start = 0;
  while (start < end && (bytes[start] === 32 || bytes[start] === 9)) start++;
  if (start === end) return null; // blank line
  let s: string;
  try {
    s = utf8.decode(bytes.subarray(start, end));
  } catch (e) {
    throw new RecordError('not valid UTF-8', { cause: e });
  }
  let record: unknown;
  try {
    record = JSON.parse(s);
  } catch (e) {
    throw new RecordError(`malformed JSON (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  return recordDocument(record, ctx);
}

/**
 * The reason a JSON Lines line is not a document, when `e` is one thrown by {@link parseJsonlLine}
 * (anything else: undefined).
 * @example try { parseJsonlLine(line, ctx) } catch (e) { const why = jsonlLineError(e); if (why) report(why.detail) }
 */
export function jsonlLineError(e: unknown): { detail: string; cause: unknown } | undefined {
  return e instanceof RecordError ? { detail: e.message, cause: e.cause } : undefined;
}

/**
 * The message of a line that is too long (the check is the reader's: it sees the line grow).
 * @example tooLong(1024) // 'line longer than maxDocumentBytes (1024 bytes)'
 */
export const tooLong = (maxBytes: number) => `line longer than maxDocumentBytes (${maxBytes} bytes)`;

/**
 * Bytes of JSON Lines parsed into documents before they are handed over. The lines of a chunk are parsed as the
 * consumer asks for them rather than all at once, so that the documents' strings die young: V8's scavenger copies
 * what is alive when it runs, and a whole 1 MiB chunk parsed ahead survived one or two scavenges (a scan of 100 MB
 * of short outputs: 65 scavenges of 3.3 ms median; with 64 KiB, 1.0 ms).
 */
const BATCH_BYTES = 64 << 10;

/**
 * JSON Lines: split the byte stream on \n, decode and parse one line at a time; the documents are handed over as
 * arrays of about BATCH_BYTES of lines (and at the end of each chunk read). A line that is no document is thrown
 * after the array of the documents before it.
 */
async function* readJsonl(
  path: string,
  compression: Compression,
  ctx: RecordFields,
): AsyncGenerator<DatasetDocument[]> {
  let line = 0;
  const carry: Uint8Array[] = [];
  let carryLen = 0;
  let batch: DatasetDocument[] = [];
  let parsed = 0;
  const add = (bytes: Uint8Array) => {
    line++;
    let doc: ReturnType<typeof parseJsonlLine>;
    try {
      doc = parseJsonlLine(bytes, ctx);
    } catch (e) {
      const why = jsonlLineError(e);
      throw why ? fail(`${path}:${line}: ${why.detail}`, why.cause) : e;
    }
    if (doc) batch.push({ id: doc.id ?? `${path}:${line}`, text: doc.text });
  };
  const take = () => {
    const b = batch;
    batch = [];
    parsed = 0; // the next array starts counting afresh, also after the end of a chunk
    return b;
  };
  const chunks = byteChunks(path, compression, true);
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } catch (e) {
        throw decodeError(path, ` after line ${line}`, e);
      }
      if (next.done) break;
      const c = next.value;
      let from = 0;
      try {
        for (let nl = c.indexOf(10); nl !== -1; nl = c.indexOf(10, from)) {
          let bytes = c.subarray(from, nl);
          if (carryLen > 0) {
            carry.push(bytes);
            bytes = concatBytes(carry, carryLen + bytes.length);
            carry.length = 0;
            carryLen = 0;
          }
          if (bytes.length > ctx.maxBytes) throw fail(`${path}:${line + 1}: ${tooLong(ctx.maxBytes)}`);
          from = nl + 1;
          add(bytes);
          parsed += bytes.length;
          if (parsed >= BATCH_BYTES && batch.length > 0) yield take();
        }
        if (from < c.length) {
          carry.push(new Uint8Array(c.subarray(from))); // a copy: the next chunk is read into the same buffer
          carryLen += c.length - from;
          if (carryLen > ctx.maxBytes) throw fail(`${path}:${line + 1}: ${tooLong(ctx.maxBytes)}`);
        }
      } catch (e) {
        if (batch.length > 0) yield take(); // the documents before the line, as when they went one at a time
        throw e;
      }
      if (batch.length > 0) yield take();
    }
    if (carryLen > 0) add(concatBytes(carry, carryLen));
    if (batch.length > 0) yield take();
  } finally {
    await chunks.return(undefined); // stop reading (and close the file) when the consumer stops early
  }
}

function* readJsonArray(path: string, text: string, ctx: RecordFields): Generator<DatasetDocument> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw fail(`${path}: malformed JSON (${e instanceof Error ? e.message : String(e)})`, e);
  }
  if (!Array.isArray(value))
    throw fail(`${path}: expected a JSON array of objects (use .jsonl for one object per line)`);
  for (let i = 0; i < value.length; i++) yield docFrom(value[i], path, `[${i}]`, `${path}[${i}]`, ctx);
}

/**
 * Page decompressors beyond hyparquet's built-in snappy: zstd (fzstd), gzip and brotli (node:zlib); fzstd is
 * imported with hyparquet, when a Parquet file is first read, not by every process that loads trainprint/node.
 */
async function parquetCompressors(): Promise<Compressors> {
  const { decompress: zstdDecompress } = await import('fzstd');
  return {
    ZSTD: (input, outputLength) => zstdDecompress(input, new Uint8Array(outputLength)),
    GZIP: (input) => new Uint8Array(gunzipSync(input)),
    BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
  };
}

/** A hyparquet AsyncBuffer over an open file: reads only the byte ranges asked for. */
async function fileBuffer(path: string): Promise<{ buffer: AsyncBuffer; close: () => Promise<void> }> {
  const fh = await openFile(path);
  const { size } = await fh.stat();
  return {
    buffer: {
      byteLength: size,
      async slice(start: number, end = size): Promise<ArrayBuffer> {
        const out = new Uint8Array(Math.max(0, end - start));
        let at = 0;
        while (at < out.length) {
          const { bytesRead } = await fh.read(out, at, out.length - at, start + at);
          if (bytesRead === 0) break;
          at += bytesRead;
        }
        return out.buffer;
      },
    },
    close: () => fh.close(),
  };
}

/** Parquet: the text (and id) column, one row group at a time. */
async function* readParquet(path: string, ctx: RecordFields): AsyncGenerator<DatasetDocument> {
  const { parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import('hyparquet');
  const compressors = await parquetCompressors();
  const { buffer, close } = await fileBuffer(path);
  let row = 0; // rows yielded so far (0-based index of the next)
  try {
    let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
    try {
      metadata = await parquetMetadataAsync(buffer);
    } catch (e) {
      throw fail(`${path}: not a readable Parquet file (${e instanceof Error ? e.message : String(e)})`, e);
    }
    const names = parquetSchema(metadata).children.map((c) => c.element.name);
    // a missing id column is every row's missing id (its position's id, with optionalId)
    const idField =
      ctx.optionalId && ctx.idField !== undefined && !names.includes(ctx.idField) ? undefined : ctx.idField;
    for (const f of [ctx.textField, idField]) {
      if (f !== undefined && !names.includes(f))
        throw fail(`${path}: no column "${f}" (columns: ${names.slice(0, 20).join(', ')})`);
    }
    const columns = idField === undefined ? [ctx.textField] : [ctx.textField, idField];
    for (const group of metadata.row_groups) {
      const n = Number(group.num_rows);
      if (n === 0) continue;
      let rows: Record<string, unknown>[];
      try {
        rows = await parquetReadObjects({
          file: buffer,
          metadata,
          columns,
          rowStart: row,
          rowEnd: row + n,
          compressors,
        });
      } catch (e) {
        throw fail(
          `${path}: rows ${row + 1}–${row + n}: cannot read the row group (${e instanceof Error ? e.message : String(e)})`,
          e,
        );
      }
      for (const r of rows) {
        row++;
        let text = r[ctx.textField];
        if (text instanceof Uint8Array) {
          try {
            text = utf8.decode(text);
          } catch (e) {
            throw fail(`${path}:${row}: column "${ctx.textField}" is not valid UTF-8`, e);
          }
        }
        if (typeof text !== 'string')
          throw fail(
            `${path}:${row}: column "${ctx.textField}" is ${text === null || text === undefined ? 'null' : `not a string (${typeof text})`}`,
          );
        let id = `${path}:${row}`;
        const given = idField === undefined ? undefined : r[idField];
        if (idField !== undefined && !(ctx.optionalId && (given === undefined || given === null))) {
          try {
            id = idOf(given, idField);
          } catch (e) {
            throw e instanceof RecordError ? fail(`${path}:${row}: ${e.message}`) : e;
          }
        }
        yield { id, text };
      }
    }
  } finally {
    await close();
  }
}
