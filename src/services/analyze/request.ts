/**
 * The analysis's request, written once ({@link ANALYZE_REQUEST}): its schema (./schema.ts) and its rules — what a
 * schema cannot say, the checks `analyze` makes before its work. The same rules run in one go at every door that only
 * checks (a route answering 202, a job's item at submission) and in slices where `analyze` reads its own request
 * ({@link readAnalyzeSteps}): counting the UTF-8 bytes of 10 MB of text pauses between its pieces.
 */
import type { DocumentFormat } from '../../formats/types.js';
import type { ContentType } from '../../text/index.js';
import { checkSchema, contract, readRequest, schemaChecked } from '../../util/schema-check.js';
import { finish, PAUSE, type Steps } from '../../util/steps.js';
import { realDate, wellFormedMembers } from '../../util/validate.js';
import type { Jurisdiction } from '../kb/jurisdictions.js';
import { fileLimitOption, fileOf, textTooLarge } from './files.js';
import { ANALYZE_MAX_BYTES } from './limits.js';
import { DEFAULT_QUOTATIONS, type QuotationsMode } from './quotations.js';
import { ANALYZE_REQUEST_SCHEMA, type AnalyzeRequestJson, contentRules } from './schema.js';
import { knownJurisdiction } from '../kb/jurisdictions.js';
import type { WorkType } from './types.js';

/** What the analysis's rules read besides the request: the largest file taken (a plan's; the default otherwise). */
export interface AnalyzeContext {
  readonly maxFileBytes?: number;
}

/** A request read through {@link ANALYZE_REQUEST}: what `analyze` works from. */
export interface CheckedAnalyzeRequest {
  /** The text, or for a file the text it was extracted to (set by the search). */
  content: string;
  type: ContentType | DocumentFormat;
  /** A file's bytes (`content_type` `epub`, `pdf`, `docx`), decoded from base64 where JSON carried them. */
  file: Uint8Array | null;
  /** Return a file's extracted text in the result (`include_text`). */
  includeText: boolean;
  /** metadata.title / metadata.author: kept in the result and offered for registration. */
  title: string | undefined;
  author: string | undefined;
  workType: WorkType | undefined;
  jurisdiction: Jurisdiction | null;
  optOut: boolean;
  since: Date | null;
  /** false when the request keeps the content on this machine (`search_remote: false`). */
  searchRemote: boolean;
  /** The content as UTF-8 when it was encoded to count its bytes (long content), for its work hash. */
  utf8: Uint8Array | null;
  /** Whether quotations count for the headline (`quotations`, ./quotations.ts). */
  quotations: QuotationsMode;
}

/** A request past its schema; a file's `content` may be its bytes (the library's form of what JSON sends as base64). */
type ShapedRequest = Omit<AnalyzeRequestJson, 'content'> & { readonly content: string | Uint8Array };

/**
 * The rules, as steps (src/util/steps.ts): a title and an author of valid Unicode (the stored result keeps them), the
 * content's ({@link contentRules}), a file's pairing and size within `maxFileBytes`, a text within
 * {@link ANALYZE_MAX_BYTES} of UTF-8, a known jurisdiction, a real date; the request as `analyze` reads it.
 */
function* ruleSteps(r: ShapedRequest, maxFileBytes: number): Steps<CheckedAnalyzeRequest> {
  const { metadata: m } = r;
  wellFormedMembers(m, ['title', 'author'], 'metadata.');
  contentRules(r);
  const file = fileOf(r, r.content, maxFileBytes);
  const content = file ? '' : (r.content as string);
  // content of up to a third of the limit in UTF-16 units cannot exceed it; longer content is encoded (in
  // pieces), which counts its bytes and gives the bytes its work hash needs anyway
  const utf8 = content.length * 3 <= ANALYZE_MAX_BYTES ? null : yield* utf8Steps(content, ANALYZE_MAX_BYTES);
  if (utf8 === TOO_LARGE) throw textTooLarge();
  const jurisdiction = knownJurisdiction(m?.jurisdiction, 'metadata.jurisdiction');
  const d = m?.declarations;
  realDate(d?.since, 'metadata.declarations.since');
  return {
    content,
    type: r.content_type,
    title: m?.title,
    author: m?.author,
    workType: m?.work_type,
    jurisdiction,
    optOut: d?.tdm_opt_out === true,
    since: d?.since === undefined ? null : new Date(d.since),
    utf8,
    searchRemote: r.search_remote !== false,
    file,
    includeText: r.include_text === true,
    quotations: r.quotations ?? DEFAULT_QUOTATIONS,
  };
}

/**
 * The analysis's request, written once: `analyze`, `POST /api/v1/attribution/analyze` (its 202 answer too) and an
 * `analyze` job's item read it through this, within the plan's file limit where there is one (`context`).
 * @throws INVALID_INPUT naming the field; PAYLOAD_TOO_LARGE past the file limit or 10 MiB of text
 * @example readThrough(ANALYZE_REQUEST, { content: 'text', content_type: 'text', include_text: true }, {}) // throws
 */
export const ANALYZE_REQUEST = contract<AnalyzeRequestJson, AnalyzeContext | undefined>(
  'analyze',
  ANALYZE_REQUEST_SCHEMA,
  (r, context) => void finish(ruleSteps(r, fileLimitOption(context?.maxFileBytes))),
);

/**
 * `request` read through {@link ANALYZE_REQUEST} as steps, the rules pausing while long content is counted; a file's
 * bytes stand for the base64 JSON carries while the schema checks the rest. A body the HTTP adapter's full validator
 * accepted against the schema is not checked again.
 */
export function* readAnalyzeSteps(request: unknown, maxFileBytes: number): Steps<CheckedAnalyzeRequest> {
  // read once (a getter runs once)
  const checked = schemaChecked(ANALYZE_REQUEST_SCHEMA, request);
  const read = (checked ? request : readRequest(request, 'the request')) as { content?: unknown } | null;
  const bytes = read?.content instanceof Uint8Array ? read.content : null;
  const shaped = bytes ? { ...read, content: '-', content_encoding: 'base64' } : read;
  const r = checked ? (shaped as AnalyzeRequestJson) : checkSchema(ANALYZE_REQUEST_SCHEMA, shaped, 'the request');
  return yield* ruleSteps(bytes ? { ...r, content: bytes } : r, maxFileBytes);
}

/** What {@link utf8Steps} gives for a text over the limit. */
const TOO_LARGE = Symbol('too large');
/** UTF-16 units encoded between two pauses (a millisecond or two of work). */
const UNITS_PER_PAUSE = 1 << 18;

/**
 * `s` as UTF-8 (what `TextEncoder.encode` gives: a lone surrogate is U+FFFD, 3 bytes), in pieces with a
 * pause between them — cut between characters, never inside a surrogate pair — or {@link TOO_LARGE} once it
 * passes `max` bytes.
 */
function* utf8Steps(s: string, max: number): Steps<Uint8Array | typeof TOO_LARGE> {
  const out = new Uint8Array(Math.min(max, 3 * s.length));
  const encoder = new TextEncoder();
  let written = 0;
  for (let from = 0; from < s.length; ) {
    if (from > 0) yield PAUSE;
    let to = Math.min(s.length, from + UNITS_PER_PAUSE);
    if (to < s.length && (s.charCodeAt(to - 1) & 0xfc00) === 0xd800) to--; // a high surrogate ends the piece
    const piece = encoder.encodeInto(s.slice(from, to), out.subarray(written));
    if (piece.read < to - from) return TOO_LARGE; // the rest does not fit in `max` bytes
    written += piece.written;
    from = to;
  }
  return out.subarray(0, written);
}
