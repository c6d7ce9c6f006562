import { bullmqWaitLists } from './deploy-keda';
import { ingressRoutes } from './deploy-kubernetes-rules';

// The public Ingress check (validate:deploy) is only as good as its reading of Ingress paths:
// Prefix matches whole `/` segments, so a prefix of the tenant paths must not be taken to route
// the operator's paths next to them, nor the reverse.
describe('ingressRoutes (Ingress path matching, as validate:deploy reads the public Ingress)', () => {
  const prefix = (path: string) => ({ path, pathType: 'Prefix' });

  it('matches a Prefix path by whole segments', () => {
    expect(ingressRoutes(prefix('/v1'), '/v1')).toBe(true);
    expect(ingressRoutes(prefix('/v1'), '/v1/memory')).toBe(true);
    expect(ingressRoutes(prefix('/v1/'), '/v1/memory')).toBe(true);
    expect(ingressRoutes(prefix('/v1'), '/v1x')).toBe(false);
    expect(ingressRoutes(prefix('/docs'), '/docs-json')).toBe(false);
    expect(ingressRoutes(prefix('/'), '/admin')).toBe(true);
  });

  it('matches an Exact path only as written, and ImplementationSpecific as a string prefix (ingress-nginx)', () => {
    expect(ingressRoutes({ path: '/mcp', pathType: 'Exact' }, '/mcp')).toBe(true);
    expect(ingressRoutes({ path: '/mcp', pathType: 'Exact' }, '/mcp/x')).toBe(false);
    expect(ingressRoutes({ path: '/docs', pathType: 'ImplementationSpecific' }, '/docs-json')).toBe(true);
  });
});

describe('bullmqWaitLists (the lists the KEDA scaler must watch)', () => {
  it('names every queue the worker consumes, with the hash tag on a Redis Cluster', () => {
    expect(bullmqWaitLists('engram', false)).toEqual([
      'engram:consolidation:wait', 'engram:systems-consolidation:wait', 'engram:tiering:wait',
      'engram:forgetting:wait', 'engram:embedding:wait', 'engram:associations:wait', 'engram:webhooks:wait',
    ]);
    expect(bullmqWaitLists('acme', true)).toContain('{acme:embedding}:embedding:wait');
  });
});
