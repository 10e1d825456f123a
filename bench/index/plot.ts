/**
 * The plot of `npm run bench:index`: search latency against corpus size, drawn from the rows the bench
 * measured — an SVG (for the manual, `docs/images/`) and the same plot in text on stdout. Sizes are on a
 * logarithmic axis; one line per store and measure (`/v1/search` p50 and p95, search stage p50).
 */

/** One measured point. */
export interface LatencyPoint {
  readonly size: number;
  readonly store: string;
  readonly httpP50: number;
  readonly httpP95: number;
  readonly stageP50: number;
}

interface Series {
  readonly name: string;
  readonly mark: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
}

const MEASURES = [
  { key: 'httpP50', label: '/v1/search p50', dash: '' },
  { key: 'httpP95', label: '/v1/search p95', dash: '6 4' },
  { key: 'stageP50', label: 'search stage p50', dash: '2 3' },
] as const;
const COLORS: Record<string, string> = { sqlite: '#1f6feb', postgres: '#c2410c' };
const MARKS = ['o', '*', '+', 'x', '#', '@'];

function seriesOf(points: readonly LatencyPoint[]): (Series & { dash: string })[] {
  const stores = [...new Set(points.map((p) => p.store))];
  return stores.flatMap((store, s) =>
    MEASURES.map((measure, m) => ({
      name: `${store} ${measure.label}`,
      mark: MARKS[(s * MEASURES.length + m) % MARKS.length]!,
      color: COLORS[store] ?? '#555',
      dash: measure.dash,
      points: points
        .filter((p) => p.store === store)
        .sort((a, b) => a.size - b.size)
        .map((p) => [p.size, p[measure.key]] as const),
    })),
  );
}

function bounds(points: readonly LatencyPoint[]) {
  const sizes = points.map((p) => p.size);
  const minX = Math.log10(Math.min(...sizes));
  const maxX = Math.max(Math.log10(Math.max(...sizes)), minX + 1);
  const maxY = Math.max(...points.map((p) => p.httpP95), 1) * 1.1;
  return { minX, maxX, maxY };
}

/** The plot as SVG text. */
export function latencySvg(points: readonly LatencyPoint[], title: string): string {
  const width = 640;
  const height = 360;
  const left = 60;
  const right = 200;
  const top = 30;
  const bottom = 40;
  const { minX, maxX, maxY } = bounds(points);
  const x = (size: number) => left + ((Math.log10(size) - minX) / (maxX - minX)) * (width - left - right);
  const y = (ms: number) => height - bottom - (ms / maxY) * (height - top - bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="18" font-size="14">${title}</text>`,
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#333"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 8}" text-anchor="middle">documents (log scale)</text>`,
    `<text x="14" y="${(top + height - bottom) / 2}" transform="rotate(-90 14 ${(top + height - bottom) / 2})" text-anchor="middle">ms</text>`,
  ];
  for (const size of [...new Set(points.map((p) => p.size))])
    parts.push(
      `<text x="${x(size)}" y="${height - bottom + 16}" text-anchor="middle">${size.toLocaleString('en')}</text>`,
    );
  for (let i = 0; i <= 4; i++) {
    const ms = (maxY / 4) * i;
    parts.push(
      `<line x1="${left}" y1="${y(ms)}" x2="${width - right}" y2="${y(ms)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y(ms) + 4}" text-anchor="end">${Math.round(ms)}</text>`,
    );
  }
  seriesOf(points).forEach((series, i) => {
    const path = series.points.map(([size, ms]) => `${x(size).toFixed(1)},${y(ms).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2"${series.dash ? ` stroke-dasharray="${series.dash}"` : ''}/>`,
      ...series.points.map(
        ([size, ms]) =>
          `<circle cx="${x(size).toFixed(1)}" cy="${y(ms).toFixed(1)}" r="3" fill="${series.color}"/>`,
      ),
      `<line x1="${width - right + 12}" y1="${top + 10 + i * 18}" x2="${width - right + 36}" y2="${top + 10 + i * 18}" stroke="${series.color}" stroke-width="2"${series.dash ? ` stroke-dasharray="${series.dash}"` : ''}/>`,
      `<text x="${width - right + 42}" y="${top + 14 + i * 18}">${series.name}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** The plot as text: one mark per measured point, a legend below. */
export function latencyAscii(points: readonly LatencyPoint[], columns = 60, rows = 16): string {
  const { minX, maxX, maxY } = bounds(points);
  const grid = Array.from({ length: rows }, () => Array.from({ length: columns }, () => ' '));
  const all = seriesOf(points);
  for (const series of all)
    for (const [size, ms] of series.points) {
      const col = Math.round(((Math.log10(size) - minX) / (maxX - minX)) * (columns - 1));
      const row = rows - 1 - Math.round((ms / maxY) * (rows - 1));
      grid[row]![col] = series.mark;
    }
  const label = (row: number) => String(Math.round((maxY * (rows - 1 - row)) / (rows - 1))).padStart(6);
  const lines = grid.map((cells, row) => `${label(row)} ms |${cells.join('')}`.trimEnd());
  lines.push(`${' '.repeat(10)}+${'-'.repeat(columns)}`);
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const axis = Array.from({ length: columns }, () => ' ');
  for (const size of sizes) {
    const text = size >= 1e6 ? `${size / 1e6}M` : size >= 1e3 ? `${size / 1e3}k` : String(size);
    const col = Math.round(((Math.log10(size) - minX) / (maxX - minX)) * (columns - 1));
    const at = Math.max(0, Math.min(columns - text.length, col - Math.floor(text.length / 2)));
    for (let i = 0; i < text.length; i++) axis[at + i] = text[i]!;
  }
  lines.push(`${' '.repeat(11)}${axis.join('')}  documents (log scale)`);
  lines.push(...all.map((series) => `  ${series.mark}  ${series.name}`));
  return lines.join('\n');
}
