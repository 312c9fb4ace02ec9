/**
 * JSON Schemas (2020-12) of the HTTP API's requests and responses: the request schemas validate
 * bodies and queries (src/http/validate.ts), and all of them make up the OpenAPI document
 * (src/http/openapi.ts), where every schema object registered in `NAMED_SCHEMAS` (src/http/schemas/named.ts) becomes a
 * component and each use of that same object a `$ref` — so validation and documentation cannot
 * drift apart. Schemas are inline objects (no `$ref`), so each validates on its own.
 *
 * Success bodies are objects with `success: true` and the result's fields at the top level (the
 * service's analyze shape, applied to every route; lists sit under a plural name).
 *
 * The schemas live by route group (errors.ts, attribution.ts, content.ts, monitors.ts, datasets.ts,
 * kb.ts, account.ts, service.ts; the marketplace and memorization ones in their own modules, named
 * in named.ts); this module re-exports the core groups, so importers name one module, and keeps
 * their component names.
 */
import type { JsonSchema } from '../context.js';
import { ANALYSIS_RESULT_SCHEMA, ANALYZE_REQUEST_SCHEMA, MATCH_SCHEMA, REQUESTS } from '../../library.js';
import { ERROR_ENVELOPE_SCHEMA, OAUTH_ERROR_SCHEMA } from './errors.js';
import {
  COMPARISON_SCHEMA,
  SCORE_REQUEST_SCHEMA,
  SCORE_RESULT_SCHEMA,
  FINGERPRINT_RESULT_SCHEMA,
} from './attribution.js';
import {
  RECEIPT_SCHEMA,
  WORK_SCHEMA,
  REGISTER_RESULT_SCHEMA,
  WORK_RESPONSE_SCHEMA,
  WORK_LIST_SCHEMA,
  VERIFY_RECEIPT_RESULT_SCHEMA,
  DELETED_SCHEMA,
} from './content.js';
import {
  MONITOR_SCHEMA,
  MONITOR_RESPONSE_SCHEMA,
  MONITOR_LIST_SCHEMA,
  MONITOR_EVENT_SCHEMA,
  EVENT_LIST_SCHEMA,
} from './monitors.js';
import {
  DATASET_STATS_SCHEMA,
  DATASET_RESPONSE_SCHEMA,
  DATASET_LIST_SCHEMA,
  ADD_DOCUMENTS_REQUEST_SCHEMA,
  BINARY_SCHEMA,
} from './datasets.js';
import {
  KB_MODEL_SCHEMA,
  KB_MODEL_RESPONSE_SCHEMA,
  KB_MODEL_LIST_SCHEMA,
  KB_PROVIDER_LIST_SCHEMA,
  KB_DATASET_SCHEMA,
  KB_DATASET_RESPONSE_SCHEMA,
  KB_DATASET_LIST_SCHEMA,
  JURISDICTION_LIST_SCHEMA,
  FACTOR_LIST_SCHEMA,
} from './kb.js';
import {
  KEY_INFO_SCHEMA,
  KEY_CREATED_SCHEMA,
  KEY_RESPONSE_SCHEMA,
  KEY_LIST_SCHEMA,
  CLIENT_INFO_SCHEMA,
  CLIENT_CREATED_SCHEMA,
  CLIENT_RESPONSE_SCHEMA,
  CLIENT_LIST_SCHEMA,
  TOKEN_RESPONSE_SCHEMA,
  USAGE_SCHEMA,
} from './account.js';
import { STATUS_SCHEMA } from './service.js';

export * from './errors.js';
export * from './attribution.js';
export * from './content.js';
export * from './monitors.js';
export * from './datasets.js';
export * from './kb.js';
export * from './account.js';
export * from './service.js';

/**
 * Component names of the core schemas (src/http/schemas/named.ts adds the marketplace and
 * memorization ones).
 * @example CORE_SCHEMA_NAMES.ScoreResult === SCORE_RESULT_SCHEMA // true
 */
