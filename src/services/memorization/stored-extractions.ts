/**
 * The extractions of an account's works, kept in a `Store`: what an extract job's item wrote out of a work
 * (`extractWork`'s result, record of calls included), under the account and the SHA-256 of the text it measured. An
 * analysis of the same text (its `text_sha256`) finds them, so its evidence bundle signs them and its work report
 * draws them, whichever process ran the extraction.
 */
import { TrainprintError } from '../../errors.js';
import type { Store } from '../../store/types.js';
import type { WorkExtractionResult } from './extract-work.js';
import { HEX64, keepNewest, keptOfText } from './kept-by-text.js';

const PREFIX = 'work-extractions/';

/** Extractions of one text an account keeps at most: the newest replace the oldest past it. */
export const STORED_EXTRACTIONS_PER_TEXT = 16;

const prefixOf = (account: string, textSha256: string) => `${PREFIX}${encodeURIComponent(account)}/${textSha256}/`;

/**
 * Keeps `result` as one of the account's extractions of the text it measured (its `text_sha256`), under its
 * transcript digest: the same run kept twice is one entry. Past {@link STORED_EXTRACTIONS_PER_TEXT} of one text the
 * oldest go.
 * @example await storeWorkExtraction(engine.store, 'acme', result)
 * @throws INVALID_INPUT when `result` has no text or transcript digest
 */
export async function storeWorkExtraction(store: Store, account: string, result: WorkExtractionResult): Promise<void> {
  const text = result?.text_sha256;
  const digest = result?.record?.transcript_sha256;
  if (typeof text !== 'string' || !HEX64.test(text) || typeof digest !== 'string' || !HEX64.test(digest))
    throw new TrainprintError('INVALID_INPUT', 'an extraction to keep needs its text_sha256 and transcript digest');
  await store.transaction((tx) => keepNewest(tx, prefixOf(account, text), digest, result, STORED_EXTRACTIONS_PER_TEXT));
}

/**
 * The account's extractions of the text whose SHA-256 (hex, UTF-8) is `textSha256`, oldest first.
 * @example const extractions = await workExtractions(engine.store, 'acme', await sha256Hex(text))
 */
export async function workExtractions(
  store: Store,
  account: string,
  textSha256: string,
): Promise<WorkExtractionResult[]> {
  const kept = await keptOfText(store, textSha256, (text) => prefixOf(account, text));
  return kept.map(([, v]) => v as WorkExtractionResult);
}
