/**
 * A remote corpus as a dataset of the corpus: its checked configuration, its stats (the index's published sizes),
 * its search (./search.ts) and the health of its endpoint.
 */
import type { Core } from '../core/abi.js';
import type { AlignmentKit } from '../corpus/alignment-kit.js';
import type {
  RemoteDatasetConfig,
  RemoteHealth,
  RemoteSearch,
  RemoteSearchable,
  RemoteSearchOptions,
} from '../corpus/remote-types.js';
import { PUBLIC_ENDPOINTS } from '../corpus/remote-types.js';
import type { DatasetStats } from '../datasets/types.js';
import { TrainprintError } from '../errors.js';
import type { Store } from '../store/types.js';
import { sampledSearch, sampleRemote } from './sampling.js';
import { countWords, searchRemote, type SearchContext } from './search.js';
import { createTransport, endpointHealth, RemoteCallError, transportSettings } from './transport.js';

/** What a remote dataset is made with besides its configuration. */
export interface RemoteDatasetDeps {
  /** The engine's live core (alignment runs on it). */
  readonly core: () => Core;
  /** The engine's alignment (`ALIGNMENT_KIT` of src/corpus/alignment-kit.ts). */
  readonly kit: AlignmentKit;
  /** The engine's store, for the answers monitors and scores keep. */
  readonly store?: Store;
  /** The index's published sizes, when the knowledge base knows it. */
  readonly sizes?: { readonly documents: number; readonly tokens: number | null; readonly bytes: number | null };
  /** False when `kb_dataset` comes from the knowledge base's table of public indexes. @default true */
  readonly declared?: boolean;
}

/** Calls of one search by default, whatever the text's length (`RemoteDatasetConfig.maxCalls`). */
export const DEFAULT_MAX_CALLS = 400;

const KEYS = [
  'id',
  'kind',
  'endpoint',
  'index',
  'kb_dataset',
  'models',
  'name',
  'maxCalls',
  'deadlineMs',
  'boilerplate_count',
  'cacheDays',
  'timeoutMs',
  'maxRetries',
  'retryBaseMs',
  'maxRetryDelayMs',
  'concurrency',
  'ratePerSecond',
  'fetch',
  'sleep',
  'random',
] as const;

const bad = (detail: string): never => {
  throw new TrainprintError('INVALID_OPTIONS', detail);
};

/**
 * Check a remote dataset's configuration: INVALID_OPTIONS naming the field. The endpoint must be an http(s) URL
 * without credentials; the index a name of letters, digits, `_`, `-` and `.`.
 * @example checkRemoteConfig({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' }).endpoint // 'https://api.infini-gram.io/'
 */
export function checkRemoteConfig(config: RemoteDatasetConfig): RemoteDatasetConfig & { readonly endpoint: string } {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    bad('the remote dataset must be an object { id, kind, index, endpoint? }');
  for (const k of Object.keys(config))
    if (!(KEYS as readonly string[]).includes(k)) bad(`unknown field "${k}" of a remote dataset`);
  const { id, kind, index } = config;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) bad('id must be a string of 1..200 characters');
  if (kind !== 'infini-gram' && kind !== 'infini-gram-mini') bad(`kind must be 'infini-gram' or 'infini-gram-mini'`);
  if (typeof index !== 'string' || !/^[\w.-]{1,200}$/.test(index))
    bad('index must be an index name such as "v4_piletrain_llama"');
  const endpoint = config.endpoint ?? PUBLIC_ENDPOINTS[kind];
  let url: URL | null = null;
  try {
    url = new URL(endpoint);
  } catch {
    /* below */
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) bad('endpoint must be an http: or https: URL');
  if (url!.username !== '' || url!.password !== '') bad('endpoint must not contain credentials');
  if (config.kb_dataset !== undefined && (typeof config.kb_dataset !== 'string' || config.kb_dataset.length === 0))
    bad('kb_dataset must be a dataset id');
  if (
    config.models !== undefined &&
    (!Array.isArray(config.models) || config.models.some((m) => typeof m !== 'string'))
  )
    bad('models must be an array of model ids');
  if (config.name !== undefined && (typeof config.name !== 'string' || config.name.length > 200))
    bad('name must be a string of at most 200 characters');
  const int = (v: unknown, lo: number, hi: number, name: string) => {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi))
      bad(`${name} must be an integer in ${lo}..${hi}`);
  };
  int(config.maxCalls, 20, 1_000_000, 'maxCalls');
  int(config.deadlineMs, 100, 3_600_000, 'deadlineMs');
  int(config.boilerplate_count, 1, Number.MAX_SAFE_INTEGER, 'boilerplate_count');
  int(config.cacheDays, 0, 3650, 'cacheDays');
  transportSettings(config);
  for (const f of ['fetch', 'sleep', 'random'] as const) {
    if (config[f] !== undefined && typeof config[f] !== 'function') bad(`${f} must be a function`);
  }
  return { ...config, endpoint: url!.href };
}

