/**
 * A text progress bar for the command-line scripts: `label [#####-----] 45% 104/230`, redrawn in place on a
 * terminal, or written as a plain line at each tenth (and at the end) when the output is a file or a pipe.
 */

/** The stream a progress bar writes to: only `write` is needed, and `isTTY` chooses the redrawing style. */
export interface ProgressStream {
  /** Writes text. */
  write(text: string): unknown;
  /** True on a terminal. */
  readonly isTTY?: boolean;
}

/** Options of {@link progressBar}. */
export interface ProgressOptions {
  /** Where to write (default standard error, so that standard output stays clean for results). */
  readonly stream?: ProgressStream;
  /** Characters between the brackets (default 30). */
  readonly width?: number;
  /** Least time between two redraws on a terminal, in ms (default 100). */
  readonly redrawMs?: number;
  /** The clock, in ms (default `performance.now`). */
  readonly now?: () => number;
}

/** A progress bar: `update` as work is done, `finish` once at the end. */
export interface ProgressBar {
  /** Shows `done` of `total` units. */
  update(done: number, total: number): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

/** The bar's text for `done` of `total`, e.g. `build [#####-----] 45% 104/230`. */
export function renderProgress(label: string, done: number, total: number, width = 30): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const filled = Math.round(ratio * width);
  const percent = Math.floor(ratio * 100);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}% ${done}/${total}`;
}

/** A progress bar labelled `label`. */
export function progressBar(label: string, options: ProgressOptions = {}): ProgressBar {
  const stream = options.stream ?? process.stderr;
  const width = options.width ?? 30;
  const redrawMs = options.redrawMs ?? 100;
  const now = options.now ?? (() => performance.now());
  const tty = stream.isTTY === true;
  let last = { done: 0, total: 0 };
  let drawnAt = -Infinity;
  let tenth = -1;
  let finished = false;

  const draw = () => stream.write(`\r${renderProgress(label, last.done, last.total, width)}`);

  return {
    update(done, total) {
      if (finished) return;
      last = { done, total };
      if (tty) {
        const t = now();
        if (t - drawnAt >= redrawMs || done >= total) {
          draw();
          drawnAt = t;
        }
        return;
      }
      const reached = total > 0 ? Math.floor((10 * Math.min(done, total)) / total) : 10;
      if (reached > tenth && done < total) {
        tenth = reached;
        stream.write(`${renderProgress(label, done, total, width)}\n`);
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      if (tty) {
        draw();
        stream.write('\n');
      } else {
        stream.write(`${renderProgress(label, last.done, last.total, width)}\n`);
      }
    },
  };
}
