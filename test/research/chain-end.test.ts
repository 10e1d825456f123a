/**
 * Which chain the answer names. A page about the question's own relation ("Place of birth") is not a link
 * of the chain even when it holds more of the question's words than the true end: the extractive answer
 * opens with the director's birth, then the film's sentence naming the director.
 */
import { describe, expect, it } from 'vitest';
import { type Page, researchOver } from './web.ts';

const PAGES: readonly Page[] = [
  {
    title: 'Winter Orchard',
    text: 'Winter Orchard is a 1973 mystery film directed by Halvard Strom. It was shot in Oslo. The Time, the Place and the Harbour was its working title.',
  },
  {
    title: 'Halvard Strom',
    text: 'Halvard Strom was a Norwegian film director and actor. Strom was born in Tromso and studied in Bergen.',
  },
  {
    title: 'Place of birth',
    text: 'The place of birth is the place where a person was born, often used in legal documents with the date of birth of a film director or any person.',
  },
];

describe('the chain the answer names', () => {
  it('is not one through a page about the question\'s own words ("Place of birth")', async () => {
    const result = await researchOver(
      PAGES,
      'What is the place of birth of the director of film Winter Orchard?',
    );
    const first = result.answer.split(/\s\[\d+\]/u)[0] ?? '';
    expect(first).toContain('born in Tromso');
    expect(result.answer).toContain('directed by Halvard Strom');
  });
});

const FATHER_PAGES: readonly Page[] = [
  {
    title: 'Margaret Tallis',
    text: 'Margaret Tallis was a Welsh hymn writer. She was the daughter of John Hale Tallis, a landowner of Conwy.',
  },
  {
    title: 'John Hale Tallis',
    text: 'John Hale Tallis (4 May 1790 – 10 September 1859) was a Welsh landowner. He built a stone bridge at Conwy in 1830.',
  },
];

describe("a life's span as the chain's end", () => {
  it('opens "When did X\'s father die?" with the father\'s dates, then the sentence naming him', async () => {
    const result = await researchOver(FATHER_PAGES, "When did Margaret Tallis's father die?");
    const [first, second] = result.answer.split(/\s\[\d+\][.!?]?\s*/u);
    expect(first).toContain('10 September 1859');
    expect(second).toContain('daughter of John Hale Tallis');
    // The dates cover "die": research stops because the question is covered, not for want of leads.
    expect(result.steps?.at(-1)?.stopped).toBe('covered');
  });
});

const PLACE_PAGES: readonly Page[] = [
  {
    title: 'Winter Orchard',
    text: 'Winter Orchard is a 1973 mystery film directed by Halvard Strom. It was shot in Oslo.',
  },
  {
    title: 'Halvard Strom',
    text: 'Halvard Strom (2 May 1911 – 8 June 1980) was a Norwegian film director. Strom was born in Tromso and died at his farm in Lofoten. He made eleven films.',
  },
];

describe('the end of a chain asking where', () => {
  it("is the sentence naming the place, not the life's span (which says when, not where)", async () => {
    const result = await researchOver(PLACE_PAGES, 'Where did the director of film Winter Orchard die?');
    const [first, second] = result.answer.split(/\s\[\d+\][.!?]?\s*/u);
    expect(first).toContain('died at his farm in Lofoten');
    expect(second).toContain('directed by Halvard Strom');
  });

  it('reads "the place of birth of" as asking where', async () => {
    const result = await researchOver(
      PLACE_PAGES,
      'What is the place of birth of the director of film Winter Orchard?',
    );
    expect(result.answer.split(/\s\[\d+\]/u)[0]).toContain('born in Tromso');
  });
});

const SUBJECT_PAGES: readonly Page[] = [
  {
    title: 'Tarn Records',
    text: 'Tarn Records is a folk music label founded by Orla Benn in Cork.',
  },
  {
    title: 'Orla Benn',
    text: 'Orla Benn was an Irish folk singer. Benn first played the fiddle at the age of nine, taught by her uncle.',
  },
  {
    title: 'Dublin Folk Club',
    text: 'The Dublin Folk Club opened in 1962 on Capel Street. Orla Benn played the fiddle there on Fridays in 1969.',
  },
];

describe("the end on the lead's own page", () => {
  it('wins over a sentence of another page that names the lead in passing', async () => {
    const result = await researchOver(
      SUBJECT_PAGES,
      'When did the founder of Tarn Records first play the fiddle?',
    );
    const [first, second] = result.answer.split(/\s\[\d+\][.!?]?\s*/u);
    expect(first).toContain('at the age of nine');
    expect(second).toContain('founded by Orla Benn');
  });
});
