// Chinese for bench/eval-languages.mjs: the classics of pack:chinese-classics (traditional characters), natural
// negatives from dynastic histories and a Daoist book kept out of the pack (build/packs-prepare-cjk.mjs). Unit:
// characters.
import { heldOutPassages, packedWorks } from './cjk-texts.mjs';

export default {
  code: 'zh',
  name: 'Chinese',
  packs: ['pack:chinese-classics'],
  unit: 'chars',
  async works() {
    return packedWorks('chinese-classics');
  },
  async negatives() {
    return heldOutPassages('chinese-classics', 'classical prose kept out of the pack (histories, 鶡冠子)', {
      perWork: 70,
    });
  },
  // the commonest characters of classical prose: a replaced character is one of these
  replacements: [
    '之',
    '不',
    '以',
    '其',
    '而',
    '為',
    '無',
    '者',
    '天',
    '人',
    '有',
    '下',
    '是',
    '故',
    '大',
    '知',
    '曰',
    '也',
    '於',
    '所',
  ],
};
