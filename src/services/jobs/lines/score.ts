/** What the `score` job type says of a result (../types/score.ts): its score and tier. */
import type { JobTypeDescription } from '../job-type.js';

/** See the module's documentation. */
export const SCORE_LINES = {
  name: 'score',
  summarize: (result) => {
    const { score, tier } = result as { score?: unknown; tier?: unknown };
    return `score ${typeof score === 'number' ? score : '—'}${typeof tier === 'string' ? `, tier ${tier}` : ''}`;
  },
} as const satisfies JobTypeDescription;
