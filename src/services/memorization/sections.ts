/**
 * A work's sections (chapters) against its text: what their schema cannot say, read by an extraction once its work's
 * text is resolved and by a catalogue audit's rules for each work it is given.
 */
import { invalidField } from '../../util/schema-check.js';

/** A span of a work's text (UTF-16 offsets) that its probes are spread over. */
export interface SectionSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Sections (their shape checked by the schema) in order, not overlapping, within a text of `length` UTF-16 units.
 * @throws INVALID_INPUT naming `field[i]` (or `field` when there are none)
 * @example sectionsWithin([{ start: 0, end: 10 }, { start: 5, end: 20 }], 100, 'sections') // sections[1]: … 10 ≤ start …
 */
export function sectionsWithin(sections: readonly SectionSpan[], length: number, field: string): void {
  if (sections.length === 0) invalidField(field, 'must hold a section at least');
  let prev = 0;
  for (const [i, { start, end }] of sections.entries()) {
    if (start < prev || end <= start || end > length)
      invalidField(
        `${field}[${i}]`,
        `start and end must be integers with ${prev} ≤ start < end ≤ ${length} (in order, not overlapping)`,
      );
    prev = end;
  }
}
