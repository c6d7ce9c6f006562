import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { asAgent, createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

/** The MCP endpoint, driven by the SDK's own client over streamable HTTP against the listening app. */
describe('MCP server at /mcp', () => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
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
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  it('lists the tools and the recall resource', async () => {
    const client = await connect(asAgent(a));
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['append_messages', 'forget', 'list_expiring', 'recall', 'remember', 'search']);
    const remember = tools.tools.find((tool) => tool.name === 'remember');
    expect(remember?.inputSchema.required).toEqual(expect.arrayContaining(['category', 'key', 'content']));
    const resources = await client.listResources();
    expect(resources.resources).toEqual([expect.objectContaining({ uri: 'memory://recall', mimeType: 'text/plain' })]);
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
    const created = JSON.parse(textOf(stored));
    expect(created).toMatchObject({ status: 'created', memory: { category: 'project', key: 'synapse_status', tags: ['synapse', 'deployment'], priority: 'high', verified: false } });
    const id: string = created.memory.id;

    // Upsert by (category, key): the same key updates, never duplicates.
    const again = JSON.parse(textOf(await call(client, 'remember', { category: 'project', key: 'synapse_status', content: 'v1.6.0 deployed' })));
    expect(again).toMatchObject({ status: 'updated', memory: { id, content: 'v1.6.0 deployed' } });
    const rest = await t.http().get(`/v1/memory/${id}`).set(asAgent(a)).expect(200);
    expect(rest.body).toMatchObject({ source: 'agent', version: 2, content: 'v1.6.0 deployed' });

    const recall = await call(client, 'recall', { q: 'what is deployed?', max_tokens: 500 });
    expect(recall.isError).toBeFalsy();
    expect(textOf(recall)).toContain('Mind: mcp-a mind');
    expect(textOf(recall)).toContain('[001] project (HIGH) [unverified]\n  synapse_status\n  v1.6.0 deployed');
    const restRecall = await t.http().get('/v1/memory/recall').query({ q: 'what is deployed?', max_tokens: 500 }).set(asAgent(a)).expect(200);
    expect(textOf(recall)).toBe(restRecall.text);

    const resource = await client.readResource({ uri: 'memory://recall' });
    expect(resource.contents).toEqual([expect.objectContaining({ uri: 'memory://recall', mimeType: 'text/plain' })]);
    const resourceText = (resource.contents[0] as { text: string }).text;
    expect(resourceText).toContain('v1.6.0 deployed');
    expect(resourceText).toBe((await t.http().get('/v1/memory/recall').set(asAgent(a)).expect(200)).text);

    const found = await call(client, 'search', { q: 'deployed', limit: 5, tags: ['synapse'] });
    expect(found.isError).toBeFalsy();
    const hits = JSON.parse(textOf(found)).items;
    expect(hits).toEqual([expect.objectContaining({ id, key: 'synapse_status', content: 'v1.6.0 deployed', score: expect.any(Number) })]);

    const forgotten = await call(client, 'forget', { id });
    expect(forgotten.isError).toBeFalsy();
    expect(JSON.parse(textOf(forgotten))).toEqual({ deleted: id });
    await t.http().get(`/v1/memory/${id}`).set(asAgent(a)).expect(404);
    const gone = await call(client, 'forget', { id });
    expect(gone).toMatchObject({ isError: true });
    expect(textOf(gone)).toBe('memory not found');
  });

  it('forget by category and key', async () => {
    const client = await connect(asAgent(a));
    const { memory } = JSON.parse(textOf(await call(client, 'remember', { category: 'note', key: 'scratch', content: 'temporary note' })));
    expect(JSON.parse(textOf(await call(client, 'forget', { category: 'note', key: 'scratch' })))).toEqual({ deleted: memory.id });
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
    expect(JSON.parse(textOf(listed)).items).toEqual([expect.objectContaining({ key: 'sprint_goal', expires_at: new Date(soon).toISOString() })]);
    const wider = JSON.parse(textOf(await call(client, 'list_expiring', { within_days: 60 }))).items;
    expect(wider.map((m: { key: string }) => m.key)).toEqual(['sprint_goal', 'quarter_goal']);
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
    const body = JSON.parse(textOf(result));
    expect(body).toMatchObject({ conversation_id: 'mcp-chat-1', message_ids: [expect.any(String), expect.any(String)] });
    const stm = await t.http().get('/v1/conversations/mcp-chat-1/stm').set(asAgent(a)).expect(200);
    expect(stm.body.entries.map((e: { content: string }) => e.content)).toEqual([expect.stringContaining('meeting with the investors')]);
  });

  it("answers the API's validation messages as tool errors, never a crash", async () => {
    const client = await connect(asAgent(a));
    const badKey = await call(client, 'remember', { category: 'fact', key: 'Not Snake', content: 'x' });
    expect(badKey).toMatchObject({ isError: true });
    expect(textOf(badKey)).toBe('key: must be snake_case: a lower-case letter, then lower-case letters, digits or _');
    const badCategory = await call(client, 'remember', { category: 'gossip', key: 'k', content: 'x' });
    expect(textOf(badCategory)).toMatch(/^category: must be one of identity, /);
    const badBudget = await call(client, 'recall', { max_tokens: 5 });
    expect(badBudget).toMatchObject({ isError: true });
    expect(textOf(badBudget)).toBe('max_tokens: must be a whole number from 20 to 200000');
    const badTag = await call(client, 'search', { q: 'x', tags: ['a,b'] });
    expect(textOf(badTag)).toBe('tags[0]: must not contain commas or control characters');
    const badWindow = await call(client, 'list_expiring', { within_days: 1.5 });
    expect(textOf(badWindow)).toMatch(/^within_days: must be a positive whole number/);
    const badMessage = await call(client, 'append_messages', { conversation_id: 'c1', messages: [{ content: ' ' }] });
    expect(textOf(badMessage)).toBe('messages[0].content: must not be empty');
    const badConversation = await call(client, 'append_messages', { conversation_id: 'has space', messages: [{ content: 'hi' }] });
    expect(textOf(badConversation)).toMatch(/^conversationId: must be 1 to 200 characters/);
    // Unknown arguments are refused (by the SDK's check of the tool's schema), not silently dropped.
    const unknownField = await call(client, 'remember', { category: 'fact', key: 'k', content: 'x', tag: ['misspelled'] });
    expect(unknownField).toMatchObject({ isError: true });
    expect(textOf(unknownField)).toContain('"tag"');
    const notAnId = await call(client, 'forget', { id: 'not-a-uuid' });
    expect(textOf(notAnId)).toBe('memory not found');
  });

  it("another tenant's memory id in forget is a tool error, and that memory stays", async () => {
    const theirs = await t.http().post('/v1/memory').set(asAgent(b)).send({ category: 'fact', key: 'bob_secret', content: 'Bob secret plan' }).expect(201);
    const client = await connect(asAgent(a));
    const result = await call(client, 'forget', { id: theirs.body.id });
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe('memory not found');
    const still = await t.http().get(`/v1/memory/${theirs.body.id}`).set(asAgent(b)).expect(200);
    expect(still.body.content).toBe('Bob secret plan');
    // ...and the other tenant's memories never show up in this mind's search or recall.
    expect(JSON.parse(textOf(await call(client, 'search', { q: 'secret plan' }))).items).toEqual([]);
    expect(textOf(await call(client, 'recall'))).not.toContain('Bob');
  });

  it('needs a Mind Key: none or unknown → 401 with WWW-Authenticate; a user JWT → 403', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });

    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="engram"');
    expect(await none.json()).toMatchObject({ statusCode: 401, message: expect.stringContaining('missing credentials') });

    const unknown = await post({ Authorization: 'Bearer emk_not_a_real_key_0000000000000000' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="engram"');

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
