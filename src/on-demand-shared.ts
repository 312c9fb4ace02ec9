/**
 * What the library shares with its on-demand files built on it (tsup.config.ts): dist/memorization-work.js, the
 * memorization operations; dist/market-work.js, the marketplace's; dist/report-work.js, the evidence bundle's
 * verifier; dist/webhook-work.js, the webhook delivery loop; dist/scan-work.js, the scan service. Such a file bundles its own folder's modules; every name it imports from the rest of the library comes
 * from this table, through './library.js', so each class, registry and cache exists once in a program and its bytes
 * are not shipped twice. The build reads the table (one line a module): an on-demand file that imports a module from
 * outside its folder that is not here, or a name its line lacks, fails to build. Internal: the library module exports
 * it for those files alone.
 *
 * @example
 * // what the build makes of `import { fail } from '../../util/validate.js'` inside dist/market-work.js
 * const { fail } = ON_DEMAND_SHARED['util/validate']
 */
import { isExact } from './corpus/alignment.js';
import { isExactDataset } from './corpus/search-exact.js';
import { estimateShare } from './corpus/share.js';
import { TrainprintError, isTrainprintError } from './errors.js';
import { utf8Length } from './fingerprint/fingerprint.js';
import { sha256Hex, sha256HexNow, sha256Portable, toHex } from './fingerprint/sha256.js';
import { wordSpans } from './models/ngram.js';
import { MAX_CHARS_PER_TOKEN } from './models/openai.js';
import { CALIBRATION, datasetConfidence, highestConfidence } from './services/analyze/calibration.js';
import { QUOTATION_RULE, quotationSource, quotationsOf } from './services/analyze/quotations.js';
import { chooseWorkType } from './services/analyze/revenue.js';
import { assessRisk, riskLevel } from './services/analyze/risk.js';
import { searchedDatasetIds, sectionCoverage } from './services/analyze/sections.js';
import { sharedText } from './services/analyze/shared-text.js';
import { FACTORS } from './services/kb/factors.js';
import { EU_MEMBERS, resolveJurisdiction } from './services/kb/jurisdictions.js';
import { auditDigest, extractionTranscriptSha256 } from './services/memorization/digests.js';
import { MARKET_REQUESTS } from './services/market/schema.js';
import { NV_BLOCK_WORDS, inOrderShare } from './services/memorization/nv-blocks.js';
import { esc } from './services/memorization/report.js';
import {
  checkableMatches,
  countedMatches,
  countedStrength,
  countsAsEvidence,
} from './services/policy/evidence-policy.js';
import { matchKind } from './services/policy/kinds/index.js';
import { optOutStatus } from './services/policy/opt-out.js';
import { confidenceInterval, searchScope, unansweredIds } from './services/policy/search-scope.js';
import { base64url, fromBase64url } from './services/registry/receipts.js';
import { getWork, workText } from './services/registry/works.js';
import { DEFAULT_MIN_WORDS, SCAN_ITEM_REQUEST, SCAN_OPTIONS_REQUEST } from './services/scan/schema.js';
import { Z95, logGamma, wilsonInterval } from './stats/binomial.js';
import { GramIndex, maximalRuns } from './util/exact-runs.js';
import { int0, intIn, object, workId } from './util/json-schema.js';
import { mapLimit } from './util/pool.js';
import { round1, round4 } from './util/round.js';
import { checkSchema, fieldsWithin, invalidField, readThrough, schemaChecked, within } from './util/schema-check.js';
import { codeUnitOrder, lowerBound } from './util/sorted.js';
import { countWords } from './util/space.js';
import { nextMacrotask, turnsEvery } from './util/steps.js';
import { unrefTimer } from './util/timers.js';
import { checkObject, checkString, fail, newId, onlyKeys, parseDate } from './util/validate.js';

/** The names shared, by their module's path under src/ (without the extension). */
export const ON_DEMAND_SHARED: Readonly<Record<string, Readonly<Record<string, unknown>>>> = Object.freeze({
  'corpus/alignment': { isExact },
  'corpus/search-exact': { isExactDataset },
  'corpus/share': { estimateShare },
  errors: { TrainprintError, isTrainprintError },
  'fingerprint/fingerprint': { utf8Length },
  'fingerprint/sha256': { sha256Hex, sha256HexNow, sha256Portable, toHex },
  'models/ngram': { wordSpans },
  'models/openai': { MAX_CHARS_PER_TOKEN },
  'services/analyze/calibration': { CALIBRATION, datasetConfidence, highestConfidence },
  'services/analyze/quotations': { QUOTATION_RULE, quotationSource, quotationsOf },
  'services/analyze/revenue': { chooseWorkType },
  'services/analyze/risk': { assessRisk, riskLevel },
  'services/analyze/sections': { searchedDatasetIds, sectionCoverage },
  'services/analyze/shared-text': { sharedText },
  'services/kb/factors': { FACTORS },
  'services/kb/jurisdictions': { EU_MEMBERS, resolveJurisdiction },
  'services/market/schema': { MARKET_REQUESTS },
  'services/memorization/digests': { auditDigest, extractionTranscriptSha256 },
  'services/memorization/nv-blocks': { NV_BLOCK_WORDS, inOrderShare },
  'services/memorization/report': { esc },
  'services/policy/evidence-policy': { checkableMatches, countedMatches, countedStrength, countsAsEvidence },
  'services/policy/kinds/index': { matchKind },
  'services/policy/opt-out': { optOutStatus },
  'services/policy/search-scope': { confidenceInterval, searchScope, unansweredIds },
  'services/registry/receipts': { base64url, fromBase64url },
  'services/registry/works': { getWork, workText },
  'services/scan/schema': { DEFAULT_MIN_WORDS, SCAN_ITEM_REQUEST, SCAN_OPTIONS_REQUEST },
  'stats/binomial': { Z95, logGamma, wilsonInterval },
  'util/exact-runs': { GramIndex, maximalRuns },
  'util/json-schema': { int0, intIn, object, workId },
  'util/pool': { mapLimit },
  'util/round': { round1, round4 },
  'util/schema-check': { checkSchema, fieldsWithin, invalidField, readThrough, schemaChecked, within },
  'util/sorted': { codeUnitOrder, lowerBound },
  'util/space': { countWords },
  'util/steps': { nextMacrotask, turnsEvery },
  'util/timers': { unrefTimer },
  'util/validate': { checkObject, checkString, fail, newId, onlyKeys, parseDate },
});
