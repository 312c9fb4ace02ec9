/**
 * A scan's request, written once ({@link REQUESTS}' form): an item (`{ id, text }`) and the options a scan runs with
 * (`datasets`, `min_words`, `paraphrase`). `engine.scan` and `engine.scanItem` read each item and their options
 * through these (`minWords` is read as `min_words`, and a refusal names it so, as a job's `options` do); a `scan` job
 * takes its item and options schemas from them, and its submission reads its options through the library's check.
 * So one bad item or option gets one refusal naming its field at every door.
 */
import type { DatasetStats } from '../../datasets/types.js';
import { isExactDataset } from '../../corpus/search-exact.js';
import { DATASET_ID } from '../../datasets/descriptor.js';
import { TrainprintError } from '../../errors.js';
import { object } from '../../util/json-schema.js';
import { contract, invalidField } from '../../util/schema-check.js';
import type { ScanItem } from './types.js';

/** Default and bounds of a scan's shortest passage reported, in words (`minWords`, `min_words`). */
export const DEFAULT_MIN_WORDS = 50;
const MAX_MIN_WORDS = 100_000;

const ITEM = { id: { type: 'string', minLength: 1 }, text: { type: 'string' } } as const;
/** A server holds an item to bounds, since it stores a job's items; the library's caller owns what it reads. */
const SERVED_ITEM = {
  id: { ...ITEM.id, maxLength: 1024 },
  text: { ...ITEM.text, maxLength: 10 * 1024 * 1024 },
} as const;

/**
 * One item of a scan, written once: `engine.scanItem` reads it through this (`engine.scan` each item of its stream,
 * a refusal naming the item's place: `items[3].text`, as the scan queue's enqueue does), and a `scan` job's item is
 * its served schema. No rule beyond its schema. An item may carry more (a dataset document's `meta`): the library
 * reads its id and text; a job's item holds only these.
 * @example readThrough(SCAN_ITEM_REQUEST, { id: 'out-1', text: 'A model output' }, undefined)
 */
export const SCAN_ITEM_REQUEST = contract<ScanItem>(
  'scan',
  { type: 'object', required: ['id', 'text'], properties: ITEM },
  undefined,
  object(SERVED_ITEM),
);

/** A scan's options as JSON (a `scan` job's `options`; the library's `ScanOptions` read as these). */
export interface ScanOptionsJson {
  readonly datasets?: readonly string[];
  readonly min_words?: number;
  readonly paraphrase?: boolean;
}

/**
 * What the options' rules read: the datasets the scanning account sees (`corpus.datasets({ account })`); undefined
 * where a door reads the options before it loads its datasets (`scanFiles`), whose engine then reads them whole.
 */
export type ScanOptionsContext = { readonly datasets: readonly DatasetStats[] } | undefined;

/**
 * The datasets a scan names are ones the account sees and exact ones, and there is at least one to scan against
 * (named, or every exact dataset the account sees).
 * @throws INVALID_INPUT naming `datasets[i]` (or `datasets`); NOT_FOUND naming `datasets[i]` for one it does not see
 */
function scanOptionsRules(o: ScanOptionsJson, context: ScanOptionsContext): void {
  if (context === undefined) return;
  const { datasets } = context;
  for (const [i, id] of (o.datasets ?? []).entries()) {
    const seen = datasets.find((d) => d.id === id);
    const field = `datasets[${i}]`;
    if (seen === undefined) {
      const reason = `no dataset "${id}"`;
      throw new TrainprintError('NOT_FOUND', `${field}: ${reason}`, { cause: { field, reason } });
    }
    if (!isExactDataset(seen)) invalidField(field, `"${id}" is not an exact dataset: a scan searches exact datasets`);
  }
  if ((o.datasets?.length ?? datasets.filter(isExactDataset).length) === 0)
    invalidField('datasets', 'no exact dataset to scan against');
}

/**
 * A scan's options, written once: `engine.scan` and `engine.scanItem` read their `datasets`, `minWords` (as
 * `min_words`) and `paraphrase` through this, and a `scan` job's `options` are its schema.
 * @example readThrough(SCAN_OPTIONS_REQUEST, { min_words: 20 }, { datasets: engine.corpus.datasets() })
 */
export const SCAN_OPTIONS_REQUEST = contract<ScanOptionsJson, ScanOptionsContext>(
  'scanOptions',
  object(
    {
      datasets: { type: 'array', items: DATASET_ID, maxItems: 100 },
      min_words: { type: 'integer', minimum: 1, maximum: MAX_MIN_WORDS },
      paraphrase: { type: 'boolean' },
    },
    ['datasets', 'min_words', 'paraphrase'],
  ),
  scanOptionsRules,
);
