// Japanese for bench/eval-languages.mjs: the works of pack:aozora (Aozora Bunko), natural negatives from works of
// the same authors and era kept out of the pack (build/packs-prepare-cjk.mjs). Unit: characters.
import { heldOutPassages, packedWorks } from './cjk-texts.mjs';

export default {
  code: 'ja',
  name: 'Japanese',
  packs: ['pack:aozora'],
  unit: 'chars',
  async works() {
    return packedWorks('aozora');
  },
  async negatives() {
    return heldOutPassages('aozora', 'Meiji–Shōwa fiction and essays kept out of the pack');
  },
  // common kana and kanji: a replaced character is one of these (the driver replaces 1 character-word in 10)
  replacements: [
    'の',
    'に',
    'は',
    'を',
    'た',
    'が',
    'で',
    'て',
    'と',
    'し',
    'か',
    'も',
    '人',
    '一',
    '大',
    '中',
    '日',
    '事',
    '見',
    '私',
  ],
};
