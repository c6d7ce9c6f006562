import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { AssociationJob } from '@engram/jobs';
import { KEY_PATTERN, LINK_RELATIONS, MEMORY_CATEGORIES, MEMORY_PRIORITIES, MEMORY_TYPES } from '@engram/memory';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

/** The MCP endpoint, driven by the SDK's own client over streamable HTTP against the listening app. */
describe('MCP server at /mcp', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  /** A tenant of its own for the schema-built calls, so they do not disturb the other tests' lists. */
  let c: TenantFixture;
  let url: URL;
  const clients: Client[] = [];

  /** An SDK client connected with the given headers (closed after all tests). */
  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'engram-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return client;
  }

  const textOf = (result: unknown): string => {
    const content = (result as CallToolResult).content;
    return content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    url = new URL(`http://127.0.0.1:${port}/mcp`);
    a = await createTenant(t, 'mcp-a');
    b = await createTenant(t, 'mcp-b');
    c = await createTenant(t, 'mcp-c');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  /** Tool names in the order tools/list gives them. */
  const TOOLS = ['recall', 'remember', 'search', 'get', 'update', 'history', 'related_memories', 'forget', 'list_expiring', 'append_messages', 'end_conversation'];

  it('lists the tools with the enums and bounds the API accepts, an output schema each, and no jargon', async () => {
    const client = await connect(asAgent(a));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    const tool = (name: string) => tools.find((x) => x.name === name) as Tool;
    const prop = (name: string, arg: string) => (tool(name).inputSchema.properties as Record<string, JsonSchema>)[arg] as JsonSchema;

    expect(tool('remember').inputSchema.required).toEqual(['category', 'key', 'content']);
    expect(prop('remember', 'category').enum).toEqual([...MEMORY_CATEGORIES]);
    expect(prop('remember', 'priority').enum).toEqual([...MEMORY_PRIORITIES]);
    expect(prop('remember', 'key')).toMatchObject({ type: 'string', pattern: KEY_PATTERN.source, maxLength: 128, examples: ['user_employer'] });
    expect(prop('remember', 'importance')).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(prop('search', 'memory_type').enum).toEqual([...MEMORY_TYPES]);
    expect(prop('search', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(prop('recall', 'max_tokens')).toMatchObject({ type: 'integer', minimum: 20, maximum: 200000 });
    expect(prop('recall', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(prop('update', 'category').enum).toEqual([...MEMORY_CATEGORIES]);
    expect(prop('append_messages', 'messages')).toMatchObject({ type: 'array', minItems: 1, maxItems: 500 });
    expect(prop('related_memories', 'relation').enum).toEqual([...LINK_RELATIONS]);
    expect(prop('related_memories', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });

    for (const x of tools) {
      expect(x.outputSchema).toMatchObject({ type: 'object' });
      // Descriptions are for models: none of our internal vocabulary.
      const shown = JSON.stringify([x.description, x.inputSchema, x.outputSchema]);
      expect(shown).not.toMatch(/seed \d|o200k|reciprocal rank|\bfused\b|hippocampus|neocortex|sensory register|consolidat/i);
      expect(shown).not.toMatch(/\b(RRF|BM25|STM|LTM)\b/);
    }
    // The description says when to call it, and how to pick a key.
    expect(tool('recall').description).toMatch(/start of a conversation or task/);
    expect(tool('remember').description).toMatch(/as soon as the user states a lasting fact/);
    expect(prop('remember', 'key').description).toMatch(/subject_attribute, e\.g\. user_employer/);
    expect(client.getInstructions()).toMatch(/call recall/);

    const resources = await client.listResources();
    expect(resources.resources).toEqual([expect.objectContaining({ uri: 'memory://recall', mimeType: 'text/plain' })]);
  });

  it("a call built from each tool's input schema alone succeeds, and its structuredContent matches the tool's outputSchema", async () => {
    const client = await connect(asAgent(c));
    const { tools } = await client.listTools();
    const validator = new AjvJsonSchemaValidator();
    for (const tool of tools) {
      const input = tool.inputSchema as JsonSchema;
      const args = callFromSchema(input);
      // The generated call is what the schema allows, as a client would check it.
      const inputCheck = validator.getValidator(input as never)(args);
      expect({ tool: tool.name, error: inputCheck.errorMessage }).toEqual({ tool: tool.name, error: undefined });
      const result = await call(client, tool.name, args);
      expect({ tool: tool.name, args, isError: result.isError ?? false, text: result.isError ? textOf(result) : '' }).toEqual({ tool: tool.name, args, isError: false, text: '' });
      expect(textOf(result).length).toBeGreaterThan(0);
      const outputCheck = validator.getValidator(tool.outputSchema as never)(result.structuredContent);
      expect({ tool: tool.name, error: outputCheck.errorMessage }).toEqual({ tool: tool.name, error: undefined });
    }
  });

  it('every enum value and every bound an argument advertises is accepted', async () => {
    const client = await connect(asAgent(c));
    const { tools } = await client.listTools();
    await call(client, 'remember', callFromSchema(tools.find((x) => x.name === 'remember')?.inputSchema as JsonSchema));
    const tried: string[] = [];
    for (const tool of tools.filter((x) => x.name !== 'forget')) {
      const input = tool.inputSchema as JsonSchema;
      // A tool that names a memory names the schema-built one; each sweep call changes one argument.
      const full = callFromSchema(input);
      const base = namesMemory(input) ? { category: full.category, key: full.key } : full;
      for (const [name, schema] of Object.entries(input.properties as Record<string, JsonSchema>)) {
        if (name in base || name === 'id') continue;
        for (const value of edgeValues(schema)) {
          const result = await call(client, tool.name, { ...base, [name]: value });
          if (tool.name === 'recall' && name === 'max_tokens' && value === schema.minimum) {
            // The API's floor; the real one is the size of this mind's recall header (it grows
            // with the mind's name), which the error states so that the model can retry.
            expect(textOf(result)).toMatch(/^max_tokens: must be at least \d+, the size of this mind's recall header$/);
            continue;
          }
          expect({ tool: tool.name, name, value, error: result.isError ? textOf(result) : null }).toEqual({ tool: tool.name, name, value, error: null });
          tried.push(`${tool.name}.${name}=${String(value)}`);
        }
      }
    }
    // The sweep covered the enums and the bounded numbers (it can fail only if it ran).
    expect(tried).toEqual(expect.arrayContaining(['search.category=note', 'search.memory_type=working', 'update.priority=critical', 'recall.max_tokens=200000', 'search.limit=100', 'update.importance=1']));
  });

  it('remember, recall, search, the recall resource, then forget (REST sees the same memory)', async () => {
    const client = await connect(asAgent(a));
    const stored = await call(client, 'remember', {
      category: 'project',
      key: 'synapse_status',
      content: 'v1.5.0 deployed, working on v1.6.0 docs',
      tags: ['Synapse', 'deployment'],
      priority: 'high',
    });
    expect(stored.isError).toBeFalsy();
    expect(stored.structuredContent).toMatchObject({
      status: 'created',
      memory: { category: 'project', key: 'synapse_status', tags: ['synapse', 'deployment'], priority: 'high', verified: false, source: 'agent', confidence: 0.7, version: 1 },
    });
    expect(textOf(stored)).toBe('created project/synapse_status (version 1)');
    const id = (stored.structuredContent as { memory: { id: string } }).memory.id;

    // Upsert by (category, key): the same key updates, never duplicates.
    const again = await call(client, 'remember', { category: 'project', key: 'synapse_status', content: 'v1.6.0 deployed' });
    expect(again.structuredContent).toMatchObject({ status: 'updated', memory: { id, content: 'v1.6.0 deployed', version: 2 } });
    const rest = await t.http().get(`/v1/memory/${id}`).set(asAgent(a)).expect(200);
    expect(rest.body).toMatchObject({ source: 'agent', version: 2, content: 'v1.6.0 deployed' });

    const recall = await call(client, 'recall', { q: 'what is deployed?', max_tokens: 500 });
    expect(recall.isError).toBeFalsy();
    expect(textOf(recall)).toContain('Mind: mcp-a mind');
    expect(textOf(recall)).toContain('[001] project (HIGH) [unverified]\n  synapse_status\n  v1.6.0 deployed');
    const restRecall = await t.http().get('/v1/memory/recall').query({ q: 'what is deployed?', max_tokens: 500 }).set(asAgent(a)).expect(200);
    expect(textOf(recall)).toBe(restRecall.text);
    expect(recall.structuredContent).toEqual({ text: restRecall.text, tokens: Number(restRecall.headers['x-recall-tokens']), entries: 1 });

    const resource = await client.readResource({ uri: 'memory://recall' });
    expect(resource.contents).toEqual([expect.objectContaining({ uri: 'memory://recall', mimeType: 'text/plain' })]);
    const resourceText = (resource.contents[0] as { text: string }).text;
    expect(resourceText).toContain('v1.6.0 deployed');
    expect(resourceText).toBe((await t.http().get('/v1/memory/recall').set(asAgent(a)).expect(200)).text);

    const found = await call(client, 'search', { q: 'deployed', limit: 5, tags: ['synapse'] });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as { items: unknown[] }).items).toEqual([expect.objectContaining({ id, key: 'synapse_status', content: 'v1.6.0 deployed', relevance: 1 })]);
    // The day of the event, so a model reading only the text can tell the newer of two facts.
    const day = (found.structuredContent as { items: { occurred_at: string }[] }).items[0]?.occurred_at.slice(0, 10);
    expect(textOf(found)).toBe(`1. project/synapse_status (relevance 1.00, ${day}): v1.6.0 deployed`);

    const forgotten = await call(client, 'forget', { id });
    expect(forgotten.isError).toBeFalsy();
    expect(forgotten.structuredContent).toEqual({ deleted: id });
    await t.http().get(`/v1/memory/${id}`).set(asAgent(a)).expect(404);
    const gone = await call(client, 'forget', { id });
    expect(gone).toMatchObject({ isError: true });
    expect(textOf(gone)).toBe('memory not found');
  });

  it('search answers relevance relative to the best hit and retention, both in 0..1', async () => {
    const client = await connect(asAgent(a));
    await call(client, 'remember', { category: 'preference', key: 'user_coffee', content: 'The user drinks coffee black, no sugar' });
    await call(client, 'remember', { category: 'fact', key: 'office_coffee_machine', content: 'The office coffee machine is on the second floor' });
    await call(client, 'remember', { category: 'fact', key: 'user_sister', content: 'The user has a sister called Ana' });
    const result = await call(client, 'search', { q: 'how does the user drink coffee' });
    const items = (result.structuredContent as { items: { key: string; relevance: number; retention: number | null }[] }).items;
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(items[0]).toMatchObject({ key: 'user_coffee', relevance: 1 });
    for (const hit of items) {
      expect(hit.relevance).toBeGreaterThan(0);
      expect(hit.relevance).toBeLessThanOrEqual(1);
      expect(hit.retention).toBeGreaterThan(0);
      expect(hit.retention).toBeLessThanOrEqual(1);
    }
    expect(items.map((h) => h.relevance)).toEqual([...items.map((h) => h.relevance)].sort((x, y) => y - x));
    expect((items[1] as { relevance: number }).relevance).toBeLessThan(1);
  });

  it('get, update and history by key or id: update changes only the given fields and makes a version', async () => {
    const client = await connect(asAgent(a));
    const stored = await call(client, 'remember', { category: 'identity', key: 'user_employer', content: 'The user works at Initech', tags: ['work'] });
    const id = (stored.structuredContent as { memory: { id: string } }).memory.id;

    const byKey = await call(client, 'get', { category: 'identity', key: 'user_employer' });
    const byId = await call(client, 'get', { id });
    expect(byKey.structuredContent).toMatchObject({ memory: { id, content: 'The user works at Initech', tags: ['work'], version: 1, retention: expect.any(Number) } });
    expect((byId.structuredContent as { memory: { id: string } }).memory.id).toBe(id);
    expect(textOf(byId)).toBe(`identity/user_employer (v1, ${(byId.structuredContent as { memory: { occurred_at: string } }).memory.occurred_at.slice(0, 10)}): The user works at Initech`);

    const updated = await call(client, 'update', { category: 'identity', key: 'user_employer', content: 'The user works at Globex', priority: 'high' });
    expect(updated.isError).toBeFalsy();
    expect(updated.structuredContent).toMatchObject({ status: 'updated', memory: { id, content: 'The user works at Globex', priority: 'high', tags: ['work'], version: 2, source: 'agent', verified: false } });
    const rest = await t.http().get(`/v1/memory/${id}`).set(asAgent(a)).expect(200);
    expect(rest.body).toMatchObject({ content: 'The user works at Globex', priority: 'high', tags: ['work'], version: 2 });

    // The same values again change nothing: no new version.
    const same = await call(client, 'update', { id, priority: 'high' });
    expect(same.structuredContent).toMatchObject({ status: 'unchanged', memory: { version: 2 } });
    const expiry = await call(client, 'update', { id, expires_at: '2030-01-31T00:00:00Z' });
    expect(expiry.structuredContent).toMatchObject({ memory: { version: 3, expires_at: '2030-01-31T00:00:00.000Z', content: 'The user works at Globex' } });

    const history = await call(client, 'history', { category: 'identity', key: 'user_employer' });
    expect(history.structuredContent).toMatchObject({
      memory_id: id,
      versions: [
        { version: 3, change: 'update', content: 'The user works at Globex', changed_by: 'mind_key' },
        { version: 2, change: 'update', content: 'The user works at Globex', priority: 'high' },
        { version: 1, change: 'create', content: 'The user works at Initech', priority: 'normal', changed_by: 'mind_key' },
      ],
    });
    const restHistory = await t.http().get(`/v1/memory/${id}/history`).set(asAgent(a)).expect(200);
    expect((history.structuredContent as { versions: unknown[] }).versions).toHaveLength(restHistory.body.items.length);

    const nothing = await call(client, 'update', { id });
    expect(nothing).toMatchObject({ isError: true });
    expect(textOf(nothing)).toMatch(/must change at least one field/);
    const badImportance = await call(client, 'update', { id, importance: 2 });
    expect(textOf(badImportance)).toBe('importance: must be from 0 to 1');
    const both = await call(client, 'get', { id, category: 'identity', key: 'user_employer' });
    expect(textOf(both)).toBe('id: give id, or category and key, not both');
    const neither = await call(client, 'history', {});
    expect(textOf(neither)).toBe('id: is required (or category and key)');
    // Half the pair: the other is missing (helper 34's: "key: must be a string").
    expect(textOf(await call(client, 'get', { category: 'identity' }))).toBe('key: is required with category');
    expect(textOf(await call(client, 'get', { key: 'user_employer' }))).toBe('category: is required with key');
    // An agent dates a fact it learns late: recall shows the date, so the newer of two facts is plain.
    const dated = await call(client, 'update', { id, occurred_at: '2024-03-01T09:00:00+01:00' });
    expect(dated.structuredContent).toMatchObject({ memory: { version: 4, occurred_at: '2024-03-01T08:00:00.000Z' } });
    const remembered = await call(client, 'remember', { category: 'fact', key: 'user_moved', content: 'The user moved to Lisbon', occurred_at: '2023-06-01T00:00:00Z' });
    expect(remembered.structuredContent).toMatchObject({ status: 'created', memory: { occurred_at: '2023-06-01T00:00:00.000Z' } });
    const badDate = await call(client, 'remember', { category: 'fact', key: 'user_moved2', content: 'x y z', occurred_at: 'last tuesday' });
    expect(badDate.isError).toBe(true);
    expect(textOf(badDate)).toMatch(/^occurred_at: /);
  });

  it("another tenant's id, an unknown id or key and a malformed id all answer the same not found, and change nothing", async () => {
    const theirs = await t.http().post('/v1/memory').set(asAgent(b)).send({ category: 'fact', key: 'bob_secret', content: 'Bob secret plan' }).expect(201);
    const client = await connect(asAgent(a));
    const refs = [{ id: theirs.body.id }, { id: '0190a5a0-0000-7000-8000-000000000000' }, { id: 'not-a-uuid' }, { category: 'fact', key: 'bob_secret' }, { category: 'note', key: 'never_stored' }];
    for (const ref of refs) {
      for (const [tool, extra] of [['get', {}], ['update', { content: 'overwritten' }], ['history', {}], ['related_memories', {}], ['forget', {}]] as const) {
        const result = await call(client, tool, { ...ref, ...extra });
        expect({ tool, ref, isError: result.isError, text: textOf(result), structured: result.structuredContent }).toEqual({ tool, ref, isError: true, text: 'memory not found', structured: undefined });
      }
    }
    const still = await t.http().get(`/v1/memory/${theirs.body.id}`).set(asAgent(b)).expect(200);
    expect(still.body).toMatchObject({ content: 'Bob secret plan', version: 1 });
    // ...and the other tenant's memories never show up in this mind's search or recall.
    const found = (await call(client, 'search', { q: 'Bob secret plan' })).structuredContent as { items: { key: string }[] };
    expect(found.items.map((m) => m.key)).not.toContain('bob_secret');
    expect(textOf(await call(client, 'recall'))).not.toContain('Bob');
  });

  it('related_memories lists the links REST lists, by id or key, strongest first, without counting a use', async () => {
    const client = await connect(asAgent(a));
    const first = await call(client, 'remember', { category: 'fact', key: 'ferry_time', content: 'The harbour ferry to the island leaves at seven every morning' });
    const second = await call(client, 'remember', { category: 'fact', key: 'ferry_time_weekdays', content: 'The harbour ferry to the island leaves at seven on weekday mornings' });
    const id = (first.structuredContent as { memory: { id: string } }).memory.id;
    const otherId = (second.structuredContent as { memory: { id: string } }).memory.id;
    expect(textOf(await call(client, 'related_memories', { id }))).toBe('no related memories (yet)');
    await t.app.get(AssociationJob).run(a.tenantId);

    const related = await call(client, 'related_memories', { category: 'fact', key: 'ferry_time', relation: 'similar_to' });
    expect(related.isError).toBeFalsy();
    const { memory_id, items } = related.structuredContent as { memory_id: string; items: { relation: string; weight: number; memory: { id: string; key: string } }[] };
    expect(memory_id).toBe(id);
    expect(items).toEqual(expect.arrayContaining([expect.objectContaining({ relation: 'similar_to', direction: 'out', via: null, memory: expect.objectContaining({ id: otherId, key: 'ferry_time_weekdays', category: 'fact' }) })]));
    const rest = (await t.http().get(`/v1/memory/${id}/associations`).query({ relation: 'similar_to' }).set(asAgent(a)).expect(200)).body.items as { weight: number }[];
    expect(items).toEqual(rest.map((l) => ({ ...l, weight: Math.round(l.weight * 1000) / 1000 })));
    expect(textOf(related)).toMatch(/^similar_to 0\.\d\d fact\/ferry_time_weekdays: The harbour ferry/);
    expect(((await call(client, 'related_memories', { id, limit: 1 })).structuredContent as { items: unknown[] }).items).toHaveLength(1);
    expect(((await call(client, 'related_memories', { id, relation: 'shares_entity' })).structuredContent as { items: unknown[] }).items).toEqual([]);
    expect(textOf(await call(client, 'related_memories', { id, relation: 'friend_of' }))).toMatch(/^relation: must be one of similar_to, /);
    expect(textOf(await call(client, 'related_memories', { id, limit: 101 }))).toBe('limit: must be a whole number from 1 to 100');
    // Not a use: the memory's accesses did not move.
    expect((await t.http().get(`/v1/memory/${id}/retention`).set(asAgent(a)).expect(200)).body.access_count).toBe(0);
  });

  it('forget by category and key', async () => {
    const client = await connect(asAgent(a));
    const stored = await call(client, 'remember', { category: 'note', key: 'scratch', content: 'temporary note' });
    const { memory } = stored.structuredContent as { memory: { id: string } };
    expect((await call(client, 'forget', { category: 'note', key: 'scratch' })).structuredContent).toEqual({ deleted: memory.id });
    await t.http().get(`/v1/memory/${memory.id}`).set(asAgent(a)).expect(404);
  });

  it('list_expiring shows the memory that expires within the window', async () => {
    const client = await connect(asAgent(a));
    const soon = new Date(Date.now() + 2 * 24 * 3600_000).toISOString();
    const later = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
    await call(client, 'remember', { category: 'context', key: 'sprint_goal', content: 'Ship the MCP server this sprint', expires_at: soon });
    await call(client, 'remember', { category: 'context', key: 'quarter_goal', content: 'Grow to ten customers', expires_at: later });
    const listed = await call(client, 'list_expiring', { within_days: 7 });
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { items: unknown[] }).items).toEqual([expect.objectContaining({ key: 'sprint_goal', expires_at: new Date(soon).toISOString() })]);
    const wider = (await call(client, 'list_expiring', { within_days: 60 })).structuredContent as { items: { key: string }[] };
    expect(wider.items.map((m) => m.key)).toEqual(['sprint_goal', 'quarter_goal']);
    const hours = (await call(client, 'list_expiring', { within: '72h' })).structuredContent as { items: { key: string }[] };
    expect(hours.items.map((m) => m.key)).toEqual(['sprint_goal']);
  });

  it('append_messages stores the messages in the conversation stream', async () => {
    const client = await connect(asAgent(a));
    const result = await call(client, 'append_messages', {
      conversation_id: 'mcp-chat-1',
      messages: [
        { role: 'user', content: 'We have a meeting with the investors next Friday at 3 pm in Berlin.' },
        { role: 'assistant', content: 'ok' },
      ],
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ conversation_id: 'mcp-chat-1', message_ids: [expect.any(String), expect.any(String)], remembered: expect.any(Array), facts: [] });
    const stm = await t.http().get('/v1/conversations/mcp-chat-1/stm').set(asAgent(a)).expect(200);
    expect(stm.body.entries.map((e: { content: string }) => e.content)).toEqual([expect.stringContaining('meeting with the investors')]);
  });

  it('end_conversation decides what the conversation still holds: what mattered is remembered, the rest let go', async () => {
    const client = await connect(asAgent(a));
    await call(client, 'append_messages', {
      conversation_id: 'mcp-chat-2',
      messages: [
        { role: 'user', content: 'My daughter starts school in Porto in September', importance: 0.9 },
        { role: 'user', content: 'maybe we could look at some other options later on', importance: 0.3 },
      ],
    });
    const ended = await call(client, 'end_conversation', { conversation_id: 'mcp-chat-2' });
    expect(ended.isError).toBeFalsy();
    expect(ended.structuredContent).toEqual({ conversation_id: 'mcp-chat-2', remembered: [{ memory_id: expect.any(String), key: expect.any(String), status: 'created' }], discarded: 1 });
    const memoryId = (ended.structuredContent as { remembered: { memory_id: string }[] }).remembered[0]!.memory_id;
    expect((await t.http().get(`/v1/memory/${memoryId}`).set(asAgent(a)).expect(200)).body.content).toContain('Porto');
    expect((await t.http().get('/v1/conversations/mcp-chat-2/stm').set(asAgent(a)).expect(200)).body.entries).toEqual([]);
    expect((await call(client, 'end_conversation', { conversation_id: 'mcp-chat-2' })).structuredContent).toEqual({ conversation_id: 'mcp-chat-2', remembered: [], discarded: 0 });
    expect(textOf(await call(client, 'end_conversation', { conversation_id: 'has space' }))).toMatch(/^conversation_id: must be 1 to 200 characters/);
    expect(textOf(await call(client, 'end_conversation', {}))).toBe('conversation_id: is required');
  });

  it("answers the API's validation messages as tool errors, never a crash", async () => {
    const client = await connect(asAgent(a));
    const badKey = await call(client, 'remember', { category: 'fact', key: 'Not Snake', content: 'x' });
    expect(badKey).toMatchObject({ isError: true });
    expect(textOf(badKey)).toBe('key: must be snake_case: a lower-case letter, then lower-case letters, digits or _');
    const badCategory = await call(client, 'remember', { category: 'gossip', key: 'k', content: 'x' });
    expect(textOf(badCategory)).toBe(`category: must be one of ${MEMORY_CATEGORIES.join(', ')}`);
    const missing = await call(client, 'remember', { key: 'k', content: 'x' });
    expect(textOf(missing)).toBe(`category: must be one of ${MEMORY_CATEGORIES.join(', ')}`);
    const badBudget = await call(client, 'recall', { max_tokens: 5 });
    expect(badBudget).toMatchObject({ isError: true });
    expect(textOf(badBudget)).toBe('max_tokens: must be a whole number from 20 to 200000');
    const badTag = await call(client, 'search', { q: 'x', tags: ['a,b'] });
    expect(textOf(badTag)).toBe('tags[0]: must not contain commas or control characters');
    const badLimit = await call(client, 'search', { q: 'x', limit: 101 });
    expect(textOf(badLimit)).toBe('limit: must be a whole number from 1 to 100');
    const badWindow = await call(client, 'list_expiring', { within_days: 1.5 });
    expect(textOf(badWindow)).toMatch(/^within_days: must be a positive whole number/);
    const badMessage = await call(client, 'append_messages', { conversation_id: 'c1', messages: [{ content: ' ' }] });
    expect(textOf(badMessage)).toBe('messages[0].content: must not be empty');
    const badConversation = await call(client, 'append_messages', { conversation_id: 'has space', messages: [{ content: 'hi' }] });
    // The tool's own argument name, not the REST path parameter's (conversationId).
    expect(textOf(badConversation)).toMatch(/^conversation_id: must be 1 to 200 characters/);
    const noChange = await call(client, 'update', { category: 'fact', key: 'k' });
    expect(textOf(noChange)).toBe('arguments: must change at least one field');
    // Unknown arguments are refused (by the SDK's check of the tool's schema), not silently dropped.
    const unknownField = await call(client, 'remember', { category: 'fact', key: 'k', content: 'x', tag: ['misspelled'] });
    expect(unknownField).toMatchObject({ isError: true });
    expect(textOf(unknownField)).toContain('"tag"');
    const notAnId = await call(client, 'forget', { id: 'not-a-uuid' });
    expect(textOf(notAnId)).toBe('memory not found');
  });

  it("every error names the tool's own arguments: nothing, or a wrong type for each argument, is answered naming it", async () => {
    const client = await connect(asAgent(c));
    const { tools } = await client.listTools();
    await call(client, 'remember', callFromSchema(tools.find((x) => x.name === 'remember')?.inputSchema as JsonSchema));
    const wrong: unknown[] = [null, 5, 'x', true, [], {}];
    const answered: string[] = [];
    for (const tool of tools) {
      const input = tool.inputSchema as JsonSchema;
      const names = Object.keys(input.properties ?? {});
      const full = callFromSchema(input);
      const base = namesMemory(input) ? { category: full.category, key: full.key } : full;
      const tries: Record<string, unknown>[] = [{}, ...names.flatMap((name) => wrong.map((value) => ({ ...base, [name]: value })))];
      for (const args of tries) {
        const result = await call(client, tool.name, args);
        if (!result.isError) continue;
        const text = textOf(result);
        answered.push(text);
        // Each problem reads `<argument>[...]: <rule>`, naming an argument of this tool (or its
        // `arguments` as a whole); `memory not found` names no field.
        const fields = text === 'memory not found' ? [] : text.split('; ').map((part) => /^([a-z_]+)(?:[.[][^:]*)?: /.exec(part)?.[1] ?? part);
        expect({ tool: tool.name, args, fields: fields.filter((f) => f !== 'arguments' && !names.includes(f)) }).toEqual({ tool: tool.name, args, fields: [] });
      }
    }
    expect(answered).toEqual(expect.arrayContaining([expect.stringMatching(/^conversation_id: /), expect.stringMatching(/^within_days: /), expect.stringMatching(/^messages: /)]));
    expect(answered).not.toContain('internal error');
  });

  it("list_expiring advertises no default that conflicts: a call with every schema default filled in succeeds, for each tool and with within_days or within", async () => {
    const client = await connect(asAgent(c));
    const { tools } = await client.listTools();
    const expiring = (tools.find((x) => x.name === 'list_expiring') as Tool).inputSchema.properties as Record<string, JsonSchema>;
    expect(expiring.within?.default).toBeUndefined();
    expect(expiring.within_days?.default).toBeUndefined();
    for (const tool of tools.filter((x) => x.name !== 'forget')) {
      const input = tool.inputSchema as JsonSchema;
      const extra: Record<string, unknown>[] = tool.name === 'list_expiring' ? [{}, { within_days: 30 }, { within: '12h' }] : [{}];
      for (const more of extra) {
        // What a client that fills in schema defaults sends.
        const args = withDefaults(input, { ...callFromSchema(input), ...more });
        const result = await call(client, tool.name, args);
        expect({ tool: tool.name, args, error: result.isError ? textOf(result) : null }).toEqual({ tool: tool.name, args, error: null });
      }
    }
  });

  it('a string the schema allows is not refused: empty, blank, non-date and control-character probes of every string field', async () => {
    const client = await connect(asAgent(c));
    const { tools } = await client.listTools();
    const validator = new AjvJsonSchemaValidator();
    await call(client, 'remember', callFromSchema(tools.find((x) => x.name === 'remember')?.inputSchema as JsonSchema));
    const probes = ['', ' ', 'x', 'x\ty'];
    const swept: string[] = [];
    for (const tool of tools) {
      const input = tool.inputSchema as JsonSchema;
      const check = validator.getValidator(input as never);
      const full = callFromSchema(input);
      const base = namesMemory(input) ? { category: full.category, key: full.key } : full;
      for (const { path, schema } of stringLeaves(input)) {
        if (namesMemory(input) && path[0] === 'id') continue;
        const field = path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
        for (const value of probes) {
          const args = setAt(base, path, value);
          const result = await call(client, tool.name, args);
          const refused = result.isError === true && textOf(result).includes(`${field}: `);
          swept.push(`${tool.name}.${field}`);
          if (!refused) continue;
          // The server refuses it naming the field: the schema must not allow it.
          expect({ tool: tool.name, field, value, schemaAllows: check(args).valid, error: textOf(result) }).toMatchObject({ tool: tool.name, field, value, schemaAllows: false });
          // Refused when empty: an enum, a date-time, or text the schema says must not be empty.
          if (value === '' && !Array.isArray(schema.enum) && schema.format !== 'date-time') expect({ tool: tool.name, field, minLength: schema.minLength }).toEqual({ tool: tool.name, field, minLength: 1 });
          if (/ISO 8601 date-time/.test(textOf(result))) expect({ tool: tool.name, field, format: schema.format }).toEqual({ tool: tool.name, field, format: 'date-time' });
        }
      }
    }
    expect(swept).toEqual(expect.arrayContaining(['append_messages.messages[0].content', 'append_messages.messages[0].occurred_at', 'append_messages.messages[0].speaker', 'remember.tags[0]', 'search.q', 'search.from']));
    // The message fields a client must see: non-empty content, a date-time.
    const message = ((tools.find((x) => x.name === 'append_messages') as Tool).inputSchema.properties as Record<string, JsonSchema>).messages?.items?.properties as Record<string, JsonSchema>;
    expect(message.content).toMatchObject({ type: 'string', minLength: 1 });
    expect(message.occurred_at).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('a tools/call with arguments null or not an object is a readable tool error naming arguments, never -32603', async () => {
    let id = 0;
    const rpc = async (params: unknown) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...asAgent(c) },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { result?: CallToolResult; error?: { code: number; message: string } };
    };
    for (const [args, got] of [[null, 'null'], ['x', 'a string'], [[1], 'an array'], [5, 'a number']] as const) {
      for (const name of ['recall', 'remember']) {
        const answer = await rpc({ name, arguments: args });
        expect(answer.error).toBeUndefined();
        expect(answer.result).toEqual({ content: [{ type: 'text', text: `arguments: must be an object of the tool's arguments by name ({} for none), not ${got}` }], isError: true });
      }
    }
    const noName = await rpc({ name: 5, arguments: {} });
    expect(noName.error).toEqual({ code: -32602, message: expect.stringMatching(/^Invalid params: name: /) });
    const noParams = await rpc(undefined);
    expect(noParams.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params: params: /) });
    // A well-formed call still goes through, and arguments left out are no arguments.
    expect((await rpc({ name: 'recall' })).result?.isError).toBeFalsy();
    expect((await rpc({ name: 'recall', arguments: {} })).result?.isError).toBeFalsy();
  });

  it('needs a Mind Key: none or unknown → 401 with WWW-Authenticate; a user JWT → 403', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });

    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="engram"');
    // Only a Mind Key opens /mcp: the message says so (helper 32's: it offered a JWT or a service key).
    expect(await none.json()).toMatchObject({ statusCode: 401, message: expect.stringMatching(/missing credentials.*Bearer <Mind Key>/) });

    const unknown = await post({ Authorization: 'Bearer emk_not_a_real_key_0000000000000000' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="engram", error="invalid_token"');

    const user = await post({ Authorization: `Bearer ${a.token}` });
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({ statusCode: 403, message: expect.stringContaining('Mind Key') });

    // The SDK's client without a key fails to connect with the 401.
    const client = new Client({ name: 'engram-test', version: '1.0.0' });
    clients.push(client);
    await expect(client.connect(new StreamableHTTPClientTransport(url))).rejects.toMatchObject({ code: 401 });

    // Stateless: no GET stream, no sessions to delete.
    const get = await fetch(url, { headers: { ...asAgent(a), Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    await get.arrayBuffer();
  });
});

type JsonSchema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; items?: JsonSchema };

