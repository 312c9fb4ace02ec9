/**
 * The monitor requests, written once: creating a monitor (`engine.createMonitor`, `POST /api/v1/monitors/create`) and
 * the two listings' queries (`engine.listMonitors`, `GET /api/v1/monitors`; `engine.listEvents`,
 * `GET /api/v1/monitors/{monitor_id}/events`). Who asks (`owner`) is the host's option, not a member.
 */
import * as S from '../../util/json-schema.js';
import { contract, exactlyOne, invalidField } from '../../util/schema-check.js';
import { knownJurisdiction } from '../kb/jurisdictions.js';

/** Event types a monitor can emit. */
export type MonitorEventType = 'match.found' | 'score.changed';
/** Every event type, in the order a monitor emits them. */
export const MONITOR_EVENTS: readonly MonitorEventType[] = ['match.found', 'score.changed'];

/** `createMonitor` request. */
export interface CreateMonitorRequest {
  readonly work_id?: string;
  readonly work_hash?: string;
  /** Models to watch (KB ids). @default every model some loaded dataset links to, at each evaluation */
  readonly models?: readonly string[];
  /** Only re-evaluate when these datasets change. @default any dataset */
  readonly datasets?: readonly string[];
  /** Where to POST events: `url` (http/https) and the `secret` that signs them. */
  readonly webhook?: { readonly url: string; readonly secret: string };
  /** Which events to emit. @default both */
  readonly events?: readonly MonitorEventType[];
  /** Jurisdiction passed to `score` (its legal-risk part). @default 'US' */
  readonly jurisdiction?: string;
}

/**
 * What the schema cannot say: exactly one of `work_id` and `work_hash`; a jurisdiction the risk table knows; a webhook URL that parses as http: or https:
 * and carries no credentials (the deliverer would refuse it at every event; fetch refuses credentials).
 * @throws INVALID_INPUT naming the field
 * @example createMonitorRules({}) // INVALID_INPUT: work_id: is required (or give work_hash)
 */
export function createMonitorRules(request: CreateMonitorRequest): void {
  exactlyOne(request, ['work_id', 'work_hash']);
  knownJurisdiction(request.jurisdiction, 'jurisdiction');
  if (request.webhook === undefined) return;
  const { url: href } = request.webhook;
  const url = URL.canParse(href) ? new URL(href) : null;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    invalidField('webhook.url', 'must be an http: or https: URL');
  if (url.username !== '' || url.password !== '') invalidField('webhook.url', 'must not contain credentials');
}

/**
 * A monitor's request, written once: `engine.createMonitor` and `POST /api/v1/monitors/create` read it through this;
 * `work_id` or `work_hash` names the work (exactly one, {@link createMonitorRules}).
 * @example readThrough(CREATE_MONITOR_REQUEST, { work_id, models: ['eleutherai/pythia-6.9b'] }, undefined)
 */
export const CREATE_MONITOR_REQUEST = contract<CreateMonitorRequest>(
  'createMonitor',
  S.partialObject({
    work_id: S.workId,
    work_hash: S.workHash,
    models: { type: 'array', items: S.modelId, minItems: 1, maxItems: 100 },
    datasets: { type: 'array', items: { type: 'string', pattern: S.DATASET_REF_PATTERN }, minItems: 1, maxItems: 100 },
    webhook: S.object({
      url: { type: 'string', minLength: 1, maxLength: 2000 },
      secret: { type: 'string', minLength: 16, maxLength: 500 },
    }),
    events: { type: 'array', items: { enum: MONITOR_EVENTS }, minItems: 1 },
    jurisdiction: S.jurisdiction,
  }),
  createMonitorRules,
);

/**
 * The monitors' listing: optionally of one work. @example readThrough(LIST_MONITORS_REQUEST, { work_id }, undefined)
 */
export const LIST_MONITORS_REQUEST = contract<{ readonly work_id?: string }>(
  'listMonitors',
  S.partialObject({ work_id: S.workId }),
);

const EVENT_PROPS = {
  monitor_id: S.prefixedId('mon', 32),
  after: { type: 'string', minLength: 1 },
  limit: S.pageLimit,
};
/**
 * The event log's listing: optionally of one monitor, from a cursor, a page. Served as the query of a monitor's events
 * (`limit`: the path names the monitor).
 * @example readThrough(LIST_EVENTS_REQUEST, { monitor_id, limit: 10 }, undefined)
 */
export const LIST_EVENTS_REQUEST = contract<{
  readonly monitor_id?: string;
  /** The key in the log (`<time>-<n>-<id>`) after which the page starts. */
  readonly after?: string;
  readonly limit?: number;
}>('listEvents', S.partialObject(EVENT_PROPS), undefined, S.partialObject({ limit: EVENT_PROPS.limit }));
