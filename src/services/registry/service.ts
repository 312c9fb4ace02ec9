/**
 * The registry service: works with signed receipts, on one store, with one receipt key (given,
 * or generated once and kept in the store so receipts verify across restarts).
 */
import type { Store } from '../../store/types.js';
import { checkReceipt, loadReceiptKey, type ReceiptKey } from './receipts.js';
import {
  deleteWork,
  findWork,
  getWork,
  listWorks,
  registerWork,
  type Fingerprinter,
  type RegisterOptions,
  type RegisterWorkRequest,
  type RegisterWorkResult,
  type Work,
  type ListWorksOptions,
  type WorkPage,
} from './works.js';

/** Registry operations over one store and receipt key. */
export interface RegistryService {
  /** The receipt key (loaded or generated on first use); the marketplace signs licences with it too. */
  key(): Promise<ReceiptKey>;
  register(request: RegisterWorkRequest, options?: RegisterOptions): Promise<RegisterWorkResult>;
  verifyReceipt(receipt: unknown): Promise<boolean>;
  /** With `scope.owner`, only that owner's work is found. */
  get(workId: string, scope?: { readonly owner?: string }): Promise<Work>;
  /** The work `owner` registered with `workHash`. */
  find(workHash: string, owner: string): Promise<Work>;
  list(options?: ListWorksOptions): Promise<WorkPage>;
  delete(workId: string, owner?: string): Promise<boolean>;
}

/**
 * @example
 * const registry = createRegistryService({ store, fingerprint: (t, o) => engine.fingerprint(t, o) })
 * const w = await registry.register({ content: text, owner: 'acme-press' })
 */
export function createRegistryService(deps: {
  readonly store: Store;
  readonly fingerprint: Fingerprinter;
  readonly receiptKey?: string | Uint8Array;
}): RegistryService {
  const { store, fingerprint, receiptKey } = deps;
  let key: Promise<ReceiptKey> | null = null;
  const service: RegistryService = {
    key: () => (key ??= loadReceiptKey(store, receiptKey)),
    register: async (request, options) => registerWork(fingerprint, store, await service.key(), request, options),
    verifyReceipt: async (receipt) => checkReceipt(await service.key(), receipt),
    get: (workId, scope) => getWork(store, workId, scope),
    find: (workHash, owner) => findWork(store, workHash, owner),
    list: (options) => listWorks(store, options),
    delete: (workId, owner) => deleteWork(store, workId, owner),
  };
  return service;
}
