/**
 * A comparison as DOM: the two texts side by side with every aligned passage marked in both
 * (same number and colour on each side), and the list of passages. Hovering or focusing a
 * passage's entry lights it up on both sides; "Show" scrolls both into view.
 */
import type { Comparison } from './backend.js';
import { fill, h, type Child } from './dom.js';
import { count, decimal, percent } from './format.js';
import { segments } from './spans.js';

/** Passage colours cycle through this many classes (styles.css `.c0` … `.c5`). */
const COLOURS = 6;

export function renderComparison(root: HTMLElement, a: string, b: string, cmp: Comparison): void {
  const sideA = h('div', { class: 'doc', id: 'compare-a-text', dir: 'auto' });
  const sideB = h('div', { class: 'doc', id: 'compare-b-text', dir: 'auto' });
  fill(
    sideA,
    ...marked(
      a,
      cmp.spans.map((s) => ({ start: s.a_start, end: s.a_end })),
      'a',
    ),
  );
  fill(
    sideB,
    ...marked(
      b,
      cmp.spans.map((s) => ({ start: s.b_start, end: s.b_end })),
      'b',
    ),
  );

  const light = (i: number | null): void => {
    for (const m of root.querySelectorAll<HTMLElement>('mark[data-span]'))
      m.classList.toggle('active', m.dataset.span === String(i));
  };
  const show = (i: number): void => {
    light(i);
    root.querySelector(`#cmp-a-${i}`)?.scrollIntoView({ block: 'nearest' });
    root.querySelector(`#cmp-b-${i}`)?.scrollIntoView({ block: 'nearest' });
  };
  for (const side of [sideA, sideB]) {
    side.addEventListener('mouseover', (e) => {
      const m = (e.target as Element).closest<HTMLElement>('mark[data-span]');
      light(m ? Number(m.dataset.span) : null);
    });
    side.addEventListener('click', (e) => {
      const m = (e.target as Element).closest<HTMLElement>('mark[data-span]');
      if (m) show(Number(m.dataset.span));
    });
  }

  fill(
    root,
    h('h3', { id: 'compare-result-title', tabindex: -1 }, 'Comparison'),
    h(
      'dl',
      { class: 'summary' },
      stat('Similarity', percent(cmp.similarity), "of the shorter text's words in aligned passages"),
      stat('Aligned passages', count(cmp.spans.length), ''),
      stat('Jaccard', decimal(cmp.jaccard), 'distinct word 5-grams'),
      stat(
        'Containment',
        `A ${percent(cmp.containment_a, 0)} · B ${percent(cmp.containment_b, 0)}`,
        "of each text's 5-grams in the other",
      ),
    ),
    h(
      'div',
      { class: 'panes' },
      h(
        'section',
        { class: 'pane', 'aria-labelledby': 'cmp-a-title' },
        h('h4', { id: 'cmp-a-title' }, 'Text A'),
        sideA,
      ),
      h(
        'section',
        { class: 'pane', 'aria-labelledby': 'cmp-b-title' },
        h('h4', { id: 'cmp-b-title' }, 'Text B'),
        sideB,
      ),
    ),
    h(
      'section',
      { class: 'block', 'aria-labelledby': 'aligned-title' },
      h('h4', { id: 'aligned-title' }, 'Aligned passages'),
      cmp.spans.length === 0
        ? h('p', { class: 'muted' }, 'No passage of A was found in B.')
        : h(
            'ol',
            { class: 'aligned', id: 'aligned-list' },
            ...cmp.spans.map((s, i) =>
              h(
                'li',
                { class: `c${i % COLOURS}` },
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: () => show(i),
                    onfocus: () => light(i),
                    onmouseenter: () => light(i),
                  },
                  `Show passage ${i + 1}`,
                ),
                ` A ${count(s.a_start)}–${count(s.a_end)} ↔ B ${count(s.b_start)}–${count(s.b_end)} · ${s.kind} · score ${decimal(s.score)} · `,
                h('q', null, clip(a.slice(s.a_start, s.a_end), 120)),
              ),
            ),
          ),
    ),
  );
}

function marked(text: string, spans: ReadonlyArray<{ start: number; end: number }>, side: 'a' | 'b'): Child[] {
  const seen = new Set<number>();
  return segments(text.length, spans).map((seg) => {
    const piece = text.slice(seg.start, seg.end);
    if (seg.covers.length === 0) return piece;
    const i = seg.covers[0];
    const first = !seen.has(i);
    seen.add(i);
    return h(
      'mark',
      {
        class: `pair c${i % COLOURS}`,
        'data-span': i,
        id: first ? `cmp-${side}-${i}` : undefined,
        title: `Passage ${i + 1}`,
      },
      first ? h('span', { class: 'tag', 'aria-hidden': 'true' }, String(i + 1)) : null,
      piece,
    );
  });
}

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
}

function stat(term: string, value: string, note: string): HTMLElement {
  return h(
    'div',
    { class: 'stat' },
    h('dt', null, term),
    h('dd', null, h('span', { class: 'value' }, value), note ? h('span', { class: 'note' }, note) : null),
  );
}