/**
 * A remote corpus ready to search.
 * @throws INVALID_OPTIONS (see {@link checkRemoteConfig})
 * @example
 * const pile = openRemoteDataset({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' }, { core: () => engineCore, kit: ALIGNMENT_KIT })
 * const found = await pile.search(text) // { matches, report: { outcome: 'searched', calls, … }, … }
 */
export function openRemoteDataset(config: RemoteDatasetConfig, deps: RemoteDatasetDeps): RemoteSearchable {
  const checked = checkRemoteConfig(config);
  const settings = transportSettings(checked);
  const transport = createTransport(checked.endpoint, checked);
  // this corpus's own calls for its health: the endpoint's counts are shared by every index served at that origin
  const own = { calls: 0, failures: 0 };
  const post: SearchContext['post'] = (body, run) =>
    transport(body, run).then(
      (a) => {
        own.calls++;
        return a;
      },
      (e) => {
        if (!(e instanceof RemoteCallError && e.kind === 'cancelled')) {
          own.calls++;
          own.failures++;
        }
        throw e;
      },
    );
  const ctx: SearchContext = {
    config: {
      id: checked.id,
      kind: checked.kind,
      index: checked.index,
      endpoint: checked.endpoint,
      maxCalls: checked.maxCalls ?? DEFAULT_MAX_CALLS,
      deadlineMs: checked.deadlineMs ?? 25_000,
      boilerplateCount: checked.boilerplate_count ?? 1000,
      cacheTtlMs: (checked.cacheDays ?? 30) * 86_400_000,
      concurrency: settings.concurrency,
    },
    post,
    core: deps.core,
    kit: deps.kit,
    store: deps.store,
  };
  const sizes = deps.sizes;
  return {
    config: checked,
    stats(): DatasetStats {
      return {
        id: checked.id,
        name: checked.name,
        kind: 'remote',
        documents: sizes?.documents ?? 0,
        tokens: sizes?.tokens ?? 0,
        fingerprints: 0,
        bytes: sizes?.bytes ?? 0,
        index_bytes: 0,
        params: `remote:${checked.kind}`,
        kb_dataset: checked.kb_dataset ?? null,
        models: checked.models ?? [],
        remote: {
          engine: checked.kind,
          endpoint: checked.endpoint,
          index: checked.index,
          declared: deps.declared ?? true,
        },
      };
    },
    search(text: string, options?: RemoteSearchOptions): Promise<RemoteSearch> {
      if (typeof text !== 'string') throw new TrainprintError('INVALID_INPUT', 'text must be a string');
      const words = countWords(text);
      const budget = Math.min(options?.maxCalls ?? Infinity, ctx.config.maxCalls);
      return sampledSearch(words, budget) ? sampleRemote(ctx, text, options) : searchRemote(ctx, text, options);
    },
    health(): RemoteHealth {
      const h = endpointHealth(checked.endpoint);
      const state =
        h === null || h.calls === 0
          ? 'unknown'
          : h.consecutive_unreachable >= 3
            ? 'down'
            : h.last_failure_at !== null && h.last_ok_at !== null && h.last_failure_at > h.last_ok_at
              ? 'degraded'
              : h.last_ok_at === null
                ? 'down'
                : 'ok';
      return {
        dataset_id: checked.id,
        engine: checked.kind,
        endpoint: checked.endpoint,
        index: checked.index,
        state,
        calls: own.calls,
        failures: own.failures,
        last_ok_at: h?.last_ok_at ?? null,
        last_failure_at: h?.last_failure_at ?? null,
        last_failure: h?.last_failure ?? null,
        p50_ms: h?.p50_ms ?? null,
      };
    },
  };
}
