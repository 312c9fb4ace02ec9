/**
 * What every reader returns, assembled one way: the text, its counts, and sections that cover it in order. A
 * reader hands over where its sections start; this module orders them, drops empty ones and closes each where the
 * next begins, so the invariant (`sections` cover `text`) is written once.
 */

import { countWords, isSpace } from '../util/space.js';
import type { DocumentExtraction, DocumentFormat, DocumentPage, DocumentSection } from './types.js';

/** The words of a text (../util/space.ts: the one count, also the remote search's). */
export { countWords };

/** Where a section starts, as a reader finds it. */
export interface SectionStart {
  readonly title: string;
  readonly start: number;
}

/**
 * Sections covering `[0, length)` from where they start: ordered by start (stable), an untitled section first where
 * text comes before the first title, and a section that would hold nothing but whitespace taking the title of the
 * one after it (a part's title page before its first chapter, two table-of-contents entries at one place: the
 * later, more specific title names the text).
 * @example coverSections('ab cd', [{ title: 'B', start: 3 }]) // [{ title: '', start: 0, end: 3 }, { title: 'B', start: 3, end: 5 }]
 */
export function coverSections(text: string, starts: readonly SectionStart[]): DocumentSection[] {
  const length = text.length;
  if (length === 0) return [];
  const sorted = starts
    .map((s, i) => ({ title: s.title, start: Math.max(0, Math.min(length, s.start)), i }))
    .sort((a, b) => a.start - b.start || a.i - b.i);
  const kept: SectionStart[] = [{ title: '', start: 0 }];
  for (const s of sorted) {
    const previous = kept[kept.length - 1];
    if (isBlank(text, previous.start, s.start)) kept[kept.length - 1] = { title: s.title, start: previous.start };
    else kept.push({ title: s.title, start: s.start });
  }
  // a title at the very end (a table-of-contents entry for a document with no text) names nothing
  while (kept.length > 1 && isBlank(text, kept[kept.length - 1].start, length)) kept.pop();
  return kept.map((s, i) => Object.freeze({ title: s.title, start: s.start, end: kept[i + 1]?.start ?? length }));
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * The frozen result of a reader.
 * @example finishExtraction('docx', 'Hello world', [{ title: '', start: 0 }]).words // 2
 */
export function finishExtraction(
  format: DocumentFormat,
  text: string,
  starts: readonly SectionStart[],
  pages?: readonly DocumentPage[],
): DocumentExtraction {
  return Object.freeze({
    format,
    text,
    characters: text.length,
    words: countWords(text),
    sections: Object.freeze(coverSections(text, starts)),
    ...(pages ? { pages: Object.freeze(pages.map((p) => Object.freeze({ ...p }))) } : {}),
  });
}
