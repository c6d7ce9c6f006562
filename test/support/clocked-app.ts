import { Client } from 'pg';
import { ManualClock } from '@engram/config';
import { startTestApp, type TestApp } from './test-app';

/**
 * A suite's app on a manual clock, with a connection as the tables' owner (reads every row,
 * row-level security aside): started before the suite's tests, closed after them. Read `t` and
 * `owner` inside tests (they are set by then).
 */
export function clockedAppWithOwner(start: string): { clock: ManualClock; t: TestApp; owner: Client } {
  const clock = new ManualClock(start);
  const app = { clock } as { clock: ManualClock; t: TestApp; owner: Client };
  beforeAll(async () => {
    app.t = await startTestApp({}, { clock });
    app.owner = new Client({ connectionString: app.t.db.ownerUrl });
    await app.owner.connect();
  });
  afterAll(async () => {
    await app.owner?.end();
    await app.t?.close();
  });
  return app;
}
