/**
 * Who supplied each loaded dataset (src/corpus/types.ts `DatasetProvenance`), and what an account may search: the
 * datasets every account shares — shipped with the package or loaded by the operator — and its own. Kept beside
 * the datasets, in memory, as they are: an account's upload is never written into the dataset's file, so the
 * same file loaded by someone else is theirs.
 */
import { TrainprintError } from '../errors.js';
import type { DatasetLoadOptions, DatasetProvenance } from './types.js';

const OPERATOR: DatasetProvenance = Object.freeze({ supplied_by: 'operator', account: null });
const SUPPLIERS = ['shipped', 'operator', 'account'] as const;

/**
 * The provenance `options` of a new dataset ask for.
 * @throws INVALID_OPTIONS for an unknown supplier, a missing or misplaced account
 * @example provenanceOf({ supplied_by: 'account', account: 'alice' }) // { supplied_by: 'account', account: 'alice' }
 */
export function provenanceOf(options: DatasetLoadOptions | undefined): DatasetProvenance {
  if (options === undefined) return OPERATOR;
  if (options === null || typeof options !== 'object')
    throw new TrainprintError('INVALID_OPTIONS', 'options must be an object');
  const by = options.supplied_by ?? 'operator';
  if (!(SUPPLIERS as readonly string[]).includes(by)) {
    throw new TrainprintError('INVALID_OPTIONS', `supplied_by must be one of ${SUPPLIERS.join(', ')}`);
  }
  if (by === 'account') return Object.freeze({ supplied_by: by, account: checkAccount(options.account, 'account') });
  if (options.account !== undefined)
    throw new TrainprintError('INVALID_OPTIONS', "account goes with supplied_by: 'account' only");
  return by === 'operator' ? OPERATOR : Object.freeze({ supplied_by: by, account: null });
}

/**
 * An account id as the options take it: 1–256 characters.
 * @throws INVALID_OPTIONS otherwise
 * @example checkAccount('alice', 'account') // 'alice'
 */
export function checkAccount(v: unknown, name: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 256) {
    throw new TrainprintError('INVALID_OPTIONS', `${name} must be a string of 1..256 characters`);
  }
  return v;
}

/**
 * The provenance of the loaded datasets (the operator's unless recorded otherwise).
 * @example
 * const p = new Provenances()
 * p.set('uploads', { supplied_by: 'account', account: 'alice' })
 * p.visibleTo('uploads', 'bob') // false
 */
export class Provenances {
  private readonly byId = new Map<string, DatasetProvenance>();

  set(id: string, provenance: DatasetProvenance): void {
    if (provenance === OPERATOR) this.byId.delete(id);
    else this.byId.set(id, provenance);
  }

  get(id: string): DatasetProvenance {
    return this.byId.get(id) ?? OPERATOR;
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }

  /** Whether `account` may search dataset `id`: a shared dataset, or its own. */
  visibleTo(id: string, account: string): boolean {
    const p = this.byId.get(id);
    return p === undefined || p.account === null || p.account === account;
  }
}
