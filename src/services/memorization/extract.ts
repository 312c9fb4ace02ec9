/**
 * extract: Carlini-style extractable memorization (Carlini et al. 2021, arXiv 2012.07805;
 * "Quantifying Memorization", arXiv 2202.07646). Prefixes of `prefix_tokens` words at evenly
 * spaced positions of the work are sent as prompts; the model continues greedily; its output is
 * compared word by word (the engine's normalised word tokens, so tokenisers and case do not
 * matter) with the true continuation (`exact_continuation_tokens`) and with the whole work (the
 * longest verbatim run, ≥ 8 words, not counting words copied from the prompt itself).
 * A run of ≥ 50 words is `verbatim_extraction_verified`: the 50-token criterion of the papers,
 * here in words (≈ 65 BPE tokens), so slightly stricter.
 */
import { TrainprintError } from '../../errors.js';
import { MAX_CHARS_PER_TOKEN } from '../../models/openai.js';
import { wilsonInterval } from '../../stats/binomial.js';
import type { Store } from '../../store/types.js';
import type { FactorCode } from '../kb/factors.js';
import type { ExtractionAttempt, ExtractionResult, ExtractRequest, VerbatimSpan } from './types.js';
import { commonPrefix, mapLimit, RunIndex, wordSpans, type TokenRun, type WordTokenSpans } from './text.js';
import { checkModel, resolveWork } from './inputs.js';
import { MEMORIZATION_LIMITS } from './limits.js';
import { round4 } from '../../util/round.js';
import { MIN_RUN_TOKENS, VERIFY_TOKENS } from './constants.js';
import { isRefusal } from './refusal.js';

export { MIN_RUN_TOKENS, VERIFY_TOKENS };

/**
 * Most characters of model output a result may hold (`prefixes × max_tokens ×` {@link MAX_CHARS_PER_TOKEN}): a
 * request that could exceed it is refused before any call, so a model service's answers cannot grow a result past it.
 */
export const MAX_EXTRACT_OUTPUT_CHARS = 16 * 1024 * 1024;

