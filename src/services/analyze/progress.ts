/**
 * How far an analysis has got, for a progress display (`analyze(…, { onProgress })`): its phase, and the remote
 * corpora's calls against their budgets as they are made. Told at each phase and at most every
 * {@link PROGRESS_EVERY_MS} during the remote searches, once more with `done`.
 */

/**
 * One progress report of an analysis.
 *
 * @example
 * engine.analyze(request, { onProgress: (p) => console.error(`${p.phase} ${p.calls}/${p.budget}`) })
 */
export interface AnalyzeProgress {
  /** `extracting` a file's text, searching the `local` datasets (the remote corpora at the same time), `done`. */
  readonly phase: 'extracting' | 'local' | 'remote' | 'done';
  /** Calls made so far to the remote corpora, all together. */
  readonly calls: number;
  /** The sum of their call budgets (0 when none is searched). */
  readonly budget: number;
  /** Remote corpora being searched. */
  readonly corpora: number;
}

/** Remote calls are told at most this often (ms). */
export const PROGRESS_EVERY_MS = 100;

/** The reporter of one analysis: phases, remote calls (throttled), done. A throwing callback is the caller's. */
export interface ProgressReporter {
  phase(phase: AnalyzeProgress['phase']): void;
  readonly remoteCall: (dataset_id: string, calls: number, budget: number) => void;
}

/**
 * A reporter that tells `onProgress` (nothing when it is undefined).
 * @example const progress = progressOf((p) => bar.update(p.calls, { total: p.budget })); progress.phase('local')
 */
export function progressOf(onProgress: ((p: AnalyzeProgress) => void) | undefined): ProgressReporter {
  const corpora = new Map<string, { calls: number; budget: number }>();
  let phase: AnalyzeProgress['phase'] = 'local';
  let told = 0;
  const tell = () => {
    let calls = 0,
      budget = 0;
    for (const c of corpora.values()) {
      calls += c.calls;
      budget += c.budget;
    }
    onProgress?.({ phase, calls, budget, corpora: corpora.size });
  };
  return {
    phase(next) {
      phase = next;
      tell();
    },
    remoteCall(id, calls, budget) {
      corpora.set(id, { calls, budget });
      if (phase === 'local') phase = 'remote';
      const now = Date.now();
      if (calls === 0 || now - told >= PROGRESS_EVERY_MS) {
        told = now;
        tell();
      }
    },
  };
}
