/** Small filesystem helpers shared by the file store and its lock (Node only). */
import type { FileHandle } from 'node:fs/promises';

/** The `code` of a Node system error (ENOENT, EEXIST, …). */
export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** `handle.write` may write less than asked; loop until every byte is at `position`. */
export async function writeFully(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten <= 0) throw new Error(`write made no progress at byte ${position + done}`);
    done += bytesWritten;
  }
}
