/**
 * The file store's single-writer lock: a `LOCK` file created with O_EXCL holding the holder's pid,
 * host, boot id and a token. A lock whose process is dead on this host (or from an earlier boot) is
 * stale and recovered; a live holder gives STORE_LOCKED naming it.
 */
import { link, open, readFile, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TrainprintError } from '../errors.js';
import { errno, writeFully } from './fsutil.js';

/** The lock file's name inside the store directory. */
export const LOCK = 'LOCK';

interface LockRecord {
  readonly pid: number;
  readonly hostname: string;
  readonly started: string;
  readonly bootId?: string;
  readonly token: string;
}

export interface HeldLock {
  readonly path: string;
  readonly text: string;
}

let bootIdCache: Promise<string | undefined> | undefined;

/** Linux's per-boot id: a lock from an earlier boot is stale whatever its pid (pids restart at boot). */
function bootId(): Promise<string | undefined> {
  bootIdCache ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (s) => s.trim() || undefined,
    () => undefined,
  );
  return bootIdCache;
}

function parseLock(text: string): LockRecord | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockRecord> | null;
    if (v && Number.isSafeInteger(v.pid) && v.pid! > 0 && typeof v.hostname === 'string' && typeof v.token === 'string')
      return v as LockRecord;
  } catch {
    // unreadable: handled by the caller
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) !== 'ESRCH'; // EPERM: alive, owned by another user
  }
}

/** Who holds the lock and whether it is stale; undefined when the LOCK vanished meanwhile. */
async function inspectLock(
  path: string,
  staleMs: number,
): Promise<{ text: string; stale: boolean; holder: string } | undefined> {
  let text: string;
  let mtimeMs: number;
  try {
    text = await readFile(path, 'utf8');
    mtimeMs = (await stat(path)).mtimeMs;
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  const lock = parseLock(text);
  if (lock === undefined) {
    const age = Math.round(Date.now() - mtimeMs);
    return { text, stale: age > staleMs, holder: `an unreadable LOCK file ${age} ms old (stale after ${staleMs} ms)` };
  }
  const holder = `pid ${lock.pid} on ${lock.hostname} (since ${lock.started})`;
  if (lock.hostname !== hostname())
    return {
      text,
      stale: false,
      holder: `${holder}, another host: cannot check it, remove ${path} if that process is gone`,
    };
  const boot = await bootId();
  if (boot !== undefined && lock.bootId !== undefined && lock.bootId !== boot) return { text, stale: true, holder };
  if (lock.pid === process.pid)
    return { text, stale: false, holder: `this process (pid ${lock.pid}): the store is already open here` };
  return { text, stale: !isAlive(lock.pid), holder };
}

/**
 * Moves a stale LOCK aside and deletes it, unless it changed since it was judged stale (another
 * opener replaced it meanwhile): then it is put back and the store is reported locked.
 */
async function removeStaleLock(path: string, staleText: string): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${globalThis.crypto.randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (errno(error) === 'ENOENT') return;
    throw error;
  }
  const moved = await readFile(aside, 'utf8');
  if (moved !== staleText) {
    await link(aside, path).catch(() => undefined);
    await unlink(aside);
    throw new TrainprintError(
      'STORE_LOCKED',
      `${path} was taken over by another process while a stale lock was being removed`,
    );
  }
  await unlink(aside);
}

export async function acquireLock(dir: string, staleMs: number): Promise<HeldLock> {
  const path = join(dir, LOCK);
  const record: LockRecord = {
    pid: process.pid,
    hostname: hostname(),
    started: new Date().toISOString(),
    bootId: await bootId(),
    token: globalThis.crypto.randomUUID(),
  };
  const text = `${JSON.stringify(record)}\n`;
  // Attempt 0 may find a stale lock and remove it; attempt 1 is the one retry.
  for (let attempt = 0; ; attempt++) {
    let handle: FileHandle;
    try {
      handle = await open(path, 'wx');
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
      const found = await inspectLock(path, staleMs);
      if (found !== undefined && !found.stale)
        throw new TrainprintError('STORE_LOCKED', `${dir} is held by ${found.holder}`);
      if (attempt >= 1)
        throw new TrainprintError(
          'STORE_LOCKED',
          `${dir}: the lock was taken again while a stale lock was being recovered`,
        );
      if (found !== undefined) await removeStaleLock(path, found.text);
      continue;
    }
    try {
      await writeFully(handle, new TextEncoder().encode(text), 0);
      await handle.close();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(path, { force: true });
      throw error;
    }
    return { path, text };
  }
}

/** Deletes the LOCK if it is still ours. */
export async function releaseLock(lock: HeldLock): Promise<void> {
  const text = await readFile(lock.path, 'utf8').catch(() => undefined);
  if (text === lock.text) await rm(lock.path, { force: true });
}

// ---------------------------------------------------------------------------------------------
// The store
