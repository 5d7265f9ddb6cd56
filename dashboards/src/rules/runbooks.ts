// Every alert links to its runbook: a section of the repository README named after the alert
// (what it means, what to look at first, what to do). dashboards/test/runbooks.test.ts checks
// that each alert has one and that its anchor exists.
import type { AlertingRule, RecordingRule, RuleGroup } from './types.js';

/** Where the README is published; a fork or an internal mirror replaces it (`npm run dashboards` after). */
export const RUNBOOK_BASE_URL = 'https://github.com/catalog-gateway/catalog-gateway/blob/main/README.md';

/** The README heading an alert's runbook stands under is the alert's name: its anchor, as GitHub makes it. */
export const runbookAnchor = (alert: string): string => alert.toLowerCase();

const isAlert = (rule: AlertingRule | RecordingRule): rule is AlertingRule => 'alert' in rule;

/** `groups` with every alert's `runbook_url` annotation set. */
export function withRunbooks(groups: readonly RuleGroup[]): RuleGroup[] {
  return groups.map((group) => ({
    ...group,
    rules: group.rules.map((rule) =>
      isAlert(rule)
        ? { ...rule, annotations: { ...rule.annotations, runbook_url: `${RUNBOOK_BASE_URL}#${runbookAnchor(rule.alert)}` } }
        : rule,
    ),
  }));
}
