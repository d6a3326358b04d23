// Drain progress for a person watching: on a terminal one line that updates in place (\r), cleared
// when the drain ends; anywhere else (a pipe, a file, CI logs) one line per change, never the same
// line again every few seconds.

/** Where progress goes: a stream's write, and what it knows about the terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width: a line longer than this would wrap, and \r would return only to its last row. */
  readonly columns?: number;
}

/** `tty`: one line updated in place; `plain`: a line per change. */
export type ProgressMode = 'tty' | 'plain';
/** What `--progress` accepts: `auto` is `tty` on a terminal, else `plain`. */
export const PROGRESS_FLAG_VALUES = ['auto', 'tty', 'plain'] as const;
export type ProgressFlag = (typeof PROGRESS_FLAG_VALUES)[number];

/** The mode `--progress` asks for, `auto` deciding by the stream (a terminal, unless TERM=dumb). */
export function progressMode(
  flag: ProgressFlag,
  stream: Pick<ProgressStream, 'isTTY'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProgressMode {
  if (flag !== 'auto') return flag;
  return stream.isTTY === true && env['TERM'] !== 'dumb' ? 'tty' : 'plain';
}

/** Erases the terminal's current line from the cursor (ECMA-48 EL). */
const CLEAR_LINE = '\x1b[K';

export class Progress {
  /** plain: the last line written for each key (one drain, one key). */
  private readonly last = new Map<string, string>();
  /** tty: the progress line on the screen, if any. */
  private shown: string | undefined;

  constructor(
    private readonly stream: ProgressStream,
    readonly mode: ProgressMode,
  ) {}

  /** The progress of `key` (a node) is now `line`: shown in place, or written when it changed. */
  update(key: string, line: string): void {
    if (this.mode === 'plain') {
      if (this.last.get(key) === line) return;
      this.last.set(key, line);
      this.stream.write(`${line}\n`);
      return;
    }
    const width = this.stream.columns;
    const fitted = width !== undefined && width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
    if (this.shown === fitted) return;
    this.stream.write(`\r${fitted}${CLEAR_LINE}`);
    this.shown = fitted;
  }

  /** A line that stays (a drain starting or ending): the updating line is cleared first. */
  print(line: string): void {
    this.clear();
    this.stream.write(`${line}\n`);
  }

  /** The drain of `key` has ended: its line goes (tty), and its next update would be written anew (plain). */
  end(key: string): void {
    this.last.delete(key);
    this.clear();
  }

  /** Clears the updating line (tty): before other output, and at the end. */
  clear(): void {
    if (this.shown === undefined) return;
    this.stream.write(`\r${CLEAR_LINE}`);
    this.shown = undefined;
  }
}
