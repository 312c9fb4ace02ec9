/**
 * The journal of an extraction run: every answered call kept under the SHA-256 of its canonical request, so that a
 * run killed after thousands of calls starts again without repeating one. `extractWork({ journal })` asks the
 * journal before every call; a recorded answer is replayed (the same text, the same wire bodies, so the same record
 * and transcript digest) and only what was never answered goes to the model.
 *
 * The port is two methods so that any storage can hold it: a JSON-lines file (`openExtractionJournal` of
 * `trainprint/node`, the CLI's `--journal`), the job store, or memory ({@link memoryExtractionJournal}).
 */
import { TrainprintError } from '../../errors.js';
import type { GenerationCall } from '../../models/types.js';

/** One answered call as the journal keeps it: what {@link TargetModel.generateCall} gave, and when. */
export interface RecordedCall extends GenerationCall {
  /** When the call was made (ISO 8601) and how long its answer took, in ms. */
  readonly time: string;
  readonly ms: number;
}

/**
 * Where a run keeps its answered calls. `get` and `put` may be called concurrently (one run has up to
 * `concurrency` calls in flight); `put` resolves once the call is durable, so a call is repeated after a crash only
 * if the crash came between its answer and its `put`.
 *
 * @example
 * const journal = memoryExtractionJournal()
 * await engine.memorization.extractWork({ text, model, journal })   // a second run with the same journal calls nothing
 */
export interface ExtractionJournal {
  /** The call recorded under `key` (hex SHA-256 of the canonical request), if any. */
  get(key: string): Promise<RecordedCall | CompactCall | undefined>;
  /** Record an answered call under `key`. */
  put(key: string, call: RecordedCall): Promise<void>;
  /**
   * True for a journal only the service writes (the job store's): it may keep a call as a {@link CompactCall} (the
   * text and the digests of its wire bodies), which a replay takes as it is. A journal a user can edit (a file) keeps
   * the bodies, so that a replay re-derives the text from the answer.
   */
  readonly compact?: boolean;
}

/**
 * An answered call as a service's own journal keeps it: what a replay needs (the text, the digests its record
 * shows), not the request and answer bodies (a padded answer is up to 450 KB; these fields are a few hundred bytes).
 */
export interface CompactCall extends Omit<RecordedCall, 'request' | 'response'> {
  /** SHA-256 (hex) of the request body as sent and of the answer body as received. */
  readonly request_sha256: string;
  readonly response_sha256: string;
}

/**
 * `call` kept compact: its wire bodies replaced by their SHA-256 (`sha256Hex`, hex of UTF-8).
 * @example compactCall(call, (s) => sha256HexNow(new TextEncoder().encode(s))).response_sha256
 */
export function compactCall(call: RecordedCall, sha256Hex: (s: string) => string): CompactCall {
  const { request, response, ...rest } = call;
  return { ...rest, request_sha256: sha256Hex(request), response_sha256: sha256Hex(response) };
}

/**
 * `v` checked as a {@link CompactCall} (read back from a store).
 * @throws INVALID_INPUT naming `where`
 */
export function checkCompactCall(v: unknown, where: string): CompactCall {
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== 'object' || !isJournalKey(o.request_sha256) || !isJournalKey(o.response_sha256))
    throw new TrainprintError('INVALID_INPUT', `${where}: not a compact recorded call (its digests)`);
  checkRecordedCall({ ...o, request: '', response: '' }, where);
  return o as unknown as CompactCall;
}

/**
 * A journal in memory (for tests, or to share recorded calls between runs of one process).
 * @example const journal = memoryExtractionJournal(); await journal.put(key, call); (await journal.get(key))?.text
 */
export function memoryExtractionJournal(): Omit<ExtractionJournal, 'get'> & {
  readonly size: number;
  get(key: string): Promise<RecordedCall | undefined>;
} {
  const calls = new Map<string, RecordedCall>();
  return {
    get size() {
      return calls.size;
    },
    get: async (key) => calls.get(key),
    put: async (key, call) => {
      calls.set(key, call);
    },
  };
}

const KEY = /^[0-9a-f]{64}$/;

/**
 * A journal key: 64 lowercase hex digits (the SHA-256 of a canonical request).
 * @example isJournalKey('ab'.repeat(32)) // true
 */
export function isJournalKey(v: unknown): v is string {
  return typeof v === 'string' && KEY.test(v);
}

/**
 * `v` checked as a {@link RecordedCall} (a journal's storage is outside the run: a file can be edited or torn).
 * @throws INVALID_INPUT naming `where`
 * @example const call = checkRecordedCall(JSON.parse(line).call, 'journal line 2')
 */
export function checkRecordedCall(v: unknown, where: string): RecordedCall {
  const o = v as Record<string, unknown>;
  const bad = (why: string): never => {
    throw new TrainprintError('INVALID_INPUT', `${where}: not a recorded call (${why})`);
  };
  if (!o || typeof o !== 'object' || Array.isArray(o)) bad('not an object');
  for (const k of ['text', 'request', 'response', 'time'] as const) if (typeof o[k] !== 'string') bad(`${k}`);
  if (typeof o.ms !== 'number' || !Number.isFinite(o.ms) || o.ms < 0) bad('ms');
  for (const k of ['model', 'finish_reason', 'refusal'] as const)
    if (o[k] !== undefined && typeof o[k] !== 'string') bad(k);
  if (o.truncated !== undefined && o.truncated !== true) bad('truncated');
  if (o.usage !== undefined) {
    const u = o.usage as Record<string, unknown>;
    if (
      !u ||
      typeof u !== 'object' ||
      !Number.isInteger(u.prompt_tokens) ||
      !Number.isInteger(u.completion_tokens) ||
      (u.prompt_tokens as number) < 0 ||
      (u.completion_tokens as number) < 0
    )
      bad('usage');
  }
  return o as unknown as RecordedCall;
}

/**
 * {@link checkRecordedCall}, and its `text` re-derived from its `response` and compared: an OpenAI-compatible answer
 * body's `choices[0].message.content` (chat) or `choices[0].text` (completions), cut where the call was cut
 * (`truncated`); an answer that is not such a body is the text itself (a model without a wire record). A journal
 * edited to claim text that no answer held is refused, so a replayed record attests only what the model wrote.
 * @throws INVALID_INPUT naming `where`
 * @example const call = checkReplayedCall(JSON.parse(line).call, 'journal line 2')
 */
export function checkReplayedCall(v: unknown, where: string): RecordedCall {
  const call = checkRecordedCall(v, where);
  const said = answerText(call.response);
  const ok = call.truncated === true ? said.startsWith(call.text) : said === call.text;
  if (!ok)
    throw new TrainprintError(
      'INVALID_INPUT',
      `${where}: its text is not the text of its answer (the journal was edited)`,
    );
  return call;
}

/** The generated text of an answer body (see {@link checkReplayedCall}). */
function answerText(response: string): string {
  let body: unknown;
  try {
    body = JSON.parse(response);
  } catch {
    return response;
  }
  const choice = (body as { choices?: unknown } | null)?.choices;
  const first = Array.isArray(choice) ? (choice[0] as Record<string, unknown> | undefined) : undefined;
  if (!first || typeof first !== 'object') return response;
  const message = first.message as { content?: unknown } | undefined;
  if (message && typeof message === 'object') return typeof message.content === 'string' ? message.content : '';
  return typeof first.text === 'string' ? first.text : response;
}
