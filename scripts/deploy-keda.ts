/**
 * The KEDA scalers in k8s/optional: that they find Redis where the worker does (a
 * TriggerAuthentication reading the worker's own Secret, no host written in the file) and watch
 * the lists BullMQ really fills. KEDA cannot take a list name from the environment, so the names
 * are literal in the file; here they are computed as the service computes them
 * (libs/queues queuePrefix, with QUEUE_PREFIX from each overlay's ConfigMap), so that a changed
 * prefix, a new queue, or the Redis Cluster hash tag cannot drift from the file unnoticed.
 */
import { ALL_QUEUE_NAMES, queuePrefix } from '../libs/queues/src/queues';
import { fail, get, isObj, type Obj } from './deploy-problems';

/** Trigger metadata that would name the Redis server in the file instead of the Secret. */
const LITERAL_SERVER = ['address', 'addresses', 'host', 'hosts', 'port', 'ports'];

/** The BullMQ wait list of each queue the worker consumes: what LLEN must count. */
export function bullmqWaitLists(queuePrefixSetting: string, cluster: boolean): string[] {
  const config = { QUEUE_PREFIX: queuePrefixSetting, REDIS_CLUSTER: cluster };
  return ALL_QUEUE_NAMES.map((queue) => `${queuePrefix(config, queue)}:${queue}:wait`);
}

/**
 * @param objects the file's objects
 * @param overlays each built overlay's objects (its ConfigMap engram-config and Deployment engram-worker)
 */
export function validateKedaScaler(where: string, objects: Obj[], overlays: Record<string, Obj[]>): void {
  const name = (o: Obj) => String(get(o, 'metadata', 'name'));
  const auths = objects.filter((o) => o.kind === 'TriggerAuthentication');
  for (const so of objects.filter((o) => o.kind === 'ScaledObject')) {
    const id = `ScaledObject/${name(so)}`;
    if (get(so, 'spec', 'scaleTargetRef', 'name') !== 'engram-worker') fail(where, `${id}: must scale the Deployment engram-worker`);
    const triggers = (get(so, 'spec', 'triggers') ?? []) as Obj[];
    const types = new Set(triggers.map((t) => String(t.type)));
    if (types.size !== 1 || !['redis', 'redis-cluster'].includes([...types][0] as string)) {
      fail(where, `${id}: every trigger must be of one type, redis or redis-cluster (got ${[...types].join(', ')})`);
      continue;
    }
    const cluster = types.has('redis-cluster');
    const lists: string[] = [];
    for (const [i, t] of triggers.entries()) {
      const metadata = (isObj(t.metadata) ? t.metadata : {}) as Obj;
      for (const key of LITERAL_SERVER) if (key in metadata) fail(where, `${id} trigger ${i}: \`${key}\` writes the Redis server into the file; take it from engram-secrets through the TriggerAuthentication`);
      const auth = auths.find((a) => name(a) === get(t, 'authenticationRef', 'name'));
      if (!auth) fail(where, `${id} trigger ${i}: authenticationRef must name a TriggerAuthentication of this file`);
      lists.push(String(metadata.listName));
    }
    for (const [overlay, built] of Object.entries(overlays)) {
      const config = built.find((o) => o.kind === 'ConfigMap' && name(o) === 'engram-config');
      const prefix = String(get(config, 'data', 'QUEUE_PREFIX') ?? 'engram');
      const expected = bullmqWaitLists(prefix, cluster);
      const missing = expected.filter((l) => !lists.includes(l));
      const unknown = lists.filter((l) => !expected.includes(l));
      if (missing.length > 0 || unknown.length > 0) {
        fail(where, `${id}: with QUEUE_PREFIX ${prefix} (k8s/overlays/${overlay}) on ${cluster ? 'a Redis Cluster' : 'one Redis'}, BullMQ's wait lists ${missing.join(', ') || '(none)'} are not watched and ${unknown.join(', ') || '(none)'} are not BullMQ's`);
      }
    }
  }
  for (const a of auths) {
    const id = `TriggerAuthentication/${name(a)}`;
    const refs = (get(a, 'spec', 'secretTargetRef') ?? []) as Obj[];
    const parameters = refs.map((r) => String(r.parameter));
    const cluster = objects.some((o) => o.kind === 'ScaledObject' && ((get(o, 'spec', 'triggers') ?? []) as Obj[]).some((t) => t.type === 'redis-cluster'));
    const server = cluster ? 'addresses' : 'address';
    if (!parameters.includes(server)) fail(where, `${id}: needs a secretTargetRef for \`${server}\``);
    // The Secret the worker reads its REDIS_URL from, in every overlay: one place to change.
    for (const [overlay, built] of Object.entries(overlays)) {
      const worker = built.find((o) => o.kind === 'Deployment' && name(o) === 'engram-worker');
      const workerSecrets = new Set([...JSON.stringify(worker ?? {}).matchAll(/"secretRef":\{"name":"([^"]+)"/g)].map((m) => m[1]));
      for (const r of refs) {
        if (!workerSecrets.has(String(r.name))) fail(where, `${id}: ${String(r.parameter)} comes from Secret ${String(r.name)}, which the worker of k8s/overlays/${overlay} does not read`);
      }
    }
  }
}
