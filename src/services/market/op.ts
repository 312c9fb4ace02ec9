/**
 * One marketplace operation = one store transaction (serialised and atomic, see src/store/types.ts),
 * which is what makes "exactly one licence" and "no lost offer" hold under concurrency.
 *
 * The one twist is lazy expiry: an operation first expires the offers that are due (writes with
 * audit entries), then checks and may refuse. A refusal must not roll back the expiry — otherwise
 * accepting an expired offer would keep failing while the offer stays `pending` for ever. So an
 * operation marks a `checkpoint()` after its expiry step; when it throws a TrainprintError having
 * written nothing since, the writes up to the checkpoint are committed and the error is rethrown
 * after the commit. Any write after the checkpoint makes a failure roll back everything, as usual.
 */
import { isTrainprintError } from '../../errors.js';
import type { ScanOptions, Store, Transaction } from '../../store/types.js';

/** A transaction with the operation's clock and a write count. */
export class Op {
  readonly nowIso: string;
  #writes = 0;
  #safe = 0;

  constructor(
    readonly tx: Transaction,
    readonly nowMs: number,
  ) {
    this.nowIso = new Date(nowMs).toISOString();
  }

  get(key: string): Promise<unknown | undefined> {
    return this.tx.get(key);
  }

  scan(prefix: string, options?: ScanOptions): Promise<Array<[string, unknown]>> {
    return this.tx.scan(prefix, options);
  }

  put(key: string, value: unknown): void {
    this.tx.put(key, value);
    this.#writes++;
  }

  delete(key: string): void {
    this.tx.delete(key);
    this.#writes++;
  }

  /** Writes so far may be kept even if the operation then refuses. */
  checkpoint(): void {
    this.#safe = this.#writes;
  }

  /** True when nothing was written since the last checkpoint. */
  get clean(): boolean {
    return this.#writes === this.#safe;
  }
}

/**
 * Run `fn` as one transaction on `store` at time `now()`.
 * @example
 * const listing = await runOp(store, Date.now, async (op) => (await op.get('market/listing/lst_1')) as Listing)
 */
export async function runOp<T>(store: Store, now: () => number, fn: (op: Op) => Promise<T>): Promise<T> {
  const out = await store.transaction(async (tx) => {
    const op = new Op(tx, now());
    try {
      return { ok: true as const, value: await fn(op) };
    } catch (error) {
      if (op.clean && isTrainprintError(error)) return { ok: false as const, error };
      throw error;
    }
  });
  if (!out.ok) throw out.error;
  return out.value;
}
