/** Prometheus rule-file shapes (https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/). */
export interface RecordingRule {
  record: string;
  expr: string;
}

export interface AlertingRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: 'critical' | 'warning'; slo?: 'availability' | 'latency' };
  annotations: { summary: string; description: string; runbook_url?: string };
}

export interface RuleGroup {
  name: string;
  rules: (RecordingRule | AlertingRule)[];
}
