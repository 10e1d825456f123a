/**
 * `node bench/qa/plot.ts --out FILE.png DUMP.json…` — the latency-vs-quality plot of bench:qa runs.
 *
 * Each dump is a `bench/qa/run.ts --dump` file; each becomes one point per latency percentile (p50 and
 * p95 of the client round trip, x) against answer-in-context (y), labelled with the run's `maxLatencyMs`.
 * The PNG is drawn here without dependencies: an RGB raster, a 5×7 bitmap font, zlib from node:zlib.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import { percentile } from './metrics.ts';

/** One run on the plot. */
export interface PlotPoint {
  readonly label: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly answerInContext: number;
}

type Rgb = readonly [number, number, number];

/** A 5×7 font: each glyph is 7 rows of 5 bits, written as `#` and `.`. Upper case, digits, a few signs. */
const FONT: Readonly<Record<string, readonly string[]>> = {
  A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
  C: ['.###.', '#...#', '#....', '#....', '#....', '#...#', '.###.'],
  D: ['####.', '#...#', '#...#', '#...#', '#...#', '#...#', '####.'],
  E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
  F: ['#####', '#....', '#....', '####.', '#....', '#....', '#....'],
  G: ['.###.', '#...#', '#....', '#.###', '#...#', '#...#', '.####'],
  H: ['#...#', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  I: ['.###.', '..#..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  J: ['..###', '...#.', '...#.', '...#.', '...#.', '#..#.', '.##..'],
  K: ['#...#', '#..#.', '#.#..', '##...', '#.#..', '#..#.', '#...#'],
  L: ['#....', '#....', '#....', '#....', '#....', '#....', '#####'],
  M: ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
  N: ['#...#', '#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#'],
  O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  P: ['####.', '#...#', '#...#', '####.', '#....', '#....', '#....'],
  Q: ['.###.', '#...#', '#...#', '#...#', '#.#.#', '#..#.', '.##.#'],
  R: ['####.', '#...#', '#...#', '####.', '#.#..', '#..#.', '#...#'],
  S: ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
  T: ['#####', '..#..', '..#..', '..#..', '..#..', '..#..', '..#..'],
  U: ['#...#', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  V: ['#...#', '#...#', '#...#', '#...#', '#...#', '.#.#.', '..#..'],
  W: ['#...#', '#...#', '#...#', '#.#.#', '#.#.#', '#.#.#', '.#.#.'],
  X: ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
  Y: ['#...#', '#...#', '.#.#.', '..#..', '..#..', '..#..', '..#..'],
  Z: ['#####', '....#', '...#.', '..#..', '.#...', '#....', '#####'],
  '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  '3': ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  '6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  '9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
  '.': ['.....', '.....', '.....', '.....', '.....', '.##..', '.##..'],
  ',': ['.....', '.....', '.....', '.....', '.##..', '..#..', '.#...'],
  '-': ['.....', '.....', '.....', '#####', '.....', '.....', '.....'],
  '=': ['.....', '.....', '#####', '.....', '#####', '.....', '.....'],
  '(': ['...#.', '..#..', '.#...', '.#...', '.#...', '..#..', '...#.'],
  ')': ['.#...', '..#..', '...#.', '...#.', '...#.', '..#..', '.#...'],
  ':': ['.....', '.##..', '.##..', '.....', '.##..', '.##..', '.....'],
  '/': ['.....', '....#', '...#.', '..#..', '.#...', '#....', '.....'],
  '%': ['##...', '##..#', '...#.', '..#..', '.#...', '#..##', '...##'],
  '≤': ['...#.', '..#..', '.#...', '..#..', '...#.', '.....', '.###.'],
  '≥': ['.#...', '..#..', '...#.', '..#..', '.#...', '.....', '.###.'],
  ' ': ['.....', '.....', '.....', '.....', '.....', '.....', '.....'],
};

/** An RGB raster with the few drawing operations the plot needs. */
class Raster {
  readonly pixels: Uint8Array;
  readonly width: number;
  readonly height: number;
  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.pixels = new Uint8Array(width * height * 3).fill(255);
  }

  set(x: number, y: number, [r, g, b]: Rgb): void {
    const px = Math.round(x);
    const py = Math.round(y);
    if (px < 0 || py < 0 || px >= this.width || py >= this.height) return;
    const at = (py * this.width + px) * 3;
    this.pixels[at] = r;
    this.pixels[at + 1] = g;
    this.pixels[at + 2] = b;
  }

  rect(x: number, y: number, w: number, h: number, color: Rgb): void {
    for (let dy = 0; dy < h; dy++) for (let dx = 0; dx < w; dx++) this.set(x + dx, y + dy, color);
  }

  line(x0: number, y0: number, x1: number, y1: number, color: Rgb, width = 1, dash = 0): void {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    const half = Math.floor(width / 2);
    for (let i = 0; i <= steps; i++) {
      if (dash > 0 && Math.floor(i / dash) % 2 === 1) continue;
      const x = x0 + ((x1 - x0) * i) / steps;
      const y = y0 + ((y1 - y0) * i) / steps;
      this.rect(Math.round(x) - half, Math.round(y) - half, width, width, color);
    }
  }

  disc(cx: number, cy: number, radius: number, color: Rgb): void {
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        if (dx * dx + dy * dy <= radius * radius) this.set(cx + dx, cy + dy, color);
      }
    }
  }

  /** Draws upper-cased text with its top-left corner at (x, y); returns its width. */
  text(x: number, y: number, text: string, color: Rgb, scale = 2): number {
    let cursor = x;
    for (const char of text.toUpperCase()) {
      const glyph = FONT[char] ?? FONT[' ']!;
      glyph.forEach((row, gy) => {
        for (let gx = 0; gx < 5; gx++) {
          if (row[gx] === '#') this.rect(cursor + gx * scale, y + gy * scale, scale, scale, color);
        }
      });
      cursor += 6 * scale;
    }
    return cursor - x;
  }

  static textWidth(text: string, scale = 2): number {
    return [...text].length * 6 * scale;
  }

  /** The raster as a PNG file (8-bit RGB, no filter, zlib-compressed). */
  png(): Buffer {
    const rows = Buffer.alloc((this.width * 3 + 1) * this.height);
    for (let y = 0; y < this.height; y++) {
      rows[y * (this.width * 3 + 1)] = 0;
      rows.set(
        this.pixels.subarray(y * this.width * 3, (y + 1) * this.width * 3),
        y * (this.width * 3 + 1) + 1,
      );
    }
    const chunk = (type: string, data: Buffer): Buffer => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(typed) >>> 0);
      return Buffer.concat([length, typed, crc]);
    };
    const header = Buffer.alloc(13);
    header.writeUInt32BE(this.width, 0);
    header.writeUInt32BE(this.height, 4);
    header.set([8, 2, 0, 0, 0], 8);
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(rows, { level: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  }
}

