/**
 * Answers of the remote engines kept for reuse: an index is a fixed corpus, so the same request gets the same
 * answer, and a second analysis of a text (or a monitor's next evaluation of a work) need not ask again.
 *
 * - In memory, per process: least recently used first out, bounded by the characters it holds.
 * - In the engine's store, for monitors and scores (`persist`): the answers a search used are written in one
 *   batch at its end, under `remote-cache/<key hash>`, with the request they answer (a read compares it, so a
 *   hash collision is a miss) and the time; older than the time to live is a miss.
 *
 * Errors are never kept: an outage must not become a cached "no evidence".
 */
import type { Store } from '../store/types.js';

/** Store prefix of the persisted answers. */
export const CACHE_PREFIX = 'remote-cache/';

/** A cached answer in the store. */
interface Persisted {
  readonly request: string;
  readonly answer: Record<string, unknown>;
  readonly at: number;
}

/** Memory cache of answers by request (the request's JSON with its endpoint). */
export class AnswerCache {
  private readonly entries = new Map<string, { answer: Record<string, unknown>; size: number }>();
  private held = 0;
  hits = 0;
  misses = 0;

  /** @param maxChars characters of requests and answers kept (about 2 bytes each) */
  constructor(readonly maxChars = 32 * 1024 * 1024) {}

  get(key: string): Record<string, unknown> | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.entries.delete(key); // most recently used goes last
    this.entries.set(key, e);
    this.hits++;
    return e.answer;
  }

  set(key: string, answer: Record<string, unknown>, size: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.held -= old.size;
      this.entries.delete(key);
    }
    const total = size + key.length;
    if (total > this.maxChars) return;
    this.entries.set(key, { answer, size: total });
    this.held += total;
    for (const [k, e] of this.entries) {
      if (this.held <= this.maxChars) break;
      this.entries.delete(k);
      this.held -= e.size;
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.held -= e.size;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }
}

/** The process's memory cache, shared by every remote dataset (requests name their endpoint and index). */
export const sharedCache = new AnswerCache();

/** One search's view of the store cache: reads as it goes, writes what it fetched in one batch at the end. */
export class StoreCache {
  private readonly fresh: Array<{ key: string; value: Persisted }> = [];

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(request: string): Promise<Record<string, unknown> | undefined> {
    const v = (await this.store.get(storeKey(request))) as Persisted | undefined;
    if (!v || typeof v !== 'object' || v.request !== request || typeof v.at !== 'number') return undefined;
    if (this.now() - v.at > this.ttlMs) return undefined;
    return v.answer;
  }

  put(request: string, answer: Record<string, unknown>): void {
    this.fresh.push({ key: storeKey(request), value: { request, answer, at: this.now() } });
  }

  /** Forget what this search fetched: its answers are not to be kept (one of them was unusable). */
  discard(): void {
    this.fresh.length = 0;
  }

  /** Write what this search fetched (one batch); a store that fails leaves the cache as it was. */
  async flush(): Promise<number> {
    if (this.fresh.length === 0) return 0;
    const ops = this.fresh.splice(0).map(({ key, value }) => ({ type: 'put' as const, key, value }));
    await this.store.batch(ops);
    return ops.length;
  }
}

/** `remote-cache/` and a 64-bit FNV-1a of the request, in hex. */
export function storeKey(request: string): string {
  let h1 = 0x811c9dc5,
    h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < request.length; i++) {
    const c = request.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  return `${CACHE_PREFIX}${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}`;
}
