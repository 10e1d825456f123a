/**
 * Countries and the words for their people, so that "an American film director" and "born in Dallas, United
 * States" both read as the United States when a question asks whether two things are "from the same
 * country" or "of the same nationality". A compact table of the countries most written about, with the
 * parts of the United Kingdom as the United Kingdom.
 */
import { escapeRegExp } from '../../text/regexp.ts';

/**
 * Endings of nationalities and languages ("American", "Hungarian", "Chinese", "British", "Icelandic",
 * "Pakistani"): such a word before a lower-case noun ("American film") is an adjective, while a place
 * before one ("Maharashtra state", "Ratnagiri district") is a name.
 */
export const DEMONYM = /(?:an|ans|ese|ish|ic|i|ch|sh)$/u;

/** `Country: demonym, other names`, one a line; the first name is the country's. */
const TABLE = `
Afghanistan: Afghan
Albania: Albanian
Algeria: Algerian
Argentina: Argentine, Argentinian
Armenia: Armenian
Australia: Australian
Austria: Austrian
Bangladesh: Bangladeshi
Belgium: Belgian
Bolivia: Bolivian
Brazil: Brazilian
Bulgaria: Bulgarian
Canada: Canadian
Chile: Chilean
China: Chinese, People's Republic of China
Colombia: Colombian
Croatia: Croatian
Cuba: Cuban
Czech Republic: Czech, Czechia
Denmark: Danish
Egypt: Egyptian
Estonia: Estonian
Ethiopia: Ethiopian
Finland: Finnish
France: French
Germany: German, West German, East German
Ghana: Ghanaian
Greece: Greek
Hungary: Hungarian
Iceland: Icelandic, Icelander
India: Indian
Indonesia: Indonesian
Iran: Iranian
Iraq: Iraqi
Ireland: Irish, Republic of Ireland
Israel: Israeli
Italy: Italian
Jamaica: Jamaican
Japan: Japanese
Kenya: Kenyan
Latvia: Latvian
Lebanon: Lebanese
Lithuania: Lithuanian
Malaysia: Malaysian
Mexico: Mexican
Morocco: Moroccan
Nepal: Nepalese, Nepali
Netherlands: Dutch
New Zealand: New Zealander
Nigeria: Nigerian
North Korea: North Korean
Norway: Norwegian
Pakistan: Pakistani
Peru: Peruvian
Philippines: Filipino, Philippine
Poland: Polish
Portugal: Portuguese
Romania: Romanian
Russia: Russian
Saudi Arabia: Saudi
Serbia: Serbian
Singapore: Singaporean
Slovakia: Slovak
Slovenia: Slovenian, Slovene
South Africa: South African
South Korea: South Korean, Korean, Korea
Spain: Spanish, Spaniard
Sri Lanka: Sri Lankan
Sweden: Swedish, Swede
Switzerland: Swiss
Taiwan: Taiwanese
Thailand: Thai
Turkey: Turkish
Ukraine: Ukrainian
United Kingdom: British, English, Scottish, Welsh, Northern Irish, Briton, England, Scotland, Wales, Northern Ireland, Great Britain, UK
United States: American, U.S., US, USA, United States of America
Uruguay: Uruguayan
Venezuela: Venezuelan
Vietnam: Vietnamese
`;

interface Entry {
  readonly country: string;
  readonly pattern: RegExp;
}

const ENTRIES: readonly Entry[] = TABLE.trim()
  .split('\n')
  .map((line) => {
    const [country = '', names = ''] = line.split(': ');
    const words = [country, ...names.split(', ')]
      .filter(Boolean)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    // A people's word born elsewhere ("Vietnamese-born French director") is where they came from, not
    // what they are: "-born" after it is not a mention.
    return {
      country,
      pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}]|-born)`, 'gu'),
    };
  });

/** The countries `text` names (by name or by its people's word), in the order they first appear. */
export function countriesIn(text: string): string[] {
  const found: { country: string; at: number }[] = [];
  for (const { country, pattern } of ENTRIES) {
    pattern.lastIndex = 0;
    const match = pattern.exec(text);
    if (match) found.push({ country, at: match.index });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.country);
}
