/** What the `extract` job type says of a result (../types/extract.ts): its nv-recall, blocks and calls. */
import type { JobTypeDescription } from '../job-type.js';
import { counted, lengthOf, percent } from '../result-lines.js';

/** See the module's documentation. */
export const EXTRACT_LINES = {
  name: 'extract',
  summarize: (result) => {
    const r = result as { nv_recall?: unknown; blocks?: unknown; calls?: unknown };
    return `nv-recall ${percent(r.nv_recall)}, ${counted(lengthOf(r.blocks), 'block')}, ${r.calls ?? 0} calls`;
  },
} as const satisfies JobTypeDescription;
