// Invented articles in English Wikipedia's house style, for the false-attribution benchmark's genres: every person,
// place, club, ship, band and species is made up (names drawn from syllables), while the lead formulas are the ones
// thousands of real articles share ("… is a Spanish professional footballer who plays as …", "… was a British
// Liberal Party politician who sat in the House of Commons …"). None of them is in any pack, so every match is a
// false one. Deterministic: the same texts on every run.
//
// Two parts: `tune` (seeds 1 and 2 of the first two templates of each subject) and `held-out` (the third template of each
// subject, seeds 5–8), which the evidence rules were never adjusted on. 14 subjects × 4 = 56 tune, 14 × 4 = 56
// held-out. Cliché-dense fiction (`cliches`): romance paragraphs strung from stock phrases, 24 texts.

const SYL = [
  'ar',
  'bel',
  'cor',
  'dan',
  'el',
  'fen',
  'gar',
  'hol',
  'is',
  'jor',
  'kel',
  'lin',
  'mar',
  'nor',
  'ost',
  'per',
  'quin',
  'ros',
  'sel',
  'tor',
  'ul',
  'ven',
  'wis',
  'yar',
  'zen',
  'brum',
  'cald',
  'drev',
  'fald',
  'grin',
];

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function maker(seed) {
  const r = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const word = (n = 2 + Math.floor(r() * 2)) => {
    let w = '';
    for (let i = 0; i < n; i++) w += pick(SYL);
    return w[0].toUpperCase() + w.slice(1);
  };
  const year = (lo, hi) => lo + Math.floor(r() * (hi - lo));
  return { r, pick, word, year, person: () => `${word(2)} ${word()}` };
}

