import { DEFAULT_LIFECYCLE, scoreByRulesAndFacts } from '@engram/memory';
import { fakeLlm } from './support/fake-llm';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

describe('importance by an OpenAI-compatible LLM, with the three-level fallback (seed 001 §1.2)', () => {
  let t: TestApp;
  let f: TenantFixture;
  const llm = fakeLlm((prompt) => {
    if (prompt.includes('json please')) {
      return { content: '{"importance_score": 0.72, "reasoning": "hard time constraint", "criteria_scores": {"relevance": 0.8, "novelty": 0.5, "emotional_impact": 0.2, "actionable": 0.9, "factual": 0.8, "personal": 0.6}}' };
    }
    if (prompt.includes('criteria only')) return { content: 'Sure! {"criteria_scores": {"relevance": 1, "novelty": 0}}' };
    if (prompt.includes('broken json')) return { content: 'importance_score: 0.83, reasoning: unterminated {' };
    if (prompt.includes('prose only')) return { content: 'This seems moderately important to me.' };
    if (prompt.includes('server error')) return { status: 500 };
    if (prompt.includes('too slow')) return { content: '{"importance_score": 0.99}', delayMs: 1500 };
    return { content: '{"importance_score": 0.5}' };
  });

  beforeAll(async () => {
    const url = await llm.start();
    t = await startTestApp({ LLM_URL: url, LLM_MODEL: 'test-model', LLM_API_KEY: 'sk-test', LLM_TIMEOUT_MS: '500' });
    f = await createTenant(t, 'llm');
    // Keyed writes are explicit saves, floored at 0.8 by default; without the floor each path shows.
    await t.http().patch('/v1/tenant/settings/lifecycle').set({ Authorization: `Bearer ${f.token}` }).send({ importance: { explicit_save_floor: 0 } }).expect(200);
  });
  afterAll(async () => {
    await t.close();
    await llm.stop();
  });

  const store = (key: string, content: string) => t.http().post('/v1/memory').set(asAgent(f)).send({ category: 'note', key, content }).expect(201);

  it('uses importance_score from the JSON answer: path llm', async () => {
    const res = await store('meeting', 'Q2 requirements review, room B, Friday 3 pm (json please)');
    expect(res.body).toMatchObject({ importance_score: 0.72, importance_source: 'llm', layer: 'short_term' });
    const call = llm.calls.at(-1);
    expect(call).toMatchObject({ auth: 'Bearer sk-test', model: 'test-model' });
    expect(call?.prompt).toMatch(/relevance.*novelty.*emotional_impact.*actionable.*factual.*personal/s);
  });

  it('without importance_score, the weighted mean of the criteria present: still llm', async () => {
    const res = await store('criteria', 'criteria only');
    expect(res.body.importance_source).toBe('llm');
    expect(res.body.importance_score).toBeCloseTo(0.6, 9);
  });

  it('JSON that does not parse: a regex on the score field, path llm_regex', async () => {
    const res = await store('regex', 'broken json');
    expect(res.body).toMatchObject({ importance_score: 0.83, importance_source: 'llm_regex' });
  });

  it.each([
    ['nothing usable in the answer', 'prose only'],
    ['a 500 from the endpoint', 'server error'],
    ['a timeout', 'too slow'],
  ])('%s: the rule engine scores, and the write still succeeds', async (_label, content) => {
    const res = await store(content.replace(/ /g, '_'), `${content} — remember this!`);
    // Seed 001's rules ("remember" +0.1, "!" +0.05) and the fact score: exactly the rule path's answer.
    expect(res.body).toMatchObject({ importance_source: 'rules' });
    expect(res.body.importance_score).toBeCloseTo(scoreByRulesAndFacts(`${content} — remember this!`, {}, DEFAULT_LIFECYCLE), 9);
    expect(res.body.importance_score).toBeGreaterThanOrEqual(0.15);
  });
});
