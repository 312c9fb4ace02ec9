/**
 * JSON Schemas of the service routes: the status (JSON and HTML) and the OpenAPI document.
 */
import { bool, dateTime, dateTimeOrNull, int0, object, ok, str, strings, strOrNull } from './kit.js';

const componentStatus = { enum: ['operational', 'degraded', 'major_outage'] } as const;
const percentOrNull = { type: ['number', 'null'], minimum: 0, maximum: 100 } as const;
const boolOrNull = { type: ['boolean', 'null'] } as const;
const availabilityWindow = object({
  since: { ...dateTimeOrNull, description: "Start of the minutes counted: the window's start or the first heartbeat" },
  minutes: { ...int0, description: 'Minutes since `since`, the current one included once it has a heartbeat' },
  minutes_up: { ...int0, description: 'Minutes in which at least one instance heartbeated' },
  percent: { ...percentOrNull, description: '100 · minutes_up / minutes, rounded down to 4 decimals; null: none yet' },
});
const AVAILABILITY_SCHEMA = {
  ...object({
    measures: { ...str, description: 'What the figures measure and what they cannot see' },
    heartbeat_interval_seconds: int0,
    last_24h: availabilityWindow,
    last_30d: availabilityWindow,
    targets: {
      type: 'array',
      description: "The plans' availability targets (percent), each compared with both windows (null: not measured)",
      items: object({
        plan: str,
        percent: { type: 'number', minimum: 0, maximum: 100 },
        met_24h: boolOrNull,
        met_30d: boolOrNull,
      }),
    },
    instances: {
      type: 'array',
      description: 'Instances that heartbeated in the last 24 hours, most recently seen first (at most 20)',
      items: object({ instance_id: str, started_at: dateTime, last_seen: dateTime, live: bool }),
    },
    error: { ...strOrNull, description: 'Why the heartbeats could not be read; null when they were' },
  }),
  description:
    'Measured from the heartbeats every serving instance writes to the store every 10 s (not an ' +
    'end-to-end probe): the share of minutes in which at least one instance was running and could write',
} as const;
export const STATUS_SCHEMA = ok({
  status: componentStatus,
  started_at: dateTime,
  uptime_seconds: int0,
  components: {
    type: 'array',
    items: object({ name: str, status: componentStatus, detail: str }),
  },
  checks: object({
    total: int0,
    failed: int0,
    last: object({ at: dateTime, ok: bool, ms: { type: 'number', minimum: 0 }, error: strOrNull }),
  }),
  requests: object({ total: int0, server_errors: int0 }),
  incidents: {
    type: 'array',
    description: 'Derived from recorded failed health checks and 5xx responses since start, newest first',
    items: object({
      id: str,
      started_at: dateTime,
      last_event_at: dateTime,
      resolved_at: {
        ...dateTimeOrNull,
        description: 'Time of the first successful health check after the last event; null while none',
      },
      failed_checks: int0,
      server_errors: int0,
      statuses: { type: 'array', items: { type: 'integer', minimum: 500, maximum: 599 } },
      codes: strings,
      operations: strings,
    }),
  },
  availability: AVAILABILITY_SCHEMA,
  remote_corpora: {
    type: 'array',
    description:
      'The remote training corpora analyses search (none unless the server was started with them), as this ' +
      "process's calls found them; a corpus that does not answer does not change `status`",
    items: object({
      dataset_id: str,
      engine: { enum: ['infini-gram', 'infini-gram-mini'] },
      endpoint: { ...str, description: "The public service's URL, or `self-hosted`" },
      index: str,
      state: { enum: ['ok', 'degraded', 'down', 'unknown'] },
      calls: int0,
      failures: int0,
      last_ok_at: dateTimeOrNull,
      last_failure_at: dateTimeOrNull,
      last_failure: {
        enum: ['unreachable', 'rate_limited', 'budget_exhausted', 'rejected', 'invalid_response', 'cancelled', null],
      },
      p50_ms: { type: ['number', 'null'], minimum: 0 },
    }),
  },
});
export const HTML_SCHEMA = { type: 'string', contentMediaType: 'text/html' } as const;
export const OPENAPI_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { const: '3.1.0' } },
} as const;