/** The first type a schema allows (`["string", "null"]` → string). */
const typeOf = (schema: JsonSchema): string | undefined => (Array.isArray(schema.type) ? schema.type[0] : schema.type);

/**
 * A value as a model would write it from the schema alone: its first example, else its first
 * enum value, else the minimum of a bounded number, a date-time a day ahead, a short string,
 * a list of `minItems` values, an object of its required properties.
 */
function valueFor(schema: JsonSchema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: typeof schema.minItems === 'number' ? schema.minItems : 0 }, () => valueFor(schema.items ?? {}));
    case 'object':
      return callFromSchema(schema);
    default:
      return schema.format === 'date-time' ? new Date(Date.now() + 86_400_000).toISOString() : 'x';
  }
}

/**
 * A tool call from its input schema alone: the required arguments. A tool that names one
 * memory (`id`, or `category` and `key`; none required) is called by category and key from their
 * schemas, which names the memory a schema-built `remember` stored; its other arguments (update's
 * changes) are filled too.
 */
function callFromSchema(schema: JsonSchema): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const chosen = namesMemory(schema) ? Object.keys(properties).filter((name) => name !== 'id') : (schema.required ?? []);
  return Object.fromEntries(chosen.map((name) => [name, valueFor(properties[name] as JsonSchema)]));
}