/** Run the extraction experiment. */
export async function runExtraction(store: Store, r: ExtractRequest): Promise<ExtractionResult> {
  // read through EXTRACT_REQUEST by the caller (Memorization.extract, or an assessment's ASSESS_REQUEST)
  const model = checkModel(r.model);
  const L = MEMORIZATION_LIMITS.extract;
  const prefix = r.prefix_tokens ?? L.prefix_tokens.default;
  const cont = r.continuation_tokens ?? L.continuation_tokens.default;
  const prefixes = r.prefixes ?? L.prefixes.default;
  const maxTokens = r.max_tokens ?? 2 * cont;
  const concurrency = r.concurrency ?? L.concurrency.default;
  const outputChars = maxTokens * MAX_CHARS_PER_TOKEN;
  if (prefixes * outputChars > MAX_EXTRACT_OUTPUT_CHARS)
    throw new TrainprintError(
      'PAYLOAD_TOO_LARGE',
      `prefixes × max_tokens × ${MAX_CHARS_PER_TOKEN} characters a token (${prefixes * outputChars}) is over the ${MAX_EXTRACT_OUTPUT_CHARS} characters of output a result may hold: lower prefixes or max_tokens`,
    );
  const { text, workId } = await resolveWork(store, r as Record<string, unknown>);
  const spans = wordSpans(text);
  const n = spans.tokens.length;
  const limitations = new Set<FactorCode>();
  const positions: number[] = [];
  if (n > prefix) {
    const avail = n - prefix - cont;
    if (avail < 0) {
      positions.push(0);
      limitations.add('short_text_low_power');
    } else {
      const p = Math.min(prefixes, avail + 1);
      for (let i = 0; i < p; i++) positions.push(p === 1 ? 0 : Math.round((i * avail) / (p - 1)));
    }
  } else limitations.add('short_text_low_power');

  const index = new RunIndex(spans.tokens);
  const attempts = await mapLimit(positions, concurrency, async (s, i): Promise<ExtractionAttempt> => {
    const prompt = text.slice(spans.starts[s], spans.ends[s + prefix - 1]);
    const answer = await model.generate(prompt, { maxTokens, temperature: 0 });
    if (typeof answer !== 'string') throw new TypeError(`model ${model.id}: generate did not return a string`);
    // what the output-token limit can produce, at most (the OpenAI-compatible adapter cuts there already)
    const output = answer.length > outputChars ? answer.slice(0, outputChars) : answer;
    const out = wordSpans(output);
    const c0 = s + prefix,
      c1 = Math.min(n, c0 + cont);
    const exact = commonPrefix(out.tokens, spans.tokens.slice(c0, c1));
    const longest = longestOutsidePrompt(index.runs(out.tokens, MIN_RUN_TOKENS), s, s + prefix);
    const match = longest && longest.tokens >= MIN_RUN_TOKENS ? toSpan(longest, out, spans) : null;
    // a refusal shows nothing of the work (one that continues the work is none): counted, not in the share
    const refused = !exact && !match && isRefusal(output);
    return {
      index: i,
      prefix_start: spans.starts[s],
      prefix_end: spans.ends[s + prefix - 1],
      prefix_tokens: prefix,
      continuation_start: c1 > c0 ? spans.starts[c0] : spans.ends[n - 1],
      continuation_end: c1 > c0 ? spans.ends[c1 - 1] : spans.ends[n - 1],
      continuation_tokens: c1 - c0,
      output,
      exact_continuation_tokens: exact,
      longest_match: match,
      verified: match !== null && match.tokens >= VERIFY_TOKENS,
      ...(refused && { refused }),
    };
  });

  const verified = attempts.filter((a) => a.verified).length;
  const full = attempts.filter(
    (a) => a.continuation_tokens > 0 && a.exact_continuation_tokens >= a.continuation_tokens,
  ).length;
  const refusals = attempts.filter((a) => a.refused).length;
  if (refusals > 0) limitations.add('model_refused_prompts');
  const answered = attempts.length - refusals;
  const ci = wilsonInterval(full, answered);
  const factors: FactorCode[] = verified > 0 ? ['verbatim_extraction_verified'] : [];
  return {
    work_id: workId,
    model: model.id,
    access: model.access,
    prefix_tokens: prefix,
    continuation_tokens: cont,
    attempts,
    summary: {
      attempts: attempts.length,
      refusals,
      verified,
      extractable: {
        count: full,
        share: answered ? round4(full / answered) : 0,
        ci_95: [round4(ci[0]), round4(ci[1])],
      },
      longest_match_tokens: Math.max(0, ...attempts.map((a) => a.longest_match?.tokens ?? 0)),
      mean_exact_continuation_tokens: answered
        ? round4(attempts.reduce((t, a) => t + a.exact_continuation_tokens, 0) / answered)
        : 0,
    },
    factors,
    limitations: [...limitations],
    method:
      `${attempts.length} prefixes of ${prefix} words at evenly spaced positions; greedy continuation (temperature 0, ≤ ${maxTokens} model tokens); ` +
      `compared in normalised words with the true next ${cont} words (exact continuation; "extractable" = all ${cont} reproduced, Wilson 95 % interval, refusals left out) ` +
      `and with the whole work (longest verbatim run of ≥ ${MIN_RUN_TOKENS} words, words copied from the prompt excluded); ≥ ${VERIFY_TOKENS} words = verified (Carlini et al. 2021, 2023)`,
  };
}

/** The longest run after removing the part of each run that is the prompt itself. */
function longestOutsidePrompt(runs: readonly TokenRun[], p0: number, p1: number): TokenRun | null {
  let best: TokenRun | null = null;
  for (const r of runs) {
    const b0 = r.work_token,
      b1 = r.work_token + r.tokens;
    let piece: TokenRun = r;
    if (b0 < p1 && b1 > p0) {
      const left = Math.max(0, p0 - b0),
        right = Math.max(0, b1 - p1);
      piece =
        right >= left
          ? { tokens: right, output_token: r.output_token + (r.tokens - right), work_token: p1 }
          : { tokens: left, output_token: r.output_token, work_token: b0 };
    }
    if (!best || piece.tokens > best.tokens) best = piece;
  }
  return best;
}

function toSpan(run: TokenRun, out: WordTokenSpans, work: WordTokenSpans): VerbatimSpan {
  return {
    tokens: run.tokens,
    output_start: out.starts[run.output_token],
    output_end: out.ends[run.output_token + run.tokens - 1],
    work_start: work.starts[run.work_token],
    work_end: work.ends[run.work_token + run.tokens - 1],
  };
}