const INK: Rgb = [40, 40, 40];
const GRID: Rgb = [225, 225, 225];
const P50: Rgb = [31, 119, 180];
const P95: Rgb = [214, 39, 40];
const TARGET: Rgb = [120, 120, 120];

/**
 * Draws answer-in-context against latency: a p50 series and a p95 series (one point per run, joined in
 * order of latency), with the targets as dashed lines.
 */
export function plotLatencyQuality(
  points: readonly PlotPoint[],
  targets: { readonly p50Ms: number; readonly p95Ms: number; readonly answerInContext: number },
  title: string,
): Buffer {
  const canvas = new Raster(1000, 640);
  const left = 110;
  const right = 960;
  const top = 70;
  const bottom = 560;
  const xMax = Math.ceil(Math.max(...points.map((p) => p.p95Ms), targets.p95Ms) / 500) * 500 + 250;
  const ys = points.map((p) => p.answerInContext);
  const yMin = Math.floor(Math.min(...ys, targets.answerInContext) * 50 - 1) / 50;
  const yMax = Math.ceil(Math.max(...ys, targets.answerInContext) * 50 + 0.5) / 50;
  const x = (ms: number) => left + ((right - left) * ms) / xMax;
  const y = (share: number) => bottom - ((bottom - top) * (share - yMin)) / (yMax - yMin);

  canvas.text((1000 - Raster.textWidth(title)) / 2, 20, title, INK);
  const xStep = xMax > 5_000 ? 1_000 : 500;
  const yStep = yMax - yMin > 0.2 ? 0.05 : yMax - yMin > 0.08 ? 0.02 : 0.01;
  for (let ms = 0; ms <= xMax; ms += xStep) {
    canvas.line(x(ms), top, x(ms), bottom, GRID);
    const label = (ms / 1000).toFixed(1);
    canvas.text(x(ms) - Raster.textWidth(label) / 2, bottom + 10, label, INK);
  }
  for (let share = Math.ceil(yMin / yStep - 1e-9) * yStep; share <= yMax + 1e-9; share += yStep) {
    canvas.line(left, y(share), right, y(share), GRID);
    const label = share.toFixed(2);
    canvas.text(left - 10 - Raster.textWidth(label), y(share) - 7, label, INK);
  }
  canvas.line(left, bottom, right, bottom, INK, 2);
  canvas.line(left, top, left, bottom, INK, 2);
  const xTitle = 'LATENCY OF A SEARCH (S), CLIENT ROUND TRIP';
  canvas.text((left + right - Raster.textWidth(xTitle)) / 2, bottom + 40, xTitle, INK);
  canvas.text(10, top - 30, 'ANSWER IN CONTEXT', INK);

  // Targets: answer in context ≥ 0.95, p50 ≤ 1.2 s, p95 ≤ 2.5 s.
  canvas.line(left, y(targets.answerInContext), right, y(targets.answerInContext), TARGET, 1, 6);
  canvas.line(x(targets.p50Ms), top, x(targets.p50Ms), bottom, P50, 1, 6);
  canvas.line(x(targets.p95Ms), top, x(targets.p95Ms), bottom, P95, 1, 6);
  canvas.text(x(targets.p50Ms) + 4, top + 4, 'P50 TARGET', P50, 1);
  canvas.text(x(targets.p95Ms) + 4, top + 4, 'P95 TARGET', P95, 1);

  for (const [key, color] of [
    ['p50Ms', P50],
    ['p95Ms', P95],
  ] as const) {
    const sorted = [...points].sort((a, b) => a[key] - b[key]);
    sorted.forEach((point, i) => {
      const next = sorted[i + 1];
      if (next)
        canvas.line(x(point[key]), y(point.answerInContext), x(next[key]), y(next.answerInContext), color, 2);
    });
    // Labels alternate below and above their points, so neighbours at the same height do not overwrite.
    sorted.forEach((point, i) => {
      canvas.disc(x(point[key]), y(point.answerInContext), 6, color);
      const below = (key === 'p50Ms') === (i % 2 === 0);
      canvas.text(x(point[key]) + 9, y(point.answerInContext) + (below ? 8 : -18), point.label, color, 1);
    });
  }
  // Legend.
  canvas.disc(right - 120, bottom - 70, 6, P50);
  canvas.text(right - 105, bottom - 77, 'P50', INK);
  canvas.disc(right - 120, bottom - 40, 6, P95);
  canvas.text(right - 105, bottom - 47, 'P95', INK);
  return canvas.png();
}

