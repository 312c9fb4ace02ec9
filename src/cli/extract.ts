/**
 * `trainprint extract WORK --model-url URL --model NAME [--chat] [--budget-calls N] [--out RESULT.json]
 * [--journal FILE] [--allow-private-model-hosts] [--temperature T] [--seed N] [--max-tokens-param max_completion_tokens]
 * [--timeout-ms MS] [--rpm N] [--tpm N]`: how much of a work an OpenAI-compatible model writes out
 * (`engine.memorization.extractWork`): nv_recall, the near-verbatim blocks with their spans in the work's text (a
 * text file as read, an EPUB, PDF or DOCX file's extracted text, its sections the probes' strata), the calls, the
 * refusals and the record of every call. Model hosts on loopback or private networks are refused unless
 * `--allow-private-model-hosts`, as `serve` refuses them: by the URL, then by every address the name resolves to
 * (the calls then go to a checked address only). With `--journal FILE` every answered call is appended to FILE
 * (fsync'd) and a run started again with the same FILE replays those instead of calling the model again. The result
 * is written whatever happened to the calls: one that stopped on failing calls says `stopped: 'upstream_errors'` and
 * the endpoint's message in `error`, and exits 1.
 */
import { writeFile } from 'node:fs/promises';
import {
  createEngine,
  createOpenAICompatibleModel,
  extractDocument,
  isInternalHost,
  refusedResolution,
  TEXT_FILE_TYPES,
  type DocumentFormat,
  type WorkSection,
} from '../library.js';
import { openExtractionJournal, resolveHost } from '../node/index.js';
import { runInterruptibly, withCallProgress } from './call-progress.js';
import { readWorkFile } from './files.js';
import { checkOutputPath, parse, UsageError } from './shared.js';

/** Environment variable read for the model API's key (sent as `Authorization: Bearer …`). */
export const MODEL_API_KEY_ENV = 'TRAINPRINT_MODEL_API_KEY';

/**
 * `trainprint extract`: the result as JSON to `--out` or standard output, one summary line on stderr.
 * @example process.exitCode = await extractCommand(['book.epub', '--model-url', 'https://api.example.com/v1', '--model', 'm', '--chat'])
 */
export async function extractCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...MODEL_FLAGS,
    'budget-calls': { type: 'string' },
    probes: { type: 'string' },
    'max-tokens': { type: 'string' },
    concurrency: { type: 'string' },
    prices: { type: 'string' },
    type: { type: 'string' },
    out: { type: 'string' },
    journal: { type: 'string' },
    'prompt-variants': { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('extract needs exactly one WORK file');
  for (const option of ['out', 'journal']) checkOutputPath(values[option], option);
  const { model, number } = await commandModel(values, 'extract');

  const prices = pricesOf(values.prices);
  const { type, content } = await readWorkFile(positionals[0], values.type as string | undefined);
  let text: string;
  let sections: WorkSection[] | undefined;
  if (TEXT_FILE_TYPES.has(type)) text = content as string;
  else {
    const document = await extractDocument(content as Uint8Array, type as DocumentFormat);
    text = document.text;
    sections = strata(document.sections);
  }
  const journalPath = values.journal as string | undefined;
  if (journalPath !== undefined && journalPath.length === 0) throw new UsageError('--journal needs a file path');
  const journal = journalPath === undefined ? undefined : await openExtractionJournal(journalPath);
  const engine = await createEngine();
  // Ctrl-C: the calls in flight are aborted, the journal keeps every answered call, and the way back is printed
  return runInterruptibly(journalPath, 'extraction', engine, journal, async (signal) => {
    const result = await engine.memorization.extractWork({
      signal,
      text,
      model: withCallProgress(model, number('budget-calls') ?? 2000, 'extract'),
      ...(sections ? { sections } : {}),
      ...optional('budget_calls', number('budget-calls')),
      ...optional('probes', number('probes')),
      ...optional('max_tokens', number('max-tokens')),
      ...optional('concurrency', number('concurrency')),
      ...optional('prompt_variants', number('prompt-variants')),
      ...(prices ? { prices } : {}),
      ...(journal ? { journal } : {}),
    });
    const json = `${JSON.stringify(result, null, 2)}\n`;
    const out = values.out as string | undefined;
    if (out === undefined) process.stdout.write(json);
    else await writeFile(out, json);
    console.error(
      `${out === undefined ? '' : `wrote ${out}: `}a work of ${result.words.toLocaleString('en-US')} words, ` +
        `nv_recall ${result.nv_recall} (${result.short_work ? 'a short work: its words written out after a prompt of its first ones' : `blocks of ≥ 100 words, ${result.blocks.filter((b) => b.words >= 100).length}`}), ` +
        `${result.calls} of ${result.budget_calls} calls${result.replayed_calls ? ` (${result.replayed_calls} replayed from ${journalPath})` : ''}, ` +
        `${result.refusals} refused, stopped: ${result.stopped}`,
    );
    if (result.error) console.error(`first failed call: ${result.error.code}: ${result.error.message}`);
    return result.stopped === 'upstream_errors' ? 1 : 0;
  });
}

/** What `refusedResolution` says of a name that does not resolve. */
const UNRESOLVED = 'the host name does not resolve';

