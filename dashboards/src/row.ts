import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';

/** One titled row of the dashboard and the panels under it. */
export interface DashboardRow {
  title: string;
  panels: cog.Builder<dashboard.Panel>[];
}
