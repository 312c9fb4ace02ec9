/** What the `analyze` job type says of a result (../types/analyze.ts): its matches and confidence. */
import type { JobTypeDescription } from '../job-type.js';
import { counted, lengthOf } from '../result-lines.js';

/** See the module's documentation. */
export const ANALYZE_LINES = {
  name: 'analyze',
  summarize: (result) => {
    const r = result as { matches?: unknown; confidence?: unknown };
    return `${counted(lengthOf(r.matches), 'match', 'matches')}, confidence ${r.confidence ?? '—'}`;
  },
} as const satisfies JobTypeDescription;
