/**
 * Monitors: a registered work watched against models. When a dataset is added, changed or
 * removed (or on an interval), every active monitor it may affect is re-evaluated with `score`;
 * changes become events in the event log (`match.found`: chunks of the work newly found in a
 * model's datasets; `score.changed`: the score moved by ≥ 1 point or the tier changed), and are
 * delivered to the monitor's webhook, signed (./webhook.ts). Records on the store:
 *   `monitor/<id>`          the monitor (no secret) with the last evaluation per model
 *   `monitor-secret/<id>`   its webhook secret (kept so deliveries can be re-signed after a restart)
 *   `event/<time>-<n>-<id>` the event log, in the order events happened
 */
import type { CorpusView } from '../../corpus/types.js';
import { checkAccount } from '../../corpus/provenance.js';
import { TrainprintError } from '../../errors.js';
import type { KnowledgeBase } from '../kb/kb.js';
import { resolveJurisdiction } from '../kb/jurisdictions.js';
import { getWork, worksByHash } from '../registry/works.js';
import type { ChunkCache } from '../score/score.js';
import type { ScoreOptions, ScoreRequest, ScoreResult, Tier } from '../score/types.js';
import type { Store } from '../../store/types.js';
import { readRequest, readThrough } from '../../util/schema-check.js';
import { checkObject, fail, newId } from '../../util/validate.js';
import {
  CREATE_MONITOR_REQUEST,
  LIST_EVENTS_REQUEST,
  LIST_MONITORS_REQUEST,
  MONITOR_EVENTS,
  type CreateMonitorRequest,
  type MonitorEventType,
} from './schema.js';

import type { WebhookDeliverer } from './webhook.js';

export type { CreateMonitorRequest, MonitorEventType } from './schema.js';

/** Last evaluation of one model. */
export interface MonitorModelState {
  readonly score: number;
  readonly tier: Tier;
  readonly flagged_chunks: number;
  readonly datasets: string[];
  readonly evaluated_at: string;
}

/** A monitor. */
export interface Monitor {
  readonly monitor_id: string;
  readonly work_id: string;
  readonly work_hash: string;
  readonly models: string[] | null;
  readonly datasets: string[] | null;
  readonly webhook: { readonly url: string } | null;
  readonly events: MonitorEventType[];
  readonly jurisdiction: string;
  readonly state: 'active' | 'paused';
  readonly created_at: string;
  readonly updated_at: string;
  readonly last: Record<string, MonitorModelState>;
  /**
   * The account the monitor belongs to (`createMonitor(…, { owner })`; the HTTP service passes the account): its
   * evaluations read the datasets every account shares and this account's own. null: the operator's, reading all.
   */
  readonly owner?: string | null;
}

/** An event of the log. */
export interface MonitorEvent {
  readonly id: string;
  readonly type: MonitorEventType;
  readonly created_at: string;
  readonly data: {
    readonly monitor_id: string;
    readonly work_id: string;
    readonly work_hash: string;
    readonly model: string;
    readonly score: number;
    readonly previous_score: number | null;
    readonly tier: Tier;
    readonly previous_tier: Tier | null;
    readonly flagged_chunks: number;
    readonly previous_flagged_chunks: number;
    readonly datasets: string[];
    /** What triggered the evaluation: a dataset id, or 'interval' / 'manual'. */
    readonly trigger: string;
  };
}

/**
 * `monitor-of/<owner>/<monitor_id>` → true: the monitors of an owner, read by prefix (owner percent-encoded, so `a/b`
 * never falls under the prefix of `a`).
 */
export const MONITOR_OWNER_PREFIX = 'monitor-of/';
const ownerIndexKey = (owner: string, id: string): string =>
  `${MONITOR_OWNER_PREFIX}${encodeURIComponent(owner)}/${id}`;

/** Whose monitors an operation may see: with `owner`, only that owner's (another's is NOT_FOUND). */
export interface MonitorScope {
  readonly owner?: string;
}