const TEMPLATES = {
  footballer: [
    (m, p = m.person()) =>
      `${p} (born ${m.year(1, 28)} March ${m.year(1990, 2003)}) is a Spanish professional footballer who plays as a defensive midfielder for Liga F club ${m.word()} CF and the Spain women's national team. Born in ${m.word()}, ${p.split(' ')[1]} began her career in the youth system of ${m.word()} before joining ${m.word()} Atlético in ${m.year(2012, 2019)}. She made her senior debut on ${m.year(1, 28)} September ${m.year(2015, 2020)}, in a 2–1 home win against ${m.word()}.`,
    (m, p = m.person()) =>
      `${p} (born ${m.year(1, 28)} June ${m.year(1985, 2000)}) is an English professional footballer who plays as a striker for EFL League Two club ${m.word()} United. He began his career at ${m.word()} Town, where he made 43 appearances and scored 11 goals, before spells on loan at ${m.word()} Rovers and ${m.word()} Athletic. He joined ${m.word()} United on a two-year contract in the summer of ${m.year(2014, 2021)}.`,
    (m, p = m.person()) =>
      `${p} (born ${m.year(1, 28)} April ${m.year(1988, 2001)}) is a Brazilian professional footballer who plays as a left-back for Campeonato Brasileiro Série A club ${m.word()} Esporte Clube. A product of the ${m.word()} youth academy, he made his professional debut in ${m.year(2008, 2018)} and was loaned to ${m.word()} the following season. He has been capped once by the Brazil national under-20 team.`,
  ],
  politician: [
    (m, p = m.person()) =>
      `Sir ${p} (${m.year(1821, 1840)} – ${m.year(1900, 1915)}) was a British Liberal Party politician who sat in the House of Commons from ${m.year(1868, 1880)} to ${m.year(1885, 1900)}. ${p.split(' ')[1]} was the son of a ${m.word()} wool merchant and was educated at Rugby School and at Trinity College, Cambridge. He was called to the bar at the Inner Temple in ${m.year(1845, 1860)} and practised on the Northern Circuit.`,
    (m, p = m.person()) =>
      `${p} (${m.year(1830, 1850)} – ${m.year(1905, 1925)}) was a British Conservative Party politician. He was elected at the ${m.year(1874, 1895)} general election as Member of Parliament (MP) for ${m.word()}, and held the seat until he stood down at the ${m.year(1900, 1910)} general election. He was a justice of the peace for ${m.word()}shire and a deputy lieutenant of the county.`,
    (m, p = m.person()) =>
      `${p} (born ${m.year(1, 28)} May ${m.year(1950, 1975)}) is an Australian politician. He has been a Liberal member of the New South Wales Legislative Assembly since ${m.year(1999, 2015)}, representing the electorate of ${m.word()}. Before entering politics he worked as a solicitor in ${m.word()} and served on the ${m.word()} Shire Council.`,
  ],
  bishop: [
    (m, p = m.person()) =>
      `${p} (${m.year(1840, 1860)} – ${m.year(1915, 1935)}) was an Anglican bishop in the first half of the 20th century. He was educated at ${m.word()} School and Keble College, Oxford, and ordained in ${m.year(1865, 1885)}. After curacies in ${m.word()} and ${m.word()} he was Vicar of ${m.word()} and then Archdeacon of ${m.word()} before his appointment as Bishop of ${m.word()} in ${m.year(1905, 1915)}.`,
    (m, p = m.person()) =>
      `${p} (died ${m.year(1250, 1350)}) was a medieval Bishop of ${m.word()}. He was a canon of the cathedral chapter and archdeacon of ${m.word()} before his election to the see on ${m.year(1, 28)} October ${m.year(1200, 1300)}. He was consecrated at ${m.word()} the following year and died in office.`,
    (m, p = m.person()) =>
      `${p} (born ${m.year(1950, 1965)}) is a Roman Catholic prelate who has served as Bishop of ${m.word()} since ${m.year(2005, 2019)}. He was ordained a priest for the Diocese of ${m.word()} in ${m.year(1978, 1990)} and studied canon law at the Pontifical Gregorian University in Rome. Pope Benedict XVI appointed him auxiliary bishop of ${m.word()} in ${m.year(2005, 2012)}.`,
  ],
  general: [
    (m, p = m.person()) =>
      `Major General ${p} (${m.year(1870, 1885)} – ${m.year(1940, 1960)}) was a senior British Army officer who commanded the ${m.year(40, 60)}th Division during the First World War. Commissioned into the ${m.word()} Regiment in ${m.year(1890, 1900)}, he served in the Second Boer War and was twice mentioned in despatches.`,
    (m, p = m.person()) =>
      `${p} (${m.year(1890, 1900)} – ${m.year(1960, 1980)}) was a United States Army officer who reached the rank of brigadier general. A graduate of the United States Military Academy, class of ${m.year(1913, 1920)}, he served with the ${m.year(2, 40)}th Infantry Division in the Second World War and was awarded the Distinguished Service Medal.`,
    (m, p = m.person()) =>
      `Lieutenant General ${p} (${m.year(1750, 1765)} – ${m.year(1815, 1835)}) was a British Army officer who fought in the Napoleonic Wars. He purchased a commission as ensign in the ${m.year(10, 90)}th Regiment of Foot in ${m.year(1775, 1785)} and served in the West Indies before commanding a brigade in the Peninsular War.`,
  ],
  album: [
    (m) =>
      `${m.word()} ${m.word()} is the third studio album by American rock band ${m.word()}. It was released on ${m.year(1, 28)} August ${m.year(1995, 2015)}, through ${m.word()} Records. The album was produced by ${m.person()} and recorded at ${m.word()} Studios in Los Angeles. It debuted at number ${m.year(10, 90)} on the US Billboard 200.`,
    (m) =>
      `${m.word()} is the debut studio album by English singer-songwriter ${m.person()}, released on ${m.year(1, 28)} May ${m.year(2005, 2020)} by ${m.word()} Records. The album received generally positive reviews from music critics and peaked at number ${m.year(5, 40)} on the UK Albums Chart.`,
    (m) =>
      `${m.word()} ${m.word()} is the second extended play (EP) by South Korean girl group ${m.word()}. It was released by ${m.word()} Entertainment on ${m.year(1, 28)} March ${m.year(2016, 2022)} and distributed by Kakao M. The EP contains six tracks, including the lead single "${m.word()}".`,
  ],
  single: [
    (m) =>
      `"${m.word()} ${m.word()}" is a song by American singer ${m.person()} from her second studio album, ${m.word()} (${m.year(2000, 2018)}). It was released as the album's lead single on ${m.year(1, 28)} June by ${m.word()} Records. The song was written by ${m.person()} and ${m.person()}, and peaked at number ${m.year(10, 60)} on the Billboard Hot 100.`,
    (m) =>
      `"${m.word()}" is a song recorded by Canadian country music artist ${m.person()}. It was released in ${m.year(1990, 2015)} as the first single from his album ${m.word()} ${m.word()}. The song reached number ${m.year(2, 30)} on the RPM Country Tracks chart in Canada.`,
    (m) =>
      `"${m.word()} ${m.word()}" is a single by British indie band ${m.word()}, released on ${m.year(1, 28)} October ${m.year(2004, 2016)} as the second single from their debut album. The single reached number ${m.year(15, 70)} in the UK Singles Chart and was playlisted by BBC Radio 1.`,
  ],
  season: [
    (m) =>
      `The ${m.year(1905, 1935)} ${m.word()} State ${m.word()}s football team represented ${m.word()} State College in the ${m.year(1905, 1935)} college football season. In their second season under head coach ${m.person()}, the team compiled a 4–3–1 record and outscored their opponents by a combined total of 112 to 68.`,
    (m) =>
      `The ${m.year(2001, 2019)}–${m.year(10, 20)} ${m.word()} Lions men's basketball team represented the University of ${m.word()} during the season. The Lions, led by head coach ${m.person()}, played their home games at the ${m.word()} Center as members of the Southland Conference.`,
    (m) =>
      `The ${m.year(1950, 1990)} ${m.word()} Tigers football team was an American football team that represented ${m.word()} University as a member of the Ohio Valley Conference during the ${m.year(1950, 1990)} NCAA College Division football season. In its fourth season under head coach ${m.person()}, the team compiled a 6–4 record.`,
  ],
  village: [
    (m) =>
      `${m.word()} is a village in the administrative district of Gmina ${m.word()}, within ${m.word()} County, Lesser Poland Voivodeship, in southern Poland. It lies approximately ${m.year(3, 15)} kilometres north of ${m.word()} and ${m.year(20, 80)} km south-east of the regional capital Kraków.`,
    (m) =>
      `${m.word()} is a village and civil parish in the ${m.word()} district of ${m.word()}shire, England. It is situated about ${m.year(3, 12)} miles north-west of the market town of ${m.word()}. According to the 2011 census it had a population of ${m.year(150, 900)}. The parish church of St ${m.word()} is a Grade II listed building.`,
    (m) =>
      `${m.word()} is a commune in the ${m.word()} department in the Nouvelle-Aquitaine region in southwestern France. Its inhabitants are called ${m.word()}ais. The commune lies on the river ${m.word()}, about ${m.year(8, 30)} km east of ${m.word()}.`,
  ],
  species: [
    (m) =>
      `${m.word()}ia ${m.word().toLowerCase()}a is a species of beetle in the family Carabidae. It was described by ${m.word()} in ${m.year(1850, 1950)}. It is found in ${m.word()} and ${m.word()}.`,
    (m) =>
      `${m.word()}us ${m.word().toLowerCase()}i is a species of sea snail, a marine gastropod mollusk in the family Conidae, the cone snails and their allies. The size of the shell varies between ${m.year(15, 30)} mm and ${m.year(31, 60)} mm. This species occurs in the Indian Ocean off ${m.word()}.`,
    (m) =>
      `${m.word()}opsis ${m.word().toLowerCase()}ensis is a moth of the family Geometridae first described by ${m.word()} in ${m.year(1880, 1930)}. It is found in ${m.word()}. The wingspan is about ${m.year(20, 40)} mm. The larvae feed on the leaves of ${m.word()} species.`,
  ],
  ship: [
    (m) =>
      `HMS ${m.word()} was a ${m.year(28, 44)}-gun fifth-rate frigate of the Royal Navy, launched in ${m.year(1770, 1800)} at ${m.word()}. She served in the French Revolutionary and Napoleonic Wars, capturing several privateers in the Channel, and was broken up in ${m.year(1815, 1830)}.`,
    (m) =>
      `USS ${m.word()} (DD-${m.year(100, 600)}) was a Clemson-class destroyer in the United States Navy during World War II. She was named for ${m.person()}, a naval officer of the War of 1812. The ship was laid down on ${m.year(1, 28)} May ${m.year(1918, 1920)} by the ${m.word()} Shipbuilding Corporation.`,
    (m) =>
      `SS ${m.word()} was a cargo ship built in ${m.year(1905, 1925)} by ${m.word()} & Sons of Sunderland for the ${m.word()} Steamship Company. She was requisitioned by the Admiralty during the First World War and was torpedoed and sunk by a German U-boat off ${m.word()} in ${m.year(1915, 1918)}.`,
  ],
  band: [
    (m) =>
      `${m.word()} are an English indie rock band formed in ${m.word()} in ${m.year(1995, 2015)}. The band consists of ${m.person()} (vocals, guitar), ${m.person()} (bass) and ${m.person()} (drums). They have released three studio albums on ${m.word()} Records.`,
    (m) =>
      `${m.word()} was an American heavy metal band from ${m.word()}, Ohio, formed in ${m.year(1980, 1995)}. The band released two studio albums before breaking up in ${m.year(1996, 2005)}. Their music has been described as a mix of thrash metal and hardcore punk.`,
    (m) =>
      `${m.word()} ${m.word()} is a Swedish pop group formed in ${m.word()} in ${m.year(1990, 2010)}. They competed in Melodifestivalen ${m.year(2000, 2020)} with the song "${m.word()}", which finished fifth in the final.`,
  ],
  scientist: [
    (m, p = m.person()) =>
      `${p} (${m.year(1870, 1900)} – ${m.year(1950, 1975)}) was a German chemist known for his work on the synthesis of organic dyes. He studied at the University of ${m.word()} under ${m.person()} and received his doctorate in ${m.year(1895, 1925)}. He was appointed professor of chemistry at ${m.word()} in ${m.year(1920, 1935)}.`,
    (m, p = m.person()) =>
      `${p} (born ${m.year(1950, 1975)}) is an American economist who is the ${m.word()} Professor of Finance at the ${m.word()} School of Business. Her research focuses on corporate finance and credit risk. She received her PhD from the Massachusetts Institute of Technology in ${m.year(1980, 2000)}.`,
    (m, p = m.person()) =>
      `${p} (${m.year(1800, 1830)} – ${m.year(1880, 1900)}) was a Scottish botanist and physician. After graduating in medicine from the University of Edinburgh he served as a surgeon with the East India Company, and collected plants in ${m.word()} that are now held at the Royal Botanic Garden Edinburgh.`,
  ],
  artist: [
    (m, p = m.person()) =>
      `${p} (${m.year(1720, 1740)} – ${m.year(1790, 1810)}) was a German sculptor of the Electorate of the Palatinate in the second half of the 18th century. Born in ${m.word()}, the son of a stonemason, he trained in the workshop of ${m.person()} and later worked at the court in ${m.word()}.`,
    (m, p = m.person()) =>
      `${p} (${m.year(1850, 1870)} – ${m.year(1920, 1940)}) was a Danish painter associated with the Skagen Painters. He studied at the Royal Danish Academy of Fine Arts from ${m.year(1875, 1885)} and exhibited at Charlottenborg for the first time in ${m.year(1880, 1890)}.`,
    (m, p = m.person()) =>
      `${p} (born ${m.year(1960, 1985)}) is a Canadian visual artist based in ${m.word()}. Her work, which includes installation, photography and video, has been exhibited at the ${m.word()} Art Gallery and the National Gallery of Canada. She is a graduate of the Emily Carr University of Art and Design.`,
  ],
  building: [
    (m) =>
      `${m.word()} Hall is a Grade II* listed country house near ${m.word()}, ${m.word()}shire, England. It was built in about ${m.year(1680, 1720)} for ${m.person()} and remodelled in the early 19th century by the architect ${m.person()}. It is now a hotel.`,
    (m) =>
      `The ${m.word()} Building is a historic commercial building located at ${m.word()}, ${m.word()} County, Indiana. It was built in ${m.year(1880, 1915)}, and is a three-story, Italianate style brick building. It was listed on the National Register of Historic Places in ${m.year(1980, 2010)}.`,
    (m) =>
      `St ${m.word()}'s Church is a redundant Anglican church in the village of ${m.word()}, Norfolk, England. It is recorded in the National Heritage List for England as a designated Grade I listed building, and is under the care of the Churches Conservation Trust. The church dates from the 14th century.`,
  ],
};

