import { DEFAULT_LIFECYCLE, resolveStoredLifecycle } from './lifecycle-config';

describe('stored lifecycle overrides that a later version refuses (lifecycle-config resolveStoredLifecycle)', () => {
  it('leaves out only the refused setting: the tenant keeps its other overrides', () => {
    const { config, ignored } = resolveStoredLifecycle({
      retrieval: { priority_weights: { critical: 1e300 }, rrf_k: 30 },
      importance: { keywords: ['deadline', 'Deadline'] },
      forgetting: { soft_threshold: 0.25 },
    });
    expect(ignored.sort()).toEqual(['importance.keywords', 'retrieval.priority_weights.critical']);
    expect(config.retrieval.rrf_k).toBe(30);
    expect(config.forgetting.soft_threshold).toBe(0.25);
    expect(config.retrieval.priority_weights.critical).toBe(DEFAULT_LIFECYCLE.retrieval.priority_weights.critical);
    expect(config.importance.keywords).toEqual(DEFAULT_LIFECYCLE.importance.keywords);
  });

  it('valid overrides pass through unchanged', () => {
    expect(resolveStoredLifecycle({ retrieval: { rrf_k: 30 } })).toEqual({ config: expect.objectContaining({ retrieval: expect.objectContaining({ rrf_k: 30 }) }), ignored: [] });
    expect(resolveStoredLifecycle(undefined).config).toEqual(DEFAULT_LIFECYCLE);
  });
});
