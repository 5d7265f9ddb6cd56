import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

const FLUSH_AT_CHARS = 1 << 16;

/**
 * Collects small appends into ~64 KB chunks and, once a chunk is full, hands it to the file
 * and waits for 'drain' if the stream is behind: generating 1M products takes no more memory
 * than generating 100k.
 */
export class BufferedFileWriter {
  private readonly stream: WriteStream;
  private pending = '';

  constructor(path: string) {
    this.stream = createWriteStream(path);
  }

  append(text: string): void {
    this.pending += text;
  }

  /** Writes the buffer out once it is full; resolves when the file can take more. */
  async drainIfFull(): Promise<void> {
    if (this.pending.length < FLUSH_AT_CHARS) return;
    const chunk = this.pending;
    this.pending = '';
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  /** Flushes what is left and resolves once the file is closed, with its size in bytes. */
  async close(): Promise<number> {
    this.stream.end(this.pending);
    this.pending = '';
    await finished(this.stream);
    return this.stream.bytesWritten;
  }
}
