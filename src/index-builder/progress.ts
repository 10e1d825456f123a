/**
 * Progress output of an index build: a one-line bar redrawn with `\r` on a terminal, plain periodic lines
 * otherwise (logs, CI).
 */
import type { IndexProgress } from './builder.ts';

/** The writable side of a stream (stderr in the CLI). */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Options of {@link createProgressRenderer}. */
export interface ProgressRendererOptions {
  readonly stream: ProgressStream;
  /** Redraw one line in place. @default stream.isTTY === true */
  readonly interactive?: boolean;
  /**
   * Least time between two outputs, in ms.
   * @default 100 when interactive, 5_000 otherwise
   */
  readonly intervalMs?: number;
  /** Clock, for tests. @default Date.now */
  readonly now?: () => number;
}

/** Draws progress. */
export interface ProgressRenderer {
  /** Takes the latest progress; draws when the interval has passed or the source changed. */
  update(progress: IndexProgress): void;
  /** Clears the bar (interactive) so that the summary starts on a clean line. */
  finish(): void;
}

const BAR_WIDTH = 20;

/** `[########------------]` for done out of done + pending. */
export function renderBar(done: number, pending: number, width = BAR_WIDTH): string {
  const total = done + pending;
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** Width of a progress line when the terminal does not say, and the narrowest one drawn, in columns. */
export const PROGRESS_DEFAULTS = { columns: 100, minColumns: 40 } as const;

/** One progress line, at most `columns` characters (the current URL is shortened in the middle). */
export function formatProgressLine(
  progress: IndexProgress,
  columns: number = PROGRESS_DEFAULTS.columns,
): string {
  const head =
    `${renderBar(progress.done, progress.pending)} ${progress.done}/${progress.done + progress.pending}` +
    ` · ${progress.indexed} indexed · ${progress.skipped} skipped`;
  const current = progress.current ?? progress.source;
  const room = columns - head.length - 3;
  if (room < 10) return head.slice(0, Math.max(0, columns - 1));
  const shown =
    current.length <= room
      ? current
      : `${current.slice(0, Math.ceil((room - 1) / 2))}…${current.slice(current.length - Math.floor((room - 1) / 2))}`;
  return `${head} · ${shown}`;
}

/** Creates a renderer writing to `stream`. */
export function createProgressRenderer(options: ProgressRendererOptions): ProgressRenderer {
  const { stream } = options;
  if (stream === null || typeof stream?.write !== 'function') throw new TypeError('stream must be writable');
  const interactive = options.interactive ?? stream.isTTY === true;
  const intervalMs = options.intervalMs ?? (interactive ? 100 : 5_000);
  if (!Number.isFinite(intervalMs) || intervalMs < 0) throw new RangeError('intervalMs must be ≥ 0');
  const now = options.now ?? Date.now;
  let last = -Infinity;
  let lastSource: string | undefined;
  let drawn = 0;

  return {
    update(progress) {
      const time = now();
      const newSource = progress.source !== lastSource;
      if (!newSource && time - last < intervalMs) return;
      last = time;
      lastSource = progress.source;
      if (interactive) {
        const line = formatProgressLine(
          progress,
          Math.max(PROGRESS_DEFAULTS.minColumns, (stream.columns ?? PROGRESS_DEFAULTS.columns) - 1),
        );
        stream.write(`\r${line}${' '.repeat(Math.max(0, drawn - line.length))}`);
        drawn = line.length;
      } else {
        stream.write(
          `index: ${progress.source}: ${progress.done} done, ${progress.pending} pending, ` +
            `${progress.indexed} indexed, ${progress.skipped} skipped\n`,
        );
      }
    },
    finish() {
      if (interactive && drawn > 0) stream.write(`\r${' '.repeat(drawn)}\r`);
      drawn = 0;
    },
  };
}
