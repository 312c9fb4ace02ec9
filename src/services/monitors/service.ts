/**
 * The monitor service: monitors and their event log on one store, evaluations queued so they
 * never overlap (a dataset change queues one; the interval and `evaluate` queue one for all),
 * and webhook delivery of the events through one {@link WebhookDeliverer}.
 */
import type { CorpusView } from '../../corpus/types.js';
import { TrainprintError } from '../../errors.js';
import type { Store } from '../../store/types.js';
import type { KnowledgeBase } from '../kb/kb.js';
import type { ScoreService } from '../score/service.js';
import {
  createMonitor,
  deleteMonitor,
  evaluateMonitors,
  getMonitor,
  listEvents,
  listMonitors,
  setMonitorState,
  type CreateMonitorRequest,
  type Monitor,
  type MonitorEvent,
  type MonitorScope,
} from './monitors.js';
import { WebhookDeliverer, type WebhookDelivererOptions } from './webhook.js';

/** Monitor operations, the evaluation queue and its interval. */
export interface MonitorService {
  readonly webhooks: WebhookDeliverer;
  /** `owner`: the account it belongs to (its evaluations read the shared datasets and that account's own). */
  create(request: CreateMonitorRequest, owner?: string): Promise<Monitor>;
  /** With `scope.owner`, only that owner's monitors are found (another's is NOT_FOUND, or false to delete). */
  get(id: string, scope?: MonitorScope): Promise<Monitor>;
  list(options?: { work_id?: string; owner?: string }): Promise<Monitor[]>;
  setState(id: string, state: 'active' | 'paused', scope?: MonitorScope): Promise<Monitor>;
  delete(id: string, scope?: MonitorScope): Promise<boolean>;
  events(options?: { monitor_id?: string; after?: string; limit?: number }): Promise<MonitorEvent[]>;
  /** Queue an evaluation of every active monitor; resolves to the new events. */
  evaluate(): Promise<MonitorEvent[]>;
  /** A dataset changed: queue an evaluation of the monitors it may affect. */
  datasetChanged(datasetId: string): void;
  /** Resolves when the queued evaluations have run. */
  idle(): Promise<void>;
  /**
   * Evaluate every `intervalMs`, and deliver due webhooks, looking for them at least every
   * {@link DELIVERY_POLL_MS} (timers unref'd: they never keep a process alive).
   */
  start(intervalMs: number): void;
  /**
   * Stop the interval and the deliverer, and wait for running work. Deliveries in flight get `graceMs` (default:
   * the request timeout) and are then handed back ({@link WebhookDeliverer.stop}); events of evaluations that end
   * meanwhile stay due for another process or the next start.
   */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

/**
 * Longest wait between two looks for due deliveries while started (one indexed read of the store). Deliveries
 * staged by another process on the store — one that stopped, handed them back or died — go out this soon after
 * they are due (or their lease lapsed), not only at the next monitoring interval.
 * @example createMonitorService(deps).start(60_000) // evaluates every 60 s, delivers at least every 5 s
 */
export const DELIVERY_POLL_MS = 5_000;

/**
 * @example
 * const monitors = createMonitorService({ corpus, store, kb: knowledgeBase(), scores })
 * await monitors.create({ work_id, webhook: { url: 'https://example.org/hooks', secret: 'whsec_0123456789abcdef' } })
 */
export function createMonitorService(deps: {
  readonly corpus: CorpusView;
  readonly store: Store;
  readonly kb: KnowledgeBase;
  readonly scores: ScoreService;
  readonly webhooks?: Omit<WebhookDelivererOptions, 'store' | 'resolveSecret'>;
}): MonitorService {
  // deps.kb is read when a monitor is made or evaluated, not here: the engine builds its knowledge base on first use
  const { corpus, store, scores } = deps;
  const webhooks = new WebhookDeliverer({
    ...deps.webhooks,
    store,
    resolveSecret: async (id) => {
      const s = await store.get(`monitor-secret/${id}`);
      return typeof s === 'string' ? s : undefined;
    },
  });
  const evaluation = {
    corpus,
    get kb() {
      return deps.kb;
    },
    score: scores.score,
  };
  let chain: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | null = null;
  /** Calls of stop() under way: evaluations then leave their deliveries due instead of sending them. */
  let stopping = 0;
  const queue = (trigger: string, datasetId?: string): Promise<MonitorEvent[]> => {
    const run = chain
      .catch(() => undefined)
      .then(() => evaluateMonitors(evaluation, store, webhooks, trigger, datasetId))
      .then(async (events) => {
        if (events.length > 0 && stopping === 0) await webhooks.runDue();
        return events;
      });
    chain = run;
    return run;
  };
  const stopTimer = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    webhooks,
    create: (request, owner) => createMonitor(store, deps.kb, request, owner),
    get: (id, scope) => getMonitor(store, id, scope),
    list: (options) => listMonitors(store, options),
    setState: (id, state, scope) => setMonitorState(store, id, state, scope),
    delete: (id, scope) => deleteMonitor(store, id, scope),
    events: (options) => listEvents(store, options),
    evaluate: () => queue('manual'),
    datasetChanged: (id) => void queue(id, id).catch(() => undefined),
    idle: async () => {
      await chain.catch(() => undefined);
    },
    start(intervalMs) {
      if (!Number.isInteger(intervalMs) || intervalMs < 10)
        throw new TrainprintError('INVALID_OPTIONS', 'intervalMs must be an integer ≥ 10');
      stopTimer();
      timer = setInterval(() => void queue('interval').catch(() => undefined), intervalMs);
      (timer as { unref?: () => void }).unref?.();
      webhooks.start(Math.min(intervalMs, DELIVERY_POLL_MS));
    },
    async stop(options = {}) {
      stopTimer();
      stopping++;
      try {
        await webhooks.stop(options);
        await chain.catch(() => undefined);
      } finally {
        stopping--;
      }
    },
  };
}
