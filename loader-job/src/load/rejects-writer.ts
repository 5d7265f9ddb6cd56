import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

export interface RejectedRecord {
  readonly file: string;
  /** First physical line of the record (the header is line 1). */
  readonly line: number;
  /** Last physical line, when the record spans several. */
  readonly endLine?: number;
  readonly reason: string;
  readonly detail: string;
  /** The record's text exactly as read (line ends normalised to LF). */
  readonly raw: string;
}

/** The quarantine: one JSON object per rejected record (NDJSON), written as the load goes. */
export class RejectsWriter {
  private readonly stream: WriteStream;
  private pending = '';

  private constructor(
    readonly path: string,
    stream: WriteStream,
  ) {
    this.stream = stream;
  }

  /** Creates (truncates) the rejects file; fails here, before any loading, if it cannot be written. */
  static async create(path: string): Promise<RejectsWriter> {
    const stream = createWriteStream(path);
    await once(stream, 'open');
    return new RejectsWriter(path, stream);
  }

  add(record: RejectedRecord): void {
    this.pending += `${JSON.stringify(record)}\n`;
  }

  /** Hands buffered rejects to the file, waiting if it is behind. */
  async flush(): Promise<void> {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await finished(this.stream);
  }
}
