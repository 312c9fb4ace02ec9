/**
 * The output of a file scan: hit lines buffered and written in order to a file (or stdout), with the byte count a
 * checkpoint records; `sync` flushes and fsyncs before a checkpoint is written.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import type { ScanHit } from '../../library.js';

/** Buffered text is written once it is this long. */
const FLUSH_CHARS = 1 << 16;

/**
 * A hit as its JSON line (with its newline): exactly the ScanHit fields, in their order.
 * @example for await (const hit of engine.scan(items)) out.write(hitLine(hit))
 */
export function hitLine(h: ScanHit): string {
  return `{"id":${JSON.stringify(h.id)},"dataset_id":${JSON.stringify(h.dataset_id)},"document_id":${JSON.stringify(h.document_id)},"query_start":${h.query_start},"query_end":${h.query_end},"source_start":${h.source_start},"source_end":${h.source_end},"words":${h.words},"kind":"${h.kind}"}\n`;
}

/** Where the hit lines go. */
export class HitOutput {
  private buffer = '';
  /** Bytes written to the file (flushed), from its start. */
  private written: number;

  private constructor(
    private readonly fd: number,
    private readonly own: boolean,
    at: number,
  ) {
    this.written = at;
  }

  /**
   * The output file `path` (`-`: stdout): created or emptied, or with `keep` (a resume) cut back to `keep` bytes
   * and appended to.
   * @example const out = HitOutput.open('hits.jsonl', null)
   */
  static open(path: string, keep: number | null): HitOutput {
    if (path === '-') return new HitOutput(1, false, 0);
    if (keep === null) return new HitOutput(openSync(path, 'w'), true, 0);
    const fd = openSync(path, 'r+');
    const size = statSync(path).size;
    if (size < keep) {
      closeSync(fd);
      throw new Error(`${path} is shorter (${size} bytes) than its checkpoint says (${keep})`);
    }
    ftruncateSync(fd, keep);
    return new HitOutput(fd, true, keep);
  }

  /** Adds lines of hits. */
  write(lines: string): void {
    this.buffer += lines;
    if (this.buffer.length >= FLUSH_CHARS) this.flush();
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.buffer.length === 0) return;
    const bytes = Buffer.from(this.buffer, 'utf8');
    this.buffer = '';
    for (let at = 0; at < bytes.length; )
      at += writeSync(this.fd, bytes, at, bytes.length - at, this.own ? this.written + at : null);
    this.written += bytes.length;
  }

  /** Flushes and syncs the file; the bytes it holds from its start. */
  sync(): number {
    this.flush();
    if (this.own) fsyncSync(this.fd);
    return this.written;
  }

  /** Flushes and closes (stdout stays open). */
  close(): void {
    this.flush();
    if (this.own) closeSync(this.fd);
  }
}
