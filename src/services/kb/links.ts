/** The knowledge base as the corpus's descriptor checker: ids declared by a dataset must exist in it. */
import type { DescriptorLinks } from '../../corpus/types.js';
import type { KnowledgeBase } from './kb.js';

/**
 * Canonical ids from the knowledge base (NOT_FOUND for an unknown one).
 * @example kbLinks(knowledgeBase()).model('EleutherAI/Pythia-6.9B') // 'eleutherai/pythia-6.9b'
 */
export function kbLinks(kb: KnowledgeBase): DescriptorLinks {
  return { dataset: (id) => kb.dataset(id).id, model: (id) => kb.model(id).id };
}
