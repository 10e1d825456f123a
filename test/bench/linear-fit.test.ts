import { describe, expect, it } from 'vitest';
import { fitLinear } from '../../bench/lib/linear-fit.ts';

describe('fitLinear', () => {
  it('recovers the coefficients of an exact linear relation', () => {
    const rows = [
      [1, 0, 3],
      [1, 1, 0],
      [1, 2, 5],
      [1, 5, 1],
      [1, 7, 2],
    ];
    const y = rows.map(([one, a, b]) => 2.5 * one! + 4 * a! - 1.5 * b!);
    const fit = fitLinear(rows, y);
    expect(fit.coefficients.map((c) => Number(c.toFixed(9)))).toEqual([2.5, 4, -1.5]);
    expect(fit.rSquared).toBeCloseTo(1, 12);
  });

  it('gives the least-squares line through noisy points', () => {
    // y = x + noise (+1, -1, -1, +1), orthogonal to both columns: the best line is y = x; residual 4 of 9.
    const fit = fitLinear(
      [1, 2, 3, 4].map((x) => [1, x]),
      [2, 1, 2, 5],
    );
    expect(fit.coefficients[0]).toBeCloseTo(0, 12);
    expect(fit.coefficients[1]).toBeCloseTo(1, 12);
    expect(fit.rSquared).toBeCloseTo(1 - 4 / 9, 12);
  });

  it('refuses dependent predictors and mismatched input', () => {
    expect(() =>
      fitLinear(
        [
          [1, 2],
          [2, 4],
          [3, 6],
        ],
        [1, 2, 3],
      ),
    ).toThrow(/linearly dependent/);
    expect(() => fitLinear([[1, 2]], [1, 2])).toThrow(RangeError);
    expect(() => fitLinear([], [])).toThrow(RangeError);
  });
});
