import { describe, expect, it } from 'vitest';
import { isFollowUp, planQuery, salientEntities } from '../../src/pipeline/query.ts';

const user = (content: string) => ({ role: 'user', content });

describe('planQuery', () => {
  it('returns a standalone prompt as it is', () => {
    expect(planQuery('  What is the capital of France?  ', [user('Tell me about the Eiffel Tower')])).toBe(
      'What is the capital of France?',
    );
    expect(planQuery('How tall is it?')).toBe('How tall is it?');
  });

  it('adds the entity of the earlier user message to a pronoun follow-up', () => {
    expect(planQuery('and how tall is it?', [user('Tell me about the Eiffel Tower')])).toBe(
      'Eiffel Tower how tall is it?',
    );
    expect(planQuery('Who designed it?', [user('When was the Tower of London built?')])).toBe(
      'Tower of London Who designed it?',
    );
  });

  it('uses the most recent user message that names something', () => {
    const context = [user('Tell me about Paris'), user('What about the Eiffel Tower?'), user('ok thanks')];
    expect(planQuery('how tall is it?', context)).toBe('Eiffel Tower how tall is it?');
  });

  it('ignores messages of other roles', () => {
    expect(
      planQuery('how tall is it?', [{ role: 'assistant', content: 'The Eiffel Tower is in Paris.' }]),
    ).toBe('how tall is it?');
    expect(
      planQuery('how tall is it?', [
        user('Tell me about Big Ben'),
        { role: 'system', content: 'Eiffel Tower' },
      ]),
    ).toBe('Big Ben how tall is it?');
  });

  it('completes elliptical follow-ups with the earlier topic words', () => {
    expect(planQuery('what about in 2010?', [user('what was the population of warsaw in 2000')])).toBe(
      'population warsaw in 2010?',
    );
    expect(planQuery('And how do I revoke it?', [user('How do I create an API key?')])).toBe(
      'API key how do I revoke it?',
    );
  });

  it('keeps quoted phrases as entities and does not repeat words already in the prompt', () => {
    expect(planQuery('who wrote it?', [user('I love the song "bohemian rhapsody"')])).toBe(
      'bohemian rhapsody who wrote it?',
    );
    expect(planQuery('is Paris bigger than it?', [user('Tell me about Paris')])).toBe(
      'is Paris bigger than it?',
    );
  });
});

describe('isFollowUp / salientEntities', () => {
  it('detects short prompts that refer back', () => {
    expect(isFollowUp('and how tall is it?')).toBe(true);
    expect(isFollowUp('why?')).toBe(true);
    expect(isFollowUp('What is the capital of France?')).toBe(false);
    expect(isFollowUp('and what about the Louvre?')).toBe(false);
    expect(
      isFollowUp(
        'Explain in detail how photosynthesis converts light into chemical energy in plants and why it matters',
      ),
    ).toBe(false);
  });

  it('finds capitalised names but not sentence-initial question words', () => {
    expect(salientEntities('What is the Bank of America doing in New York? I wonder.')).toEqual([
      'Bank of America',
      'New York',
    ]);
  });
});
