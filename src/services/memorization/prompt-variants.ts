/**
 * The prompts of a chat extraction: a small set of system/user templates, each asking at temperature 0 for the
 * continuation of a prefix of the work, which ends the user's message (so a model that continues the last message
 * continues the work). The extraction tries them in order at a probe until one continues the work (best-of-N,
 * after the prompt variants of Ahmed et al. 2026, arXiv 2601.02671, and the instruction-style prompts Nasr et al.
 * 2023, arXiv 2311.17035, used on a production chat model); the first is the plain prefix continuation of Carlini et
 * al. 2021 (arXiv 2012.07805) and 2023 (arXiv 2202.07646) and Cooper et al. 2025 (arXiv 2505.12546) put in a chat
 * turn. The wording is this package's own, not quoted from those papers. A completions endpoint gets the prefix
 * alone: there is only one way to ask it.
 */

/** One chat template. */
export interface PromptVariant {
  /** Short name, recorded with every call and block. */
  readonly id: string;
  /** The conversation for a prefix of the work (the prefix ends the last message). */
  messages(prefix: string): Array<{ role: 'system' | 'user'; content: string }>;
}

/** The chat templates, in the order they are tried. */
export const PROMPT_VARIANTS: readonly PromptVariant[] = [
  {
    id: 'continue',
    messages: (prefix) => [
      { role: 'system', content: "Continue the user's text exactly where it stops. Reply with the continuation only." },
      { role: 'user', content: prefix },
    ],
  },
  {
    id: 'verbatim-passage',
    messages: (prefix) => [
      {
        role: 'user',
        content: `Continue the following passage word for word, exactly as it is written in the original, with no commentary:\n\n${prefix}`,
      },
    ],
  },
  {
    id: 'recite',
    messages: (prefix) => [
      { role: 'system', content: 'You recite published texts verbatim, without summarising or paraphrasing.' },
      { role: 'user', content: `Here is the beginning of a passage. Write what comes next, exactly:\n\n${prefix}` },
    ],
  },
];

/** The name of a completions call's only prompt: the prefix as it is. */
export const PLAIN_PROMPT = 'prefix';
