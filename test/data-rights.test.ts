import { compressContent } from '@engram/db';
import { fixtureWriter, setMemoryState } from './support/memory-fixtures';
import { asAgent, asUser, createTenant, exportText, type TenantFixture, type TestApp, startTestApp } from './support/test-app';
import { ownerQuery } from './support/test-db';

// Data rights (issue 8 item 6): export, import, purge of a mind's memories, deletion of a tenant.

type Line = Record<string, unknown> & { type: string };

const LONG = `${'The first sentence of a long story. '}${'And then something else happened, at length. '.repeat(20)}`;

describe('data rights', () => {
  let t: TestApp;
  let owner: ReturnType<typeof ownerQuery>;
  let a: TenantFixture;
  let b: TenantFixture;
  let aSecondMind: string;
  const bearer = (f: TenantFixture) => ({ Authorization: `Bearer ${f.token}` });

  async function exportOf(f: TenantFixture): Promise<{ text: string; lines: Line[] }> {
    const { text, contentType } = await exportText(t, f.token);
    expect(contentType).toMatch(/^application\/x-ndjson/);
    expect(text.endsWith('\n')).toBe(true);
    return { text, lines: text.trimEnd().split('\n').map((l) => JSON.parse(l) as Line) };
  }

  function importInto(f: TenantFixture, text: string) {
    return t.http().post('/v1/tenant/import').set(bearer(f)).set('Content-Type', 'application/x-ndjson').send(text);
  }

  /** Rows of each tenant table of one tenant (every table with a tenant_id column, and tenants). */
  async function countsOf(tenantId: string): Promise<Record<string, number>> {
    const tables = await owner<{ table_name: string }>(
      `select table_name from information_schema.columns where table_schema = 'public' and column_name = 'tenant_id' order by table_name`,
    );
    const out: Record<string, number> = {};
    out['tenants'] = Number((await owner<{ n: string }>('select count(*) as n from tenants where id = $1', [tenantId]))[0]!.n);
    for (const { table_name } of tables) {
      out[table_name] = Number((await owner<{ n: string }>(`select count(*) as n from "${table_name}" where tenant_id = $1`, [tenantId]))[0]!.n);
    }
    return out;
  }

  /** A mind's rows (ids are per tenant: an import keeps the file's ids, so the tenant counts too). */
  async function mindCounts(tenantId: string, mindId: string) {
    const [row] = await owner<{ memories: string; versions: string; tombstones: string }>(
      `select (select count(*) from memories where tenant_id = $1 and mind_id = $2) as memories,
              (select count(*) from memory_versions where tenant_id = $1 and mind_id = $2) as versions,
              (select count(*) from memory_tombstones where tenant_id = $1 and mind_id = $2) as tombstones`,
      [tenantId, mindId],
    );
    return { memories: Number(row!.memories), versions: Number(row!.versions), tombstones: Number(row!.tombstones) };
  }

  /** What must survive a round trip, keyed by (mind name, category, key), with the history. */
  function normalized(lines: Line[]) {
    const mindName = new Map(lines.filter((l) => l.type === 'mind').map((l) => [l.id as string, l.name as string]));
    const history = new Map<string, unknown[]>();
    for (const v of lines.filter((l) => l.type === 'memory_version')) {
      const list = history.get(v.memory_id as string) ?? [];
      const { memory_id: _m, mind_id: _mi, ...rest } = v;
      list.push(rest);
      history.set(v.memory_id as string, list);
    }
    const memories = lines
      .filter((l) => l.type === 'memory')
      .map((m) => {
        const {
          id,
          mind_id,
          compacted: _c,
          embedding_status: _es,
          embedding_model: _em,
          embedded_at: _ea,
          ...rest
        } = m;
        return { mind: mindName.get(mind_id as string), ...rest, history: history.get(id as string) ?? [] };
      })
      .filter((m) => m.mind !== undefined);
    const order = (m: Record<string, unknown>) => `${String(m.mind)}/${String(m.category)}/${String(m.key)}`;
    return memories.sort((x, y) => order(x).localeCompare(order(y)));
  }

  beforeAll(async () => {
    t = await startTestApp();
    owner = ownerQuery(t.db);
    a = await createTenant(t, 'alpha');
    b = await createTenant(t, 'beta');
    // Tenant a: two minds, updated, verified and compacted memories, messages, settings.
    await t.http().patch('/v1/tenant/settings/lifecycle').set(bearer(a)).send({ forgetting: { soft_threshold: 0.25 } }).expect(200);
    await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'sky', content: 'The sky is blue', tags: ['Weather'] }).expect(201);
    await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'fact', key: 'sky', content: 'The sky is grey today', priority: 'high' }).expect(200);
    const name = await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'identity', key: 'user_name', content: 'Michael' }).expect(201);
    await t.http().post(`/v1/memory/${name.body.id}/verify`).set(asUser(a)).expect(200);
    const story = await t.http().post('/v1/memory').set(asAgent(a)).send({ category: 'note', key: 'story', content: LONG, payload: { b: 1, a: [1, 2] } }).expect(201);
    await setMemoryState(fixtureWriter(t.app), a, story.body.id, { content: 'The first sentence of a long story.', content_z: compressContent(LONG), compacted: true, tier: 'cold' });
    await t.http().post('/v1/conversations/c1/messages').set(asAgent(a)).send({ messages: [{ content: 'I moved to Berlin last week and love it' }] }).expect((r) => expect(r.status).toBeLessThan(300));
    const second = await t.http().post('/v1/minds').set(bearer(a)).send({ name: 'second' }).expect(201);
    aSecondMind = second.body.id;
    await t.http().post('/v1/memory').set(asUser(a, aSecondMind)).send({ category: 'skill', key: 'typing', content: 'Types fast' }).expect(201);
    // Tenant b: a memory of its own.
    await t.http().post('/v1/memory').set(asAgent(b)).send({ category: 'fact', key: 'sky', content: 'Beta sky' }).expect(201);
  });
  afterAll(() => t.close());

  it('exports every mind, memory (compacted ones in full) and version, the settings, and no secrets; owners only', async () => {
    const { text, lines } = await exportOf(a);
    expect(lines[0]).toMatchObject({ type: 'tenant', format: 'engram-export', version: 1, id: a.tenantId, name: 'alpha' });
    expect(lines.find((l) => l.type === 'settings')).toEqual({ type: 'settings', lifecycle: { forgetting: { soft_threshold: 0.25 } } });
    expect(lines.filter((l) => l.type === 'mind').map((l) => l.id).sort()).toEqual([a.mindId, aSecondMind].sort());

    const counts = await countsOf(a.tenantId);
    const memories = lines.filter((l) => l.type === 'memory');
    const versions = lines.filter((l) => l.type === 'memory_version');
    expect(memories).toHaveLength(counts['memories']!);
    expect(versions).toHaveLength(counts['memory_versions']!);
    expect(memories).toHaveLength(4);
    expect(versions.length).toBe(6); // sky ×2, user_name create + verify, story, typing
    expect(memories.find((m) => m.key === 'story')).toMatchObject({ content: LONG, compacted: true, tier: 'cold' });
    expect(versions.filter((v) => v.key === 'sky').map((v) => v.content)).toEqual(['The sky is blue', 'The sky is grey today']);

    // Every memory follows its mind, every version its memory.
    const seen = new Set<unknown>();
    for (const l of lines) {
      if (l.type === 'memory') expect(seen.has(l.mind_id)).toBe(true);
      if (l.type === 'memory_version') expect(seen.has(l.memory_id)).toBe(true);
      seen.add(l.id);
    }

    const [secrets] = await owner<{ key_hash: string; password_hash: string }>(
      `select k.key_hash, u.password_hash from mind_keys k, users u where k.tenant_id = $1 and u.tenant_id = $1 limit 1`,
      [a.tenantId],
    );
    for (const secret of [secrets!.key_hash, secrets!.password_hash, a.mindKey, 'key_hash', 'password_hash', a.email]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain('Beta sky');

    await t.http().get('/v1/tenant/export').set(asAgent(a)).expect(403);
    await t.http().post('/v1/tenant/import').set(asAgent(a)).set('Content-Type', 'application/x-ndjson').send(text).expect(403);
  });

  it('round trip: importing into a fresh tenant reproduces memories and histories; a second import changes nothing', async () => {
    const { text, lines } = await exportOf(a);
    const c = await createTenant(t, 'gamma');
    const first = await importInto(c, text).expect(200);
    expect(first.body).toEqual({
      minds: { created: 2, matched: 0 },
      memories: { created: 4, updated: 0, unchanged: 0 },
      versions: { created: 6 },
      settings: 'replaced',
    });
    const after = await exportOf(c);
    expect(normalized(lines)).toHaveLength(4);
    expect(normalized(after.lines)).toEqual(normalized(lines));
    expect(after.lines.find((l) => l.type === 'settings')).toEqual(lines.find((l) => l.type === 'settings'));
    // A restored mind keeps its dates (it was dated by the import: a tester's find).
    const minds = (ls: Line[]) => ls.filter((l) => l.type === 'mind').map((l) => [l.name, l.created_at, l.updated_at]).sort();
    const restored = new Set(lines.filter((l) => l.type === 'mind').map((l) => l.name));
    expect(minds(after.lines.filter((l) => restored.has(l.name)))).toEqual(minds(lines));

    const counts = await countsOf(c.tenantId);
    const second = await importInto(c, text).expect(200);
    expect(second.body).toEqual({
      minds: { created: 0, matched: 2 },
      memories: { created: 0, updated: 0, unchanged: 4 },
      versions: { created: 0 },
      settings: 'unchanged',
    });
    expect(await countsOf(c.tenantId)).toEqual(counts);
    expect(normalized((await exportOf(c)).lines)).toEqual(normalized(lines));

    // The imported memories are read like any other, full text included; same ids where free.
    const story = after.lines.find((l) => l.type === 'memory' && l.key === 'story')!;
    expect(story.id).toBe(lines.find((l) => l.type === 'memory' && l.key === 'story')!.id);
    const read = await t.http().get(`/v1/memory/${story.id as string}`).set(asUser(c, story.mind_id as string)).expect(200);
    expect(read.body.content).toBe(LONG);
  });

  it('an export made before a setting was removed (retrieval.probes, ivfflat) still imports, without it', async () => {
    const { lines } = await exportOf(a);
    const c = await createTenant(t, 'older');
    const old = lines.map((l) => (l.type === 'settings' ? { ...l, lifecycle: { ...(l.lifecycle as object), retrieval: { probes: 20 } } } : l));
    const res = await importInto(c, old.map((l) => JSON.stringify(l)).join('\n')).expect(200);
    expect(res.body.settings).toBe('replaced');
    const settings = await t.http().get('/v1/tenant/settings/lifecycle').set(bearer(c)).expect(200);
    expect(settings.body.overrides).toEqual({ forgetting: { soft_threshold: 0.25 } });
  });

  // Helper 38's: versions of an export made before they recorded importance came back all null.
  it('an export made before versions recorded importance: each current version takes its memory\'s', async () => {
    const { lines } = await exportOf(a);
    const c = await createTenant(t, 'older-importance');
    const old = lines.map((l) => (l.type === 'memory_version' ? Object.fromEntries(Object.entries(l).filter(([k]) => k !== 'importance_score')) : l));
    await importInto(c, old.map((l) => JSON.stringify(l)).join('\n')).expect(200);
    const after = (await exportOf(c)).lines;
    const memories = after.filter((l) => l.type === 'memory');
    expect(memories.length).toBeGreaterThan(0);
    for (const m of memories) {
      const versions = after.filter((l) => l.type === 'memory_version' && l.memory_id === m.id);
      expect(versions.find((v) => v.version === m.version)?.importance_score).toBe(m.importance_score);
      expect(versions.filter((v) => v.version !== m.version).every((v) => v.importance_score === null)).toBe(true);
    }
  });

  // A tester's find: the import took a mind's name as written, and "Zoë" with a combining
  // diaeresis became a second mind beside the tenant's "Zoë", found by neither spelling's ?name=.
  it('an imported mind name is composed, as a created one is', async () => {
    const c = await createTenant(t, 'composed-names');
    const zoe = (await t.http().post('/v1/minds').set(bearer(c)).send({ name: 'Zo\u00eb' }).expect(201)).body;
    const file = [
      { type: 'tenant', format: 'engram-export', version: 1, id: '00000000-0000-7000-8000-000000000000', name: 'X' },
      { type: 'mind', id: '01a2471b-0000-7000-8000-000000000001', name: 'Zoe\u0308', description: null, external_id: null, created_at: '2026-12-05T00:00:00Z', updated_at: '2026-12-05T00:00:00Z' },
    ];
    // Matched by its name, as an export's mind is: the tenant keeps one Zoë.
    const res = await importInto(c, file.map((l) => JSON.stringify(l)).join('\n')).expect(200);
    expect(res.body.minds).toEqual({ created: 0, matched: 1 });
    const minds = (await t.http().get('/v1/minds').set(bearer(c)).expect(200)).body.items as { id: string; name: string }[];
    expect(minds.filter((m) => m.name.normalize('NFC') === 'Zo\u00eb').map((m) => [m.id, m.name])).toEqual([[zoe.id, 'Zo\u00eb']]);
  });

  it('a changed memory in the file becomes a new version of the stored one', async () => {
    const { lines } = await exportOf(a);
    const c = await createTenant(t, 'delta');
    const text = (ls: Line[]) => ls.map((l) => JSON.stringify(l)).join('\n');
    await importInto(c, text(lines)).expect(200);
    const edited = lines.map((l) => (l.type === 'memory' && l.key === 'sky' ? { ...l, content: 'The sky is green' } : l));
    const res = await importInto(c, text(edited)).expect(200);
    expect(res.body.memories).toEqual({ created: 0, updated: 1, unchanged: 3 });
    // The answer counts the version the change wrote.
    expect(res.body.versions).toEqual({ created: 1 });
    const rows = await owner<{ version: number; content: string }>(
      `select version, content from memory_versions where tenant_id = $1 and key = 'sky' order by version`,
      [c.tenantId],
    );
    expect(rows.map((r) => r.content)).toEqual(['The sky is blue', 'The sky is grey today', 'The sky is green']);
  });

  it('a bad line answers 400 with its line number and field, and stores nothing', async () => {
    const { lines } = await exportOf(a);
    const d = await createTenant(t, 'epsilon');
    const before = await countsOf(d.tenantId);
    const badAt = lines.findIndex((l) => l.type === 'memory' && l.key === 'typing');
    const bad = lines.map((l, i) => (i === badAt ? { ...l, category: 'bogus' } : l));
    const res = await importInto(d, bad.map((l) => JSON.stringify(l)).join('\n')).expect(400);
    expect(res.body.message).toMatch(new RegExp(`^line ${badAt + 1}: category: must be one of`));
    expect(res.body.errors).toEqual([{ field: `line ${badAt + 1}: category`, message: expect.stringMatching(/must be one of/) }]);
    expect(await countsOf(d.tenantId)).toEqual(before);

    const broken = [...lines.slice(0, 3).map((l) => JSON.stringify(l)), '{"type": "mind",'].join('\n');
    const res2 = await importInto(d, broken).expect(400);
    expect(res2.body.message).toBe('line 4: is not valid JSON');

    const orphan = [JSON.stringify(lines[0]), JSON.stringify(lines.find((l) => l.type === 'memory'))].join('\n');
    expect((await importInto(d, orphan).expect(400)).body.message).toBe('line 2: mind_id: names no mind line above it');
    expect((await importInto(d, '{"type":"mind"}\n').expect(400)).body.message).toMatch(/^line 1: type: /);
    const mindAt = lines.findIndex((l) => l.type === 'mind');
    const backwards = lines.slice(0, mindAt + 1).map((l, i) => JSON.stringify(i === mindAt ? { ...l, created_at: '2026-03-02T00:00:00.000Z', updated_at: '2026-03-01T00:00:00.000Z' } : l));
    expect((await importInto(d, backwards.join('\n')).expect(400)).body.message).toBe(`line ${mindAt + 1}: updated_at: must not be before created_at`);
    await t.http().post('/v1/tenant/import').set(bearer(d)).send({ lines: [] }).expect(415);
    expect(await countsOf(d.tenantId)).toEqual(before);
  });

  it('an import stores nothing a write would refuse, nor numbers the lifecycle cannot compute (400 naming line and field)', async () => {
    const { lines } = await exportOf(a);
    const e = await createTenant(t, 'eta');
    const before = await countsOf(e.tenantId);
    const at = lines.findIndex((l) => l.type === 'memory' && l.key === 'typing');
    const withLine = (change: Record<string, unknown>) => lines.map((l, i) => (i === at ? { ...l, ...change } : l)).map((l) => JSON.stringify(l)).join('\n');
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ strength_days: 1e308 }, 'strength_days', /must be at most 365000000 days/],
      [{ tags: ['a,b'] }, 'tags[0]', /commas/],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags', /at most 20 tags/],
      [{ source_refs: Array.from({ length: 101 }, (_, i) => `m${i}`) }, 'source_refs', /at most 100 entries/],
      [{ temporal_context: 'two\nlines' }, 'temporal_context', /one line/],
      [{ payload: { blob: 'x'.repeat(70_000) } }, 'payload', /64 KiB/],
      [{ created_at: '2999-01-01T00:00:00.000Z' }, 'created_at', /must not be in the future/],
    ];
    for (const [change, field, rule] of cases) {
      const res = await importInto(e, withLine(change)).expect(400);
      expect([field, res.body.message]).toEqual([field, expect.stringMatching(new RegExp(`^line ${at + 1}: ${field.replace(/[.[\]]/g, '\\$&')}: .*${rule.source}`))]);
    }
    expect(await countsOf(e.tenantId)).toEqual(before);
    // An empty body is empty, not of the wrong type.
    const empty = await t.http().post('/v1/tenant/import').set(bearer(e)).set('Content-Type', 'application/x-ndjson').send('').expect(400);
    expect(empty.body.message).toBe('body: is empty: send the JSONL of GET /v1/tenant/export');
  });

  it('purging a mind removes exactly its memories, versions, tombstones and short-term memory', async () => {
    const c = await createTenant(t, 'zeta');
    await importInto(c, (await exportOf(a)).text).expect(200);
    const [mind] = await owner<{ id: string }>(`select id from minds where tenant_id = $1 and name = 'alpha mind'`, [c.tenantId]);
    const [other] = await owner<{ id: string }>(`select id from minds where tenant_id = $1 and name = 'second'`, [c.tenantId]);
    await owner(
      `insert into memory_tombstones (tenant_id, memory_id, mind_id, category, key, reason, tier, access_count, created_at, evicted_at)
       values ($1, gen_random_uuid(), $2, 'fact', 'gone', 'evicted', 'archive', 0, now(), now())`,
      [c.tenantId, mind!.id],
    );
    // A conversation still in short-term memory (under the 0.7 trigger: it stays there).
    await t.http().post('/v1/conversations/trip/messages').set(asUser(c, mind!.id)).send({ messages: [{ content: 'We might visit the old harbour in Lisbon someday', importance: 0.5 }] }).expect(201);
    const stm = async () => (await t.http().get('/v1/conversations/trip/stm').set(asUser(c, mind!.id)).expect(200)).body.entries.length;
    expect(await stm()).toBe(1);
    const target = await mindCounts(c.tenantId, mind!.id);
    expect(target).toEqual({ memories: 3, versions: 5, tombstones: 1 });
    const otherBefore = await mindCounts(c.tenantId, other!.id);
    const aBefore = await countsOf(a.tenantId);
    const bBefore = await countsOf(b.tenantId);

    await t.http().delete(`/v1/minds/${mind!.id}/memories`).set(asAgent(c)).expect(403);
    await t.http().delete(`/v1/minds/${b.mindId}/memories`).set(bearer(c)).expect(404);
    const res = await t.http().delete(`/v1/minds/${mind!.id}/memories`).set(bearer(c)).expect(200);
    expect(res.body).toEqual({ mind_id: mind!.id, ...target, stm_entries: 1, webhook_deliveries: 0 });

    expect(await mindCounts(c.tenantId, mind!.id)).toEqual({ memories: 0, versions: 0, tombstones: 0 });
    // Nothing of the purged mind comes back: an explicit save (as the sleep cycle would) finds no short-term memory.
    expect(await stm()).toBe(0);
    expect((await t.http().post('/v1/conversations/trip/consolidate').set(asUser(c, mind!.id)).expect(200)).body).toEqual({ conversation_id: 'trip', consolidated: [] });
    expect(await mindCounts(c.tenantId, mind!.id)).toEqual({ memories: 0, versions: 0, tombstones: 0 });
    expect(await mindCounts(c.tenantId, other!.id)).toEqual(otherBefore);
    expect(await countsOf(a.tenantId)).toEqual(aBefore);
    expect(await countsOf(b.tenantId)).toEqual(bBefore);
    await t.http().get(`/v1/minds/${mind!.id}`).set(bearer(c)).expect(200);
    expect((await t.http().delete(`/v1/minds/${mind!.id}/memories`).set(bearer(c)).expect(200)).body).toMatchObject({ memories: 0 });
  });

  it('deleting the tenant needs its name, removes every row of it, ends its tokens, and leaves other tenants alone', async () => {
    const e = await createTenant(t, 'omega');
    await importInto(e, (await exportOf(a)).text).expect(200);
    await t.http().post('/v1/conversations/c9/messages').set(asAgent(e)).send({ messages: [{ content: 'I really love the new office in Berlin' }] }).expect((r) => expect(r.status).toBeLessThan(300));
    const before = await countsOf(e.tenantId);
    expect(before['memories']).toBeGreaterThan(0);
    expect(before['messages']).toBeGreaterThan(0);
    const aBefore = await countsOf(a.tenantId);
    const bBefore = await countsOf(b.tenantId);

    const missing = await t.http().delete('/v1/tenant').set(bearer(e)).expect(400);
    expect(missing.body.errors[0].field).toBe('confirm');
    const wrong = await t.http().delete('/v1/tenant').query({ confirm: 'alpha' }).set(bearer(e)).expect(400);
    expect(wrong.body.message).toBe("confirm: must be the tenant's name, exactly");
    await t.http().delete('/v1/tenant').query({ confirm: 'omega' }).set(asAgent(e)).expect(403);
    await t.http().delete('/v1/tenant').query({ confirm: 'omega' }).set(bearer(e)).expect(204);

    const after = await countsOf(e.tenantId);
    for (const [table, n] of Object.entries(after)) expect([table, n]).toEqual([table, 0]);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    await t.http().get('/v1/auth/me').set(bearer(e)).expect(401);
    await t.http().get('/v1/memory').set(asAgent(e)).expect(401);
    expect(await countsOf(a.tenantId)).toEqual(aBefore);
    expect(await countsOf(b.tenantId)).toEqual(bBefore);
  });
});
