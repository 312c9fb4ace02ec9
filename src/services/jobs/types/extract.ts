/**
 * The `extract` job type: an item is an extraction of a whole work from a model service (`ExtractWorkRequest` with
 * its model named, not built), its result the `WorkExtractionResult` of `engine.memorization.extractWork`, kept with
 * the account's works. An item runs long (a whole book, across time slices) and only where its model is held: one
 * item a chunk, a unit per {@link EXTRACT_CALLS_PER_UNIT} calls of its budget. At submission, before the charge, an
 * item gets the checks its run makes before its first call (the work's words, its sections, the result's bound).
 */
import type { ExtractWorkRequest, WorkExtractionResult } from '../../memorization/extract-work.js';
import { checkExtractWorkRun } from '../../memorization/memorization.js';
import { EXTRACT_WORK_REQUEST } from '../../memorization/schemas.js';
import { storeWorkExtraction } from '../../memorization/stored-extractions.js';
import { defineJobType } from '../job-type.js';
import { EXTRACT_LINES } from '../lines/extract.js';
import { itemChecked } from './item-checks.js';
import { budgetUnits, EXTRACT_CALLS_PER_UNIT, holdModels, type JournalWork, modelItemExecutor } from './model-items.js';

/** The item of an extract job: the request of `extractWork` with its model named (`base_url`, `model`), not built. */
export type ExtractJobItem = Omit<ExtractWorkRequest, 'model'> & { readonly model: Readonly<Record<string, unknown>> };

/** What an extract item's journal is kept by: its work's id, or its text. */
const extractedWork: JournalWork<ExtractJobItem> = (request) =>
  request.work_id === undefined ? { text: request.text } : { workId: request.work_id };

/** See the module's documentation. */
export const EXTRACT_JOB = defineJobType<ExtractJobItem>({
  ...EXTRACT_LINES,
  description:
    `An \`extract\` item is charged a unit per ${EXTRACT_CALLS_PER_UNIT} calls of its \`budget_calls\`, and when it ` +
    'ends the units of the calls it did not make are given back: it owes a unit per ' +
    `${EXTRACT_CALLS_PER_UNIT} calls made, at least one. ` +
    'It runs the whole-work extraction from an OpenAI-compatible model service (`model`: ' +
    "`{ base_url, model, api_key?, api? }`, the URL checked against the server's model-host policy at submission; " +
    "the production endpoint's options `temperature`, `max_tokens_param` (`max_tokens` or `max_completion_tokens`), " +
    "`seed`, `timeout_ms` (at most the server's model timeout), `requests_per_minute` and `tokens_per_minute` too). " +
    "Its `api_key` is held in the accepting process's memory only, never stored or echoed (the 202 says so in " +
    '`notice`): after a restart the item fails with `INVALID_INPUT` naming `model.api_key`, and the same job ' +
    "submitted again with the key replays every call already answered from the extraction's journal in the store " +
    '(none is made twice). An item sent without a key holds no secret: after a restart its model is built again ' +
    'from the stored item (the model-host policy applied again) and it goes on from its journal. ' +
    'Another process on the store gives the item back to the accepting one while that one runs. An extract item ' +
    'runs on past the item time limit in slices: it stops just before the limit and is claimed again, the next ' +
    'slice replaying the calls answered.',
  summary:
    '`extract` (a whole-work extraction from a model service: `{ text | work_id, model, budget_calls?, … }`; ' +
    `a unit per ${EXTRACT_CALLS_PER_UNIT} calls of its budget)`,
  itemSchema: EXTRACT_WORK_REQUEST.served,
  chunkItems: 1,
  units: budgetUnits,
  prepare: (items, context) =>
    holdModels(
      'extract',
      items,
      context,
      async (item, i, model) => {
        // the account's own work, before its text is read; the rest read through EXTRACT_WORK_REQUEST by the checks
        if (item.text === undefined && item.work_id !== undefined) await context.ownWork(item.work_id);
        await itemChecked(i, () => checkExtractWorkRun(context.store, { ...item, model }));
      },
      extractedWork,
    ),
  executor: ({ engine, options }) =>
    modelItemExecutor<ExtractJobItem, WorkExtractionResult>(options, 'extraction', {
      reads: extractedWork,
      run: (request, model, controls) =>
        engine.memorization.extractWork({ ...request, model, ...controls }) as Promise<WorkExtractionResult>,
      // kept with the account's works: an analysis of the same text bundles it and draws it in its report
      keep: (store, account, result) => storeWorkExtraction(store, account, result),
    }),
});
