/**
 * An extraction journal in a file of JSON lines (`trainprint extract --journal FILE`): a header line, then one line
 * `{"key":…,"call":…}` per answered call, appended and fsync'd before the call counts as recorded, so a run killed
 * at any moment (kill -9, power loss) leaves every recorded call readable. A last line cut short by the kill is
 * dropped when the file is opened again (that call is made again: its answer never reached the disk); any other
 * line that does not read is an error, never skipped.
 */
import { open, type FileHandle } from 'node:fs/promises';
import {
  checkRecordedCall,
  isJournalKey,
  TrainprintError,
  type ExtractionJournal,
  type RecordedCall,
} from '../library.js';

/** The first line of every journal file: what it is, so that no other file is appended to. */
const HEADER = { journal: 'trainprint-extraction', version: 1 } as const;

/** A journal file, open for appending. */
export interface FileExtractionJournal extends ExtractionJournal {
  /** Calls recorded (read from the file, and put since). */
  readonly size: number;
  /** Close the file (puts after this fail). */
  close(): Promise<void>;
}

/**
 * Open (or create) the journal file at `path`.
 * @throws INVALID_INPUT when the file exists but is not a journal, or one of its complete lines does not read
 * @example
 * const journal = await openExtractionJournal('run.journal')
 * try { await engine.memorization.extractWork({ text, model, journal }) } finally { await journal.close() }
 */
export async function openExtractionJournal(path: string): Promise<FileExtractionJournal> {
  const fh = await open(path, 'a+');
  let closed = false;
  try {
    const calls = await readJournal(fh, path);
    // writes in order, one at a time: lines never interleave and each put waits for its own fsync
    let tail: Promise<void> = Promise.resolve();
    const append = (line: string) => {
      const next = tail.then(async () => {
        if (closed) throw new TrainprintError('INVALID_INPUT', `journal ${path} is closed`);
        await fh.appendFile(`${line}\n`, 'utf8');
        await fh.sync();
      });
      tail = next.catch(() => {});
      return next;
    };
    if ((await fh.stat()).size === 0) await append(JSON.stringify(HEADER));
    return {
      get size() {
        return calls.size;
      },
      get: async (key) => calls.get(key),
      put: async (key, call) => {
        if (!isJournalKey(key)) throw new TrainprintError('INVALID_INPUT', 'a journal key is 64 lowercase hex digits');
        const checked = checkRecordedCall(call, `journal ${path}, call ${key}`);
        await append(JSON.stringify({ key, call: checked }));
        calls.set(key, checked);
      },
      close: async () => {
        if (closed) return;
        await tail;
        closed = true;
        await fh.close();
      },
    };
  } catch (e) {
    closed = true;
    await fh.close();
    throw e;
  }
}

/** The calls of an existing journal file; a torn last line is cut off so that appends start on a line of their own. */
async function readJournal(fh: FileHandle, path: string): Promise<Map<string, RecordedCall>> {
  const calls = new Map<string, RecordedCall>();
  const { size } = await fh.stat();
  if (size === 0) return calls;
  const bytes = new Uint8Array(size);
  let read = 0;
  while (read < size) {
    const { bytesRead } = await fh.read(bytes, read, size - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  const end = bytes.lastIndexOf(0x0a) + 1; // the bytes after the last newline are a line the kill cut short
  if (end === 0 && JSON.stringify(HEADER).startsWith(new TextDecoder().decode(bytes))) {
    await fh.truncate(0); // killed while writing its header: an empty journal
    return calls;
  }
  const lines = new TextDecoder().decode(bytes.subarray(0, end)).split('\n');
  lines.pop();
  const refuse = (why: string): never => {
    throw new TrainprintError('INVALID_INPUT', `${path} is not an extraction journal: ${why}`);
  };
  let header: unknown = null;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {}
  const h = header as Record<string, unknown> | null;
  if (!h || h.journal !== HEADER.journal) return refuse('its first line is not the journal header');
  if (h.version !== HEADER.version) refuse(`version ${String(h.version)} (this build reads ${HEADER.version})`);
  for (let i = 1; i < lines.length; i++) {
    let entry: { key?: unknown; call?: unknown };
    try {
      entry = JSON.parse(lines[i]);
    } catch {
      return refuse(`line ${i + 1} is not JSON`);
    }
    if (!entry || typeof entry !== 'object' || !isJournalKey(entry.key)) refuse(`line ${i + 1} has no key`);
    calls.set(entry.key as string, checkRecordedCall(entry.call, `${path} line ${i + 1}`));
  }
  if (end < size) await fh.truncate(end);
  return calls;
}
