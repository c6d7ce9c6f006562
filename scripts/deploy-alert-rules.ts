/** The Prometheus alert rules in k8s/monitoring: their file structure, and the metrics Engram exports. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { fail, get, problems, type Obj } from './deploy-problems';

/** Metric families Engram exports (docs/admin.md, "Metrics"), and the standard ones the rules may use. */
const KNOWN_METRICS = [
  'engram_http_request_duration_seconds', 'engram_queue_jobs', 'engram_job_duration_seconds', 'engram_jobs_completed_total',
  'engram_jobs_failed_total', 'engram_memories', 'engram_memories_forgotten', 'engram_memories_soft_forgotten_total',
  'engram_memories_evicted_total', 'engram_process_', 'engram_nodejs_', 'up', 'kube_',
];

export function validateAlertRules(root: string): void {
  const dir = join(root, 'k8s/monitoring');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const where = `k8s/monitoring/${f}`;
    const before = problems.length;
    const doc = parse(readFileSync(join(dir, f), 'utf8')) as Obj;
    // Other objects here (the PodMonitor) are checked by deploy-pod-monitor.ts.
    if (doc.kind !== undefined && doc.kind !== 'PrometheusRule') continue;
    // A PrometheusRule (prometheus-operator) holds the rule file under spec; a plain rule file at the top.
    const groups = (doc.kind === 'PrometheusRule' ? get(doc, 'spec', 'groups') : doc.groups) as Obj[] | undefined;
    if (!Array.isArray(groups) || groups.length === 0) fail(where, 'no rule groups');
    let count = 0;
    for (const g of groups ?? []) {
      for (const r of (g.rules ?? []) as Obj[]) {
        count += 1;
        const id = `${where} ${String(r.alert)}`;
        if (typeof r.alert !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(r.alert)) fail(where, `rule ${count}: alert must be a name`);
        if (typeof r.expr !== 'string' || r.expr.trim() === '') fail(id, 'expr is empty');
        if (r.for !== undefined && !/^(\d+(ms|s|m|h|d|w|y))+$/.test(String(r.for))) fail(id, `for is not a duration: ${String(r.for)}`);
        if (!['critical', 'warning', 'info'].includes(String(get(r, 'labels', 'severity')))) fail(id, 'labels.severity must be critical, warning or info');
        if (!get(r, 'annotations', 'summary') || !get(r, 'annotations', 'runbook')) fail(id, 'needs annotations summary and runbook');
        for (const m of String(r.expr).matchAll(/\b([a-z_][a-z0-9_]*)(?=\s*[{[(]|\s*$|\s*[<>=!)])/g)) {
          const metric = m[1] as string;
          if (!metric.startsWith('engram_') && !['up'].includes(metric)) continue;
          const base = metric.replace(/_(bucket|sum|count)$/, '');
          if (!KNOWN_METRICS.some((k) => (k.endsWith('_') ? base.startsWith(k) : base === k))) fail(id, `unknown metric ${metric}`);
        }
      }
    }
    if (problems.length === before) console.log(`ok   ${where}: ${count} alert rules, well-formed, on metrics Engram exports`);
  }
}
