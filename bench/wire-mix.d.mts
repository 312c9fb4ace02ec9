/** Types of ./wire-mix.mjs (a plain script, run without a build), for test/contract/http-wire.test.ts. */
export const KINDS: readonly ['ok', 'auth', 'large', 'quota', 'busy'];
export const STATUS: Readonly<Record<'ok' | 'auth' | 'large' | 'quota' | 'busy', number>>;
export const LIMIT: number;
export function bodyOf(kind: string, i: number): [bytes: number, chunked: boolean];
export function mixHandler(): (request: Request) => Promise<Response>;
export interface WireTally {
  requests: number;
  answered: number;
  wrong: number;
  resets: number;
  errors: Record<string, number>;
  statuses: Record<string, number>;
  connects?: number;
}
export function undiciMix(url: string, options?: { requests?: number; connections?: number }): Promise<WireTally>;
export function curlMix(url: string, options?: { requests?: number; parallel?: number }): Promise<WireTally | null>;
