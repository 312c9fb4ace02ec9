/**
 * Readable text out of `text`, `markdown` or `html` content, with a map from every extracted offset back to
 * the caller's original string — so spans found in the extracted text (`query_start`/`query_end`) can be
 * reported in the content the caller sent.
 *
 * Decisions (details in `html.ts` and `markdown.ts`): whitespace is never collapsed (downstream tokenizers
 * treat any run as one break); block boundaries add one separator only where words would otherwise touch;
 * HTML drops `<head>` (title included), scripts, styles, templates, SVG, embedded objects and media
 * fallback, and keeps `<img alt>` and `<textarea>`; Markdown keeps code (fenced, indented, inline) and image
 * alt text, and drops URLs, reference definitions and footnote references.
 */

import type { ContentType, ExtractedParts, ExtractedText } from './offset-map.js';
import { TrainprintError } from '../errors.js';
import { extractHtmlInto } from './html.js';
import { extractMarkdownInto } from './markdown.js';
import { PlainText, TextBuilder } from './offset-map.js';
export { fromParts, toParts } from './offset-map.js';

/**
 * Every {@link ContentType}, for validation and error messages.
 *
 * @example
 * (CONTENT_TYPES as readonly string[]).includes('html') // true
 */
export type { ContentType, ExtractedParts, ExtractedText };

export const CONTENT_TYPES: readonly ContentType[] = Object.freeze(['text', 'markdown', 'html'] as const);

/**
 * Extracts what a reader sees from `content`. `'text'` is the identity (no copy); `'html'` and `'markdown'`
 * drop markup, decode character references and keep line structure. Linear time; never throws on a string.
 *
 * @example
 * const x = extractText('<p>Caf&eacute; <b>au</b> lait</p>', 'html')
 * x.text              // 'Café au lait'
 * x.mapSpan(0, 4)     // [3, 14]  — 'Caf&eacute;'
 * extractText('## Intro *here*', 'markdown').text // 'Intro here'
 * @throws TrainprintError INVALID_INPUT when `type` is not one of {@link CONTENT_TYPES} or `content` is not a string
 */
export function extractText(content: string, type: ContentType): ExtractedText {
  if (typeof content !== 'string') {
    throw new TrainprintError(
      'INVALID_INPUT',
      `content must be a string, got ${content === null ? 'null' : typeof content}`,
    );
  }
  switch (type) {
    case 'text':
      return new PlainText(content);
    case 'html': {
      const b = new TextBuilder(content);
      extractHtmlInto(b, content, 0);
      return b.finish('html');
    }
    case 'markdown': {
      const b = new TextBuilder(content);
      extractMarkdownInto(b, content);
      return b.finish('markdown');
    }
    default:
      throw new TrainprintError(
        'INVALID_INPUT',
        `content_type must be one of ${CONTENT_TYPES.map((t) => `'${t}'`).join(', ')}, got ${JSON.stringify(type) ?? String(type)}`,
      );
  }
}
