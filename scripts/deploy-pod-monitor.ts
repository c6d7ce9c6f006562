/**
 * The prometheus-operator PodMonitor in k8s/monitoring: that it scrapes the API's and the
 * worker's /metrics on their container ports and sends METRICS_TOKEN from a Secret. Annotation
 * scraping cannot send a token, so the PodMonitor is the one way the metrics are collected
 * once METRICS_TOKEN is set. Its schema is not in `kubernetes-models`: the fields used are
 * checked by name here (a misspelt one would be dropped by the API server without a word).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { fail, get, isObj, problems, type Obj } from './deploy-problems';

const SPEC_FIELDS = ['selector', 'namespaceSelector', 'podMetricsEndpoints', 'jobLabel', 'podTargetLabels', 'sampleLimit'];
const ENDPOINT_FIELDS = ['port', 'path', 'interval', 'scrapeTimeout', 'scheme', 'authorization', 'bearerTokenSecret', 'relabelings', 'metricRelabelings', 'honorLabels'];

/** Whether `endpoint` sends METRICS_TOKEN from a Secret (authorization, or the older bearerTokenSecret). */
function tokenSecret(endpoint: Obj): string | undefined {
  const credentials = get(endpoint, 'authorization', 'credentials') ?? endpoint.bearerTokenSecret;
  if (get(endpoint, 'authorization') !== undefined && get(endpoint, 'authorization', 'type') !== 'Bearer') return undefined;
  return isObj(credentials) && credentials.key === 'METRICS_TOKEN' ? String(credentials.name) : undefined;
}

/**
 * @param overlays each built overlay's objects, whose Deployments' pods the PodMonitor must select
 * @param externalSecrets per overlay, the Secrets created outside git (documented to hold METRICS_TOKEN)
 */
export function validatePodMonitors(root: string, overlays: Record<string, Obj[]>, externalSecrets: Record<string, string[]>): void {
  const dir = join(root, 'k8s/monitoring');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const where = `k8s/monitoring/${f}`;
    const monitors = parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Obj).filter((o) => isObj(o) && o.kind === 'PodMonitor');
    for (const m of monitors) {
      const before = problems.length;
      const id = `PodMonitor/${String(get(m, 'metadata', 'name'))}`;
      if (m.apiVersion !== 'monitoring.coreos.com/v1') fail(where, `${id}: apiVersion must be monitoring.coreos.com/v1`);
      if (get(m, 'metadata', 'namespace') !== 'engram') fail(where, `${id}: must be in the namespace engram, beside the Secret it reads`);
      for (const key of Object.keys((m.spec ?? {}) as Obj)) if (!SPEC_FIELDS.includes(key)) fail(where, `${id}: unknown field spec.${key}`);
      const selector = get(m, 'spec', 'selector', 'matchLabels');
      const endpoints = (get(m, 'spec', 'podMetricsEndpoints') ?? []) as Obj[];
      for (const [i, e] of endpoints.entries()) {
        for (const key of Object.keys(e)) if (!ENDPOINT_FIELDS.includes(key)) fail(where, `${id}: unknown field podMetricsEndpoints[${i}].${key}`);
        if (e.path !== '/metrics') fail(where, `${id}: podMetricsEndpoints[${i}] must scrape /metrics`);
        if (!tokenSecret(e)) fail(where, `${id}: podMetricsEndpoints[${i}] must send METRICS_TOKEN as a bearer token from a Secret (authorization.credentials key METRICS_TOKEN)`);
      }
      for (const [overlay, objects] of Object.entries(overlays)) {
        for (const name of ['engram-api', 'engram-worker']) {
          const d = objects.find((o) => o.kind === 'Deployment' && get(o, 'metadata', 'name') === name);
          const labels = get(d, 'spec', 'template', 'metadata', 'labels');
          if (!isObj(selector) || !isObj(labels) || !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
            fail(where, `${id}: does not select the pods of Deployment/${name} (k8s/overlays/${overlay})`);
          }
          const ports = ((get(d, 'spec', 'template', 'spec', 'containers') ?? []) as Obj[]).flatMap((c) => ((c.ports ?? []) as Obj[]).map((p) => p.name));
          if (!endpoints.some((e) => ports.includes(e.port))) fail(where, `${id}: no endpoint scrapes a port of Deployment/${name} of k8s/overlays/${overlay} (its ports: ${ports.join(', ')})`);
        }
        for (const secret of new Set(endpoints.map(tokenSecret).filter((s): s is string => s !== undefined))) {
          const built = objects.find((o) => o.kind === 'Secret' && get(o, 'metadata', 'name') === secret);
          const hasKey = built && (get(built, 'stringData', 'METRICS_TOKEN') !== undefined || get(built, 'data', 'METRICS_TOKEN') !== undefined);
          if (!hasKey && !(externalSecrets[overlay] ?? []).includes(secret)) fail(where, `${id}: Secret ${secret} of k8s/overlays/${overlay} has no METRICS_TOKEN`);
        }
      }
      if (problems.length === before) console.log(`ok   ${where}: ${id} scrapes the API and worker pods of every overlay with METRICS_TOKEN from a Secret`);
    }
  }
}
