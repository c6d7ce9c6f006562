import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTenant, startTestApp, type TenantFixture, type TestApp } from './support/test-app';

// The Python client (clients/python) against the running API: its pytest suite and its agent-loop
// example, over real HTTP. Debian's Python with python3-httpx and python3-pytest
// (scripts/test-services.sh installs them); never a pyenv or virtualenv interpreter, so that what
// passes here is what a clean Debian machine has.
const PYTHON = process.env.ENGRAM_TEST_PYTHON ?? '/usr/bin/python3';
const PACKAGE = join(__dirname, '..', 'clients', 'python');
/** Requests per minute per credential on the second API, which the 429 test runs into. */
const LIMITED_PER_MINUTE = 3;

interface Run {
  code: number | null;
  output: string;
}

/**
 * Runs Python without blocking this process: the API under test answers from this event loop.
 * The environment is built from scratch so that a developer's ENGRAM_* variables cannot leak in.
 */
function python(args: string[], env: Record<string, string>, timeoutMs = 150_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd: PACKAGE,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        LANG: 'C.UTF-8',
        PYTHONPATH: PACKAGE,
        // No __pycache__ or .pytest_cache left in the checkout.
        PYTHONDONTWRITEBYTECODE: '1',
        ...env,
      },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function urlOf(t: TestApp): string {
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}

describe('Python client (clients/python)', () => {
  let t: TestApp;
  let limited: TestApp;
  let mine: TenantFixture;
  let other: TenantFixture;
  let limitedTenant: TenantFixture;
  let example: TenantFixture;
  let serviceKey: string;
  let readOnlyServiceKey: string;

  /** A tenant service key (`esk_...`) issued by the tenant's owner. */
  const issueServiceKey = async (f: TenantFixture, scopes: string[]): Promise<string> => {
    const res = await t.http().post('/v1/service-keys').set('Authorization', `Bearer ${f.token}`).send({ name: scopes.join(' '), scopes }).expect(201);
    return res.body.key as string;
  };

  beforeAll(async () => {
    // A second API with a tiny per-credential rate limit, for the 429 case only. It comes first,
    // with its tenant: passport's JWT strategy is process-wide and the last app started wins, so
    // JWTs work on the main API only (the limited one is used with its Mind Key, which is not JWT).
    limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(LIMITED_PER_MINUTE), RATE_LIMIT_IP_PER_MINUTE: '0' });
    await limited.app.listen(0, '127.0.0.1');
    limitedTenant = await createTenant(limited, 'python-limited');
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    mine = await createTenant(t, 'python');
    other = await createTenant(t, 'python-other');
    example = await createTenant(t, 'python-example');
    serviceKey = await issueServiceKey(mine, ['minds:manage', 'memories:read', 'memories:write']);
    readOnlyServiceKey = await issueServiceKey(mine, ['memories:read']);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await limited?.close();
  });

  const env = (): Record<string, string> => ({
    ENGRAM_URL: urlOf(t),
    ENGRAM_TEST_JWT: mine.token,
    ENGRAM_TEST_MIND_ID: mine.mindId,
    ENGRAM_TEST_MIND_KEY: mine.mindKey,
    ENGRAM_TEST_SERVICE_KEY: serviceKey,
    ENGRAM_TEST_READONLY_SERVICE_KEY: readOnlyServiceKey,
    ENGRAM_TEST_OTHER_JWT: other.token,
    ENGRAM_TEST_OTHER_MIND_ID: other.mindId,
    ENGRAM_TEST_OTHER_MIND_KEY: other.mindKey,
    ENGRAM_TEST_LIMITED_URL: urlOf(limited),
    ENGRAM_TEST_LIMITED_MIND_KEY: limitedTenant.mindKey,
    ENGRAM_TEST_LIMITED_PER_MINUTE: String(LIMITED_PER_MINUTE),
  });

  it('passes its pytest suite against the running API (sync, async, errors, pagination, packaging)', async () => {
    const run = await python(['-m', 'pytest', 'tests', '-q', '-p', 'no:cacheprovider', '-rfEs'], env());
    if (run.code !== 0) throw new Error(`pytest exited with ${run.code}:\n${run.output}`);
    // Exit code 0 with nothing run (or everything skipped) would prove nothing.
    expect(run.output).toMatch(/\b\d+ passed\b/);
    expect(run.output).not.toMatch(/\b\d+ (skipped|failed|errors?|xfailed|xpassed)\b/);
  }, 180_000);

  it('runs the agent-loop example: a fact told in one turn is recalled in a later one', async () => {
    const run = await python(['examples/agent_loop.py', '--script'], {
      ENGRAM_URL: urlOf(t),
      // A tenant of its own: the suite's memories cannot answer for the example.
      ENGRAM_API_KEY: example.mindKey,
    });
    if (run.code !== 0) throw new Error(`examples/agent_loop.py exited with ${run.code}:\n${run.output}`);
    // The stub answers from recalled memory only, so Lisbon in the last answer came from Engram.
    const answers = run.output.split('\n').filter((line) => line.startsWith('assistant>'));
    expect(answers.length).toBeGreaterThanOrEqual(3);
    expect(answers[answers.length - 1]).toMatch(/Lisbon/);
    // ...and it was stored as a memory of this mind, through the conversation stream.
    const memories = await t
      .http()
      .get('/v1/memory/search')
      .query({ q: 'Lisbon' })
      .set('Authorization', `Bearer ${example.mindKey}`)
      .expect(200);
    expect(memories.body.items.map((m: { content: string }) => m.content).join('\n')).toMatch(/Lisbon/);
  }, 120_000);
});
