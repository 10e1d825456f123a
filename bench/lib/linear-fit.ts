/**
 * Ordinary least squares for the benchmarks' cost models (a handful of predictors, thousands of rows): the
 * normal equations solved by Gaussian elimination with partial pivoting.
 */

/** Coefficients (one per predictor column, in order) and the share of the variance they explain. */
export interface LinearFit {
  readonly coefficients: number[];
  /** 1 − residual sum of squares / total sum of squares (0 when `y` does not vary). */
  readonly rSquared: number;
}

/**
 * Fits `y ≈ rows · coefficients`. Each row holds the predictors of one observation; put a constant 1 in a
 * column for an intercept. Throws when the predictors are linearly dependent (no unique fit).
 */
export function fitLinear(rows: readonly (readonly number[])[], y: readonly number[]): LinearFit {
  const width = rows[0]?.length ?? 0;
  if (rows.length !== y.length || rows.length < width || width === 0) {
    throw new RangeError('fitLinear: needs as many values as rows, and at least as many rows as predictors');
  }
  // Normal equations: (XᵀX) b = Xᵀy, as one augmented matrix.
  const system = Array.from({ length: width }, () => new Array<number>(width + 1).fill(0));
  for (const [i, row] of rows.entries()) {
    for (let j = 0; j < width; j++) {
      for (let k = 0; k < width; k++) system[j]![k]! += row[j]! * row[k]!;
      system[j]![width]! += row[j]! * y[i]!;
    }
  }
  for (let column = 0; column < width; column++) {
    let pivot = column;
    for (let r = column + 1; r < width; r++) {
      if (Math.abs(system[r]![column]!) > Math.abs(system[pivot]![column]!)) pivot = r;
    }
    [system[column], system[pivot]] = [system[pivot]!, system[column]!];
    const lead = system[column]![column]!;
    if (Math.abs(lead) < 1e-12) throw new RangeError('fitLinear: the predictors are linearly dependent');
    for (let r = column + 1; r < width; r++) {
      const factor = system[r]![column]! / lead;
      for (let k = column; k <= width; k++) system[r]![k]! -= factor * system[column]![k]!;
    }
  }
  const coefficients = new Array<number>(width).fill(0);
  for (let j = width - 1; j >= 0; j--) {
    let sum = system[j]![width]!;
    for (let k = j + 1; k < width; k++) sum -= system[j]![k]! * coefficients[k]!;
    coefficients[j] = sum / system[j]![j]!;
  }
  const mean = y.reduce((a, b) => a + b, 0) / y.length;
  let residual = 0;
  let total = 0;
  for (const [i, row] of rows.entries()) {
    const predicted = row.reduce((sum, value, j) => sum + value * coefficients[j]!, 0);
    residual += (y[i]! - predicted) ** 2;
    total += (y[i]! - mean) ** 2;
  }
  return { coefficients, rSquared: total === 0 ? 0 : 1 - residual / total };
}
