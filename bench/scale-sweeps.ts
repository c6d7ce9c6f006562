/** bench:scale's `--sweeps`: the forgetting and tiering sweeps, timed over every tenant. */
import { NO_SCHEDULES, loadConfig } from '@engram/config';
import { JWT_SECRET, log, type Tenant } from './scale-api';

const ROOT = `${__dirname}/..`;
const DAY = 86_400_000;

/** Forgetting then tiering over every tenant, in this process (the worker's code, from dist), at now + 30 days. */
export async function runSweeps(appUrl: string, tenants: Tenant[], memories: number): Promise<Record<string, number>> {
  const { createApp } = (await import(`${ROOT}/dist/apps/api/src/create-app.js`)) as typeof import('../apps/api/src/create-app');
  const { ForgettingJob, TieringJob } = (await import(`${ROOT}/dist/libs/jobs/src/index.js`)) as typeof import('@engram/jobs');
  const config = loadConfig({ DATABASE_URL: appUrl, JWT_SECRET, LOG_LEVEL: 'silent', ...NO_SCHEDULES });
  const app = await createApp(config);
  await app.init();
  const sweeps = { forgetting: app.get(ForgettingJob), tiering: app.get(TieringJob) };
  const at = new Date(Date.now() + 30 * DAY);
  const out: Record<string, number> = {};
  // Each sweep twice at the same instant: first with every memory due (a catch-up: the seeded
  // memories were last snapshotted when they were made), then again, when nothing has changed
  // (the steady state between two runs: the cost of looking).
  for (const pass of ['due', 'idle'] as const) {
    for (const kind of ['forgetting', 'tiering'] as const) {
      const t0 = Date.now();
      for (const t of tenants) {
        const report = await sweeps[kind].run(t.id, at);
        for (const [k, v] of Object.entries(report)) out[`${pass}_${kind}_${k}`] = (out[`${pass}_${kind}_${k}`] ?? 0) + v;
      }
      const seconds = (Date.now() - t0) / 1000;
      out[`${pass}_${kind}_seconds`] = +seconds.toFixed(1);
      out[`${pass}_${kind}_memories_per_second`] = Math.round(memories / seconds);
      log(`${kind} sweep (${pass}) over ${tenants.length} tenants, ${memories} memories: ${seconds.toFixed(1)} s`);
    }
  }
  await app.close();
  return out;
}

/**
 * The association graph built over every tenant (issue 19): AssociationJob.run per tenant, in
 * this process (the worker's code, from dist), timed. The seeded memories have never been linked.
 * @returns memories linked, links written, seconds, memories linked per second
 */
export async function runAssociations(appUrl: string, tenants: Tenant[]): Promise<Record<string, number>> {
  const { createApp } = (await import(`${ROOT}/dist/apps/api/src/create-app.js`)) as typeof import('../apps/api/src/create-app');
  const { AssociationJob } = (await import(`${ROOT}/dist/libs/jobs/src/index.js`)) as typeof import('@engram/jobs');
  const config = loadConfig({ DATABASE_URL: appUrl, JWT_SECRET, LOG_LEVEL: 'silent', ...NO_SCHEDULES });
  const app = await createApp(config);
  await app.init();
  const job = app.get(AssociationJob);
  const t0 = Date.now();
  let linked = 0;
  let links = 0;
  for (const t of tenants) {
    const report = await job.run(t.id);
    linked += report.linked ?? 0;
    links += report.links ?? 0;
  }
  const seconds = (Date.now() - t0) / 1000;
  await app.close();
  log(`association graph over ${tenants.length} tenants: ${linked} memories linked, ${links} links, ${seconds.toFixed(1)} s`);
  return { linked, links, seconds: +seconds.toFixed(1), memories_linked_per_second: Math.round(linked / seconds) };
}