/** Create a monitor (see `Engine.createMonitor`). */
export async function createMonitor(
  store: Store,
  kb: KnowledgeBase,
  request: CreateMonitorRequest,
  owner?: string,
): Promise<Monitor> {
  if (owner !== undefined) checkAccount(owner, 'owner');
  const r = readThrough(CREATE_MONITOR_REQUEST, request, undefined);
  const work = r.work_id !== undefined ? await getWork(store, r.work_id) : (await worksByHash(store, r.work_hash!))[0];
  if (!work) throw new TrainprintError('NOT_FOUND', `no registered work with work_hash ${r.work_hash}`);
  const models = r.models === undefined ? null : [...new Set(r.models)].map((m) => kb.model(m).id);
  const datasets = r.datasets === undefined ? null : [...new Set(r.datasets)];
  const events = r.events === undefined ? [...MONITOR_EVENTS] : [...new Set(r.events)];
  const webhook = r.webhook ?? null;
  const jurisdiction = r.jurisdiction === undefined ? 'US' : resolveJurisdiction(r.jurisdiction).code;
  const now = new Date().toISOString();
  const monitor: Monitor = {
    monitor_id: newId('mon_'),
    work_id: work.work_id,
    work_hash: work.work_hash,
    models,
    datasets,
    webhook: webhook ? { url: webhook.url } : null,
    events,
    jurisdiction,
    state: 'active',
    created_at: now,
    updated_at: now,
    last: {},
    owner: owner ?? null,
  };
  const ops = [{ type: 'put' as const, key: `monitor/${monitor.monitor_id}`, value: monitor }];
  if (webhook) ops.push({ type: 'put', key: `monitor-secret/${monitor.monitor_id}`, value: webhook.secret as never });
  if (owner !== undefined)
    ops.push({ type: 'put', key: ownerIndexKey(owner, monitor.monitor_id), value: true as never });
  await store.batch(ops);
  return monitor;
}

/** A monitor by id. @throws NOT_FOUND */
export async function getMonitor(store: Store, id: unknown, scope: MonitorScope = {}): Promise<Monitor> {
  if (typeof id !== 'string' || !id.startsWith('mon_')) fail('monitor_id must be a "mon_…" id');
  const m = (await store.get(`monitor/${id}`)) as Monitor | undefined;
  if (!m || (scope.owner !== undefined && m.owner !== scope.owner)) {
    throw new TrainprintError('NOT_FOUND', `no monitor "${id}"`);
  }
  return m;
}

/**
 * Monitors, optionally of one work; with `owner`, that owner's only, read from its index (no scan of every
 * monitor).
 */
export async function listMonitors(
  store: Store,
  options: { work_id?: string; owner?: string } = {},
): Promise<Monitor[]> {
  const { owner: who, ...query } = checkObject(readRequest(options, 'options'), 'options');
  const { work_id } = readThrough(LIST_MONITORS_REQUEST, query, undefined);
  let all: Monitor[];
  if (who === undefined) all = (await store.scan('monitor/')).map(([, m]) => m as Monitor);
  else {
    const owner = checkAccount(who, 'owner');
    const prefix = `${MONITOR_OWNER_PREFIX}${encodeURIComponent(owner)}/`;
    const ids = (await store.scan(prefix)).map(([k]) => k.slice(prefix.length));
    const found = await Promise.all(ids.map((id) => store.get(`monitor/${id}`) as Promise<Monitor | undefined>));
    all = found.filter((m): m is Monitor => m !== undefined && m.owner === owner);
  }
  return work_id === undefined ? all : all.filter((m) => m.work_id === work_id);
}

/** Pause or resume. */
export async function setMonitorState(
  store: Store,
  id: string,
  state: 'active' | 'paused',
  scope: MonitorScope = {},
): Promise<Monitor> {
  await getMonitor(store, id, scope);
  return store.transaction(async (tx) => {
    const m = (await tx.get(`monitor/${id}`)) as Monitor;
    const next = { ...m, state, updated_at: new Date().toISOString() };
    tx.put(`monitor/${id}`, next);
    return next;
  });
}

/** Delete a monitor and its secret; its events stay in the log. */
export async function deleteMonitor(store: Store, id: string, scope: MonitorScope = {}): Promise<boolean> {
  if (typeof id !== 'string' || !id.startsWith('mon_')) fail('monitor_id must be a "mon_…" id');
  return store.transaction(async (tx) => {
    const m = (await tx.get(`monitor/${id}`)) as Monitor | undefined;
    if (m === undefined || (scope.owner !== undefined && m.owner !== scope.owner)) return false;
    tx.delete(`monitor/${id}`);
    tx.delete(`monitor-secret/${id}`);
    if (m.owner) tx.delete(ownerIndexKey(m.owner, id));
    return true;
  });
}

/** What evaluating monitors reads: the corpus (for the linked models) and scoring. */
export interface MonitorDeps {
  readonly corpus: CorpusView;
  readonly kb: KnowledgeBase;
  score(request: ScoreRequest, cache: ChunkCache, run?: ScoreOptions): Promise<ScoreResult>;
}

/**
 * Re-evaluate the active monitors a change may affect (`trigger`: a dataset id, or 'interval' /
 * 'manual' for all), append the events to the log and stage their deliveries with them (the caller
 * runs the deliverer: a service being stopped leaves them due for another process). Returns them.
 */
