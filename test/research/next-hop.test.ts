/**
 * After research, the extractive answer takes the next hop through prose: a chosen sentence names a thing
 * whose own page research read ("… a live album by the English rock band Harrow Gate"), and that page's
 * sentence holding the question's word the answer still lacks ("formed in Wexham" for "Where did the band
 * form…") is quoted, cited by its page. The same passages without `researched` give the answer as before.
 */
import { describe, expect, it } from 'vitest';
import { answer, page, researchInput } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'Where did the band form that made the live album Night at Coldmoor?';
const INPUT: AnswerInput = {
  prompt: QUESTION,
  context: [],
  query: QUESTION,
  responseType: 'text',
  passages: [
    page(
      'Night at Coldmoor',
      'Night at Coldmoor is a live album by the English rock band Harrow Gate, recorded at Coldmoor Hall. The live album was made in one night.',
      1,
    ),
    page(
      'Harrow Gate (band)',
      'Harrow Gate played over two hundred concerts in Europe. Harrow Gate are an English rock group formed in Wexham in 1979 by the guitarist Tam Reilly.',
      0.6,
    ),
    page(
      'Coldmoor Hall',
      'Coldmoor Hall is a concert venue in Leeds, opened in 1902 for the live music of the city.',
      0.5,
    ),
  ],
};

describe('the next hop through prose after research', () => {
  it("quotes the named band's sentence holding the word the answer lacks, cited by its page", async () => {
    const output = await answer({ ...INPUT, researched: true });
    expect(output.answer).toContain('formed in Wexham');
    expect(output.sources).toContain('https://wiki.test/Harrow_Gate_(band)');
  });

  it('leaves an answer without research as it was', async () => {
    const output = await answer(INPUT);
    expect(output.answer).not.toContain('formed in Wexham');
  });
});

/**
 * The hop's sentence for "the place of birth of the performer of …": the performer's page says "Born in
 * Wexham", in the words the evidence uses for a birth, not "birth" itself; a sentence holding only a
 * synonym of the performer ("singer") does not outweigh it.
 */
const BIRTH_QUESTION = 'What is the place of birth of the performer of song Coldmoor Lament?';
const BIRTH_INPUT: AnswerInput = {
  ...researchInput(BIRTH_QUESTION),
  passages: [
    page(
      'Coldmoor Lament',
      'Coldmoor Lament is a song by the Irish folk musician Tam Reilly from his 1979 album Harrow. The song Coldmoor Lament closes the album with a long fiddle solo.',
      1,
    ),
    page(
      'Tam Reilly',
      'Born in Wexham, Tam Reilly learned the fiddle from his uncle as a boy. Reilly was voted the finest folk singer of the decade by the readers of Folk Weekly.',
      0.6,
    ),
  ],
};

describe("the next hop for a relation the page words in its evidence's words", () => {
  it("quotes the performer's birth sentence, cited by the performer's page", async () => {
    const output = await answer(BIRTH_INPUT);
    expect(output.answer).toContain('Born in Wexham');
    expect(output.sources).toContain('https://wiki.test/Tam_Reilly');
  });

  it('prefers the sentence holding a place to one holding more of the words and no place', async () => {
    const output = await answer({
      ...BIRTH_INPUT,
      passages: [
        BIRTH_INPUT.passages[0]!,
        page(
          'Tam Reilly',
          'Tam Reilly (born 3 May 1950) is an Irish folk singer and fiddler. Born in Wexham, Reilly learned the fiddle from his uncle as a boy.',
          0.6,
        ),
      ],
    });
    expect(output.answer).toContain('Born in Wexham');
  });
});

/**
 * A page titled without the middle initial its mention uses ("Tomas Verlaine" named "Tomas K. Verlaine"):
 * the hop is taken all the same.
 */
const DIED_QUESTION = 'Where did the director of film The Grey Orchard die?';
const DIED_INPUT: AnswerInput = {
  ...researchInput(DIED_QUESTION),
  passages: [
    page(
      'The Grey Orchard',
      'The Grey Orchard is a 1961 drama film directed by Tomas K. Verlaine. The film The Grey Orchard was shot in one summer.',
      1,
    ),
    page(
      'Tomas Verlaine',
      'Tomas Verlaine made nine films for the Harrow studio. Verlaine died in Wexham at the age of 80.',
      0.6,
    ),
  ],
};

describe('the next hop to a page titled without the middle initial', () => {
  it("quotes the director's death sentence, cited by his page", async () => {
    const output = await answer(DIED_INPUT);
    expect(output.answer).toContain('died in Wexham');
    expect(output.sources).toContain('https://wiki.test/Tomas_Verlaine');
  });
});

/**
 * The hop's page names its subject in full ("Tomas Heinz Morrow") where research's query, which adds the
 * names it followed to the question, writes "Tomas Morrow Franz Morrow": the sentence names the page's own
 * subject, not another Tomas, and is quoted.
 */
const BIRTHDAY_QUESTION = "When is Ada Morrow's husband's birthday?";
const BIRTHDAY_INPUT: AnswerInput = {
  ...researchInput(BIRTHDAY_QUESTION),
  query: `${BIRTHDAY_QUESTION} Tomas Morrow Franz Morrow`,
  passages: [
    page(
      'Ada Morrow',
      'Ada Morrow (born 4 June 1952 in Wexham) is a film producer. From 1988 to 2008 she was married to Tomas Morrow, grandson of the banker Franz Morrow. They have two sons.',
      3,
    ),
    page(
      'Tomas Morrow',
      'Tomas Heinz Morrow (born Harrow 10 May 1943) is a banker. He is chairman of the Morrow Bank and the Morrow Trust. He is the youngest son of Franz Morrow and Ida Morrow.',
      2,
    ),
    page(
      'Franz Morrow',
      'Franz Morrow founded the Morrow Bank in 1920. Morrow and his wife Ida Morrow had four children.',
      1.5,
    ),
  ],
};

describe('the next hop to a page naming its subject in full', () => {
  it("quotes the husband's birth sentence, which names him with his middle name", async () => {
    const output = await answer(BIRTHDAY_INPUT);
    expect(output.answer).toContain('born Harrow 10 May 1943');
    expect(output.sources).toContain('https://wiki.test/Tomas_Morrow');
  });
});