/** True for a tool that names one memory: `id`, or `category` and `key`, none of them required. */
function namesMemory(schema: JsonSchema): boolean {
  const properties = schema.properties ?? {};
  return (schema.required ?? []).length === 0 && 'id' in properties && 'category' in properties && 'key' in properties;
}

/** The edges of an argument: each enum value, both bounds of a bounded number, both booleans. */
function edgeValues(schema: JsonSchema): unknown[] {
  if (Array.isArray(schema.enum)) return schema.enum;
  const type = typeOf(schema);
  if (type === 'boolean') return [true, false];
  if (type === 'integer' || type === 'number') return [schema.minimum, schema.maximum].filter((v) => typeof v === 'number');
  return [];
}

/** The string leaves of a schema: its string properties, an array's string items, an object's string properties (one level down). */
function stringLeaves(schema: JsonSchema, path: (string | number)[] = []): { path: (string | number)[]; schema: JsonSchema }[] {
  const type = typeOf(schema);
  if (type === 'string') return [{ path, schema }];
  if (type === 'array' && schema.items) return stringLeaves(schema.items, [...path, 0]);
  if (type === 'object' && path.length < 3) return Object.entries(schema.properties ?? {}).flatMap(([name, s]) => stringLeaves(s, [...path, name]));
  return [];
}