/** A point from a `run.ts --dump` file. */
export function pointFromDump(dump: {
  options: { maxLatencyMs: number | null };
  results: readonly { answerInPassages: boolean; timings: Readonly<Record<string, number>> }[];
}): PlotPoint {
  const totals = dump.results
    .map((r) => r.timings['client_total'] ?? Number.NaN)
    .filter((v) => !Number.isNaN(v));
  return {
    label: dump.options.maxLatencyMs === null ? 'DEFAULT' : `MAX ${dump.options.maxLatencyMs} MS`,
    p50Ms: percentile(totals, 50),
    p95Ms: percentile(totals, 95),
    answerInContext: dump.results.filter((r) => r.answerInPassages).length / dump.results.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { out: { type: 'string' }, title: { type: 'string' } },
  });
  if (!values.out || positionals.length === 0) {
    process.stderr.write('usage: node bench/qa/plot.ts --out FILE.png [--title TEXT] DUMP.json…\n');
    process.exit(2);
  }
  const points = positionals.map((file) =>
    pointFromDump(JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof pointFromDump>[0]),
  );
  for (const point of points) {
    process.stdout.write(
      `${point.label}: p50 ${point.p50Ms.toFixed(0)} ms, p95 ${point.p95Ms.toFixed(0)} ms, answer in context ${point.answerInContext.toFixed(3)}\n`,
    );
  }
  writeFileSync(
    values.out,
    plotLatencyQuality(
      points,
      { p50Ms: 1200, p95Ms: 2500, answerInContext: 0.95 },
      values.title ?? 'BENCH:QA ON THE SIMULATED REAL WEB: QUALITY VS LATENCY',
    ),
  );
}
