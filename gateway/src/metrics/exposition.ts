import Negotiator from 'negotiator';
import { Counter, Registry, type RegistryContentType } from 'prom-client';

const OPENMETRICS = 'application/openmetrics-text';
/** What can be asked for, as scrapers name it (parameters included: an Accept with `version=…` matches only those); text first on a tie. */
const FORMATS = ['text/plain; version=0.0.4', `${OPENMETRICS}; version=1.0.0`, `${OPENMETRICS}; version=0.0.1`];

export interface Exposition {
  contentType: string;
  body: string;
}

/**
 * The metrics as the scraper asks for them: OpenMetrics (the only format with exemplars: trace
 * ids on the latency histograms) when its Accept header prefers `application/openmetrics-text`,
 * as Prometheus's does; the Prometheus text format otherwise.
 *
 * prom-client renders a registry in the one format it is set to, and renaming its counters for
 * OpenMetrics (`_total` moves from the name to the samples) changes them in place: each rendering
 * sets the format it needs, and puts the format and the counters' names back before the next one
 * starts.
 */
export class MetricsExposition {
  private rendering: Promise<unknown> = Promise.resolve();
  private readonly registry: Registry<RegistryContentType>;
  /** The format the registry was made for (an OpenMetrics one keeps exemplars). */
  private readonly madeFor: RegistryContentType;

  constructor(registry: Registry) {
    this.registry = registry as Registry<RegistryContentType>;
    this.madeFor = this.registry.contentType;
  }

  render(accept: string | undefined): Promise<Exposition> {
    const openMetrics = new Negotiator({ headers: { accept } }).mediaType(FORMATS)?.startsWith(OPENMETRICS) === true;
    const rendered = this.rendering.then(() => (openMetrics ? this.renderOpenMetrics() : this.renderIn(Registry.PROMETHEUS_CONTENT_TYPE)));
    this.rendering = rendered.catch(() => undefined);
    return rendered;
  }

  private async renderOpenMetrics(): Promise<Exposition> {
    const counters = this.registry.getMetricsAsArray().filter((metric) => metric instanceof Counter);
    const names = counters.map((counter) => counter.name);
    try {
      return await this.renderIn(Registry.OPENMETRICS_CONTENT_TYPE);
    } finally {
      counters.forEach((counter, index) => Object.assign(counter, { name: names[index] }));
    }
  }

  private async renderIn(contentType: RegistryContentType): Promise<Exposition> {
    this.registry.setContentType(contentType);
    try {
      return { contentType, body: await this.registry.metrics() };
    } finally {
      this.registry.setContentType(this.madeFor);
    }
  }
}
