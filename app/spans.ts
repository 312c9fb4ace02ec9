/**
 * Text with spans → segments for highlighting. Spans may overlap (one query passage is often
 * found in several source documents), so the text is cut at every span boundary and each
 * segment lists the spans that cover it. Pure: unit-tested without a browser.
 */

export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface Segment {
  readonly start: number;
  readonly end: number;
  /** Indexes (into the spans given) of the spans covering this segment, ascending. */
  readonly covers: readonly number[];
}

/**
 * Cuts `[0, length)` into consecutive segments at every span boundary. Spans are clipped to the
 * text; empty ones are ignored. The segments cover the whole text, in order.
 * @example segments(10, [{ start: 2, end: 5 }]) // [{0,2,[]}, {2,5,[0]}, {5,10,[]}]
 */
export function segments(length: number, spans: readonly Span[]): Segment[] {
  const cuts = new Set<number>([0, length]);
  const clipped = spans.map((s) => ({
    start: Math.max(0, Math.min(length, s.start)),
    end: Math.max(0, Math.min(length, s.end)),
  }));
  for (const s of clipped) if (s.end > s.start) cuts.add(s.start).add(s.end);
  const points = [...cuts].sort((a, b) => a - b);
  // Sweep: the spans starting at each cut join the active set, those ending there leave it.
  const startsAt = new Map<number, number[]>();
  const endsAt = new Map<number, number[]>();
  clipped.forEach((s, i) => {
    if (s.end <= s.start) return;
    (startsAt.get(s.start) ?? startsAt.set(s.start, []).get(s.start)!).push(i);
    (endsAt.get(s.end) ?? endsAt.set(s.end, []).get(s.end)!).push(i);
  });
  const active = new Set<number>();
  const out: Segment[] = [];
  for (let k = 0; k + 1 < points.length; k++) {
    const at = points[k];
    for (const i of endsAt.get(at) ?? []) active.delete(i);
    for (const i of startsAt.get(at) ?? []) active.add(i);
    out.push({ start: at, end: points[k + 1], covers: [...active].sort((a, b) => a - b) });
  }
  return out;
}

/**
 * The window of `text` to show around `[start, end)`: up to `context` code units either side,
 * widened to whole words where a space is near, never splitting a surrogate pair.
 */
export function excerpt(text: string, start: number, end: number, context: number): { from: number; to: number } {
  let from = Math.max(0, start - context);
  let to = Math.min(text.length, end + context);
  if (from > 0) {
    const space = text.indexOf(' ', from);
    if (space !== -1 && space < start) from = space + 1;
  }
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space > end) to = space;
  }
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to++;
  return { from, to };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
