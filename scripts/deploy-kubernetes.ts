/**
 * Each Kustomize overlay in k8s/overlays, built with `kubectl kustomize` (KUBECTL, else `kubectl`
 * on PATH), and k8s/optional/*.yaml: every object against the Kubernetes 1.27 OpenAPI schemas
 * compiled in `kubernetes-models` (KEDA's in `@kubernetes-models/keda`), every field name against
 * the vocabulary of those schemas, the overlays against Engram's rules, and the KEDA files
 * against the built overlays (deploy-keda.ts: Redis from the worker's Secret, BullMQ's lists).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { fail, get, isObj, problems, type Obj } from './deploy-problems';
import { validateKedaScaler } from './deploy-keda';
import { validateEngramRules } from './deploy-kubernetes-rules';

/** Every property name the Kubernetes schemas know: a field outside it is misspelt. */
function kubernetesVocabulary(root: string): Set<string> {
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

function kustomize(dir: string): Obj[] {
  const kubectl = process.env.KUBECTL ?? 'kubectl';
  const out = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(out).map((d) => d.toJS() as Obj).filter(isObj);
}

/** Secrets production creates outside git (k8s/overlays/prod/README.md). */
export const EXTERNAL_SECRETS: Record<string, string[]> = { dev: [], prod: ['engram-secrets', 'engram-migration'] };

/** @returns each overlay's built objects, by overlay name (the optional and monitoring files are checked against them) */
export function validateKubernetes(root: string): Record<string, Obj[]> {
  const vocabulary = kubernetesVocabulary(root);
  const overlays = readdirSync(join(root, 'k8s/overlays')).sort();
  const built: Record<string, Obj[]> = {};
  for (const overlay of overlays) {
    const where = `k8s/overlays/${overlay}`;
    const before = problems.length;
    const objects = kustomize(join(root, where));
    built[overlay] = objects;
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
    validateKedaScaler(where, objects, built);
    if (problems.length === before) console.log(`ok   ${where}: ${objects.length} objects valid against their schemas; Redis from engram-secrets, BullMQ's wait lists`);
  }
  return built;
}
