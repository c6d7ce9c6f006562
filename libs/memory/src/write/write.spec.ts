import fc from 'fast-check';
import { DEFAULT_LIFECYCLE, resolveLifecycle, type LifecycleConfig } from '../lifecycle/lifecycle-config';
import { canonicalJson, changeKind, memoryChange, replacementChange, sameWritten, type StoredMemory } from './memory-change';
import { newMemory, type NewMemoryInput } from './new-memory';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const DAY = 86_400_000;
const seed = (() => {
  const r = resolveLifecycle({ retention: { preset: 'seed' } });
  if (!r.success) throw r.error;
  return r.data;
})();

const input = (over: Partial<NewMemoryInput> = {}): NewMemoryInput => ({
  id: '0190a000-0000-7000-8000-000000000001',
  mindId: '0190a000-0000-7000-8000-000000000002',
  category: 'fact',
  key: 'office_city',
  content: 'The office is in Berlin',
  provenance: { source: 'agent', verified: false, confidence: 0.7 },
  occurredAt: NOW,
  now: NOW,
  importance: { score: 0.7, path: 'caller' },
  ...over,
});

describe('newMemory (the row every path that creates a memory writes)', () => {
  it('derives layer, retention, strength and reviews from importance (seed 001 §2; calibrated preset)', () => {
    const m = newMemory(input({ tags: ['Work', 'work', ' city '] }), DEFAULT_LIFECYCLE);
    expect(m).toMatchObject({
      layer: 'short_term',
      importance_score: 0.7,
      initial_retention: 0.7,
      current_retention: 0.7,
      strength_days: 10.5,
      memory_type: 'semantic',
      storage_location: 'hippocampus',
      priority: 'normal',
      importance_source: 'caller',
      association_graph: {},
      created_at: NOW,
    });
    expect(m.tags).toEqual(['work', 'city']);
    expect(m.review_schedule).toHaveLength(5);
    expect(m.next_review).toEqual(m.review_schedule[0]);
  });

  it('a memory stored in a layer takes that layer\'s strength, whatever its importance (a generalisation is long-term)', () => {
    for (const score of [0.1, 0.5, 0.65, 0.79]) {
      for (const config of [DEFAULT_LIFECYCLE, seed]) {
        const m = newMemory(input({ importance: { score, path: 'rules' }, layer: 'long_term' }), config);
        expect(m.layer).toBe('long_term');
        expect(m.strength_days).toBe(newMemory(input({ importance: { score: 0.9, path: 'rules' } }), config).strength_days);
      }
    }
    expect(newMemory(input({ layer: 'long_term' }), DEFAULT_LIFECYCLE).strength_days).toBe(90);
  });

  it("a memory's life starts when it is stored, whatever its event's date; the event keeps its time", () => {
    const past = newMemory(input({ occurredAt: new Date(NOW.getTime() - 40 * DAY) }), DEFAULT_LIFECYCLE);
    expect(past.retention_at).toEqual(NOW);
    expect(past.current_retention).toBe(past.initial_retention);
    expect(past.occurred_at).toEqual(new Date(NOW.getTime() - 40 * DAY));
    expect(past.created_at).toEqual(NOW);
    const future = newMemory(input({ occurredAt: new Date(NOW.getTime() + DAY) }), DEFAULT_LIFECYCLE);
    expect(future.retention_at).toEqual(NOW);
    expect(future.occurred_at).toEqual(new Date(NOW.getTime() + DAY));
  });

  it('a consolidated memory is synaptically strengthened (× 1.5, seed 000)', () => {
    expect(newMemory(input({ synaptic: true }), DEFAULT_LIFECYCLE)).toMatchObject({ strength_days: 15.75, synaptic_consolidated: true });
  });
});

const stored = (over: Partial<StoredMemory> = {}): StoredMemory => {
  const m = newMemory(input(), DEFAULT_LIFECYCLE);
  return { ...m, version: 1, access_count: 0, ...over };
};
const ctx = (over: Partial<Parameters<typeof memoryChange>[2]> = {}) => ({ writer: 'agent' as const, now: NOW, config: DEFAULT_LIFECYCLE as LifecycleConfig, upsert: true, ...over });

