/**
 * The grounding check's sharp parts: claims and their offsets, quotes found in the source's text whatever
 * its whitespace and Markdown, invented claims and changed numbers flagged, JSON answers aligned.
 */
import { describe, expect, it } from 'vitest';
import { checkGrounding, type GroundingSource } from '../../src/pipeline/answer/grounding.ts';

const EVEREST: GroundingSource = {
  url: 'https://example.org/everest',
  title: 'Mount Everest',
  text:
    "Mount Everest\n\nMount Everest is   Earth's highest mountain above sea level, at 8,849 metres.\n\n" +
    'It lies in the Mahalangur Himal sub-range of the Himalayas, on the border of Nepal and China.\n\n' +
    'The first recorded ascent was by Tenzing Norgay and Edmund Hillary in 1953.',
  passages: [
    "Mount Everest is **Earth's highest mountain** above sea level, at 8,849 metres. It lies in the " +
      'Mahalangur Himal sub-range of the [Himalayas](https://example.org/himalayas), on the border of Nepal and China.',
    'The first recorded ascent was by Tenzing Norgay and Edmund Hillary in 1953.',
  ],
};

const K2: GroundingSource = {
  url: 'https://example.org/k2',
  title: 'K2',
  text: 'K2 is the second-highest mountain on Earth, at 8,611 metres, on the China–Pakistan border.',
  passages: ['K2 is the second-highest mountain on Earth, at 8,611 metres, on the China–Pakistan border.'],
};

describe('checkGrounding', () => {
  it('gives every [n] of every sentence a quote with its offsets in the source text and in the answer', () => {
    const answer =
      "Mount Everest is Earth's highest mountain, at 8,849 metres [1]. K2 is second, at 8,611 metres [2].\n\n" +
      '- Everest was first climbed in 1953 by Tenzing Norgay and Edmund Hillary [1].';
    const { citations, report } = checkGrounding(answer, [EVEREST, K2]);
    expect(citations.map((c) => [c.index, c.verified])).toEqual([
      [1, true],
      [2, true],
      [1, true],
    ]);
    for (const citation of citations) {
      expect(answer.slice(citation.claim.start, citation.claim.end)).toBe(citation.claim.text);
      const source = citation.index === 1 ? EVEREST : K2;
      expect(source.text.slice(citation.quoteStart!, citation.quoteEnd!)).toBe(citation.quote);
    }
    // The quote is the source's own text (its spacing), not the passage's Markdown.
    expect(citations[0]!.quote).toBe(
      "Mount Everest is   Earth's highest mountain above sea level, at 8,849 metres.",
    );
    expect(citations[2]!.claim.text).toBe(
      'Everest was first climbed in 1953 by Tenzing Norgay and Edmund Hillary [1].',
    );
    expect(report).toEqual({
      level: 'full',
      claims: 3,
      supportedClaims: 3,
      citations: 3,
      verifiedCitations: 3,
      unsupported: [],
    });
  });

  it('flags an invented claim, a changed number and a citation of the wrong source', () => {
    const answer =
      'Mount Everest was named by Queen Victoria during a royal expedition [1]. ' +
      "Everest is Earth's highest mountain, at 9,100 metres [1]. " +
      'The first recorded ascent was by Tenzing Norgay and Edmund Hillary in 1953 [2].';
    const { citations, report } = checkGrounding(answer, [EVEREST, K2]);
    expect(citations.map((c) => c.verified)).toEqual([false, false, false]);
    expect(report.level).toBe('none');
    expect(report.verifiedCitations).toBe(0);
  });

  it('lists sentences without a citation as unsupported; headings, code and lead-ins are not claims', () => {
    const answer =
      '## Everest\n\nIn short:\n\n' +
      "Mount Everest is Earth's highest mountain above sea level [1]. It is also the coldest place in the solar system.\n\n" +
      '```\nclimb --everest\n```';
    const { report } = checkGrounding(answer, [EVEREST]);
    expect(report.level).toBe('partial');
    expect(report.claims).toBe(2);
    expect(report.unsupported).toEqual([
      {
        text: 'It is also the coldest place in the solar system.',
        start: answer.indexOf('It is also'),
        end: answer.indexOf('system.') + 'system.'.length,
      },
    ]);
  });

  it('keeps a citation written after the full stop with its sentence', () => {
    const answer =
      'The first recorded ascent was in 1953. [1] K2 is the second-highest mountain on Earth. [2]';
    const { citations } = checkGrounding(answer, [EVEREST, K2]);
    expect(citations.map((c) => [c.claim.text, c.verified])).toEqual([
      ['The first recorded ascent was in 1953. [1]', true],
      ['K2 is the second-highest mountain on Earth. [2]', true],
    ]);
  });

  it('an answer without claims, or without sources, has grounding none', () => {
    expect(
      checkGrounding('The available sources do not contain an answer to this question.', []).report,
    ).toMatchObject({
      level: 'none',
      claims: 1,
      unsupported: [expect.objectContaining({ start: 0 })],
    });
    expect(checkGrounding('', [EVEREST]).report).toMatchObject({ level: 'none', claims: 0 });
  });

  it('aligns each string of a JSON answer with the source that supports it', () => {
    const answer = JSON.stringify({
      name: 'Mount Everest',
      range: 'Mahalangur Himal',
      climbers: ['Edmund Hillary'],
      ruler: 'Queen Victoria',
    });
    const { citations, report } = checkGrounding(answer, [K2, EVEREST], { answerFormat: 'json' });
    expect(citations.map((c) => [c.claim.text, c.index, c.verified])).toEqual([
      ['Mount Everest', 2, true],
      ['Mahalangur Himal', 2, true],
      ['Edmund Hillary', 2, true],
    ]);
    for (const citation of citations) {
      expect(answer.slice(citation.claim.start, citation.claim.end)).toBe(citation.claim.text);
    }
    // "Queen Victoria" is in no source: listed as unsupported only if it had enough words to be a claim.
    expect(report.level).toBe('full');
  });

  it('rejects a share outside 0–1', () => {
    expect(() => checkGrounding('x', [], { minTermShare: 2 })).toThrow(/between 0 and 1/);
  });
});
