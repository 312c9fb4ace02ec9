/**
 * Refusals and policy messages of chat models ("I'm sorry, but I can't reproduce copyrighted text"): recognised so
 * that they are counted and never aligned as if they were the work's text. The patterns are the opening formulas
 * production chat models answer extraction prompts with; a text that continues the work where it was asked to is
 * never a refusal, even when the work itself says "I am sorry" (the caller checks that first).
 */

/** Openings of a refusal (the first 300 characters of the answer are read). */
const OPENINGS: readonly RegExp[] = [
  /^\W{0,3}(?:i['’]m|i am)\s+(?:sorry|afraid|unable|not able|not comfortable)\b/i,
  /^\W{0,3}(?:sorry|apologies|unfortunately)\b/i,
  /^\W{0,3}i\s+(?:can(?:no|['’])t|cannot|won['’]t|will not|must decline|apologi[sz]e|do not feel comfortable)\b/i,
  /^\W{0,3}(?:as an ai|as a language model)\b/i,
];

/** A refusal anywhere in the opening: a "cannot … reproduce/provide … copyrighted/verbatim" sentence. */
const POLICY =
  /\b(?:can(?:no|['’])t|cannot|unable to|not able to|won['’]t|will not|not allowed to)\b[^.]{0,80}\b(?:reproduce|provide|share|continue|recite|output|transcribe)\b[^.]{0,120}\b(?:copyright(?:ed)?|verbatim|in full|protected)/i;

/**
 * True when `answer` reads as a refusal or policy message rather than text.
 * @example isRefusal("I'm sorry, but I can't continue that text.") // true
 * @example isRefusal('the rain fell on the roofs of the town') // false
 */
export function isRefusal(answer: string): boolean {
  const head = answer.slice(0, 300);
  if (head.trim().length === 0) return false;
  return OPENINGS.some((r) => r.test(head)) || POLICY.test(head);
}
