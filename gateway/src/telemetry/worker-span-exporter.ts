import { Worker } from 'node:worker_threads';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** What the sender thread starts with. */
export interface SenderSettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
}

/** One serialized batch on its way to the sender thread. */
export interface ExportRequest {
  id: number;
  body: Uint8Array;
  spanCount: number;
}

/** The sender thread's answer to one batch: the exporter's result, its error as text. */
export interface ExportSettled {
  id: number;
  code: ExportResultCode;
  error?: string;
}

/**
 * An OTLP/HTTP (protobuf) span exporter whose HTTP client runs on a worker thread
 * (telemetry/otlp-sender-thread.ts). On the request thread it only serializes a batch and posts
 * the bytes: an HTTP client there shares Node's HTTP machinery with the server, and its
 * differently shaped requests and sockets slow every request the server answers, traced or not.
 * The thread never keeps the process alive (the batch processor's export timer does while a batch
 * is out); a crashed thread fails its batches and the next batch starts a new one.
 */
export class WorkerSpanExporter implements SpanExporter {
  readonly #settings: SenderSettings;
  readonly #inFlight = new Map<number, (result: ExportResult) => void>();
  readonly #drained: Array<() => void> = [];
  #sender: Worker | undefined;
  #nextId = 0;
  #stopped = false;

  constructor(settings: SenderSettings) {
    this.#settings = settings;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.#stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('the span exporter is shut down') });
      return;
    }
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    if (body === undefined) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('the span batch could not be serialized') });
      return;
    }
    const sender = this.#startedSender();
    const request: ExportRequest = { id: this.#nextId++, body, spanCount: spans.length };
    this.#inFlight.set(request.id, resultCallback);
    sender.postMessage(request);
  }

  forceFlush(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    await this.forceFlush();
    await this.#sender?.terminate();
  }

  #startedSender(): Worker {
    if (this.#sender) return this.#sender;
    const sender = new Worker(new URL('./otlp-sender-thread.js', import.meta.url), { workerData: this.#settings });
    sender.unref();
    sender.on('message', ({ id, code, error }: ExportSettled) => {
      this.#settle(id, { code, error: error === undefined ? undefined : new Error(error) });
    });
    const lost = (error: Error) => {
      if (this.#sender !== sender) return;
      this.#sender = undefined;
      for (const id of [...this.#inFlight.keys()]) this.#settle(id, { code: ExportResultCode.FAILED, error });
    };
    sender.on('error', lost);
    sender.on('exit', (exitCode) => lost(new Error(`the span sender thread exited (code ${exitCode})`)));
    this.#sender = sender;
    return sender;
  }

  #settle(id: number, result: ExportResult): void {
    const resultCallback = this.#inFlight.get(id);
    if (!resultCallback) return;
    this.#inFlight.delete(id);
    if (this.#inFlight.size === 0) for (const resolve of this.#drained.splice(0)) resolve();
    resultCallback(result);
  }
}