describe('memoryChange (what an edit changes)', () => {
  it('the same write again changes nothing; key order of a payload does not matter', () => {
    const current = stored({ payload: { a: 1, b: { c: 2, d: 3 } } });
    expect(memoryChange(current, { content: current.content, payload: { b: { d: 3, c: 2 }, a: 1 } }, ctx())).toBeUndefined();
    expect(memoryChange(current, {}, ctx())).toBeUndefined();
  });

  it("a person's write of the same content is a verification in the history; anything more is an update", () => {
    const current = stored();
    const person = ctx({ writer: 'user' });
    const same = memoryChange(current, { content: current.content }, person);
    expect(same).toMatchObject({ verified: true, source: 'agent' });
    expect(changeKind(current, same!)).toBe('verify');
    expect(changeKind(current, memoryChange(current, { content: current.content, tags: ['office'] }, person)!)).toBe('update');
    expect(changeKind(current, memoryChange(current, { content: 'The office is in Porto' }, person)!)).toBe('update');
    expect(changeKind(current, memoryChange(current, { content: current.content }, { ...person, importance: { score: 0.9, path: 'caller' } })!)).toBe('update');
    expect(changeKind(current, memoryChange(current, { tags: ['office'] }, ctx())!)).toBe('update');
  });

  it('the same content with other trailing whitespace changes nothing; other leading whitespace does', () => {
    const current = stored({ content: 'The office is in Lisbon' });
    expect(memoryChange(current, { content: 'The office is in Lisbon \n' }, ctx())).toBeUndefined();
    expect(memoryChange(current, { content: '  The office is in Lisbon' }, ctx())?.content).toBe('  The office is in Lisbon');
  });

  it('the same tags in another order change nothing; another tag does', () => {
    const current = stored({ tags: ['a', 'b'] });
    expect(memoryChange(current, { tags: ['b', 'A'] }, ctx())).toBeUndefined();
    expect(memoryChange(current, { tags: ['b', 'c'] }, ctx())?.tags).toEqual(['b', 'c']);
    expect(memoryChange(current, { tags: ['a', 'b', 'b'] }, ctx())).toBeUndefined();
  });

  it('keeps what the edit omits, and bumps the version', () => {
    const current = stored({ tags: ['a'], priority: 'high' });
    const patch = memoryChange(current, { content: 'The office is in Munich' }, ctx());
    expect(patch).toMatchObject({ content: 'The office is in Munich', tags: ['a'], priority: 'high', version: 2, updated_at: NOW });
    expect(patch?.content_hash).not.toBe(current.content_hash);
  });

  it('storing an expired key again without expires_at brings it back; an update by id does not', () => {
    const current = stored({ expires_at: new Date(NOW.getTime() - DAY) });
    expect(memoryChange(current, {}, ctx())?.expires_at).toBeNull();
    expect(memoryChange(current, {}, ctx({ upsert: false }))).toBeUndefined();
  });

  it('a person confirms an agent\'s content (verified), and new content by an agent is unverified', () => {
    const current = stored();
    expect(memoryChange(current, {}, ctx({ writer: 'user' }))).toMatchObject({ verified: true, source: 'agent' });
    const mine = stored({ source: 'user', verified: true, confidence: 1 });
    expect(memoryChange(mine, { content: 'changed by the agent' }, ctx())).toMatchObject({ source: 'agent', verified: false, confidence: 0.7 });
  });

  it('the scorer re-encodes new content, never over an importance the caller set; the caller always counts', () => {
    const scored = { score: 0.9, path: 'rules' as const };
    const byCaller = stored({ importance_source: 'caller' });
    expect(memoryChange(byCaller, { content: 'new words' }, ctx({ importance: scored }))).not.toHaveProperty('importance_score');
    const byRules = stored({ importance_source: 'rules' });
    expect(memoryChange(byRules, { content: 'new words' }, ctx({ importance: scored }))).toMatchObject({ importance_score: 0.9, layer: 'long_term', strength_days: 90 });
    // The same content with a scorer's opinion: nothing to re-encode.
    expect(memoryChange(byRules, {}, ctx({ importance: scored }))).toBeUndefined();
    const corrected = memoryChange(byCaller, {}, ctx({ importance: { score: 0.2, path: 'caller' } }));
    expect(corrected).toMatchObject({ importance_score: 0.2, layer: 'working', initial_retention: 0.2, importance_source: 'caller' });
  });

  it('never changes identity-free fields it was not given, on any edit (property)', () => {
    fc.assert(
      fc.property(fc.record({ content: fc.option(fc.string({ minLength: 1 }), { nil: undefined }), priority: fc.option(fc.constantFrom('low', 'normal', 'high', 'critical' as const), { nil: undefined }) }), (edit) => {
        const current = stored({ tags: ['keep'], temporal_context: 'session 3', source_refs: ['m1'] });
        const patch = memoryChange(current, edit, ctx());
        if (!patch) return;
        expect(patch.tags).toEqual(['keep']);
        expect(patch.temporal_context).toBe('session 3');
        expect(patch.source_refs).toEqual(['m1']);
        expect(patch.version).toBe(2);
      }),
    );
  });
});

describe('replacementChange and sameWritten (an import of an existing key)', () => {
  it('takes every written field of the new statement, or nothing when it states the same', () => {
    const current = stored();
    expect(replacementChange(current, { ...current }, NOW)).toBeUndefined();
    expect(sameWritten(current, { ...current, payload: JSON.parse(canonicalJson(current.payload)) as Record<string, unknown> })).toBe(true);
    expect(replacementChange(current, { ...current, confidence: 0.9 }, NOW)).toMatchObject({ confidence: 0.9, version: 2 });
    expect(sameWritten(current, { ...current, occurred_at: new Date(current.occurred_at.getTime() + 1) })).toBe(false);
  });
});
