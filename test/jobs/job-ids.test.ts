import { describe, expect, it } from 'vitest';
import { newJobId } from '../../src/stores/job-queue-common.ts';

describe('job ids', () => {
  it('sort in the order they were made, even within one millisecond', () => {
    const made = Array.from({ length: 500 }, () => newJobId(1_800_000_000_000));
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    for (const id of made) expect(id).toMatch(/^res_[0-9a-f]{24}$/);
  });

  it('keep their order when the clock steps back, and start the next millisecond after them', () => {
    const before = newJobId(1_900_000_000_000);
    const stepped = newJobId(1_899_999_999_000);
    const later = newJobId(1_900_000_000_001);
    expect([before, stepped, later].sort()).toEqual([before, stepped, later]);
  });
});
