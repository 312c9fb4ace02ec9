/**
 * compare: a model output against the registered works. Verbatim runs (≥ `min_tokens` words of
 * the engine's normalised tokens, found through 4-word seeds and extended both ways) with spans
 * in the output and in the work, and near passages from `engine.compare` (sentence tf-idf
 * alignment: light edits and close paraphrase) that the verbatim runs do not already cover.
 */
import type { MemorizationDeps } from './deps.js';
import { TrainprintError } from '../../errors.js';
import type { FactorCode } from '../kb/factors.js';
import { getWork, workText, type Work } from '../registry/works.js';
import type { Store } from '../../store/types.js';
import { round4 } from '../../util/round.js';
import { RunIndex, wordSpans } from './text.js';
import type { CompareOutputRequest, CompareOutputResult, NearSpan, VerbatimSpan, WorkComparison } from './types.js';
import { VERIFY_TOKENS } from './constants.js';

/** compare refuses longer texts (its sentence-pair scoring is quadratic). */
const COMPARE_MAX_CHARS = 500_000;

/** Run the comparison; without `work_ids`, against the works of `owner` (every owner's when undefined). */
export async function compareOutput(
  deps: MemorizationDeps,
  store: Store,
  request: CompareOutputRequest,
  owner?: string,
): Promise<CompareOutputResult> {
  // read through COMPARE_OUTPUT_REQUEST by the caller (Memorization.compare)
  const { output, min_tokens: minTokens = 8, limit = 1000 } = request;
  let works: Work[];
  if (request.work_ids !== undefined) {
    works = await Promise.all(request.work_ids.slice(0, limit).map((id) => getWork(store, id)));
  } else {
    works = [];
    let after: string | undefined;
    while (works.length < limit) {
      const page = await deps.listWorks({ owner, limit: Math.min(1000, limit - works.length), after });
      works.push(...page.works.filter((w) => w.has_text));
      if (!page.next) break;
      after = page.next;
    }
  }
  const out = wordSpans(output);
  const limitations = new Set<FactorCode>();
  const results: WorkComparison[] = [];
  let examined = 0;
  for (const w of works) {
    const text = await workText(store, w.work_id);
    if (text === null) {
      limitations.add('work_text_not_registered');
      continue;
    }
    examined++;
    const work = wordSpans(text);
    const chosen: VerbatimSpan[] = [];
    const taken: Array<[number, number]> = [];
    for (const run of new RunIndex(work.tokens).runs(out.tokens, minTokens)) {
      const a = run.output_token,
        b = a + run.tokens;
      if (taken.some(([x, y]) => a < y && b > x)) continue;
      taken.push([a, b]);
      chosen.push({
        tokens: run.tokens,
        output_start: out.starts[a],
        output_end: out.ends[b - 1],
        work_start: work.starts[run.work_token],
        work_end: work.ends[run.work_token + run.tokens - 1],
      });
    }
    let near: NearSpan[] = [];
    try {
      // past the sentence alignment's limit only verbatim runs are compared: said, not silently dropped
      if (Math.max(text.length, output.length) > COMPARE_MAX_CHARS) throw new TrainprintError('PAYLOAD_TOO_LARGE', '');
      near = deps
        .compare(output, text)
        .spans.filter((s) => coveredShare(s.a_start, s.a_end, chosen) < 0.5)
        .map((s) => ({
          output_start: s.a_start,
          output_end: s.a_end,
          work_start: s.b_start,
          work_end: s.b_end,
          score: round4(s.score),
        }));
    } catch (e) {
      if (!(e instanceof TrainprintError && e.code === 'PAYLOAD_TOO_LARGE')) throw e;
      limitations.add('near_passages_not_compared');
    }
    if (chosen.length === 0 && near.length === 0) continue;
    const covered = taken.reduce((t, [a, b]) => t + (b - a), 0);
    results.push({
      work_id: w.work_id,
      title: w.title,
      verbatim: chosen.sort((x, y) => x.output_start - y.output_start),
      near,
      longest_verbatim_tokens: Math.max(0, ...chosen.map((c) => c.tokens)),
      verbatim_share: out.tokens.length ? round4(covered / out.tokens.length) : 0,
    });
  }
  results.sort((a, b) => b.longest_verbatim_tokens - a.longest_verbatim_tokens || b.near.length - a.near.length);
  const factors: FactorCode[] = results.some((x) => x.longest_verbatim_tokens >= VERIFY_TOKENS)
    ? ['long_verbatim_run']
    : [];
  if (out.tokens.length < VERIFY_TOKENS) limitations.add('short_text_low_power');
  return { output_tokens: out.tokens.length, works: results, examined, factors, limitations: [...limitations] };
}

/** Share of [a, b) covered by the verbatim spans' output ranges. */
function coveredShare(a: number, b: number, spans: readonly VerbatimSpan[]): number {
  if (b <= a) return 1;
  let c = 0;
  for (const s of spans) c += Math.max(0, Math.min(b, s.output_end) - Math.max(a, s.output_start));
  return c / (b - a);
}
