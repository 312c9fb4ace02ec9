/**
 * Each operation's request, written once, keyed by operation as the job types' registry is: its JSON Schema and the
 * named rules for what a schema cannot say, beside the operation in its service (`src/services/<name>/schema.ts`).
 * Every door reads a request through its entry (`readThrough`): the library's function, the HTTP route (whose request
 * schema is the entry's `served` object, which the OpenAPI document describes) and a job type (whose item schema it
 * is) — so a field, a limit or a rule is written in one place, and one bad request gets one 422 naming its field.
 * A schema here carries what is checked; what the OpenAPI document says of its fields is the HTTP layer's
 * (src/http/docs/fields.ts), so that prose does not ship in the main library.
 * @example REQUESTS.score.rules({ target_model: 'eleutherai/pythia-6.9b', jurisdiction: 'US' }, undefined) // throws: work_hash is required
 */
import { CREATE_DATASET_REQUEST, DECLARE_DATASET_REQUEST } from '../datasets/descriptor.js';
import * as memorization from './memorization/schemas.js';
import {
  ADMIN_CREATE_KEY_REQUEST,
  CREATE_CLIENT_REQUEST,
  CREATE_KEY_REQUEST,
  TOKEN_REQUEST,
} from './accounts/schema.js';
import { LIST_MODELS_REQUEST } from './kb/schema.js';
import { CREATE_MONITOR_REQUEST, LIST_EVENTS_REQUEST, LIST_MONITORS_REQUEST } from './monitors/schema.js';
import { LIST_WORKS_REQUEST, REGISTER_WORK_REQUEST, VERIFY_RECEIPT_REQUEST } from './registry/schema.js';
import { SCAN_ITEM_REQUEST, SCAN_OPTIONS_REQUEST } from './scan/schema.js';
import { SCORE_REQUEST } from './score/schema.js';
import { ANALYZE_REQUEST } from './analyze/request.js';
import { COMPARE_REQUEST, FINGERPRINT_REQUEST } from './analyze/schema.js';

/** See the module's documentation. */
export const REQUESTS = {
  analyze: ANALYZE_REQUEST,
  compare: COMPARE_REQUEST,
  fingerprint: FINGERPRINT_REQUEST,
  compareOutput: memorization.COMPARE_OUTPUT_REQUEST,
  trackWork: memorization.TRACK_WORK_REQUEST,
  referenceSet: memorization.REFERENCE_SET_REQUEST,
  extract: memorization.EXTRACT_REQUEST,
  probe: memorization.PROBE_REQUEST,
  assess: memorization.ASSESS_REQUEST,
  report: memorization.REPORT_REQUEST,
  audit: memorization.AUDIT_REQUEST,
  extractWork: memorization.EXTRACT_WORK_REQUEST,
  score: SCORE_REQUEST,
  scan: SCAN_ITEM_REQUEST,
  scanOptions: SCAN_OPTIONS_REQUEST,
  createMonitor: CREATE_MONITOR_REQUEST,
  listMonitors: LIST_MONITORS_REQUEST,
  listEvents: LIST_EVENTS_REQUEST,
  registerWork: REGISTER_WORK_REQUEST,
  listWorks: LIST_WORKS_REQUEST,
  verifyReceipt: VERIFY_RECEIPT_REQUEST,
  listModels: LIST_MODELS_REQUEST,
  createKey: CREATE_KEY_REQUEST,
  adminCreateKey: ADMIN_CREATE_KEY_REQUEST,
  createClient: CREATE_CLIENT_REQUEST,
  issueToken: TOKEN_REQUEST,
  createDataset: CREATE_DATASET_REQUEST,
  declareDataset: DECLARE_DATASET_REQUEST,
} as const;