export async function evaluateMonitors(
  deps: MonitorDeps,
  store: Store,
  deliverer: WebhookDeliverer | null,
  trigger: string,
  datasetId?: string,
): Promise<MonitorEvent[]> {
  const out: MonitorEvent[] = [];
  for (const m of await listMonitors(store)) {
    if (m.state !== 'active') continue;
    if (datasetId !== undefined && m.datasets !== null && !m.datasets.includes(datasetId)) continue;
    // a monitor of an account reads what that account may: the shared datasets and its own (older records: all)
    const owner = m.owner ?? undefined;
    const models = m.models ?? linkedModels(deps.corpus, deps.kb, owner);
    const last: Record<string, MonitorModelState> = { ...m.last };
    const events: MonitorEvent[] = [];
    const cache: ChunkCache = new Map();
    for (const model of models) {
      const s = await deps.score(
        { work_hash: m.work_hash, target_model: model, jurisdiction: m.jurisdiction },
        cache,
        owner === undefined ? {} : { owner },
      );
      const prev = m.last[model];
      // a remote corpus that could not be searched (outage, rate limit, budget) is no evidence of absence: this
      // model's last evaluation stands, and the next evaluation asks again
      if ((s.remote_corpora ?? []).some((r) => r.outcome !== 'searched')) continue;
      const datasets = s.evidence.datasets.filter((d) => d.flagged_chunks > 0).map((d) => d.dataset_id);
      const now = new Date().toISOString();
      const data = {
        monitor_id: m.monitor_id,
        work_id: m.work_id,
        work_hash: m.work_hash,
        model,
        score: s.score,
        previous_score: prev?.score ?? null,
        tier: s.tier,
        previous_tier: prev?.tier ?? null,
        flagged_chunks: s.reused_share.flagged_chunks,
        previous_flagged_chunks: prev?.flagged_chunks ?? 0,
        datasets,
        trigger,
      };
      const newDataset = datasets.some((d) => !(prev?.datasets ?? []).includes(d));
      if (
        m.events.includes('match.found') &&
        (s.reused_share.flagged_chunks > (prev?.flagged_chunks ?? 0) || newDataset)
      ) {
        events.push({ id: newId('evt_'), type: 'match.found', created_at: now, data });
      }
      if (m.events.includes('score.changed') && prev && (Math.abs(s.score - prev.score) >= 1 || s.tier !== prev.tier)) {
        events.push({ id: newId('evt_'), type: 'score.changed', created_at: now, data });
      }
      last[model] = {
        score: s.score,
        tier: s.tier,
        flagged_chunks: s.reused_share.flagged_chunks,
        datasets,
        evaluated_at: now,
      };
    }
    const kept = await store.transaction(async (tx) => {
      const current = (await tx.get(`monitor/${m.monitor_id}`)) as Monitor | undefined;
      if (!current) return false; // deleted meanwhile: drop its evaluation
      // evaluated meanwhile by another process on the same store: its events already went out
      if (JSON.stringify(current.last) !== JSON.stringify(m.last)) return false;
      tx.put(`monitor/${m.monitor_id}`, { ...current, last });
      // time, then order of emission inside the evaluation: the log reads in the order events happened
      events.forEach((e, i) => {
        tx.put(`event/${e.created_at}-${String(i).padStart(4, '0')}-${e.id}`, e);
      });
      // Deliveries in the same transaction: a crash cannot log an event and lose its webhook.
      if (deliverer && current.webhook && events.length > 0) {
        const secret = await tx.get(`monitor-secret/${m.monitor_id}`);
        const subscription = { id: m.monitor_id, url: current.webhook.url, secret: secret as string };
        if (typeof secret === 'string') for (const e of events) deliverer.stage(tx, subscription, e);
      }
      return true;
    });
    if (kept) out.push(...events);
  }
  return out;
}

/** Events of the log, oldest first, optionally of one monitor, with cursor pagination. */
export async function listEvents(
  store: Store,
  options: { monitor_id?: string; after?: string; limit?: number } = {},
): Promise<MonitorEvent[]> {
  const o = readThrough(LIST_EVENTS_REQUEST, options, undefined);
  const limit = o.limit ?? 100;
  const all = (await store.scan('event/', o.after === undefined ? {} : { after: `event/${o.after}` })).map(
    ([, e]) => e as MonitorEvent,
  );
  return all.filter((e) => o.monitor_id === undefined || e.data.monitor_id === o.monitor_id).slice(0, limit);
}

/** Every KB model some loaded dataset (one `owner` may read) links to (by kb_dataset or declaration). */
function linkedModels(corpus: CorpusView, kb: KnowledgeBase, owner: string | undefined): string[] {
  const ids = new Set<string>();
  for (const s of corpus.datasets()) {
    if (owner !== undefined && !corpus.visibleTo(s.id, owner)) continue;
    const d = corpus.descriptor(s.id);
    if (d.kb_dataset !== undefined) for (const l of kb.modelsTrainedOn(d.kb_dataset)) ids.add(l.model.id);
    for (const m of d.models ?? []) ids.add(kb.model(m).id);
  }
  return [...ids].sort();
}
