// The progress line of `trainprint analyze` (src/cli/progress.ts) on a stand-in stream: drawn in place on a
// terminal, throttled within a phase, erased at the end; nothing at all on a pipe or with --quiet.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bar, progressLine, progressText, type ProgressStream } from '../../src/cli/progress.js';

const CLEAR = '\r\x1b[K';

function stream(isTTY: boolean, columns = 100): ProgressStream & { out: string[] } {
  const out: string[] = [];
  return { isTTY, columns, out, write: (s: string) => out.push(s) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('progress line', () => {
  it('writes nothing when stderr is not a terminal, or with --quiet', () => {
    for (const [s, quiet] of [
      [stream(false), false],
      [stream(true), true],
    ] as const) {
      const line = progressLine(s, { quiet });
      expect(line.enabled).toBe(false);
      line.say('loading the reference packs');
      line.update({ phase: 'remote', calls: 3, budget: 10, corpora: 1 });
      line.update({ phase: 'done', calls: 10, budget: 10, corpora: 1 });
      line.end();
      expect(s.out).toEqual([]);
    }
  });

  it('redraws in place on a terminal: each phase at once, the calls at most every 100 ms, erased at the end', () => {
    vi.useFakeTimers();
    let t = 0;
    const s = stream(true);
    const line = progressLine(s, { quiet: false, now: () => t });
    line.say('loading the reference packs');
    expect(s.out).toEqual([`${CLEAR}loading the reference packs · 0 s`]);
    t = 1200;
    line.update({ phase: 'local', calls: 0, budget: 0, corpora: 0 });
    t = 1250;
    line.update({ phase: 'remote', calls: 0, budget: 40, corpora: 2 });
    t = 1300;
    line.update({ phase: 'remote', calls: 10, budget: 40, corpora: 2 }); // 50 ms after the last: skipped
    t = 1400;
    line.update({ phase: 'remote', calls: 20, budget: 40, corpora: 2 });
    expect(s.out.slice(1)).toEqual([
      `${CLEAR}searching the local datasets · 1 s`,
      `${CLEAR}searching 2 remote corpora ${'░'.repeat(24)} 0/40 calls · 1 s`,
      `${CLEAR}searching 2 remote corpora ${'█'.repeat(12)}${'░'.repeat(12)} 20/40 calls · 1 s`,
    ]);
    // nothing reports for a while: the seconds still move
    t = 3400;
    vi.advanceTimersByTime(500);
    expect(s.out.at(-1)).toBe(
      `${CLEAR}searching 2 remote corpora ${'█'.repeat(12)}${'░'.repeat(12)} 20/40 calls · 3 s`,
    );
    const n = s.out.length;
    line.update({ phase: 'done', calls: 40, budget: 40, corpora: 2 });
    expect(s.out.slice(n)).toEqual([CLEAR]);
    line.say('late');
    line.end();
    vi.advanceTimersByTime(5000);
    expect(s.out.length).toBe(n + 1);
  });

  it('never wraps: the text is cut to the terminal width', () => {
    const text = progressText('analyzing a-file-with-a-very-long-name-indeed.epub', 61_000, 30);
    expect(text.length).toBe(29);
    expect(text.endsWith('…')).toBe(true);
    expect(progressText({ phase: 'extracting', calls: 0, budget: 0, corpora: 0 }, 2500, 80)).toBe(
      "reading the file's text · 2 s",
    );
    expect(progressText({ phase: 'remote', calls: 1, budget: 0, corpora: 1 }, 0, 80)).toBe(
      'searching 1 remote corpus · 0 s',
    );
  });

  it('draws a bar of calls against the budget, clamped', () => {
    expect(bar(10, 40, 8)).toBe('██░░░░░░');
    expect(bar(0, 0, 4)).toBe('░░░░');
    expect(bar(50, 40, 4)).toBe('████');
  });
});
