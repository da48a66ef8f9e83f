/**
 * What a command writes. Two modes:
 *   - for people: results as text on stdout, notes on stderr, a progress bar on stderr only when stderr is a
 *     terminal (redrawn in place with a carriage return), a realtime draft on one stdout line only when stdout is one;
 *   - `--json`: machine-readable output only on stdout (one JSON document, or one JSON object a line for the
 *     commands that stream), no notes, no bars, no drafts; nothing else ever goes to stdout.
 */
import type { Writable } from 'node:stream';

type Stream = Writable & { isTTY?: boolean; columns?: number };

const BAR_WIDTH = 24;
const CLEAR_LINE = '\r\x1b[2K';

export class ProgressBar {
  private shown = '';

  constructor(private readonly stream: Stream) {}

  /** Redraws the line when what it shows changed: `label [#####-----]  45%  detail`. */
  update(label: string, fraction: number | null, detail = ''): void {
    const clamped = fraction === null ? null : Math.max(0, Math.min(1, fraction));
    const bar = clamped === null ? '' : ` [${'#'.repeat(Math.round(clamped * BAR_WIDTH)).padEnd(BAR_WIDTH, '-')}] `
      + `${String(Math.floor(clamped * 100)).padStart(3)}%`;
    const line = `${label}${bar}${detail ? `  ${detail}` : ''}`;
    if (line === this.shown) return;
    this.shown = line;
    this.stream.write(`${CLEAR_LINE}${line.slice(0, (this.stream.columns || 120) - 1)}`);
  }

  /** Leaves the last frame on screen and moves to the next line. */
  done(): void {
    if (this.shown) this.stream.write('\n');
    this.shown = '';
  }
}

export class Output {
  private draftShown = false;

  constructor(
    readonly json: boolean,
    private readonly stdout: Stream = process.stdout,
    private readonly stderr: Stream = process.stderr,
  ) {}

  /** Whether a person watches stderr: progress bars and prompts only then. */
  get interactive(): boolean {
    return !this.json && this.stderr.isTTY === true;
  }

  /** The command's result: one JSON document with `--json`, else the text given (when there is any). */
  result(document: unknown, text?: string | string[]): void {
    if (this.json) this.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    else if (text !== undefined) this.print(text);
  }

  /** One JSON object on a line (streaming commands with `--json`). */
  jsonLine(value: unknown): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** Lines of text on stdout, for people (nothing with `--json`). */
  print(text: string | string[]): void {
    if (this.json) return;
    this.clearDraft();
    const lines = Array.isArray(text) ? text : [text];
    if (lines.length) this.stdout.write(`${lines.join('\n')}\n`);
  }

  /** Bytes or text as they are (an export written to stdout). */
  raw(data: Uint8Array | string): Promise<void> {
    return new Promise((resolve, reject) => this.stdout.write(data, (error) => (error ? reject(error) : resolve())));
  }

  get stdoutIsTerminal(): boolean {
    return this.stdout.isTTY === true;
  }

  /** A note on stderr (what happens next, where a file went); nothing with `--json`. */
  note(text: string): void {
    if (!this.json) this.stderr.write(`${text}\n`);
  }

  /** A progress bar on stderr, or null when nobody watches it. */
  progress(): ProgressBar | null {
    return this.interactive ? new ProgressBar(this.stderr) : null;
  }

  /** A realtime session's tail, redrawn on one stdout line; only on a terminal, never with `--json`. */
  draft(text: string): void {
    if (this.json || !this.stdoutIsTerminal) return;
    if (!text) {
      this.clearDraft();
      return;
    }
    const width = (this.stdout.columns || 100) - 3;
    this.stdout.write(`${CLEAR_LINE}\x1b[2m… ${text.length > width ? text.slice(-width) : text}\x1b[0m`);
    this.draftShown = true;
  }

  clearDraft(): void {
    if (!this.draftShown) return;
    this.stdout.write(CLEAR_LINE);
    this.draftShown = false;
  }

  /** The error's line on stderr, and with `--json` its document on stdout. */
  error(line: string, document: unknown): void {
    this.clearDraft();
    if (this.json) this.stdout.write(`${JSON.stringify(document)}\n`);
    this.stderr.write(`speechgate: ${line}\n`);
  }
}

/** A table of columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const format = (row: string[]) => row.map(
    (cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)),
  ).join('  ').trimEnd();
  return [format(header), ...rows.map(format)];
}

/** An RFC 3339 time as `2026-11-24 11:05` (UTC), or `-`. */
export function shortTime(value: string | null | undefined): string {
  return value ? value.replace('T', ' ').slice(0, 16) : '-';
}
