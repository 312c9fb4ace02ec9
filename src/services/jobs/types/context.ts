/** What the built-in types read of a claimed job's context. */
import type { JobClaim } from '../types.js';

/** The plan's file limit the job was submitted under (`context.max_file_bytes`). */
export const fileLimit = (claim: JobClaim): number | undefined =>
  typeof claim.context.max_file_bytes === 'number' ? claim.context.max_file_bytes : undefined;
