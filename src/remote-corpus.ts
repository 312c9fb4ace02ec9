/**
 * Opening a remote training corpus for an engine (`engine.addRemoteDataset`): the remote client's code is loaded
 * here, on demand, so an engine that adds none carries none of it; a public index's corpus name and knowledge-base
 * dataset come from the table of known indexes.
 */
import type { Core } from './core/abi.js';
import { ALIGNMENT_KIT } from './corpus/alignment-kit.js';
import type { RemoteDatasetConfig, RemoteSearchable } from './corpus/remote-types.js';
import { remoteIndex } from './services/kb/remote-indexes.js';
import type { Store } from './store/types.js';

/**
 * The remote corpus `config` names, checked and ready to attach to the engine's corpus. Nothing is sent here.
 * @throws (rejects) INVALID_OPTIONS (a bad field)
 * @example corpus.attachRemoteDataset(await openRemoteCorpus({ id: 'pile', kind: 'infini-gram', index: 'v4_piletrain_llama' }, { core, store }))
 */
export async function openRemoteCorpus(
  config: RemoteDatasetConfig,
  engine: { readonly core: () => Core; readonly store: Store },
): Promise<RemoteSearchable> {
  engine.core(); // ENGINE_DISPOSED before anything is loaded
  const { openRemoteDataset, checkRemoteConfig } = await import('./remote/index.js');
  const checked = checkRemoteConfig(config);
  const known = remoteIndex(checked.kind, checked.index);
  return openRemoteDataset(
    { ...checked, kb_dataset: checked.kb_dataset ?? known?.kb_dataset, name: checked.name ?? known?.corpus },
    {
      core: engine.core,
      kit: ALIGNMENT_KIT,
      store: engine.store,
      sizes: known ? { documents: known.documents, tokens: known.tokens, bytes: known.bytes } : undefined,
      declared: checked.kb_dataset !== undefined || checked.models !== undefined || known === undefined,
    },
  );
}
