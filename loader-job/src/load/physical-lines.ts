import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * Reads a file as batches of physical lines (split on LF, line ends removed, a trailing line
 * without LF included and flagged). Batches rather than single lines keep per-line overhead out of a
 * 26M-line load; the caller numbers lines by counting.
 */
export class PhysicalLineReader {
  bytesRead = 0;
  /** Whether the file started with a UTF-8 byte order mark, which is dropped. */
  hadByteOrderMark = false;
  /**
   * Set just before the last batch when the file's last line has no line end: the file was cut
   * short (an interrupted copy), so that line may be missing its end. That batch is that line alone.
   */
  lastLineUnterminated = false;

  constructor(private readonly path: string) {}

  async *batches(): AsyncGenerator<string[]> {
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let first = true;
    for await (const chunk of createReadStream(this.path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      this.bytesRead += chunk.length;
      let text = carry + decoder.write(chunk);
      if (first && text.length > 0) {
        first = false;
        if (text.startsWith(BYTE_ORDER_MARK)) {
          this.hadByteOrderMark = true;
          text = text.slice(1);
        }
      }
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      if (lines.length > 0) yield lines;
    }
    const rest = carry + decoder.end();
    if (rest.length > 0) {
      this.lastLineUnterminated = true;
      yield [rest];
    }
  }
}
