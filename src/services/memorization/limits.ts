/**
 * The integer options of the memorization operations that call a model service, each bound written once. Their request
 * contracts (./schemas.ts) are made from them ({@link limitSchema}), and the HTTP API's request schemas and the `extract`
 * and `audit` job items from those ({@link servedProps}), with the server's tightenings in one table
 * ({@link SERVER_CAPS}) — so no bound is written twice, and where HTTP allows less than the library it says why.
 */
import { intIn, type JsonSchema } from '../../util/json-schema.js';
import { PROBE_CHUNK_TOKENS, PROBE_MIN_CHUNKS, PROBE_MIN_REFERENCE_DOCUMENTS } from './constants.js';

/** An integer option's bounds (inclusive) and, where it is fixed, its default. */
export interface IntLimit {
  readonly min: number;
  readonly max: number;
  readonly default?: number;
}

/** A whole-work extraction's, and a catalogue audit's, model calls at most: one budget, one default. */
const BUDGET_CALLS = { min: 1, max: 1_000_000, default: 2000 } as const;

/**
 * Per operation, the bounds the library takes (`memorization.extract`, `extractWork`, `auditCatalogue` — which reads
 * its per-work options through `extractWork`'s — and `probe`).
 * @example MEMORIZATION_LIMITS.extract.prefixes // { min: 1, max: 1000, default: 16 }
 */
export const MEMORIZATION_LIMITS = {
  extract: {
    prefix_tokens: { min: 4, max: 2000, default: 50 },
    continuation_tokens: { min: 8, max: 2000, default: 64 },
    prefixes: { min: 1, max: 1000, default: 16 },
    // default: 2 × continuation_tokens
    max_tokens: { min: 1, max: 16_384 },
    concurrency: { min: 1, max: 64, default: 4 },
  },
  extractWork: {
    budget_calls: BUDGET_CALLS,
    // default: one per 250 words, at most half the budget
    probes: { min: 1, max: 1_000_000 },
    prefix_words: { min: 8, max: 500, default: 50 },
    max_tokens: { min: 16, max: 4096, default: 256 },
    concurrency: { min: 1, max: 64, default: 4 },
  },
  audit: {
    budget_calls: BUDGET_CALLS,
    first_probes: { min: 1, max: 50, default: 3 },
  },
  probe: {
    chunk_tokens: { min: 16, max: 4096, default: PROBE_CHUNK_TOKENS },
    min_chunks: { min: 5, max: 100_000, default: PROBE_MIN_CHUNKS },
    min_reference_documents: { min: 2, max: 100_000, default: PROBE_MIN_REFERENCE_DOCUMENTS },
    concurrency: { min: 1, max: 64, default: 4 },
  },
} as const satisfies Record<string, Record<string, IntLimit>>;

/**
 * Where the HTTP API (and a job item) allows less than the library: a server calls model services for many accounts
 * at once, so one request may keep at most 16 calls in flight (the library's caller owns its process: 64), and the
 * probe extraction's answers, held whole in one result, are bounded by at most 256 prompts of at most 4,096 tokens
 * (the library: 1,000 and 16,384, under the same 16 M-character cap of a result).
 * @example SERVER_CAPS.concurrency // 16
 */
export const SERVER_CAPS: Readonly<Record<string, number>> = { concurrency: 16, prefixes: 256, max_tokens: 4096 };

type Operation = keyof typeof MEMORIZATION_LIMITS;

/**
 * An option's JSON Schema with the library's bounds (a request's schema as the library reads it).
 * @example limitSchema('extractWork', 'concurrency') // integer 1..64
 */
export function limitSchema<O extends Operation>(
  operation: O,
  name: keyof (typeof MEMORIZATION_LIMITS)[O] & string,
): JsonSchema {
  const limit = MEMORIZATION_LIMITS[operation][name] as IntLimit;
  return intIn(limit.min, limit.max);
}

/**
 * A request's members as the HTTP API serves them: each integer option that {@link SERVER_CAPS} names lowered to its
 * cap, every other member the same object.
 * @example servedProps({ concurrency: limitSchema('extractWork', 'concurrency') }).concurrency.maximum // 16
 */
export function servedProps<P extends Record<string, JsonSchema>>(props: P): P {
  const tightened = Object.entries(props).map(([name, s]) => {
    const cap = SERVER_CAPS[name];
    return [name, cap !== undefined && s.type === 'integer' && Number(s.maximum) > cap ? { ...s, maximum: cap } : s];
  });
  return Object.fromEntries(tightened) as P;
}
