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
  type ListWorksOptions,
} from './works.js';

/**
 * Registry operations over one store and receipt key: `key()` is loaded or generated on first use (the marketplace
 * signs licences with it too); with `scope.owner`, `get` finds only that owner's work; `find` the work `owner`
 * registered with `workHash`.
 * @example
 * const registry = createRegistryService({ store, fingerprint: (t, o) => engine.fingerprint(t, o) })
 * const w = await registry.register({ content: text, owner: 'acme-press' })
 */
export function createRegistryService(deps: {
  readonly store: Store;
  readonly fingerprint: Fingerprinter;
  readonly receiptKey?: string | Uint8Array;
}) {
  const { store, fingerprint, receiptKey } = deps;
  let loaded: Promise<ReceiptKey> | null = null;
  const key = (): Promise<ReceiptKey> => (loaded ??= loadReceiptKey(store, receiptKey));
  return {
    key,
    register: async (request: RegisterWorkRequest, options?: RegisterOptions): Promise<RegisterWorkResult> =>
      registerWork(fingerprint, store, await key(), request, options),
    verifyReceipt: async (receipt: unknown) => checkReceipt(await key(), receipt),
    get: (workId: string, scope?: { readonly owner?: string }) => getWork(store, workId, scope),
    find: (workHash: string, owner: string) => findWork(store, workHash, owner),
    list: (options?: ListWorksOptions) => listWorks(store, options),
    delete: (workId: string, owner?: string) => deleteWork(store, workId, owner),
  };
}

/** What {@link createRegistryService} makes. */
export type RegistryService = ReturnType<typeof createRegistryService>;