/** The flags that name the model endpoint and its production options (shared by `extract` and `audit`). */
export const MODEL_FLAGS = {
  'model-url': { type: 'string' },
  model: { type: 'string' },
  chat: { type: 'boolean' },
  'allow-private-model-hosts': { type: 'boolean' },
  temperature: { type: 'string' },
  seed: { type: 'string' },
  'max-tokens-param': { type: 'string' },
  'timeout-ms': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
} as const;

/**
 * The endpoint's model from the command line: `--model-url` checked against the model-host policy (loopback,
 * private and internal hosts refused unless `--allow-private-model-hosts`; names resolved and the calls pinned to a
 * checked address), with the production options; and the reader of integer flags.
 * @example const { model, number } = await commandModel(values, 'audit')
 */
export async function commandModel(values: Record<string, unknown>, command: string) {
  const baseUrl = values['model-url'];
  const name = values.model;
  if (typeof baseUrl !== 'string' || typeof name !== 'string' || name.length === 0)
    throw new UsageError(`${command} needs --model-url URL (the base URL including /v1) and --model NAME`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--model-url ${JSON.stringify(baseUrl)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--model-url must be http: or https:');
  let pinned: typeof fetch | undefined;
  if (values['allow-private-model-hosts'] !== true) {
    if (isInternalHost(url))
      throw new UsageError(
        `--model-url: ${url.host} is a loopback, private or internal host; pass --allow-private-model-hosts to call it`,
      );
    const r = await refusedResolution(url, resolveHost);
    // the flag is the way only to a host that resolves to an internal address; a name that does not resolve is a
    // wrong URL (the sentence serve's 422 gives for it)
    if ('reason' in r)
      throw new UsageError(
        `--model-url: ${url.host}: ${r.reason}${r.reason === UNRESOLVED ? '' : '; pass --allow-private-model-hosts to call it'}`,
      );
    pinned = r.fetch;
  }
  const number = (flag: string): number | undefined => {
    const v = values[flag];
    if (v === undefined) return undefined;
    const x = Number(v);
    if (!Number.isInteger(x)) throw new UsageError(`--${flag} must be an integer`);
    return x;
  };
  const model = endpointModel(values, number, { baseUrl, name, chat: values.chat === true, pinned });
  return { model, number };
}

/** The endpoint's model with the production options of the command line (temperature … tokens a minute). */
function endpointModel(
  values: Record<string, unknown>,
  number: (flag: string) => number | undefined,
  at: { baseUrl: string; name: string; chat: boolean; pinned: typeof fetch | undefined },
) {
  const apiKey = process.env[MODEL_API_KEY_ENV];
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  if (temperature !== undefined && Number.isNaN(temperature)) throw new UsageError('--temperature must be a number');
  const limitName = values['max-tokens-param'] as string | undefined;
  if (limitName !== undefined && limitName !== 'max_tokens' && limitName !== 'max_completion_tokens')
    throw new UsageError('--max-tokens-param is max_tokens or max_completion_tokens');
  return createOpenAICompatibleModel({
    baseUrl: at.baseUrl,
    model: at.name,
    api: at.chat ? 'chat' : 'completions',
    topLogprobs: 0,
    ...(apiKey ? { apiKey } : {}),
    ...(at.pinned ? { fetch: at.pinned } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...optional('seed', number('seed')),
    ...(limitName ? { maxTokensParam: limitName as 'max_tokens' | 'max_completion_tokens' } : {}),
    ...optional('timeoutMs', number('timeout-ms')),
    ...optional('requestsPerMinute', number('rpm')),
    ...optional('tokensPerMinute', number('tpm')),
  });
}

/** `--prices PROMPT,COMPLETION[,CURRENCY]`: prices per million tokens (checked by the library). */
function pricesOf(v: unknown) {
  if (v === undefined) return undefined;
  const [p, c, currency, ...rest] = String(v).split(',');
  const prompt = Number(p),
    completion = Number(c);
  if (
    rest.length ||
    p === undefined ||
    c === undefined ||
    p.trim() === '' ||
    c.trim() === '' ||
    Number.isNaN(prompt) ||
    Number.isNaN(completion)
  )
    throw new UsageError('--prices takes PROMPT,COMPLETION[,CURRENCY]: prices per million tokens, e.g. 2.5,10,USD');
  return { prompt_per_million: prompt, completion_per_million: completion, ...(currency ? { currency } : {}) };
}

const optional = <K extends string>(key: K, v: number | undefined) =>
  (v === undefined ? {} : { [key]: v }) as Partial<Record<K, number>>;

/**
 * A book's sections as strata of the probe: in order of their start, without empty ones and without those that
 * overlap the one before (a table of contents may nest); none left → the whole text (undefined).
 */
function strata(sections: ReadonlyArray<{ title: string; start: number; end: number }>): WorkSection[] | undefined {
  const out: WorkSection[] = [];
  for (const s of [...sections].sort((a, b) => a.start - b.start)) {
    if (s.end <= s.start || (out.length > 0 && s.start < out[out.length - 1].end)) continue;
    out.push({ start: s.start, end: s.end, title: s.title });
  }
  return out.length ? out : undefined;
}
