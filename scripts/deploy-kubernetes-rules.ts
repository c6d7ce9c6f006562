/**
 * Engram's rules for a built Kustomize overlay: non-root, read-only root file system with /tmp an
 * emptyDir, no privilege escalation, every capability dropped, resources, probes, that
 * Services, HPAs, PDBs, NetworkPolicies and Ingresses select or target what exists, that the
 * public Ingress routes only what tenants use, and that selectors hold only stable labels.
 */
import { fail, get, isObj, type Obj } from './deploy-problems';

/**
 * The only labels a selector may hold. A Deployment's selector is immutable: a label that may
 * change (an instance, a version, anything kustomize's commonLabels adds) would make every later
 * apply fail, so selectors keep to the app's name and component.
 */
const STABLE_SELECTOR_LABELS = ['app.kubernetes.io/name', 'app.kubernetes.io/component'];

/** Paths tenants use, which the public Ingress must route: the versioned API, MCP, the memory inspector. */
const TENANT_PATHS = ['/v1/memory', '/v1/auth/login', '/mcp', '/inspector', '/inspector/assets/chart.umd.min.js'];

/**
 * Paths for the operator only, which the public Ingress must not route: the BullMQ dashboard, the
 * metrics, the OpenAPI UI and document, the probes (apps/api/src: admin, metrics, create-app.ts
 * SwaggerModule.setup, health).
 */
const OPERATOR_PATHS = ['/', '/admin', '/admin/login', '/admin/queues/api/queues', '/metrics', '/docs', '/docs/', '/docs-json', '/health/live', '/health/ready'];

/** Annotations that restrict who reaches an Ingress (ingress-nginx: a source allow-list, or authentication). */
const RESTRICTING_ANNOTATIONS = [
  'nginx.ingress.kubernetes.io/whitelist-source-range',
  'nginx.ingress.kubernetes.io/auth-url',
  'nginx.ingress.kubernetes.io/auth-type',
];

/** Whether an Ingress path routes `url`, as the Ingress API defines Exact and Prefix (by whole `/` segments). */
export function ingressRoutes(path: Obj, url: string): boolean {
  const p = String(path.path ?? '/');
  if (path.pathType === 'Exact') return url === p;
  const base = p.replace(/\/+$/, '');
  // Prefix: element-wise; ImplementationSpecific: ingress-nginx's default is a plain string prefix.
  if (path.pathType === 'Prefix') return base === '' || url === base || url.startsWith(`${base}/`);
  return url.startsWith(p);
}

