/** The knowledge base as the corpus's descriptor checker: ids declared by a dataset must exist in it. */
import type { DescriptorLinks } from '../../corpus/types.js';
import type { KnowledgeBase } from './kb.js';

/**
 * Canonical ids from the knowledge base `kbOf` returns (NOT_FOUND for an unknown one), asked for at each check: an
 * engine builds its knowledge base when a descriptor first names an id, not before.
 * @example kbLinks(() => knowledgeBase()).model('EleutherAI/Pythia-6.9B') // 'eleutherai/pythia-6.9b'
 */
export function kbLinks(kbOf: () => KnowledgeBase): DescriptorLinks {
  return { dataset: (id) => kbOf().dataset(id).id, model: (id) => kbOf().model(id).id };
}
