import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import {
  LegendDisplayMode,
  LegendPlacement,
  SortOrder,
  TooltipDisplayMode,
  VizLegendOptionsBuilder,
  VizTooltipOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { quantile } from './queries.js';

/** Every panel and variable reads the data source picked in the `datasource` variable. */
export const DATASOURCE: dashboard.DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

export interface Query {
  expr: string;
  legend: string;
  /** Show the exemplars of the query's histogram: points that open their request's trace. */
  exemplars?: boolean;
}

export interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  queries: Query[];
  /** Grid columns out of 24. */
  width?: number;
}

const HEIGHT = 8;
const DEFAULT_WIDTH = 8;
const REF_IDS = 'ABCDEFGHIJ';

function targets(queries: Query[]): DataqueryBuilder[] {
  return queries.map((query, index) => {
    const target = new DataqueryBuilder()
      .datasource(DATASOURCE)
      .refId(REF_IDS[index] ?? `Q${index}`)
      .expr(query.expr)
      .legendFormat(query.legend)
      .range();
    return query.exemplars ? target.exemplar(true) : target;
  });
}

export function timeseriesPanel(spec: PanelSpec): timeseries.PanelBuilder {
  return new timeseries.PanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .unit(spec.unit)
    .min(0)
    .height(HEIGHT)
    .span(spec.width ?? DEFAULT_WIDTH)
    .fillOpacity(10)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom).calcs([]))
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.Descending))
    .targets(targets(spec.queries));
}

/**
 * p50 / p95 / p99 of a latency histogram, one line per quantile and `by` group. The p95 query
 * shows the histogram's exemplars (traced requests, while the gateway traces): a point opens its
 * trace through the Prometheus data source's exemplar link.
 */
export function latencyQuantilesPanel(spec: Omit<PanelSpec, 'queries' | 'unit'> & { histogram: string; selector: string; by: string }) {
  return timeseriesPanel({
    ...spec,
    unit: 's',
    queries: [0.5, 0.95, 0.99].map((q) => ({
      expr: quantile(q, spec.histogram, spec.selector, [spec.by]),
      legend: `{{${spec.by}}} p${Math.round(q * 100)}`,
      exemplars: q === 0.95,
    })),
  });
}

export function statPanel(spec: PanelSpec): stat.PanelBuilder {
  return new stat.PanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .unit(spec.unit)
    .height(HEIGHT)
    .span(spec.width ?? DEFAULT_WIDTH)
    .targets(targets(spec.queries));
}
