// Invented Wikipedia-style articles built on the formulas of Wikipedia's template families — the sentences that
// thousands of articles of one kind share word for word but that a pack, a sample of Wikipedia, may hold in only one
// or two articles ("It was listed on the National Register of Historic Places in", "As of the census of 2010, there
// were … people", "It is approximately … long and flows through"). Every name, number and place is made up (names
// drawn from syllables); none of these articles is in any pack, so a match at ≥ 50 is a false one. 26 subject types,
// none of them among bench/data/invented-articles.mjs's 14; 6 articles each (seeds 1–6), deterministic.

import { mulberry32 } from '../natural-texts.mjs';

const SYL = ['al', 'bren', 'cas', 'dor', 'ev', 'fal', 'gun', 'hal', 'ith', 'jas', 'kor', 'lev', 'mon', 'nar'];
const SYL2 = ['os', 'pra', 'rim', 'sol', 'tam', 'ub', 'val', 'wen', 'xan', 'yor', 'zel', 'bro', 'cly', 'dun'];

function maker(seed) {
  const r = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const word = () => {
    const w = pick(SYL) + pick(SYL2) + (r() < 0.5 ? pick(SYL2) : '');
    return w[0].toUpperCase() + w.slice(1);
  };
  const n = (lo, hi) => lo + Math.floor(r() * (hi - lo));
  const f = (lo, hi, d = 1) => (lo + r() * (hi - lo)).toFixed(d);
  const month = () => pick(['January', 'March', 'April', 'June', 'August', 'October', 'November']);
  return { r, pick, word, n, f, month, person: () => `${word()} ${word()}` };
}

