import {
  dateTime,
  int0,
  listOf,
  monitorId,
  nullable,
  num,
  object,
  prefixedId,
  resourceSchemas,
  str,
  strings,
  tier,
  workHash,
} from './kit.js';

const MONITOR_MODEL_STATE = object({
  score: { type: 'number', minimum: 0, maximum: 100 },
  tier,
  flagged_chunks: int0,
  datasets: strings,
  evaluated_at: dateTime,
});
const MONITOR_PROPS = {
  monitor_id: monitorId,
  work_id: str,
  work_hash: workHash,
  models: { type: ['array', 'null'], items: str },
  datasets: { type: ['array', 'null'], items: str },
  missing_datasets: {
    type: 'array',
    items: str,
    description:
      'Of `datasets`, those this server does not hold now (dropped, or created through the API before a restart): the monitor cannot evaluate against them',
  },
  webhook: { oneOf: [{ type: 'null' }, object({ url: str })] },
  events: { type: 'array', items: { enum: ['match.found', 'score.changed'] } },
  jurisdiction: str,
  state: { enum: ['active', 'paused'] },
  created_at: dateTime,
  updated_at: dateTime,
  last: { type: 'object', additionalProperties: MONITOR_MODEL_STATE, description: 'Last evaluation per model id' },
  owner: {
    type: ['string', 'null'],
    description:
      "The account it belongs to: its evaluations read the datasets every account shares and this account's own",
  },
} as const;
// monitors stored before owners were recorded have none
const MONITOR_OPTIONAL = ['owner'];

export const [MONITOR_SCHEMA, MONITOR_RESPONSE_SCHEMA, MONITOR_LIST_SCHEMA] = resourceSchemas(
  MONITOR_PROPS,
  'monitors',
  listOf,
  MONITOR_OPTIONAL,
);

export const MONITOR_EVENT_SCHEMA = object({
  id: prefixedId('evt', 32),
  type: { enum: ['match.found', 'score.changed'] },
  created_at: dateTime,
  data: object({
    monitor_id: str,
    work_id: str,
    work_hash: workHash,
    model: str,
    score: num,
    previous_score: { type: ['number', 'null'] },
    tier,
    previous_tier: nullable(tier),
    flagged_chunks: int0,
    previous_flagged_chunks: int0,
    datasets: strings,
    trigger: str,
  }),
});
export const EVENT_LIST_SCHEMA = listOf('events', MONITOR_EVENT_SCHEMA);
