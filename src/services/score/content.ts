/**
 * A score of content sent with the request instead of a registered work's `work_hash`: the text it reads (a file's
 * extracted text, markup's readable text, a text as it is), the work hash of the bytes as sent (what `registerWork`
 * would record for them, so the score's bootstrap seed and every number are those of the registered work), and the
 * way a span of the text goes back to the content. Its checks and limits are analyze's, in the score's rules
 * (`SCORE_REQUEST`).
 */
import { extractOn, type Offload } from '../../corpus/work.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import type { ContentType } from '../../text/index.js';
import { extractDocumentOn, extractionOf, fileBytes, isFileType } from '../analyze/files.js';
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
 * The content of a score request read through `SCORE_REQUEST` within `limits.maxFileBytes`, read: `content_type`
 * (default `text`) as analyze takes it, a file's bytes or base64 (`content_encoding: 'base64'`) extracted to its
 * text, markup reduced to its readable text.
 * @throws INVALID_INPUT (an unreadable file), PAYLOAD_TOO_LARGE (a file whose extraction passes the limits)
 * @example const c = await scoredContent({ content: pdfBytes, content_type: 'pdf' }, { maxFileBytes: 1 << 26 })
 */
export async function scoredContent(
  r: Readonly<Record<string, unknown>>,
  limits: ContentLimits,
): Promise<ScoredContent> {
  const type = r.content_type ?? 'text';
  if (isFileType(type)) {
    const file = fileBytes(r.content as string | Uint8Array);
    const document = await extractDocumentOn(
      limits.offload,
      file,
      type,
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
