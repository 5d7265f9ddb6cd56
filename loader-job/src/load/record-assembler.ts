import { splitCsvRecord } from './csv-record.js';

/** A quoted field may run over this many physical lines before its quote counts as unterminated. */
const MAX_RECORD_LINES = 100;
const MAX_RECORD_CHARS = 1 << 20;

export type UnparsableReason = 'unterminated quote' | 'malformed quoting' | 'truncated';

export interface RecordSink {
  record(fields: string[], firstLine: number, lastLine: number, raw: string): void;
  unparsable(line: number, raw: string, reason: UnparsableReason, detail: string, endLine?: number): void;
}

/**
 * Turns physical lines into CSV records. A record continues onto the next line only while a
 * quoted field is open; if that multi-line candidate never closes, or closes into something
 * that is not a plausible record, only its first line is quarantined and parsing resumes on
 * the line after it, so one broken quote never swallows the good lines that follow.
 */
export class RecordAssembler {
  private pending: string[] = [];
  private pendingFirstLine = 0;
  /** The file's last line when it has no line end: whatever record reaches it was cut short. */
  private cutLine = Infinity;

  constructor(
    /** Whether a multi-line candidate has a plausible field count for this file. */
    private readonly plausible: (fields: string[]) => boolean,
    private readonly sink: RecordSink,
  ) {}

  /** Feeds the next physical line (without its line end). */
  line(text: string, number: number): void {
    if (this.pending.length > 0) {
      this.pending.push(text);
      this.resolvePending(false);
      return;
    }
    const result = splitCsvRecord(text);
    if (result.status === 'complete') this.emit(result.fields, number, number, text);
    else if (result.status === 'malformed') this.quarantine(number, number, text, 'malformed quoting', result.detail);
    else {
      this.pending = [text];
      this.pendingFirstLine = number;
    }
  }

  /**
   * Feeds the file's last line when it has no line end, then settles the file. A complete export
   * ends every line with LF; without it the file was most likely cut mid-record (a number cut
   * short still parses), so the record holding this line is quarantined as truncated, never stored.
   */
  lastLineWithoutEnd(text: string, number: number): void {
    this.cutLine = number;
    this.line(text, number);
    this.end();
  }

  /** Settles whatever is still open at the end of the file. */
  end(): void {
    while (this.pending.length > 0) this.resolvePending(true);
  }

  private emit(fields: string[], firstLine: number, lastLine: number, raw: string): void {
    if (lastLine >= this.cutLine)
      this.quarantine(firstLine, lastLine, raw, 'truncated', 'the file ends inside this record (no line end after it)');
    else this.sink.record(fields, firstLine, lastLine, raw);
  }

  private quarantine(firstLine: number, lastLine: number, raw: string, reason: UnparsableReason, detail: string): void {
    if (lastLine >= this.cutLine && reason !== 'truncated') {
      this.sink.unparsable(firstLine, raw, 'truncated', `the file ends inside this record (no line end after it): ${reason}`, lastLine);
    } else {
      this.sink.unparsable(firstLine, raw, reason, detail, lastLine);
    }
  }

  private resolvePending(atEnd: boolean): void {
    const joined = this.pending.join('\n');
    const result = splitCsvRecord(joined);
    if (result.status === 'open') {
      const withinLimits = this.pending.length < MAX_RECORD_LINES && joined.length < MAX_RECORD_CHARS;
      if (!atEnd && withinLimits) return;
    } else if (result.status === 'complete' && this.plausible(result.fields)) {
      const firstLine = this.pendingFirstLine;
      this.pending = [];
      this.emit(result.fields, firstLine, firstLine + this.countLines(joined), joined);
      return;
    }
    this.quarantineFirstLineAndReplay();
  }

  private countLines(joined: string): number {
    let newlines = 0;
    for (let at = joined.indexOf('\n'); at !== -1; at = joined.indexOf('\n', at + 1)) newlines++;
    return newlines;
  }

  private quarantineFirstLineAndReplay(): void {
    const [first, ...rest] = this.pending;
    const firstLine = this.pendingFirstLine;
    this.pending = [];
    this.quarantine(
      firstLine,
      firstLine,
      first ?? '',
      'unterminated quote',
      'the quote opened on this line never closes into a valid record',
    );
    rest.forEach((text, index) => this.line(text, firstLine + 1 + index));
  }
}
