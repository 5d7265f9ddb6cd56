import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { FileLoadReport } from './load-report.js';

/** Follows a load file by file: bytes done, rows loaded, and the finished file's counts. */
export interface LoadProgress {
  fileStarted(file: string, totalBytes: number): void;
  advanced(bytesDone: number, rowsLoaded: number): void;
  fileFinished(report: FileLoadReport): void;
  stop(): void;
}

/** A live bar per file on a terminal: percentage, MB done, rows/s and ETA. */
class TerminalProgress implements LoadProgress {
  private readonly bar = new cliProgress.SingleBar(
    {
      format: '{file} [{bar}] {percentage}% | {doneMb}/{totalMb} MB | {rate} rows/s | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  private startedAt = 0;
  private file = '';
  private totalBytes = 0;

  fileStarted(file: string, totalBytes: number): void {
    this.file = file;
    this.totalBytes = totalBytes;
    this.startedAt = performance.now();
    this.bar.start(Math.max(totalBytes, 1), 0, this.payload(0, 0));
  }

  advanced(bytesDone: number, rowsLoaded: number): void {
    this.bar.update(bytesDone, this.payload(bytesDone, rowsLoaded));
  }

  fileFinished(report: FileLoadReport): void {
    this.bar.update(Math.max(this.totalBytes, 1), this.payload(report.bytes, report.records.loaded));
    this.bar.stop();
  }

  stop(): void {
    this.bar.stop();
  }

  private payload(bytesDone: number, rowsLoaded: number) {
    const seconds = Math.max((performance.now() - this.startedAt) / 1000, 0.001);
    return {
      file: this.file.padEnd(12),
      doneMb: (bytesDone / 1e6).toFixed(1),
      totalMb: (this.totalBytes / 1e6).toFixed(1),
      rate: Math.round(rowsLoaded / seconds),
    };
  }
}

const LOG_EVERY_MS = 5000;

/** Plain structured log lines (pino) when stdout is not a terminal, e.g. in a Kubernetes Job. */
class LogProgress implements LoadProgress {
  private file = '';
  private totalBytes = 0;
  private startedAt = 0;
  private loggedAt = 0;

  constructor(private readonly logger: Logger) {}

  fileStarted(file: string, totalBytes: number): void {
    this.file = file;
    this.totalBytes = totalBytes;
    this.startedAt = this.loggedAt = performance.now();
    this.logger.info({ file, bytes: totalBytes }, 'loading file');
  }

  advanced(bytesDone: number, rowsLoaded: number): void {
    const now = performance.now();
    if (now - this.loggedAt < LOG_EVERY_MS) return;
    this.loggedAt = now;
    const seconds = (now - this.startedAt) / 1000;
    const bytesPerSecond = bytesDone / seconds;
    this.logger.info(
      {
        file: this.file,
        bytesDone,
        totalBytes: this.totalBytes,
        rowsLoaded,
        rowsPerSecond: Math.round(rowsLoaded / seconds),
        etaSeconds: Math.round((this.totalBytes - bytesDone) / Math.max(bytesPerSecond, 1)),
      },
      'load progress',
    );
  }

  fileFinished(report: FileLoadReport): void {
    this.logger.info(
      { file: report.file, lines: report.lines, rejectedByReason: report.rejectedByReason, seconds: report.seconds },
      'file loaded',
    );
  }

  stop(): void {}
}

export function createLoadProgress(logger: Logger, onTerminal: boolean): LoadProgress {
  return onTerminal ? new TerminalProgress() : new LogProgress(logger);
}
