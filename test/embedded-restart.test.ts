import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApps, freePort, spawnService, waitFor, type ChildService } from './support/child-service';
import { NO_SCHEDULES } from './support/env';

// Embedded mode (PGlite) locks its data directory so that one process at a time uses it. A
// process killed outright (SIGKILL, the OOM killer, a power cut) cannot release the lock; the
// next start must see that its owner is gone rather than refuse for the lock's 15 s staleness,
// while a second process next to a live one is still refused. The API runs as `npm start` runs
// it: the built entry point as a child process.
describe('embedded mode after a crash', () => {
  let build: ReturnType<typeof buildApps>;
  let dir: string;
  let env: Record<string, string>;
  let url: string;
  const running: ChildService[] = [];

  const start = (): ChildService => {
    const api = spawnService(build.dir, 'apps/api/src/main.js', env);
    running.push(api);
    return api;
  };

  beforeAll(async () => {
    build = buildApps(['apps/api']);
    dir = mkdtempSync(join(tmpdir(), 'engram-embedded-restart-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = { ENGRAM_DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...NO_SCHEDULES };
  });

  afterAll(async () => {
    for (const api of running) await api.stop('SIGKILL');
    build?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts again at once after a SIGKILL, with the data, and still refuses a second process beside a live one', async () => {
    const first = start();
    await first.answering(`${url}/health/ready`);
    const reg = await fetch(`${url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'crash@example.test', password: 'embedded secret', tenant_name: 'Crash' }),
    });
    expect(reg.status).toBe(201);
    const { token } = (await reg.json()) as { token: string };

    await first.stop('SIGKILL');
    const killedAt = Date.now();
    const second = start();
    await second.answering(`${url}/health/ready`, 30_000);
    // Within the lock's staleness (15 s): the start did not just wait the lock out.
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    const me = await fetch(`${url}/v1/auth/me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    // A refused request's log line (warn) names it and its status, not its headers or credential.
    const refused = await fetch(`${url}/v1/memory/search?q=budget`, { headers: { Authorization: 'Bearer forged-credential-0451' } });
    expect(refused.status).toBe(401);
    const line = await waitForLine(second, '/v1/memory/search?q=');
    expect(JSON.parse(line)).toMatchObject({ req: { method: 'GET', url: '/v1/memory/search?q=…' }, res: { statusCode: 401 } });
    // Nor what was searched for: a query is a tenant's memory in other words.
    expect(line).not.toMatch(/forged-credential|authorization|user-agent|headers|budget/i);

    const third = start();
    expect(await third.exited()).toEqual({ code: 1, signal: null });
    expect(third.output).toMatch(new RegExp(`embedded database at ${dir}/pg is in use by another Engram process`));
    // The message alone, not inside Nest's stack trace.
    expect(third.output).not.toMatch(/ExceptionHandler|\n\s+at /);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
  });
});

/** The first line of the service's output that contains `text` (waits up to 5 s for it). */
function waitForLine(service: ChildService, text: string): Promise<string> {
  return waitFor(`a log line with ${text}`, async () => service.output.split('\n').find((l) => l.includes(text)), 5_000, 50);
}