const CLICHES = [
  'Her heart skipped a beat.',
  'He took her breath away.',
  'A single tear rolled down her cheek.',
  'Time seemed to stand still.',
  'She felt butterflies in her stomach.',
  'His eyes were as blue as the ocean.',
  'It was love at first sight.',
  'She bit her lip nervously.',
  'He ran a hand through his hair.',
  'Their eyes met across the crowded room.',
  'She had never felt this way before.',
  'His voice was like velvet.',
  'The world faded away around them.',
  'She let out a breath she did not know she was holding.',
  'He pulled her into his arms.',
  'Her cheeks flushed a deep shade of crimson.',
  'Little did she know what fate had in store.',
  'The moonlight danced on the water.',
  'He whispered sweet nothings in her ear.',
  'Her knees went weak.',
  'She could not tear her eyes away from him.',
  'A shiver ran down her spine.',
  'Every fibre of her being told her to run.',
  'He was the man of her dreams.',
  'Their lips met in a tender kiss.',
  'She knew in that moment that nothing would ever be the same.',
];

/** The invented articles: [{ id, subject, part, text }]. */
export function inventedArticles() {
  const out = [];
  for (const [subject, templates] of Object.entries(TEMPLATES)) {
    templates.forEach((t, k) => {
      const held = k === templates.length - 1;
      const seeds = held ? [5, 6, 7, 8] : [1, 2];
      for (const s of seeds) {
        const m = maker(1000 * s + 17 * k + subject.length);
        out.push({ id: `${subject}-${k + 1}-${s}`, subject, part: held ? 'held-out' : 'tune', text: t(m) });
      }
    });
  }
  return out;
}

/** Cliché-dense romance paragraphs with invented names: [{ id, text }]. */
export function clicheFiction(n = 24) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const m = maker(7000 + i);
    const she = m.word(2),
      he = m.word(2);
    const lines = [];
    for (let j = 0; j < 9; j++) lines.push(m.pick(CLICHES));
    out.push({
      id: `cliches-${i + 1}`,
      text: `${she} stepped onto the terrace of the ${m.word()} estate. ${lines.slice(0, 3).join(' ')} ${he} turned towards her. ${lines.slice(3, 6).join(' ')} "${she}," he said softly. ${lines.slice(6).join(' ')}`,
    });
  }
  return out;
}
