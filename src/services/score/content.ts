/**
 * A score of content sent with the request instead of a registered work's `work_hash`: the text it reads (a file's
 * extracted text, markup's readable text, a text as it is), the work hash of the bytes as sent (what `registerWork`
 * would record for them, so the score's bootstrap seed and every number are those of the registered work), and the
 * way a span of the text goes back to the content. The same checks and limits as analyze's content.
 */
import { extractOn, type Offload } from '../../corpus/work.js';
import { TrainprintError } from '../../errors.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import type { DocumentFormat } from '../../formats/types.js';
import type { ContentType } from '../../text/index.js';
import { ANALYZE_MAX_BYTES, exceedsUtf8Bytes } from '../analyze/analyze.js';
import { extractDocumentOn, extractionOf, fileOf } from '../analyze/files.js';
import type { AnalysisExtraction } from '../analyze/types.js';

/** Content read for a score. */
export interface ScoredContent {
  /** What the score chunks and searches. */
  readonly text: string;
  /** `sha256:` + hex of the bytes as sent: a file's, or the text's UTF-8. */
  readonly workHash: string;
  /** A file's extraction (its text only with `include_text`); null for text. */
  readonly extraction: AnalysisExtraction | null;
  /** Markup: a span of `text` → the same span of the content as sent. Null where `text` is the content. */
  readonly mapSpan: ((start: number, end: number) => [number, number]) | null;
}

/** How content is read: the largest file, where long markup is extracted, what cancels a file's extraction. */
export interface ContentLimits {
  readonly maxFileBytes: number;
  readonly offload?: Offload;
  readonly signal?: AbortSignal;
  /** Whose content it is: a file waits in its owner's line where the offload reads files of many in turn. */
  readonly owner?: string;
}

/**
 * The content of a score request, read: `content_type` (default `text`) as analyze takes it, a file's bytes or
 * base64 (`content_encoding: 'base64'`) extracted to its text, markup reduced to its readable text.
 * @throws INVALID_INPUT (empty content, an unknown type, a wrong pairing, an unreadable file), PAYLOAD_TOO_LARGE (a
 * text over 10 MiB of UTF-8, a file over `maxFileBytes`)
 * @example const c = await scoredContent({ content: pdfBytes, content_type: 'pdf' }, { maxFileBytes: 1 << 26 })
 */
export async function scoredContent(
  r: Readonly<Record<string, unknown>>,
  limits: ContentLimits,
): Promise<ScoredContent> {
  const { type, file } = checkScoredContent(r, limits.maxFileBytes);
  if (file) {
    const document = await extractDocumentOn(
      limits.offload,
      file,
      type as DocumentFormat,
      { maxBytes: limits.maxFileBytes, signal: limits.signal },
      limits.owner,
    );
    return {
      text: document.text,
      workHash: `sha256:${await sha256Hex(file)}`,
      extraction: extractionOf(document, file.length, r.include_text === true),
      mapSpan: null,
    };
  }
  const content = r.content as string;
  const extracted = await extractOn(limits.offload, content, type as ContentType);
  return {
    text: extracted.text,
    workHash: `sha256:${await sha256Hex(content)}`,
    extraction: null,
    mapSpan: type === 'text' ? null : (start, end) => extracted.mapSpan(start, end),
  };
}

/**
 * The checks of {@link scoredContent} before it reads anything (a score job runs them at submission), on a request read
 * through `SCORE_REQUEST`: the pairing of `include_text`, a file's size, a text's emptiness and size; the file's bytes
 * (null for text).
 * @throws INVALID_INPUT, PAYLOAD_TOO_LARGE as {@link scoredContent}
 * @example checkScoredContent({ content: 'text', include_text: true }, 1 << 26) // throws: include_text goes with files
 */
export function checkScoredContent(r: Readonly<Record<string, unknown>>, maxFileBytes: number) {
  // its members' types were checked by SCORE_REQUEST's schema
  const type = r.content_type ?? 'text';
  const file = fileOf(r, r.content, maxFileBytes);
  if (file) return { type, file };
  // include_text and a blank text are the score's rules' (SCORE_REQUEST)
  const content = r.content as string;
  if (exceedsUtf8Bytes(content, ANALYZE_MAX_BYTES))
    throw new TrainprintError('PAYLOAD_TOO_LARGE', `content is larger than ${ANALYZE_MAX_BYTES} UTF-8 bytes (10 MiB)`);
  return { type, file: null };
}
