/**
 * The monitor service: monitors and their event log on one store, evaluations queued so they
 * never overlap (a dataset change queues one; the interval and `evaluate` queue one for all),
 * and webhook delivery of the events through one {@link WebhookDeliverer}.
 */
import type { CorpusView } from '../../corpus/types.js';
import { TrainprintError } from '../../errors.js';
import type { AlongsideRecords, Store } from '../../store/types.js';
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
} from './monitors.js';
import { WebhookDeliverer, type WebhookDelivererOptions } from './webhook.js';

/** Monitor operations, the evaluation queue and its interval. */
export interface MonitorService {
  readonly webhooks: WebhookDeliverer;
  create(request: CreateMonitorRequest, records?: AlongsideRecords): Promise<Monitor>;
  get(id: string): Promise<Monitor>;
  list(options?: { work_id?: string }): Promise<Monitor[]>;
  setState(id: string, state: 'active' | 'paused'): Promise<Monitor>;
  delete(id: string): Promise<boolean>;
  events(options?: { monitor_id?: string; after?: string; limit?: number }): Promise<MonitorEvent[]>;
  /** Queue an evaluation of every active monitor; resolves to the new events. */
  evaluate(): Promise<MonitorEvent[]>;
  /** A dataset changed: queue an evaluation of the monitors it may affect. */
  datasetChanged(datasetId: string): void;
  /** Resolves when the queued evaluations have run. */
  idle(): Promise<void>;
  /** Evaluate every `intervalMs` and deliver due webhooks (timers unref'd: they never keep a process alive). */
  start(intervalMs: number): void;
  /** Stop the interval and the deliverer, and wait for running work. */
  stop(): Promise<void>;
}

/**
 * @example
 * const monitors = createMonitorService({ corpus, store, scores })
 * await monitors.create({ work_id, webhook: { url: 'https://example.org/hooks', secret: 'whsec_0123456789abcdef' } })
 */
export function createMonitorService(deps: {
  readonly corpus: CorpusView;
  readonly store: Store;
  readonly scores: ScoreService;
  readonly webhooks?: Omit<WebhookDelivererOptions, 'store' | 'resolveSecret'>;
}): MonitorService {
  const { corpus, store, scores } = deps;
  const webhooks = new WebhookDeliverer({
    ...deps.webhooks,
    store,
    resolveSecret: async (id) => {
      const s = await store.get(`monitor-secret/${id}`);
      return typeof s === 'string' ? s : undefined;
    },
  });
  const evaluation = { corpus, score: scores.score };
  let chain: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | null = null;
  const queue = (trigger: string, datasetId?: string): Promise<MonitorEvent[]> => {
    const run = chain
      .catch(() => undefined)
      .then(() => evaluateMonitors(evaluation, store, webhooks, trigger, datasetId));
    chain = run;
    return run;
  };
  const stopTimer = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    webhooks,
    create: (request, records) => createMonitor(store, request, records),
    get: (id) => getMonitor(store, id),
    list: (options) => listMonitors(store, options),
    setState: (id, state) => setMonitorState(store, id, state),
    delete: (id) => deleteMonitor(store, id),
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
      webhooks.start(intervalMs);
    },
    async stop() {
      stopTimer();
      await webhooks.stop();
      await chain.catch(() => undefined);
    },
  };
}
