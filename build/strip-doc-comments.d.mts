/** Types of ./strip-doc-comments.mjs (a plain script, run without a build), for test/unit/strip-doc-comments.test.ts. */
export function docCommentRanges(text: string): [start: number, end: number][];
export function stripDocComments(text: string): string;