const S = {
  asteroid: (m, w = `${m.n(1990, 2012)} ${m.pick(['QT', 'RK', 'SB', 'TL'])}${m.n(10, 300)}`) =>
    `(${m.n(100000, 600000)}) ${w}, provisional designation ${w}, is a carbonaceous background asteroid from the outer regions of the asteroid belt, approximately ${m.n(2, 9)} kilometers in diameter. It was discovered on ${m.n(1, 28)} ${m.month()} ${w.slice(0, 4)} by astronomers of the Catalina Sky Survey at the Catalina Station near Tucson, Arizona. The asteroid orbits the Sun in the outer main-belt at a distance of ${m.f(2.8, 3.1)}–${m.f(3.2, 3.6)} AU once every ${m.n(5, 6)} years and ${m.n(1, 11)} months. Its orbit has an eccentricity of 0.${m.n(10, 20)} and an inclination of ${m.n(2, 20)}° with respect to the ecliptic. According to the survey carried out by the NEOWISE mission of NASA's Wide-field Infrared Survey Explorer, ${w} measures ${m.f(2, 9, 3)} kilometers in diameter and its surface has an albedo of 0.0${m.n(40, 90)}. As of 2018, no rotational lightcurve of this asteroid has been obtained from photometric observations. This minor planet has not been named.`,
  station: (m, s = `${m.word()}-${m.word()}`) =>
    `${s} Station is a passenger railway station located in the city of ${m.word()}, ${m.pick(['Saitama', 'Chiba', 'Gifu', 'Nagano'])} Prefecture, Japan, operated by the East Japan Railway Company (JR East). The station is served by the ${m.word()} Line, and is located ${m.f(5, 60)} kilometers from the official starting point of the line at ${m.word()}. The station consists of one side platform and one island platform connected by a footbridge. The station is staffed. The station opened on ${m.n(1, 28)} ${m.month()} ${m.n(1900, 1935)}. With the privatization of the Japanese National Railways (JNR) on 1 April 1987, the station came under the control of JR East. In fiscal ${m.n(2015, 2020)}, the station was used by an average of ${m.n(300, 9000)} passengers daily (boarding passengers only).`,
  single: (m) =>
    `"${m.word()} ${m.word()}" is a song by Swedish singer ${m.person()}, released as the second single from her debut studio album ${m.word()} on ${m.n(1, 28)} ${m.month()} ${m.n(2010, 2020)}. The song was written by ${m.person()}, ${m.person()} and the singer herself. According to the sheet music published at Musicnotes.com by Sony/ATV Music Publishing, the song is written in the key of ${m.pick(['A♭', 'B♭', 'D', 'F♯'])} minor with a tempo of ${m.n(80, 130)} beats per minute, and the vocals span from ${m.pick(['G3', 'A3', 'C4'])} to ${m.pick(['D5', 'E5', 'F5'])}. The song peaked at number ${m.n(2, 40)} on the Sverigetopplistan chart and was certified platinum by the Swedish Recording Industry Association.`,
  actress: (m, p = m.person()) =>
    `${p} (born ${m.month()} ${m.n(1, 28)}, ${m.n(1960, 1995)}) is an American actress. She is best known for her role as ${m.person()} in the NBC drama series ${m.word()} Heights. Born in ${m.word()}, Ohio, she graduated from ${m.word()} High School and then studied at the Royal Academy of Dramatic Art in London. She made her Broadway debut in ${m.n(1985, 2012)} in a revival of ${m.word()}, for which she received a Drama Desk Award nomination. She has been married to the director ${m.person()} since ${m.n(1990, 2015)}; they have two children and live in Los Angeles.`,
  census: (m, t = `${m.word()}ville`) =>
    `${t} is a town in ${m.word()} County, ${m.pick(['Indiana', 'Iowa', 'Kansas', 'Missouri'])}, United States. The population was ${m.n(300, 3000)} at the 2010 census. ${t} was laid out in ${m.n(1830, 1880)} and named after ${m.person()}, an early settler. As of the census of 2010, there were ${m.n(300, 3000)} people, ${m.n(100, 1200)} households, and ${m.n(80, 800)} families living in the town. The population density was ${m.f(200, 900)} inhabitants per square mile. There were ${m.n(100, 1300)} housing units at an average density of ${m.f(100, 400)} per square mile. The racial makeup of the town was 9${m.n(0, 9)}.${m.n(1, 9)}% White.`,
  nrhp: (m, h = `${m.person()} House`) =>
    `The ${h} is a historic home located at ${m.word()}, ${m.word()} County, Virginia. It was built about ${m.n(1790, 1880)}, and is a two-story, five-bay, brick dwelling in the Federal style. It has a gable roof and a one-story rear ell added in the early 20th century. Also on the property are a contributing smokehouse, a family cemetery and the ruins of a barn. It was listed on the National Register of Historic Places in ${m.n(1970, 2015)}. The house was built for ${m.person()}, a prominent tobacco planter and member of the Virginia House of Delegates.`,
  tennis: (m, p = m.person()) =>
    `${p} (born ${m.n(1, 28)} ${m.month()} ${m.n(1985, 2000)}) is a Slovak tennis player. ${p.split(' ')[1]} has a career high ATP singles ranking of ${m.n(150, 900)} achieved on ${m.n(1, 28)} ${m.month()} ${m.n(2012, 2020)}. He also has a career high ATP doubles ranking of ${m.n(200, 900)}. He has won ${m.n(2, 9)} ITF singles titles and ${m.n(2, 12)} doubles titles. He made his ATP main draw debut at the ${m.n(2014, 2020)} ${m.word()} Open, where he received a wildcard into the singles main draw.`,
  moth: (m, g = m.word()) =>
    `${g}a ${m.word().toLowerCase()}alis is a moth in the family Crambidae. It was described by ${m.person()} in ${m.n(1880, 1960)}. It is found in ${m.pick(['Madagascar', 'Peru', 'Borneo', 'Cameroon'])}. The wingspan is about ${m.n(12, 40)} mm. The forewings are pale brown with a darker median line and the hindwings are whitish with a fuscous terminal band. Adults have been recorded on wing from ${m.month()} to ${m.month()}.`,
  gmina: (m, v = m.word()) =>
    `${v} is a village in the administrative district of Gmina ${m.word()}, within ${m.word()} County, ${m.pick(['Masovian', 'Lublin', 'Podlaskie'])} Voivodeship, in east-central Poland. It lies approximately ${m.n(3, 15)} kilometres south-west of ${m.word()}, ${m.n(10, 30)} km north of ${m.word()}, and ${m.n(40, 120)} km east of Warsaw. The village has a population of ${m.n(80, 600)}. It was first mentioned in a document of ${m.n(1350, 1550)}, when it belonged to the ${m.word()} family.`,
  tvstation: (m, c = `W${m.pick(['KR', 'TX', 'BL'])}${m.pick(['C', 'N', 'D'])}-TV`) =>
    `${c}, virtual channel ${m.n(2, 60)} (UHF digital channel ${m.n(14, 36)}), is a CBS-affiliated television station licensed to ${m.word()}, ${m.pick(['Georgia', 'Alabama', 'Tennessee'])}, United States. The station is owned by the ${m.word()} Broadcasting Company. ${c}'s studios are located on ${m.word()} Avenue in downtown ${m.word()}, and its transmitter is located near ${m.word()}. The station first signed on the air on ${m.month()} ${m.n(1, 28)}, ${m.n(1953, 1970)}.`,
  olympian: (m, p = m.person()) =>
    `${p} (born ${m.n(1, 28)} ${m.month()} ${m.n(1960, 1985)}) is a retired Nigerian sprinter who specialized in the 400 metres. He competed in the men's 4 × 400 metres relay at the ${m.pick(['1984', '1988', '1992'])} Summer Olympics. His personal best time was ${m.n(45, 47)}.${m.n(10, 99)} seconds, achieved in ${m.month()} ${m.n(1984, 1995)} in ${m.word()}. He won a silver medal at the ${m.n(1985, 1993)} African Championships.`,
  highway: (m, n = m.n(10, 300)) =>
    `State Route ${n} (SR ${n}) is a state highway in the U.S. state of ${m.pick(['Ohio', 'Tennessee', 'California'])}. The highway runs ${m.f(3, 40)} miles (${m.f(5, 64)} km) from an intersection with SR ${m.n(10, 300)} in ${m.word()} to its northern terminus at U.S. Route ${m.n(10, 90)} near ${m.word()}. The route was designated in ${m.n(1923, 1965)}, and has not been significantly changed since. The route is maintained by the state Department of Transportation.`,
  film: (m) =>
    `${m.word()} ${m.word()} is a ${m.n(1946, 1960)} American film noir directed by ${m.person()} and starring ${m.person()}, ${m.person()} and ${m.person()}. It was produced and distributed by Republic Pictures. The film's sets were designed by the art director ${m.person()}. The story follows a discharged marine who returns to ${m.word()} to find his brother accused of murder. It was shot at the Republic Studios in Los Angeles and on location in San Pedro.`,
  cricketer: (m, p = m.person()) =>
    `${p} (born ${m.n(1, 28)} ${m.month()} ${m.n(1940, 1980)}) is a former English cricketer. He was a right-handed batsman who bowled right-arm medium pace. He was born at ${m.word()}, ${m.pick(['Kent', 'Sussex', 'Somerset'])}. ${p.split(' ')[1]} made his first-class debut for ${m.pick(['Kent', 'Sussex', 'Somerset'])} against ${m.word()} in the ${m.n(1960, 1995)} County Championship. He played ${m.n(3, 60)} first-class matches, scoring ${m.n(100, 2000)} runs at an average of ${m.f(10, 35, 2)}, with a high score of ${m.n(40, 140)}.`,
  school: (m, s = `${m.word()} Academy`) =>
    `${s} is a coeducational secondary school and sixth form located in ${m.word()}, ${m.pick(['Lancashire', 'Norfolk', 'Devon'])}, England. It was previously a community school administered by ${m.pick(['Lancashire', 'Norfolk', 'Devon'])} County Council, before converting to academy status in ${m.n(2011, 2017)}. The school offers GCSEs, BTECs and A-levels as programmes of study for pupils. The school was rated as 'Good' by Ofsted in ${m.n(2014, 2020)}.`,
  stream: (m, c = m.word()) =>
    `${c} Run is a tributary of ${m.word()} Creek in ${m.word()} County, Pennsylvania, in the United States. It is approximately ${m.f(2, 9)} miles (${m.f(3, 14)} km) long and flows through ${m.word()} Township and ${m.word()} Township. The watershed of the stream has an area of ${m.f(2, 12)} square miles (${m.f(5, 30)} km2). The stream is not designated as an impaired waterbody. Its named tributaries include ${m.word()} Run.`,
  election: (m, y = m.n(2006, 2018)) =>
    `The ${y} ${m.word()} municipal election was held on October ${m.n(20, 30)}, ${y}, to elect a mayor and ${m.n(8, 14)} councillors to ${m.word()} City Council. The incumbent mayor, ${m.person()}, did not seek re-election. The election was won by ${m.person()}, who received ${m.n(35, 60)}.${m.n(1, 9)}% of the vote. Voter turnout was ${m.n(28, 45)}%, down from the previous election.`,
  storm: (m, n = m.word()) =>
    `Tropical Storm ${n} was a weak and short-lived tropical cyclone that brought heavy rainfall to ${m.pick(['Jamaica', 'Belize', 'Honduras'])} in ${m.month()} ${m.n(1995, 2015)}. The ${m.pick(['fourth', 'sixth', 'ninth'])} named storm of the season, ${n} developed from a tropical wave over the central Caribbean Sea. The storm reached peak winds of ${m.n(40, 60)} mph (${m.n(65, 95)} km/h) before making landfall and dissipating over land the next day. Damage was estimated at $${m.n(2, 40)} million (${m.n(1995, 2015)} USD).`,
  racehorse: (m, h = m.word()) =>
    `${h} (foaled ${m.n(1975, 2010)}) was an American Thoroughbred racehorse and sire. He was bred in Kentucky by ${m.person()} and trained by ${m.person()}. His wins included the ${m.word()} Stakes and the ${m.word()} Handicap. At the end of his racing career he was retired to stud at ${m.word()} Farm, where he sired the winners of more than ${m.n(40, 200)} races. He was euthanized in ${m.n(2000, 2020)} at the age of ${m.n(20, 30)}.`,
  manga: (m, t = `${m.word()} no ${m.word()}`) =>
    `${t} is a Japanese manga series written and illustrated by ${m.person()}. It was serialized in Shueisha's shōnen manga magazine Weekly Shōnen Jump from ${m.month()} ${m.n(2005, 2015)} to ${m.month()} ${m.n(2016, 2020)}, with its chapters collected in ${m.n(8, 30)} tankōbon volumes. An anime television series adaptation by ${m.word()} Studio aired from ${m.month()} to ${m.month()} ${m.n(2016, 2021)}.`,
  game: (m, g = `${m.word()} ${m.word()}`) =>
    `${g} is a ${m.n(2012, 2021)} action role-playing game developed by ${m.word()} Studios and published by ${m.word()} Interactive for Microsoft Windows, PlayStation 4 and Xbox One. The game is set in an open world based on medieval ${m.word()}. Upon release, the game received mixed reviews from critics, who praised its combat and world but criticized its technical issues. By ${m.n(2015, 2022)}, the game had sold over ${m.n(1, 5)} million copies.`,
  mayor: (m, p = m.person()) =>
    `${p} (${m.month()} ${m.n(1, 28)}, ${m.n(1880, 1910)} – ${m.month()} ${m.n(1, 28)}, ${m.n(1960, 1990)}) was an American businessman and politician who served as the ${m.n(20, 50)}th Mayor of ${m.word()}, ${m.pick(['Michigan', 'Wisconsin', 'Oregon'])} from ${m.n(1930, 1945)} to ${m.n(1946, 1955)}. A member of the Republican Party, he previously served on the city council. He was born in ${m.word()} and attended the University of Michigan.`,
  airport: (m, a = `${m.word()} Regional Airport`) =>
    `${a} is a public use airport located ${m.n(2, 9)} nautical miles (${m.n(4, 17)} km) ${m.pick(['northeast', 'south', 'west'])} of the central business district of ${m.word()}, a city in ${m.word()} County, ${m.pick(['Texas', 'Nebraska', 'Georgia'])}, United States. It is owned by the city of ${m.word()}. This airport is included in the National Plan of Integrated Airport Systems for ${m.n(2011, 2021)}–${m.n(2022, 2026)}, which categorized it as a general aviation facility. The airport covers an area of ${m.n(100, 900)} acres at an elevation of ${m.n(200, 2000)} feet above mean sea level.`,
  church: (m, c = `St ${m.word()}'s Church`) =>
    `${c}, ${m.word()} is a redundant Anglican church in the village of ${m.word()}, ${m.pick(['Suffolk', 'Norfolk', 'Lincolnshire'])}, England. It is recorded in the National Heritage List for England as a designated Grade II* listed building, and is under the care of the Churches Conservation Trust. The church dates from the 14th century, and was restored in ${m.n(1850, 1890)} by ${m.person()}. It consists of a nave, a chancel and a west tower with a ring of ${m.n(3, 8)} bells.`,
  judge: (m, p = m.person()) =>
    `${p} (born ${m.n(1950, 1975)}) is a United States district judge of the United States District Court for the ${m.pick(['Eastern', 'Western', 'Northern'])} District of ${m.pick(['Texas', 'Oklahoma', 'Kentucky'])}. ${p.split(' ')[1]} received a Bachelor of Arts degree from the University of ${m.word()} in ${m.n(1972, 1995)} and a Juris Doctor from the ${m.word()} School of Law in ${m.n(1975, 1999)}. On ${m.month()} ${m.n(1, 28)}, ${m.n(2002, 2019)}, the President nominated him to a seat vacated by Judge ${m.person()}. He received his commission on ${m.month()} ${m.n(1, 28)}, ${m.n(2002, 2019)}.`,
  company: (m, c = `${m.word()} Holdings`) =>
    `${c} is a Japanese multinational conglomerate headquartered in ${m.pick(['Osaka', 'Nagoya', 'Tokyo'])}. Founded in ${m.n(1900, 1960)} by ${m.person()} as a textile trading company, it now operates in chemicals, electronic components and real estate. The company is listed on the Tokyo Stock Exchange and is a constituent of the Nikkei 225 stock index. As of ${m.n(2015, 2021)}, it employed ${m.n(5000, 40000)} people worldwide.`,
};

/** The articles: [{ id, subject, text }], 26 subjects × 6. */
export function inventedFormulaArticles() {
  const out = [];
  for (const [subject, t] of Object.entries(S))
    for (let s = 1; s <= 6; s++)
      out.push({ id: `${subject}-${s}`, subject, text: t(maker(7919 * s + subject.length)) });
  return out;
}
