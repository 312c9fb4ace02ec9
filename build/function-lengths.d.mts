/** Types of ./function-lengths.mjs (a plain script, run without a build), for test/unit/function-length.test.ts. */
export const OWN_AT_MOST: number;
export const NESTED_OVER: number;
/** A function: where it starts (`path:line`), its name as a reader finds it, and its own lines. */
export interface MeasuredFunction {
  where: string;
  name: string;
  own: number;
}
export function sources(dir: string): string[];
export function measure(path: string, text: string): MeasuredFunction[];
export function measureTree(root: string): MeasuredFunction[];