/** A copy of `value` with `leaf` at `path`, creating the lists and objects on the way (`['messages', 0, 'speaker']`). */
function setAt(value: Record<string, unknown>, path: (string | number)[], leaf: unknown): Record<string, unknown> {
  const copy = structuredClone(value);
  let at: Record<string | number, unknown> = copy;
  path.forEach((step, i) => {
    if (i === path.length - 1) {
      at[step] = leaf;
      return;
    }
    if (at[step] === undefined || at[step] === null) at[step] = typeof path[i + 1] === 'number' ? [] : {};
    // A list's element is an object when the next step names a property of it.
    if (Array.isArray(at[step]) && (at[step] as unknown[])[path[i + 1] as number] === undefined && typeof path[i + 2] === 'string') (at[step] as unknown[])[path[i + 1] as number] = {};
    at = at[step] as Record<string | number, unknown>;
  });
  return copy;
}

/** `args` with every default the schema advertises filled in (also inside list items), as a client that applies defaults sends it. */
function withDefaults(schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (out[name] === undefined && property.default !== undefined) out[name] = property.default;
    if (Array.isArray(out[name]) && typeOf(property) === 'array' && property.items && typeOf(property.items) === 'object') {
      out[name] = (out[name] as unknown[]).map((item) => (item !== null && typeof item === 'object' ? withDefaults(property.items as JsonSchema, item as Record<string, unknown>) : item));
    }
  }
  return out;
}
