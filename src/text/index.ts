/**
 * Content extraction: readable text out of Markdown and HTML, with offsets back to the original.
 *
 * @example
 * import { extractText } from '../content/content/index.js'
 * const x = extractText('Fish &amp; <em>chips</em>', 'html')
 * x.text            // 'Fish & chips'
 * x.mapSpan(7, 12)  // [15, 20] — 'chips' in the original
 */
export { CONTENT_TYPES, extractText, fromParts, toParts } from './extract.js';
export type { ContentType, ExtractedParts, ExtractedText } from './extract.js';