function matches(selector: unknown, labels: unknown): boolean {
  if (!isObj(selector) || !isObj(labels) || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function checkPod(where: string, id: string, pod: Obj, probes: { live?: string; ready?: string; tcp?: boolean }): void {
  const podSc = (pod.securityContext ?? {}) as Obj;
  const volumes = (pod.volumes ?? []) as Obj[];
  if (pod.automountServiceAccountToken !== false) fail(where, `${id}: automountServiceAccountToken must be false`);
  for (const c of (pod.containers ?? []) as Obj[]) {
    const cid = `${id} container ${String(c.name)}`;
    const sc = (c.securityContext ?? {}) as Obj;
    if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) fail(where, `${cid}: runAsNonRoot must be true`);
    if (sc.readOnlyRootFilesystem !== true) fail(where, `${cid}: readOnlyRootFilesystem must be true`);
    if (sc.allowPrivilegeEscalation !== false) fail(where, `${cid}: allowPrivilegeEscalation must be false`);
    const drop = get(sc, 'capabilities', 'drop');
    if (!Array.isArray(drop) || !drop.includes('ALL')) fail(where, `${cid}: capabilities.drop must include ALL`);
    const tmp = ((c.volumeMounts ?? []) as Obj[]).find((m) => m.mountPath === '/tmp');
    const tmpVolume = tmp && volumes.find((v) => v.name === tmp.name);
    if (!tmpVolume || !isObj(tmpVolume.emptyDir)) fail(where, `${cid}: /tmp must be an emptyDir`);
    if (!get(c, 'resources', 'requests', 'cpu') || !get(c, 'resources', 'requests', 'memory') || !get(c, 'resources', 'limits', 'memory')) {
      fail(where, `${cid}: needs cpu and memory requests and a memory limit`);
    }
    if (probes.live && get(c, 'livenessProbe', 'httpGet', 'path') !== probes.live) fail(where, `${cid}: livenessProbe must GET ${probes.live}`);
    if (probes.ready && get(c, 'readinessProbe', 'httpGet', 'path') !== probes.ready) fail(where, `${cid}: readinessProbe must GET ${probes.ready}`);
    if (probes.tcp && !isObj(get(c, 'livenessProbe', 'tcpSocket'))) fail(where, `${cid}: needs a livenessProbe`);
  }
}

export function validateEngramRules(where: string, objects: Obj[], externalSecrets: string[]): void {
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const name = (o: Obj) => String(get(o, 'metadata', 'name'));
  const need = (kind: string, n: string) => {
    if (!objects.some((o) => o.kind === kind && name(o) === n)) fail(where, `missing ${kind}/${n}`);
  };
  for (const [kind, n] of [
    ['Namespace', 'engram'], ['ConfigMap', 'engram-config'], ['Job', 'engram-migrate'],
    ['Deployment', 'engram-api'], ['Service', 'engram-api'], ['Ingress', 'engram-api'], ['Ingress', 'engram-internal'],
    ['HorizontalPodAutoscaler', 'engram-api'], ['PodDisruptionBudget', 'engram-api'],
    ['Deployment', 'engram-worker'], ['HorizontalPodAutoscaler', 'engram-worker'], ['NetworkPolicy', 'engram-default-deny'],
  ] as const) need(kind, n);

  const deployments = byKind('Deployment');
  for (const d of deployments) {
    const pod = get(d, 'spec', 'template', 'spec') as Obj;
    const isApi = name(d) === 'engram-api';
    checkPod(where, `Deployment/${name(d)}`, pod, isApi ? { live: '/health/live', ready: '/health/ready' } : { tcp: true });
    if (!matches(get(d, 'spec', 'selector', 'matchLabels'), get(d, 'spec', 'template', 'metadata', 'labels'))) fail(where, `Deployment/${name(d)}: selector does not match its pods`);
  }
  for (const j of byKind('Job')) checkPod(where, `Job/${name(j)}`, get(j, 'spec', 'template', 'spec') as Obj, {});

  const podLabels = [...deployments, ...byKind('Job')].map((o) => get(o, 'spec', 'template', 'metadata', 'labels'));
  for (const s of byKind('Service')) if (!podLabels.some((l) => matches(get(s, 'spec', 'selector'), l))) fail(where, `Service/${name(s)} selects no pods`);
  for (const p of byKind('PodDisruptionBudget')) if (!podLabels.some((l) => matches(get(p, 'spec', 'selector', 'matchLabels'), l))) fail(where, `PodDisruptionBudget/${name(p)} selects no pods`);
  for (const n of byKind('NetworkPolicy')) {
    const sel = get(n, 'spec', 'podSelector', 'matchLabels');
    if (isObj(sel) && Object.keys(sel).length > 0 && !podLabels.some((l) => matches(sel, l))) fail(where, `NetworkPolicy/${name(n)} selects no pods`);
  }
  for (const h of byKind('HorizontalPodAutoscaler')) {
    const target = String(get(h, 'spec', 'scaleTargetRef', 'name'));
    if (!deployments.some((d) => name(d) === target)) fail(where, `HorizontalPodAutoscaler/${name(h)} targets a missing Deployment ${target}`);
  }
  for (const i of byKind('Ingress')) {
    for (const rule of (get(i, 'spec', 'rules') ?? []) as Obj[]) {
      for (const path of (get(rule, 'http', 'paths') ?? []) as Obj[]) {
        const svc = String(get(path, 'backend', 'service', 'name'));
        if (!byKind('Service').some((s) => name(s) === svc)) fail(where, `Ingress/${name(i)} routes to a missing Service ${svc}`);
      }
    }
  }
  // The public entry routes only what tenants use; the rest is behind the operator's entry, a
  // host of its own with a source allow-list or authentication (k8s/base/api-ingress.yaml).
  const ingress = (n: string) => byKind('Ingress').find((i) => name(i) === n);
  const rulesOf = (i: Obj | undefined) => (get(i, 'spec', 'rules') ?? []) as Obj[];
  const publicIngress = ingress('engram-api');
  const publicPaths = rulesOf(publicIngress).flatMap((r) => (get(r, 'http', 'paths') ?? []) as Obj[]);
  if (get(publicIngress, 'spec', 'defaultBackend') !== undefined) fail(where, 'Ingress/engram-api: a defaultBackend would route every path publicly');
  for (const url of OPERATOR_PATHS) {
    if (publicPaths.some((p) => ingressRoutes(p, url))) fail(where, `Ingress/engram-api routes ${url} publicly; it belongs to the operator's entry (engram-internal)`);
  }
  for (const url of TENANT_PATHS) {
    if (!publicPaths.some((p) => ingressRoutes(p, url))) fail(where, `Ingress/engram-api does not route ${url}, which tenants use`);
  }
  const internal = ingress('engram-internal');
  const annotations = (get(internal, 'metadata', 'annotations') ?? {}) as Obj;
  if (internal && !RESTRICTING_ANNOTATIONS.some((a) => typeof annotations[a] === 'string' && annotations[a] !== '')) {
    fail(where, `Ingress/engram-internal needs a source allow-list or authentication (${RESTRICTING_ANNOTATIONS.join(', ')})`);
  }
  const publicHosts = new Set(rulesOf(publicIngress).map((r) => r.host));
  for (const r of rulesOf(internal)) {
    // ingress-nginx merges Ingresses of one host: the operator's paths would then sit on the public host.
    if (r.host === undefined || publicHosts.has(r.host)) fail(where, `Ingress/engram-internal must have a host of its own (not ${String(r.host)})`);
  }

  // Selectors hold only stable labels.
  const selectors: [string, unknown][] = [
    ...deployments.flatMap((d): [string, unknown][] => [
      [`Deployment/${name(d)} spec.selector`, get(d, 'spec', 'selector', 'matchLabels')],
      ...((get(d, 'spec', 'template', 'spec', 'topologySpreadConstraints') ?? []) as Obj[]).map((t): [string, unknown] => [`Deployment/${name(d)} topologySpreadConstraints`, get(t, 'labelSelector', 'matchLabels')]),
    ]),
    ...byKind('Service').map((o): [string, unknown] => [`Service/${name(o)}`, get(o, 'spec', 'selector')]),
    ...byKind('PodDisruptionBudget').map((o): [string, unknown] => [`PodDisruptionBudget/${name(o)}`, get(o, 'spec', 'selector', 'matchLabels')]),
    ...byKind('NetworkPolicy').map((o): [string, unknown] => [`NetworkPolicy/${name(o)}`, get(o, 'spec', 'podSelector', 'matchLabels')]),
  ];
  for (const [id, selector] of selectors) {
    const changeable = Object.keys(isObj(selector) ? selector : {}).filter((k) => !STABLE_SELECTOR_LABELS.includes(k));
    if (changeable.length > 0) fail(where, `${id} selects on ${changeable.join(', ')}: selectors hold only ${STABLE_SELECTOR_LABELS.join(' and ')} (no commonLabels)`);
  }
  // prometheus.io/* annotations cannot send METRICS_TOKEN: they would only promise scrapes that get 401.
  for (const d of deployments) {
    const podAnnotations = Object.keys((get(d, 'spec', 'template', 'metadata', 'annotations') ?? {}) as Obj);
    if (podAnnotations.some((a) => a.startsWith('prometheus.io/'))) fail(where, `Deployment/${name(d)}: prometheus.io/* annotations cannot send METRICS_TOKEN; k8s/monitoring/podmonitor.yaml scrapes`);
  }
  // Every Secret and ConfigMap a pod reads exists in the build, or is one created outside git.
  const secrets = new Set([...byKind('Secret').map(name), ...externalSecrets]);
  const configMaps = new Set(byKind('ConfigMap').map(name));
  const text = JSON.stringify([...deployments, ...byKind('Job')]);
  for (const m of text.matchAll(/"secretRef":\{"name":"([^"]+)"|"secretKeyRef":\{"name":"([^"]+)"/g)) {
    const s = (m[1] ?? m[2]) as string;
    if (!secrets.has(s)) fail(where, `a pod reads Secret ${s}, which is neither built nor documented as external`);
  }
  for (const m of text.matchAll(/"configMapRef":\{"name":"([^"]+)"/g)) if (!configMaps.has(m[1] as string)) fail(where, `a pod reads a missing ConfigMap ${m[1]}`);
  for (const o of objects) {
    if (o.kind !== 'Namespace' && get(o, 'metadata', 'namespace') !== 'engram') fail(where, `${String(o.kind)}/${name(o)} is not in the namespace engram`);
  }
}