export const CORE_SCHEMA_NAMES: Readonly<Record<string, JsonSchema>> = {
  ErrorEnvelope: ERROR_ENVELOPE_SCHEMA,
  OAuthError: OAUTH_ERROR_SCHEMA,
  AnalyzeRequest: ANALYZE_REQUEST_SCHEMA,
  AnalysisResult: ANALYSIS_RESULT_SCHEMA,
  Match: MATCH_SCHEMA,
  CompareRequest: REQUESTS.compare.served,
  Comparison: COMPARISON_SCHEMA,
  ScoreRequest: SCORE_REQUEST_SCHEMA,
  ScoreResult: SCORE_RESULT_SCHEMA,
  FingerprintRequest: REQUESTS.fingerprint.served,
  FingerprintResult: FINGERPRINT_RESULT_SCHEMA,
  Receipt: RECEIPT_SCHEMA,
  Work: WORK_SCHEMA,
  RegisterWorkRequest: REQUESTS.registerWork.served,
  RegisterWorkResult: REGISTER_RESULT_SCHEMA,
  WorkResponse: WORK_RESPONSE_SCHEMA,
  WorkList: WORK_LIST_SCHEMA,
  VerifyReceiptRequest: REQUESTS.verifyReceipt.served,
  VerifyReceiptResult: VERIFY_RECEIPT_RESULT_SCHEMA,
  Deleted: DELETED_SCHEMA,
  CreateMonitorRequest: REQUESTS.createMonitor.served,
  Monitor: MONITOR_SCHEMA,
  MonitorResponse: MONITOR_RESPONSE_SCHEMA,
  MonitorList: MONITOR_LIST_SCHEMA,
  MonitorEvent: MONITOR_EVENT_SCHEMA,
  MonitorEventList: EVENT_LIST_SCHEMA,
  DatasetStats: DATASET_STATS_SCHEMA,
  DatasetResponse: DATASET_RESPONSE_SCHEMA,
  DatasetList: DATASET_LIST_SCHEMA,
  CreateDatasetRequest: REQUESTS.createDataset.served,
  AddDocumentsRequest: ADD_DOCUMENTS_REQUEST_SCHEMA,
  DatasetFile: BINARY_SCHEMA,
  KbModel: KB_MODEL_SCHEMA,
  KbModelResponse: KB_MODEL_RESPONSE_SCHEMA,
  KbModelList: KB_MODEL_LIST_SCHEMA,
  KbProviderList: KB_PROVIDER_LIST_SCHEMA,
  KbDataset: KB_DATASET_SCHEMA,
  KbDatasetResponse: KB_DATASET_RESPONSE_SCHEMA,
  KbDatasetList: KB_DATASET_LIST_SCHEMA,
  JurisdictionList: JURISDICTION_LIST_SCHEMA,
  FactorList: FACTOR_LIST_SCHEMA,
  CreateKeyRequest: REQUESTS.createKey.served,
  AdminCreateKeyRequest: REQUESTS.adminCreateKey.served,
  ApiKey: KEY_INFO_SCHEMA,
  ApiKeyCreated: KEY_CREATED_SCHEMA,
  ApiKeyResponse: KEY_RESPONSE_SCHEMA,
  ApiKeyList: KEY_LIST_SCHEMA,
  CreateOAuthClientRequest: REQUESTS.createClient.served,
  OAuthClient: CLIENT_INFO_SCHEMA,
  OAuthClientCreated: CLIENT_CREATED_SCHEMA,
  OAuthClientResponse: CLIENT_RESPONSE_SCHEMA,
  OAuthClientList: CLIENT_LIST_SCHEMA,
  TokenRequest: REQUESTS.issueToken.served,
  TokenResponse: TOKEN_RESPONSE_SCHEMA,
  Usage: USAGE_SCHEMA,
  Status: STATUS_SCHEMA,
};
