/** What the `scan` job type says of a result (../types/scan.ts): its hits, and the hits as rows. */
import type { ScanHit } from '../../scan/types.js';
import { SCAN_HIT_FIELDS } from '../../scan/types.js';
import type { JobTypeDescription } from '../job-type.js';
import { counted, lengthOf } from '../result-lines.js';

/** See the module's documentation. */
export const SCAN_LINES = {
  name: 'scan',
  summarize: (result) => counted(lengthOf((result as { hits?: unknown }).hits), 'hit'),
  // each hit with its fields in the hit line's order (`scan --out`'s), whatever store the result was read from
  rows: {
    noun: 'hits',
    of: (result) =>
      ((result as { hits?: ScanHit[] }).hits ?? []).map((h) =>
        Object.fromEntries(SCAN_HIT_FIELDS.map((f) => [f, h[f]])),
      ),
  },
} as const satisfies JobTypeDescription;
